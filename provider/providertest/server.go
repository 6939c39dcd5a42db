// Package providertest is a scripted model server for tests of code that
// talks to models through package provider: the agent loop, RPC mode, the
// TUI end to end. It speaks the real wires over HTTP — Anthropic
// (/v1/messages), OpenAI Chat Completions (/v1/chat/completions), OpenAI
// Responses (/v1/responses) and Ollama's native API (/api/chat) — streaming
// text in several deltas, thinking, tool calls with their arguments in
// fragments, usage and stop reasons, or HTTP errors with bodies and headers.
// It records every request for assertions.
//
// A Server is safe for concurrent use. Close stops it and waits for its
// handlers.
package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/provider"
)

// Reply is one scripted answer.
type Reply struct {
	Text     string     // streamed as Chunks deltas
	Thinking string     // reasoning, streamed before the text
	Tools    []ToolCall // tool calls after the text, arguments in fragments
	// Stop is the stop reason; empty means tool_use when Tools is set, else
	// end_turn.
	Stop  provider.StopReason
	Usage provider.Usage // token counts to report (cost is ignored)
	// Chunks is how many deltas Text and Thinking are split into (default
	// 3); arguments go in as many fragments.
	Chunks int

	// Status, when set, makes this an HTTP error reply: ErrorType and
	// ErrorMessage fill the wire's error body (or Body replaces it).
	Status       int
	ErrorType    string
	ErrorMessage string
	Body         string

	// Header holds extra response headers (retry-after, x-should-retry,
	// request-id).
	Header map[string]string
	// Delay waits before answering; EventDelay waits between events, each
	// then flushed on its own. Without EventDelay the body goes out in
	// one write, as fast as the connection takes it (no client can tell
	// the difference without a delay to see it by).
	Delay      time.Duration
	EventDelay time.Duration
	// Cut ends the stream early: it sends the first half of the output
	// frames and never the closing ones (stop reason, usage, end marker).
	// A Reply with no output and Cut ends right after the opening frame, a
	// failure zut retries; one with output fails after it.
	Cut bool
	// Hang sends the headers and then nothing until the client goes away
	// (for idle-timeout and cancellation tests).
	Hang bool
}

// ToolCall is a tool call in a Reply. Args is a JSON object ("" means {}).
type ToolCall struct {
	ID   string
	Name string
	Args string
}

// Recorded is one request the server received.
type Recorded struct {
	N      int           // 0-based request number
	Wire   provider.Wire // from the path
	Path   string
	Header http.Header // request headers without credentials
	HasKey bool        // a credential header was present
	// Bearer is the token of an Authorization: Bearer header, for tests
	// of sign-ins ("" without one).
	Bearer string
	Body   map[string]any
	Raw    []byte
	Model  string
}

// Server is a running scripted model server.
type Server struct {
	// URL is the server root, for example http://127.0.0.1:41234.
	URL string

	srv    *httptest.Server
	decide func(Recorded) Reply
	mu     sync.Mutex
	reqs   []Recorded
	// frames caches the encoded bodies of replies answered before (a
	// looping script answers the same reply again and again), so that the
	// server's own encoding does not dominate a benchmark of the client.
	frames map[string]encoded
	seed   maphash.Seed // of the cache keys
}

// encoded is a reply's body as encode renders it: its frames, and the
// frames joined, for the writes of a reply without EventDelay (whole, and
// cut as Cut cuts it).
type encoded struct {
	frames    []string
	tail      int
	whole     string
	cutBefore string
	// text and thinking are those of the reply, which the cache key
	// stands for by their hashes.
	text, thinking string
}

func newEncoded(frames []string, tail int) encoded {
	return encoded{frames: frames, tail: tail,
		whole: strings.Join(frames, ""), cutBefore: strings.Join(frames[:(tail+1)/2], "")}
}

// maxEncoded bounds the cache of encoded replies; past it the cache starts
// over.
const maxEncoded = 64

// NewServer starts a server answering the n-th request with replies[n].
// Requests past the end get a 500 naming the problem, so a test that makes
// more model calls than it scripted fails loudly.
func NewServer(replies ...Reply) *Server {
	return NewHandler(replies...).start()
}

// NewServerFunc starts a server that asks decide for each reply. decide may
// run concurrently for concurrent requests.
func NewServerFunc(decide func(r Recorded) Reply) *Server {
	return (&Server{decide: decide}).start()
}

// NewHandler is NewServer without the listener: the Server is an
// http.Handler to mount on a server of the caller's (cmd/fakemodel listens
// on a chosen address). Its URL is empty and Close does nothing.
func NewHandler(replies ...Reply) *Server {
	return &Server{decide: func(r Recorded) Reply {
		if r.N < len(replies) {
			return replies[r.N]
		}
		return Reply{Status: http.StatusInternalServerError, ErrorType: "api_error",
			ErrorMessage: fmt.Sprintf("providertest: request %d has no scripted reply (%d scripted)", r.N+1, len(replies))}
	}}
}

// NewHandlerFunc is NewServerFunc without the listener (see NewHandler).
func NewHandlerFunc(decide func(r Recorded) Reply) *Server {
	return &Server{decide: decide}
}

