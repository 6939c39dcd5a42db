package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// testConfig is a client configuration for an httptest server with fast
// retries.
func testConfig(url string) Config {
	return Config{
		Provider:    "anthropic",
		BaseURL:     url,
		APIKey:      testKey,
		KeyHint:     "set ANTHROPIC_API_KEY or run zut with --api-key",
		Retry:       RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond},
		IdleTimeout: 5 * time.Second,
		Limits:      Limits{FirstByte: 5 * time.Second},
	}
}

func collect(s Stream) []Event {
	var evs []Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	return evs
}

func typesOf(evs []Event) string {
	var b []string
	for _, e := range evs {
		switch e.Type {
		case EventRequest:
			b = append(b, fmt.Sprintf("request(%d/%d)", e.Attempt, e.MaxAttempts))
		case EventRetry:
			b = append(b, fmt.Sprintf("retry(%d)", e.Attempt))
		default:
			b = append(b, e.Type.String())
		}
	}
	return strings.Join(b, " ")
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/streams/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// script is an httptest handler that answers each request with the next
// step; the last step repeats.
type script struct {
	steps []func(w http.ResponseWriter, r *http.Request)
	n     atomic.Int32
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(s.n.Add(1)) - 1
	s.steps[min(i, len(s.steps)-1)](w, r)
}

func sseBody(body []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}
}

