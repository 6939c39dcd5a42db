package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHTTP serves the fake server over Streamable HTTP (at /mcp) and over
// the old HTTP+SSE transport (GET /sse, POST /messages).
type fakeHTTP struct {
	t       *testing.T
	sse     bool // answer requests with an SSE stream instead of JSON
	resume  bool // break the stream of tools/call "slow" after a priming event
	expire  bool // forget the session after the first tools/list
	slowGET bool // take a while to open the GET stream, as a loaded server may
	version string

	mu       sync.Mutex
	sessions map[string]*fakeState
	nextID   int
	push     map[string]chan []byte // GET stream (or legacy stream) of each session
	parked   map[string][][]byte    // events of a broken stream, by last event id
	deleted  []string
	headers  []http.Header // of every request to /mcp
	dropped  int           // messages lost for want of a GET stream
	expired  bool
}

func newFakeHTTP(t *testing.T) *fakeHTTP {
	return &fakeHTTP{t: t, sessions: map[string]*fakeState{}, push: map[string]chan []byte{}, parked: map[string][][]byte{}}
}

func (h *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/mcp":
		h.streamable(w, r)
	case "/sse":
		if r.Method != http.MethodGet {
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		h.legacyStream(w, r)
	case "/messages":
		h.legacyPost(w, r)
	default:
		http.NotFound(w, r)
	}
}

func writeEvent(w io.Writer, id string, data []byte) {
	if id != "" {
		fmt.Fprintf(w, "id: %s\n", id)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func (h *fakeHTTP) streamable(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.headers = append(h.headers, r.Header.Clone())
	h.mu.Unlock()
	session := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodDelete:
		h.mu.Lock()
		h.deleted = append(h.deleted, session)
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet:
		if last := r.Header.Get("Last-Event-ID"); last != "" {
			h.mu.Lock()
			events := h.parked[last]
			delete(h.parked, last)
			h.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			for i, e := range events {
				writeEvent(w, fmt.Sprintf("%s-%d", last, i+1), e)
			}
			return
		}
		if h.slowGET {
			time.Sleep(200 * time.Millisecond)
		}
		h.mu.Lock()
		ch := h.push[session]
		if ch == nil {
			ch = make(chan []byte, 10)
			h.push[session] = ch
		}
		h.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case m := <-ch:
				writeEvent(w, "", m)
			}
		}
	}
	body, _ := io.ReadAll(r.Body)
	var m fakeMsg
	if json.Unmarshal(body, &m) != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	st := h.sessions[session]
	if m.Method == "initialize" {
		h.nextID++
		session = fmt.Sprintf("sess-%d", h.nextID)
		st = newFakeState()
		h.sessions[session] = st
	}
	if h.expire && h.expired && session == "sess-1" {
		st = nil
	}
	h.mu.Unlock()
	if st == nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", session)
	}
	if len(m.ID) == 0 || m.Method == "" { // notification or response
		f := &fakeServer{mode: "ok", version: h.version, fakeState: st, send: func(any) {}}
		f.handle(body, nil, nil, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var (
		wmu    sync.Mutex
		closed bool // the handler returned: w is no longer ours
		out    [][]byte
		sse    = h.sse
		park   = h.resume && m.Method == "tools/call" && strings.Contains(string(body), `"slow"`)
	)
	if sse || park {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if park {
		fmt.Fprint(w, "id: park1\nretry: 10\ndata:\n\n")
		w.(http.Flusher).Flush()
	}
	done := make(chan struct{})
	var once sync.Once
	// Messages the fake sends once the handler has returned (the client
	// went away, or more came after the answer) are dropped: net/http
	// owns the ResponseWriter again.
	defer func() {
		wmu.Lock()
		closed = true
		wmu.Unlock()
	}()
	f := &fakeServer{mode: "ok", version: h.version, fakeState: st, send: func(v any) {
		b, _ := json.Marshal(v)
		isAnswer := strings.Contains(string(b), `"id":`+string(m.ID)) && !strings.Contains(string(b), `"method"`)
		wmu.Lock()
		defer wmu.Unlock()
		switch {
		case park:
			out = append(out, b)
		case sse && closed:
		case sse:
			writeEvent(w, "", b)
		case isAnswer:
			out = append(out, b)
		default: // JSON mode: other messages go to the GET stream
			h.mu.Lock()
			ch := h.push[session]
			h.mu.Unlock()
			if ch != nil {
				ch <- b
			} else {
				// As the official SDK's server does: with no GET
				// stream open, a message it starts is dropped.
				h.dropped++
			}
		}
		if isAnswer {
			once.Do(func() { close(done) })
		}
	}}
	go f.handle(body, nil, nil, nil)
	select {
	case <-done:
	case <-r.Context().Done():
		return
	}
	wmu.Lock()
	defer wmu.Unlock()
	switch {
	case park:
		h.mu.Lock()
		h.parked["park1"] = out
		h.mu.Unlock()
	case !sse:
		w.Write(out[0])
	}
	if m.Method == "tools/list" && h.expire {
		h.mu.Lock()
		h.expired = true
		h.mu.Unlock()
	}
}

func (h *fakeHTTP) legacyStream(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.nextID++
	session := fmt.Sprintf("legacy-%d", h.nextID)
	ch := make(chan []byte, 100)
	h.push[session] = ch
	h.sessions[session] = newFakeState()
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: endpoint\ndata: /messages?sessionId=%s\n\n", session)
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case m := <-ch:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
			w.(http.Flusher).Flush()
		}
	}
}

