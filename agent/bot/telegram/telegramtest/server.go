// Package telegramtest is a fake Telegram Bot API server for tests: real
// HTTP over loopback (httptest) implementing the methods zut uses. Every
// request is checked against the Bot API description (the conformance
// corpus's api.json when ZUT_CONFORMANCE_DIR is set, else a built-in list
// of the methods zut uses): an unknown method, an unknown or missing
// parameter, a value of the wrong type, markup Telegram could not parse and
// text over the length limits fail the test. Tests script updates (texts,
// documents, photos, button presses, anything raw), inject faults (429 with
// retry_after, 409, 401, dropped connections) and wait for what the bot
// sent.
package telegramtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// User is a Telegram user the test scripts.
type User struct {
	ID        int64
	FirstName string
	Username  string
}

func (u User) json() map[string]any {
	m := map[string]any{"id": u.ID, "is_bot": false, "first_name": u.FirstName}
	if u.Username != "" {
		m["username"] = u.Username
	}
	return m
}

// Fault is what the next call of a method answers instead of its result.
type Fault struct {
	Code        int    // HTTP status and error_code, e.g. 429, 409, 401, 500
	Description string // default: the status text
	RetryAfter  int    // seconds, for 429
	Disconnect  bool   // close the connection without an answer
}

// Call is one request the server received.
type Call struct {
	Method string
	At     time.Time      // when it arrived
	Params map[string]any // JSON values (numbers as json.Number); form fields as strings
	Files  map[string]Upload
}

// String returns the parameter name as a string ("" when absent).
func (c Call) String(name string) string {
	switch v := c.Params[name].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// Upload is a file sent with multipart/form-data.
type Upload struct {
	FileName    string
	ContentType string
	Data        []byte
}

// Sent is a message the bot sent, as the chat shows it now.
type Sent struct {
	Chat      int64
	ID        int64
	Text      string   // after parsing the markup (the caption for files)
	Entities  []Entity // UTF-16 offsets
	ParseMode string
	Source    string     // the text as sent, before parsing
	Buttons   [][]Button // the inline keyboard, if any
	Edits     int
	File      *Upload // sendDocument and sendPhoto
	Method    string  // sendMessage, sendDocument or sendPhoto
}

// Button is an inline keyboard button.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

type update struct {
	id        int64
	body      map[string]any
	delivered int
}

type file struct {
	path string
	data []byte
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	URL   string // the base URL, like https://api.telegram.org
	Token string
	// Schema is what requests are checked against; Conformance is true
	// when it is the corpus's api.json.
	Schema      *Schema
	Conformance bool

	t  testing.TB
	hs *httptest.Server

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	bot       map[string]any
	updates   []*update
	nextID    int64 // the next update_id
	confirmed int64 // updates with a lower id are confirmed
	calls     []Call
	faults    map[string][]Fault
	chats     map[int64]string // chat id → type
	sent      []*Sent
	nextMsg   int64
	files     map[string]*file
	callbacks map[string]bool
	pollGen   int
}

// New starts a server for the bot token; it is closed when the test ends.
func New(t testing.TB, token string) *Server {
	t.Helper()
	schema, conf, err := LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		Token: token, Schema: schema, Conformance: conf, t: t,
		changed: make(chan struct{}),
		bot:     map[string]any{"id": int64(7000001), "is_bot": true, "first_name": "Zut Test", "username": "zut_test_bot", "can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false},
		nextID:  100, nextMsg: 1,
		faults: map[string][]Fault{}, chats: map[int64]string{}, files: map[string]*file{}, callbacks: map[string]bool{},
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.hs.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; waiting long polls end.
func (s *Server) Close() {
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// BotUsername is the bot's username without "@".
func (s *Server) BotUsername() string { return s.bot["username"].(string) }

func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Fail makes the next call of method answer f; faults queue in order.
func (s *Server) Fail(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], f)
}

// Calls returns the calls of method so far ("" for all).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// CallTimes returns when the calls of method arrived.
func (s *Server) CallTimes(method string) []time.Time {
	var out []time.Time
	for _, c := range s.Calls(method) {
		out = append(out, c.At)
	}
	return out
}

// Sent returns the messages sent to chat, oldest first.
func (s *Server) Sent(chat int64) []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Sent
	for _, m := range s.sent {
		if m.Chat == chat {
			out = append(out, *m)
		}
	}
	return out
}

// Deliveries reports how many times getUpdates returned the update id.
func (s *Server) Deliveries(id int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.updates {
		if u.id == id {
			return u.delivered
		}
	}
	return 0
}

// Pending reports how many updates are not confirmed yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.updates {
		if u.id >= s.confirmed {
			n++
		}
	}
	return n
}

// Redeliver forgets every confirmation, as if the bot's getUpdates calls
// with a higher offset had never arrived: a bot that does not persist its
// offset will see the old updates again.
func (s *Server) Redeliver() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.confirmed = 0
	s.changedLocked()
}

// Wait blocks until cond is true, re-checking after every request and
// update; it fails the test after a minute (a hang guard, not a timing).
func (s *Server) Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("telegramtest: timed out waiting for %s", what)
		}
	}
}