func errorStatus(status int, body string, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestAnthropicSuccess(t *testing.T) {
	var got http.Header
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		json.NewDecoder(r.Body).Decode(&body)
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Request-Id", "req_123")
		sseBody(fixture(t, "anthropic-tools.sse"))(w, r)
	}))
	defer srv.Close()
	c := &Anthropic{Config: testConfig(srv.URL + "/v1/")}
	s, err := c.Stream(context.Background(), &Request{Model: "claude-opus-4-6", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs := collect(s)
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	want := "request(1/5) start text_delta tool_start tool_delta tool_delta tool_delta tool_end tool_start tool_end usage stop"
	if strings.Join(strings.Fields(strings.ReplaceAll(typesOf(evs), "usage ", "")), " ") != strings.ReplaceAll(want, "usage ", "") {
		t.Errorf("events = %s, want %s", typesOf(evs), want)
	}
	if evs[1].RequestID != "req_123" || evs[1].Model != "claude-opus-4-6" {
		t.Errorf("start event = %+v, want request ID req_123 and the model", evs[1])
	}
	if got.Get("X-Api-Key") != testKey || got.Get("Anthropic-Version") != anthropicVersion {
		t.Errorf("headers = %v, want x-api-key and anthropic-version", got)
	}
	if body["stream"] != true || body["max_tokens"] == nil {
		t.Errorf("body = %v, want stream true and max_tokens", body)
	}
	msg := s.Message()
	if len(msg.ToolUses()) != 2 || msg.Text() != "Reading both files." {
		t.Errorf("Message() = %+v", msg)
	}
}

func TestRetries(t *testing.T) {
	anthropicOK := sseBody(fixtureBytes("anthropic-text.sse"))
	tests := []struct {
		name     string
		steps    []func(http.ResponseWriter, *http.Request)
		attempts int
		wantErr  string // substring; "" for success
		wantSeq  string // request/retry sequence
		check    func(t *testing.T, evs []Event, err error)
	}{
		{
			name: "429 with retry-after-ms then success",
			steps: []func(http.ResponseWriter, *http.Request){
				errorStatus(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "Retry-After-Ms", "20"),
				anthropicOK,
			},
			wantSeq: "request(1/5) retry(1) request(2/5)",
			check: func(t *testing.T, evs []Event, err error) {
				r := evs[1]
				if r.Delay != 20*time.Millisecond {
					t.Errorf("retry delay = %v, want 20ms from retry-after-ms", r.Delay)
				}
				var ae *APIError
				if !errors.As(r.Err, &ae) || ae.Status != 429 || ae.Type != "rate_limit_error" {
					t.Errorf("retry Err = %v, want the 429 APIError", r.Err)
				}
			},
		},
		{
			name: "529 twice then success",
			steps: []func(http.ResponseWriter, *http.Request){
				errorStatus(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
				errorStatus(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
				anthropicOK,
			},
			wantSeq: "request(1/5) retry(1) request(2/5) retry(2) request(3/5)",
		},
		{
			name:    "401 is not retried",
			steps:   []func(http.ResponseWriter, *http.Request){errorStatus(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_9"}`)},
			wantErr: "anthropic: 401 authentication_error: invalid x-api-key — set ANTHROPIC_API_KEY or run zut with --api-key",
			wantSeq: "request(1/5)",
			check: func(t *testing.T, evs []Event, err error) {
				var ae *APIError
				if !errors.As(err, &ae) || ae.RequestID != "req_9" || ae.Attempts != 1 {
					t.Errorf("Err() = %#v, want APIError with request ID req_9 after 1 attempt", err)
				}
			},
		},
		{
			name:    "400 is not retried",
			steps:   []func(http.ResponseWriter, *http.Request){errorStatus(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}}`)},
			wantErr: "400 invalid_request_error: messages: field required",
			wantSeq: "request(1/5)",
		},
		{
			name:    "x-should-retry false wins over 500",
			steps:   []func(http.ResponseWriter, *http.Request){errorStatus(500, `{"type":"error","error":{"type":"api_error","message":"boom"}}`, "X-Should-Retry", "false")},
			wantErr: "500 api_error: boom",
			wantSeq: "request(1/5)",
		},
		{
			name: "x-should-retry true wins over 400",
			steps: []func(http.ResponseWriter, *http.Request){
				errorStatus(400, `{"type":"error","error":{"type":"invalid_request_error","message":"try again"}}`, "X-Should-Retry", "true"),
				anthropicOK,
			},
			wantSeq: "request(1/5) retry(1) request(2/5)",
		},
		{
			name:    "quota 429 is not retried",
			steps:   []func(http.ResponseWriter, *http.Request){errorStatus(429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`, "X-Should-Retry", "true")},
			wantErr: "insufficient_quota: You exceeded your current quota",
			wantSeq: "request(1/5)",
		},
		{
			name:     "attempts are bounded",
			steps:    []func(http.ResponseWriter, *http.Request){errorStatus(503, `upstream connect error`)},
			attempts: 3,
			wantErr:  "anthropic: 503 service unavailable: upstream connect error — the provider is overloaded",
			wantSeq:  "request(1/3) retry(1) request(2/3) retry(2) request(3/3)",
		},
		{
			name: "overloaded error event before output is retried",
			steps: []func(http.ResponseWriter, *http.Request){
				sseBody(fixtureBytes("anthropic-overloaded.sse")),
				anthropicOK,
			},
			wantSeq: "request(1/5) retry(1) request(2/5)",
		},
		{
			name: "stream cut before output is retried",
			steps: []func(http.ResponseWriter, *http.Request){
				sseBody([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_bl")),
				anthropicOK,
			},
			wantSeq: "request(1/5) retry(1) request(2/5)",
		},
		{
			name:    "stream cut after output is an error",
			steps:   []func(http.ResponseWriter, *http.Request){sseBody(fixtureBytes("anthropic-truncated.sse"))},
			wantErr: "ended early",
			wantSeq: "request(1/5)",
			check: func(t *testing.T, evs []Event, err error) {
				var ce *ConnError
				if !errors.As(err, &ce) || !ce.Truncated {
					t.Errorf("Err() = %v, want a truncated ConnError", err)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&script{steps: tc.steps})
			defer srv.Close()
			cfg := testConfig(srv.URL)
			cfg.Retry.MaxAttempts = tc.attempts
			if tc.attempts == 0 {
				cfg.Retry.MaxAttempts = 5
			}
			s, err := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs := collect(s)
			err = s.Err()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Err() = %v, want success", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Err() = %v, want it to contain %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("Err() = %q leaks the API key", err)
			}
			var seq []Event
			for _, e := range evs {
				if e.Type == EventRequest || e.Type == EventRetry {
					seq = append(seq, e)
				}
			}
			if got := typesOf(seq); got != tc.wantSeq {
				t.Errorf("attempts = %s, want %s", got, tc.wantSeq)
			}
			if tc.wantErr == "" && s.Message().Text() != "Hello, \"world\"\né😀" {
				t.Errorf("Message().Text() = %q after retries", s.Message().Text())
			}
			if tc.check != nil {
				tc.check(t, evs, err)
			}
		})
	}
}

func fixtureBytes(name string) []byte {
	b, err := os.ReadFile("testdata/streams/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

// hang answers nothing until the client goes away. It reads the request
// body first: the server only notices a closed connection after that.
func hang(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// headersThenHang sends headers and one event, then goes silent.
func headersThenHang(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func TestIdleTimeout(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantSeq string
		check   func(ce *ConnError) bool
		want    string // what the error must be
	}{
		{"no headers at all: first-byte deadline", hang, "request(1/2) retry(1) request(2/2)",
			func(ce *ConnError) bool { return ce.FirstByte == 50*time.Millisecond }, "a first-byte ConnError"},
		{"silent after output: progress window", headersThenHang, "request(1/2)",
			func(ce *ConnError) bool { return ce.Idle == 50*time.Millisecond }, "an idle ConnError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			cfg := testConfig(srv.URL)
			cfg.IdleTimeout = 50 * time.Millisecond
			cfg.Limits.FirstByte = 50 * time.Millisecond
			cfg.Retry.MaxAttempts = 2
			s, _ := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
			defer s.Close()
			evs := collect(s)
			var ce *ConnError
			if err := s.Err(); !errors.As(err, &ce) || !tc.check(ce) {
				t.Fatalf("Err() = %v, want %s", err, tc.want)
			}
			var seq []Event
			for _, e := range evs {
				if e.Type == EventRequest || e.Type == EventRetry {
					seq = append(seq, e)
				}
			}
			if got := typesOf(seq); got != tc.wantSeq {
				t.Errorf("attempts = %s, want %s", got, tc.wantSeq)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(headersThenHang))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := (&Anthropic{Config: testConfig(srv.URL)}).Stream(ctx, &Request{Model: "m"})
	defer s.Close()
	for s.Next() {
		if s.Event().Type == EventTextDelta {
			cancel() // the server keeps the stream open; Next must return at once
		}
	}
	if err := s.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err() = %v, want context.Canceled", err)
	}
	if got := s.Message().Text(); got != "Hi" {
		t.Errorf("Message().Text() = %q, want the text received before cancelling", got)
	}
}

func TestCloseDuringNext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(headersThenHang))
	defer srv.Close()
	s, _ := (&Anthropic{Config: testConfig(srv.URL)}).Stream(context.Background(), &Request{Model: "m"})
	for s.Next() {
		if s.Event().Type == EventTextDelta {
			go s.Close() // abort from another goroutine while Next blocks
		}
	}
	if err := s.Err(); !errors.Is(err, errClosed) {
		t.Fatalf("Err() = %v, want the stream closed error", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(errorStatus(429, `{}`, "Retry-After", "30")))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := (&Anthropic{Config: testConfig(srv.URL)}).Stream(ctx, &Request{Model: "m"})
	defer s.Close()
	for s.Next() {
		if e := s.Event(); e.Type == EventRetry {
			if e.Delay != 30*time.Second {
				t.Errorf("retry delay = %v, want 30s from retry-after", e.Delay)
			}
			cancel()
		}
	}
	if err := s.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err() = %v, want context.Canceled", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	cfg := testConfig(url)
	cfg.Retry.MaxAttempts = 2
	s, _ := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
	defer s.Close()
	evs := collect(s)
	var ce *ConnError
	if err := s.Err(); !errors.As(err, &ce) || ce.Attempts != 2 {
		t.Fatalf("Err() = %v, want a ConnError after 2 attempts", err)
	}
	if got := typesOf(evs); got != "request(1/2) retry(1) request(2/2)" {
		t.Errorf("events = %s", got)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, h := range []http.HandlerFunc{headersThenHang, hang, sseBody(fixtureBytes("anthropic-text.sse"))} {
		srv := httptest.NewServer(h)
		tr := &http.Transport{}
		cfg := testConfig(srv.URL)
		cfg.HTTPClient = &http.Client{Transport: tr}
		cfg.IdleTimeout = 30 * time.Millisecond
		cfg.Limits.FirstByte = 30 * time.Millisecond
		cfg.Retry.MaxAttempts = 1
		s, _ := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
		s.Next()
		s.Close()
		tr.CloseIdleConnections()
		srv.Close()
	}
	waitGoroutines(t, before)
}

// waitGoroutines fails when the goroutine count does not come back to n:
// the transport's connection goroutines end shortly after their
// connections close.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	// A proxy that echoes the request headers in its error body.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s (Authorization: %s)","type":"invalid_request_error"}}`, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	clients := []Client{
		&Anthropic{Config: testConfig(srv.URL)},
		&Chat{Config: testConfig(srv.URL)},
		&Responses{Config: testConfig(srv.URL)},
	}
	for _, c := range clients {
		s, _ := c.Stream(context.Background(), &Request{Model: "m"})
		evs := collect(s)
		s.Close()
		err := s.Err()
		if err == nil {
			t.Fatalf("%T: no error from a 401", c)
		}
		if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v", evs), testKey) {
			t.Errorf("%T: error %q leaks the API key", c, err)
		}
	}
}