func (h *fakeHTTP) legacyPost(w http.ResponseWriter, r *http.Request) {
	session := r.URL.Query().Get("sessionId")
	h.mu.Lock()
	ch, st := h.push[session], h.sessions[session]
	h.mu.Unlock()
	if ch == nil {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f := &fakeServer{mode: "ok", version: "2025-03-26", fakeState: st, send: func(v any) {
		b, _ := json.Marshal(v)
		ch <- b
	}}
	go f.handle(body, nil, nil, bufio.NewWriter(io.Discard))
	w.WriteHeader(http.StatusAccepted)
}

func httpConfig(name, url string) ServerConfig {
	return ServerConfig{Name: name, Origin: OriginGlobal, Transport: "http", URL: url, Enabled: true, Headers: map[string]string{"X-Custom": "yes"}}
}

func TestStreamableHTTP(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			checkNoLeaks(t)
			h := newFakeHTTP(t)
			h.sse = sse
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, err := Connect(context.Background(), httpConfig("web", srv.URL+"/mcp"), ConnectOptions{Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if c.Transport() != "http" || c.Version() != Versions[0] {
				t.Errorf("Transport, Version = %q %q", c.Transport(), c.Version())
			}
			tools, err := c.Tools(context.Background())
			if err != nil || len(tools) != 16 {
				t.Fatalf("Tools() = %d, %v", len(tools), err)
			}
			res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"over http"}`), nil)
			if err != nil || res.Text() != "over http" {
				t.Fatalf("CallTool = %v, %v", res, err)
			}
			if sse {
				var n int
				res, err = c.CallTool(context.Background(), "slow", nil, func(Progress) { n++ })
				if err != nil || n != 3 {
					t.Errorf("slow over SSE = %v, %v, %d progress", res, err, n)
				}
				res, err = c.CallTool(context.Background(), "pingback", nil, nil)
				if err != nil || res.Text() != "ping answer: {}" {
					t.Errorf("server ping over SSE = %v, %v", res, err)
				}
			}
			c.Close()
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(h.deleted) != 1 || h.deleted[0] != "sess-1" {
				t.Errorf("DELETEd sessions = %v, want [sess-1]", h.deleted)
			}
			for i, hd := range h.headers {
				if hd.Get("X-Custom") != "yes" {
					t.Errorf("request %d lacks the configured header", i)
				}
				if i > 0 && (hd.Get("Mcp-Session-Id") != "sess-1" || hd.Get("Mcp-Protocol-Version") != Versions[0]) {
					t.Errorf("request %d: session %q version %q", i, hd.Get("Mcp-Session-Id"), hd.Get("Mcp-Protocol-Version"))
				}
			}
		})
	}
}

func TestStreamableGETStream(t *testing.T) {
	h := newFakeHTTP(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ev := newEvents()
	m := NewManager(Options{Home: t.TempDir(), Config: &Config{Servers: []ServerConfig{httpConfig("web", srv.URL+"/mcp")}}, Callbacks: ev.callbacks()})
	defer m.Close()
	m.Wait(context.Background())
	// Connect waited for the GET stream: the notification has a way.
	if _, err := m.Call(context.Background(), "mcp__web__change", nil, nil); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(toolNames(m), "mcp__web__added") {
		<-ev.tools
	}
}

// TestStreamableGETBeforeFirstCall: Connect returns only once the GET
// stream is open, so that a request the server starts on it during the
// first call (an elicitation, as the conformance suite's server sends) is
// not lost, even when the server is slow to open the stream.
func TestStreamableGETBeforeFirstCall(t *testing.T) {
	h := newFakeHTTP(t)
	h.slowGET = true
	srv := httptest.NewServer(h)
	defer srv.Close()
	opts := ConnectOptions{Home: t.TempDir(), ClientOptions: ClientOptions{
		Elicitation: func(ctx context.Context, server string, req ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}}}
	c, err := Connect(context.Background(), httpConfig("web", srv.URL+"/mcp"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The bound is for the failure only: with the elicitation lost, the
	// call would wait for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "elicit", nil, nil)
	h.mu.Lock()
	dropped := h.dropped
	h.mu.Unlock()
	if err != nil || !strings.Contains(res.Text(), `"Ada"`) {
		t.Fatalf("elicit = %v, %v (%d messages dropped for want of a GET stream)", res, err, dropped)
	}
}

func TestStreamableResume(t *testing.T) {
	h := newFakeHTTP(t)
	h.resume = true
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := Connect(context.Background(), httpConfig("web", srv.URL+"/mcp"), ConnectOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	res, err := c.CallTool(context.Background(), "slow", nil, func(Progress) { n++ })
	if err != nil || res.Text() != "done" || n != 3 {
		t.Fatalf("CallTool over a broken, resumed stream = %v, %v, %d progress", res, err, n)
	}
	if !strings.Contains(readLog(t, c.LogPath()), `resuming the event stream after event "park1"`) {
		t.Errorf("the log does not record the resumption")
	}
}

func TestStreamableSessionExpiry(t *testing.T) {
	h := newFakeHTTP(t)
	h.expire = true
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := Connect(context.Background(), httpConfig("web", srv.URL+"/mcp"), ConnectOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"new session"}`), nil)
	if err != nil || res.Text() != "new session" {
		t.Fatalf("CallTool after the session expired = %v, %v", res, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.nextID != 2 {
		t.Errorf("sessions started = %d, want 2", h.nextID)
	}
}

func TestLegacySSE(t *testing.T) {
	for _, typ := range []string{"sse", "http"} { // "http" falls back after POST /sse is refused
		t.Run(typ, func(t *testing.T) {
			checkNoLeaks(t)
			h := newFakeHTTP(t)
			srv := httptest.NewServer(h)
			defer srv.Close()
			cfg := httpConfig("old", srv.URL+"/sse")
			cfg.Transport = typ
			c, err := Connect(context.Background(), cfg, ConnectOptions{Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if c.Transport() != "sse" || c.Version() != "2025-03-26" {
				t.Errorf("Transport, Version = %q %q; want sse 2025-03-26", c.Transport(), c.Version())
			}
			res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"old school"}`), nil)
			if err != nil || res.Text() != "old school" {
				t.Fatalf("CallTool = %v, %v", res, err)
			}
			c.Close()
		})
	}
}

func TestHTTPBadAnswers(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"server error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, "HTTP 500 Internal Server Error: boom"},
		{"wrong content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>")
		}, `Content-Type "text/html"`},
		{"oversized JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"x":"`))
			w.Write([]byte(strings.Repeat("a", MaxMessage)))
		}, "longer than"},
		{"stream ends without an answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, ": nothing\n\n")
		}, "closed the event stream before answering"},
		{"unauthorized without oauth metadata", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
			w.WriteHeader(401)
		}, "no protected resource metadata"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkNoLeaks(t)
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, err := Connect(context.Background(), httpConfig("bad", srv.URL+"/mcp"), ConnectOptions{Home: t.TempDir(),
				AuthPrompt: func(string, string) { t.Error("no prompt expected") }})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"bad"`) {
				t.Errorf("Connect = %v, want an error naming bad and containing %q", err, tc.want)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for !cond() {
			runtimeGosched()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-timeAfter(hangGuard):
		t.Fatal("condition never became true")
	}
}
