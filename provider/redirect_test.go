package provider

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// headerRecorder is the second server a redirect points at: it keeps the
// headers of every request it gets and answers with a complete stream.
type headerRecorder struct {
	mu   sync.Mutex
	seen []http.Header
	body []byte
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Clone())
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(h.body)
}

func (h *headerRecorder) requests() []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen
}

func runStream(c Client) error {
	s, err := c.Stream(context.Background(), &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err != nil {
		return err
	}
	defer s.Close()
	for s.Next() {
	}
	return s.Err()
}

// TestRedirectDropsCredentials: a 307 to a second loopback server (another
// port: another origin) reaches it without any credential header, for each
// wire and for a key in a caller's extra header.
func TestRedirectDropsCredentials(t *testing.T) {
	tests := []struct {
		name   string
		client func(cfg Config) Client
		body   string // fixture the second server answers with
		header http.Header
	}{
		{name: "anthropic x-api-key", client: func(cfg Config) Client { return &Anthropic{Config: cfg} }, body: "anthropic-text.sse"},
		{name: "chat bearer", client: func(cfg Config) Client { return &Chat{Config: cfg} }, body: "chat-text.sse"},
		{name: "azure api-key in extra headers", client: func(cfg Config) Client { return &Chat{Config: cfg} }, body: "chat-text.sse",
			header: http.Header{"Api-Key": {testKey}, "X-Custom-Auth": {testKey}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &headerRecorder{body: fixture(t, tc.body)}
			second := httptest.NewServer(rec)
			defer second.Close()
			var firstAuth http.Header
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				firstAuth = r.Header.Clone()
				http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer first.Close()
			cfg := testConfig(first.URL)
			cfg.Header = tc.header
			if err := runStream(tc.client(cfg)); err != nil {
				t.Fatalf("stream through the redirect: %v", err)
			}
			if !strings.Contains(strings.Join(append(firstAuth.Values("X-Api-Key"), firstAuth.Values("Authorization")...), " ")+firstAuth.Get("Api-Key"), testKey) {
				t.Fatalf("the first server got no key (headers %v): the test proves nothing", firstAuth)
			}
			reqs := rec.requests()
			if len(reqs) != 1 {
				t.Fatalf("second server got %d requests, want 1", len(reqs))
			}
			for name, vals := range reqs[0] {
				for _, v := range vals {
					if strings.Contains(v, testKey) {
						t.Errorf("second server got the key in header %s: %q", name, v)
					}
				}
			}
		})
	}
}

// TestRedirectSameOriginKeepsKey: a redirect inside the same server keeps
// the key (a proxy moving a path is not another host).
func TestRedirectSameOriginKeepsKey(t *testing.T) {
	var got string
	body := fixture(t, "anthropic-text.sse")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/new/v1/messages" {
			http.Redirect(w, r, "/new"+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		got = r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	defer srv.Close()
	if err := runStream(&Anthropic{Config: testConfig(srv.URL)}); err != nil {
		t.Fatal(err)
	}
	if got != testKey {
		t.Fatalf("x-api-key after a same-origin redirect = %q, want the key", got)
	}
}

// TestRedirectHTTPSToHTTPRefused: a TLS server redirecting to plain HTTP
// gets an error naming the refusal, and the plain server sees nothing.
func TestRedirectHTTPSToHTTPRefused(t *testing.T) {
	rec := &headerRecorder{body: fixture(t, "anthropic-text.sse")}
	plain := httptest.NewServer(rec)
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer tlsSrv.Close()
	cfg := testConfig(tlsSrv.URL)
	cfg.HTTPClient = tlsSrv.Client()
	err := runStream(&Anthropic{Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "refused a redirect from https to http") {
		t.Fatalf("stream = %v, want the https→http refusal", err)
	}
	var ce *ConnError
	if errors.As(err, &ce) && ce.Attempts > 1 {
		t.Errorf("a refused redirect was retried %d times", ce.Attempts)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("the plain HTTP server got %d requests, want 0", n)
	}
}
