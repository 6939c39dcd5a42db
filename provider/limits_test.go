package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const messageStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"

const textDelta = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}\n\n"

// endless answers headers and then writes piece every gap until the
// client goes away (bounded by count pieces as a guard).
func endless(start, piece string, gap time.Duration, count int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, start)
		w.(http.Flusher).Flush()
		for range count {
			if gap > 0 {
				select {
				case <-time.After(gap):
				case <-r.Context().Done():
					return
				}
			}
			if _, err := io.WriteString(w, piece); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

func streamErr(t *testing.T, cfg Config) error {
	t.Helper()
	s, err := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
	if err != nil {
		return err
	}
	defer s.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s.Next() {
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		s.Close()
		<-done
		t.Fatal("the stream did not end within 60 s")
	}
	return s.Err()
}

// TestBounds: every way a server can keep a stream going ends with an
// error naming the bound and the setting that changes it.
func TestBounds(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		limits  Limits
		check   func(err error) bool
		words   []string // in the message
	}{
		{
			name:    "trickle: a byte every 20 ms passes any idle timeout but not the progress rule",
			handler: endless(messageStart, ":", 20*time.Millisecond, 1_000_000),
			limits:  Limits{Idle: 400 * time.Millisecond, MinProgress: 1024},
			check: func(err error) bool {
				var ce *ConnError
				return errors.As(err, &ce) && ce.Idle > 0 && ce.Received > 0 && ce.Received < 1024
			},
			words: []string{"bytes from", "ZUT_IDLE_TIMEOUT", "ZUT_MIN_PROGRESS", `"min_progress_bytes" setting`},
		},
		{
			// The retry budget bounds a trickling server as it does a
			// silent one: the second attempt's progress window is cut to
			// what the budget has left (issue 22: 240 s for a 3-minute
			// budget).
			name:    "trickle on every attempt: the retry budget",
			handler: endless(messageStart, ":", 20*time.Millisecond, 1_000_000),
			limits:  Limits{Idle: time.Second, MinProgress: 1024, RetryBudget: 1500 * time.Millisecond},
			check: func(err error) bool {
				var ce *ConnError
				return errors.As(err, &ce) && ce.Attempts == 2 && ce.Idle > 0 && ce.Idle < time.Second && ce.Budget == 1500*time.Millisecond
			},
			words: []string{"bytes from", "retry budget of 1.5s", "ZUT_RETRY_BUDGET"},
		},
		{
			name:    "fast but endless: the response deadline",
			handler: endless(messageStart, ": ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping ping\n", 2*time.Millisecond, 1_000_000),
			limits:  Limits{Response: 300 * time.Millisecond},
			check: func(err error) bool {
				var ce *ConnError
				return errors.As(err, &ce) && ce.Response == 300*time.Millisecond && ce.Attempts == 1
			},
			words: []string{"took longer than 300ms", "ZUT_RESPONSE_TIMEOUT", `"response_timeout"`},
		},
		{
			name:    "endless text deltas: the message bound",
			handler: endless(messageStart, textDelta, 0, 1_000_000),
			limits:  Limits{MaxMessage: 64 << 10},
			check: func(err error) bool {
				var le *LimitError
				return errors.As(err, &le) && le.What == "message" && le.Limit == 64<<10
			},
			words: []string{"passed 64 KiB", "ZUT_MAX_MESSAGE_BYTES"},
		},
		{
			name:    "endless comments: the body bound",
			handler: endless(messageStart, ": keep-alive\n", 0, 1_000_000),
			limits:  Limits{MaxBody: 256 << 10},
			check: func(err error) bool {
				var le *LimitError
				return errors.As(err, &le) && le.What == "body" && le.Limit == 256<<10
			},
			words: []string{"response body passed 256 KiB", "ZUT_MAX_RESPONSE_BYTES"},
		},
		{
			name:    "silent server: first-byte deadline and retry budget",
			handler: hang,
			limits:  Limits{FirstByte: 150 * time.Millisecond, RetryBudget: 400 * time.Millisecond},
			check: func(err error) bool {
				var ce *ConnError
				return errors.As(err, &ce) && ce.FirstByte > 0 && ce.Budget == 400*time.Millisecond && ce.Attempts >= 1 && ce.Attempts <= 3
			},
			words: []string{"no answer from", "ZUT_FIRST_BYTE_TIMEOUT", "retry budget of 400ms", "ZUT_RETRY_BUDGET"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			cfg := testConfig(srv.URL)
			cfg.IdleTimeout = 0
			cfg.Limits = tc.limits
			cfg.Retry.MaxAttempts = 5
			err := streamErr(t, cfg)
			if !tc.check(err) {
				t.Fatalf("stream error = %#v (%v), want the bound to end it", err, err)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestLimitsFromEnv(t *testing.T) {
	l, err := LimitsFromEnv(envMap("ZUT_IDLE_TIMEOUT", "300", "ZUT_FIRST_BYTE_TIMEOUT", "2m", "ZUT_RESPONSE_TIMEOUT", "off",
		"ZUT_MAX_MESSAGE_BYTES", "64MiB", "ZUT_MIN_PROGRESS", "1KiB"))
	want := Limits{Idle: 300 * time.Second, FirstByte: 2 * time.Minute, Response: -1, MaxMessage: 64 << 20, MinProgress: 1024}
	if err != nil || l != want {
		t.Fatalf("LimitsFromEnv = %+v, %v, want %+v", l, err, want)
	}
	if _, err := LimitsFromEnv(envMap("ZUT_RETRY_BUDGET", "soon")); err == nil || !strings.Contains(err.Error(), "ZUT_RETRY_BUDGET") {
		t.Fatalf("LimitsFromEnv(ZUT_RETRY_BUDGET=soon) = %v, want an error naming the variable", err)
	}
	got := Limits{}.resolved(128000)
	if got.MaxMessage != 32<<20 || got.MaxBody != 16*(32<<20) || got.FirstByte != DefaultFirstByte || got.RetryBudget != DefaultRetryBudget {
		t.Errorf("defaults for 128k max output = %+v", got)
	}
	if got := (Limits{}).resolved(1_000_000); got.MaxMessage != 64_000_000 {
		t.Errorf("MaxMessage for 1M max output = %d, want 64000000", got.MaxMessage)
	}
}
