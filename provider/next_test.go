package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestNextMatchesReplay: the events a Stream's Next hands out, which it
// decodes from what the body has given without reading when it can, are
// those of the decoders alone (replay), however the body's bytes come:
// whole, a byte at a time, in halves.
func TestNextMatchesReplay(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.sse")
	if len(files) == 0 {
		t.Fatal("no stream fixtures in testdata/streams")
	}
	reads := []struct {
		name string
		r    func([]byte) io.Reader
	}{
		{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
		{"bytewise", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"halves", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w := wireOf(f)
		evs, msg, err := replay(w, bytes.NewReader(body), "test")
		if err != nil {
			continue // a failed stream is retried, which replay does not do
		}
		want := renderResult(withoutModel(evs), msg, nil)
		for _, rd := range reads {
			t.Run(name+"/"+rd.name, func(t *testing.T) {
				cfg := Config{Provider: "test", BaseURL: "http://replay", APIKey: "k", Retry: RetryPolicy{MaxAttempts: 1},
					HTTPClient: &http.Client{Transport: pipeTransport{body: func() io.ReadCloser { return io.NopCloser(rd.r(body)) }}}}
				s, err := NewClient(w, cfg, ChatQuirks{}).Stream(context.Background(), &Request{Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				var got []Event
				for s.Next() {
					if e := s.Event(); e.Type != EventRequest && e.Type != EventStart {
						got = append(got, e)
					}
				}
				if g := renderResult(withoutModel(got), s.Message(), s.Err()); !bytes.Equal(g, want) {
					t.Errorf("Next differs from replay; got:\n%s\nwant:\n%s", g, want)
				}
			})
		}
	}
}

// withoutModel clears the model of the stop events: a Stream reports the
// request's when the body names none, replay nothing.
func withoutModel(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		e.Model = ""
		out[i] = e
	}
	return out
}

// TestCloseWithFramesBuffered: Close stops a stream whose next frames are
// already in the read buffer (which Next decodes without the lock): no
// delta after it, and Err says the stream was closed.
func TestCloseWithFramesBuffered(t *testing.T) {
	body := sseBenchBody(100)
	cfg := Config{Provider: "anthropic", BaseURL: "http://bench", APIKey: "k",
		HTTPClient: &http.Client{Transport: pipeTransport{body: func() io.ReadCloser { return io.NopCloser(bytes.NewReader(body)) }}}}
	s, err := (&Anthropic{Config: cfg}).Stream(context.Background(), &Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for s.Next() {
		if s.Event().Type == EventTextDelta {
			if deltas++; deltas == 1 {
				s.Close()
			}
		}
	}
	if deltas != 1 {
		t.Errorf("%d text deltas, want 1: none after Close", deltas)
	}
	if err := s.Err(); !errors.Is(err, errClosed) {
		t.Errorf("Err() = %v, want the stream closed error", err)
	}
}