func (s *Server) start() *Server {
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, ending hanging replies.
func (s *Server) Close() {
	if s.srv == nil {
		return
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// BaseURL is the base URL a client of wire w needs.
func (s *Server) BaseURL(w provider.Wire) string {
	switch w {
	case provider.WireChat, provider.WireResponses, provider.WireCodex:
		return s.URL + "/v1"
	}
	return s.URL
}

// Client returns a client of wire w pointed at the server, with the key
// "test-key", retries of 1 ms and the given catalog model (nil is fine).
func (s *Server) Client(w provider.Wire, model *provider.Model) provider.Client {
	cfg := provider.Config{
		Provider: "test",
		BaseURL:  s.BaseURL(w),
		APIKey:   "test-key",
		Retry:    provider.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond},
		Model:    model,
	}
	return provider.NewClient(w, cfg, provider.ChatQuirks{})
}

func wireOf(path string) (provider.Wire, bool) {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return provider.WireAnthropic, true
	case strings.HasSuffix(path, "/chat/completions"):
		return provider.WireChat, true
	case strings.HasSuffix(path, "/responses"):
		return provider.WireResponses, true
	case path == "/api/chat":
		return provider.WireOllama, true
	}
	return "", false
}

var secretHeaders = []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.serveModels(w, r)
		return
	}
	wire, ok := wireOf(r.URL.Path)
	if !ok {
		http.Error(w, `{"error":{"message":"providertest: unknown path `+r.URL.Path+`","type":"not_found_error"}}`, http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	rec := Recorded{Wire: wire, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		rec.Bearer = t
	}
	for _, h := range secretHeaders {
		if rec.Header.Get(h) != "" {
			rec.HasKey = true
		}
		rec.Header.Del(h)
	}
	json.Unmarshal(raw, &rec.Body)
	rec.Model, _ = rec.Body["model"].(string)
	s.mu.Lock()
	rec.N = len(s.reqs)
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	reply := s.decide(rec)
	if reply.Delay > 0 && !sleep(r, reply.Delay) {
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 {
		writeError(w, wire, reply)
		return
	}
	if wire == provider.WireOllama {
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.Header().Set("Request-Id", fmt.Sprintf("req_test_%d", rec.N))
	w.WriteHeader(http.StatusOK)
	flush(w)
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	enc := s.encode(wire, rec, reply)
	if reply.EventDelay <= 0 {
		// One write: the connection takes the body as fast as it can.
		body := enc.whole
		if reply.Cut {
			body = enc.cutBefore
		}
		io.WriteString(w, body)
		return
	}
	frames := enc.frames
	if reply.Cut {
		frames = frames[:(enc.tail+1)/2]
	}
	for i, f := range frames {
		if i > 0 && reply.EventDelay > 0 && !sleep(r, reply.EventDelay) {
			return
		}
		if _, err := io.WriteString(w, f); err != nil {
			return
		}
		if reply.EventDelay > 0 {
			flush(w)
		}
	}
}

// encode is encode of the package, remembered per wire, model and reply.
func (s *Server) encode(wire provider.Wire, rec Recorded, r Reply) encoded {
	// The key holds the long strings of the reply as hashes (printing
	// them would cost more than the rest of the request); a hit compares
	// them whole.
	k := r
	k.Text, k.Thinking = "", ""
	s.mu.Lock()
	if s.seed == (maphash.Seed{}) {
		s.seed = maphash.MakeSeed()
	}
	seed := s.seed
	s.mu.Unlock()
	key := fmt.Sprintf("%s\x00%s\x00%x\x00%x\x00%#v", wire, rec.Model, maphash.String(seed, r.Text), maphash.String(seed, r.Thinking), k)
	s.mu.Lock()
	e, ok := s.frames[key]
	s.mu.Unlock()
	if ok && e.text == r.Text && e.thinking == r.Thinking {
		return e
	}
	e = newEncoded(encode(wire, rec, r))
	e.text, e.thinking = r.Text, r.Thinking
	s.mu.Lock()
	if s.frames == nil || len(s.frames) >= maxEncoded {
		s.frames = make(map[string]encoded)
	}
	s.frames[key] = e
	s.mu.Unlock()
	return e
}

// serveModels answers the model list endpoints (/v1/models, /api/tags).
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/models"):
		io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
	case r.URL.Path == "/api/tags":
		io.WriteString(w, `{"models":[{"name":"test-model"}]}`)
	default:
		http.NotFound(w, r)
	}
}

func sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// writeError writes an error body in the wire's format.
func writeError(w http.ResponseWriter, wire provider.Wire, r Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	if r.Body != "" {
		io.WriteString(w, r.Body)
		return
	}
	typ := r.ErrorType
	if typ == "" {
		typ = "api_error"
	}
	var body any
	switch wire {
	case provider.WireAnthropic:
		body = map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": r.ErrorMessage}}
	case provider.WireOllama:
		body = map[string]string{"error": r.ErrorMessage}
	default:
		body = map[string]any{"error": map[string]any{"message": r.ErrorMessage, "type": typ, "code": typ}}
	}
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(body)
	w.Write(b.Bytes())
}