// WaitSent waits for a message in chat for which match is true and returns
// it.
func (s *Server) WaitSent(t testing.TB, chat int64, what string, match func(Sent) bool) Sent {
	t.Helper()
	var found Sent
	s.Wait(t, what, func() bool {
		for _, m := range s.Sent(chat) {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// WaitCall waits for a call of method for which match is true.
func (s *Server) WaitCall(t testing.TB, method string, match func(Call) bool) Call {
	t.Helper()
	var found Call
	s.Wait(t, "a "+method+" call", func() bool {
		for _, c := range s.Calls(method) {
			if match == nil || match(c) {
				found = c
				return true
			}
		}
		return false
	})
	return found
}

func (s *Server) fail(format string, v ...any) {
	s.t.Helper()
	s.t.Errorf("telegramtest: "+format, v...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		s.fail("request to %s, which is not /bot<token>/<method>", r.URL.Path)
		writeError(w, 404, "Not Found", 0)
		return
	}
	if token != s.Token {
		writeError(w, 401, "Unauthorized", 0)
		return
	}
	call, err := readCall(method, r)
	if err != nil {
		s.fail("%s: %v", method, err)
		writeError(w, 400, "Bad Request: "+err.Error(), 0)
		return
	}
	probs := s.Schema.checkMethod(method, paramValues(call, r))
	s.mu.Lock()
	s.calls = append(s.calls, call)
	var fault *Fault
	if q := s.faults[method]; len(q) > 0 {
		fault = &q[0]
		s.faults[method] = q[1:]
	}
	s.changedLocked()
	s.mu.Unlock()
	if len(probs) > 0 {
		for _, p := range probs {
			s.fail("%s", p)
		}
		code := 400
		if _, known := s.Schema.Methods[method]; !known {
			code = 404
		}
		writeError(w, code, "Bad Request: "+probs[0], 0)
		return
	}
	if fault != nil {
		if fault.Disconnect {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
		}
		desc := fault.Description
		if desc == "" {
			desc = http.StatusText(fault.Code)
			if fault.Code == 429 {
				desc = fmt.Sprintf("Too Many Requests: retry after %d", fault.RetryAfter)
			}
		}
		writeError(w, fault.Code, desc, fault.RetryAfter)
		return
	}
	result, code, desc := s.handle(r, call)
	if code != 0 {
		writeError(w, code, desc, 0)
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "result": result})
}

func writeError(w http.ResponseWriter, code int, desc string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": desc}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// readCall decodes the parameters of a request: a JSON body, a multipart
// form, a urlencoded form or the query string.
func readCall(method string, r *http.Request) (Call, error) {
	c := Call{Method: method, At: time.Now(), Params: map[string]any{}, Files: map[string]Upload{}}
	for k, v := range r.URL.Query() {
		c.Params[k] = v[0]
	}
	if r.Method == http.MethodGet || r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return c, nil
	}
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return c, fmt.Errorf("bad Content-Type %q: %v", r.Header.Get("Content-Type"), err)
	}
	switch ct {
	case "application/json":
		d := json.NewDecoder(io.LimitReader(r.Body, 10<<20))
		d.UseNumber()
		var body map[string]any
		if err := d.Decode(&body); err != nil {
			return c, fmt.Errorf("the JSON body does not decode to an object: %v", err)
		}
		for k, v := range body {
			c.Params[k] = v
		}
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return c, fmt.Errorf("read the multipart body: %v", err)
			}
			data, err := io.ReadAll(io.LimitReader(p, 60<<20))
			if err != nil {
				return c, fmt.Errorf("read part %q: %v", p.FormName(), err)
			}
			if p.FileName() != "" {
				c.Files[p.FormName()] = Upload{FileName: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data}
			} else {
				c.Params[p.FormName()] = string(data)
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return c, err
		}
		for k, v := range r.PostForm {
			c.Params[k] = v[0]
		}
	default:
		return c, fmt.Errorf("unsupported Content-Type %q", ct)
	}
	return c, nil
}

// paramValues prepares a call's parameters for the schema: form fields
// are strings, JSON values are values, uploads are files. A form field
// "attach://name" refers to an upload.
func paramValues(c Call, r *http.Request) map[string]value {
	form := !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	out := map[string]value{}
	for k, v := range c.Params {
		if str, ok := v.(string); ok && form {
			if name, ok := strings.CutPrefix(str, "attach://"); ok {
				if _, up := c.Files[name]; up {
					out[k] = value{file: true}
					continue
				}
			}
			out[k] = value{form: &str}
			continue
		}
		out[k] = value{json: v}
	}
	for k := range c.Files {
		out[k] = value{file: true}
	}
	return out
}

func (s *Server) serveFile(w http.ResponseWriter, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	if token != s.Token {
		writeError(w, 401, "Unauthorized", 0)
		return
	}
	s.mu.Lock()
	var data []byte
	found := false
	for _, f := range s.files {
		if f.path == path {
			data, found = f.data, true
		}
	}
	s.mu.Unlock()
	if !found {
		writeError(w, 404, "Not Found", 0)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	io.Copy(w, bytes.NewReader(data))
}
