package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
)

var wires = []provider.Wire{provider.WireAnthropic, provider.WireChat, provider.WireResponses, provider.WireOllama}

func run(t *testing.T, c provider.Client, req *provider.Request) ([]provider.Event, provider.Message, error) {
	t.Helper()
	s, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []provider.Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	return evs, s.Message(), s.Err()
}

func TestEveryWire(t *testing.T) {
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(Reply{
				Thinking: "Let me look at both files.",
				Text:     "Reading them now — ünïcode too.",
				Tools:    []ToolCall{{ID: "call_a", Name: "read", Args: `{"path":"a.go"}`}, {Name: "ls"}},
				Usage:    provider.Usage{Input: 120, Output: 30},
			}, Reply{Text: "Done.", Chunks: 1})
			defer srv.Close()
			c := srv.Client(w, nil)
			req := &provider.Request{Model: "test-model", Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}}}}
			evs, msg, err := run(t, c, req)
			if err != nil {
				t.Fatalf("Err() = %v", err)
			}
			if got := msg.Text(); got != "Reading them now — ünïcode too." {
				t.Errorf("Text() = %q", got)
			}
			var thinking string
			for _, b := range msg.Content {
				if b.Type == provider.BlockThinking {
					thinking += b.Text
				}
			}
			if thinking != "Let me look at both files." {
				t.Errorf("thinking = %q", thinking)
			}
			tools := msg.ToolUses()
			if len(tools) != 2 || tools[0].ID != "call_a" || string(tools[0].Input) != `{"path":"a.go"}` || string(tools[1].Input) != "{}" || tools[1].Name != "ls" {
				t.Errorf("ToolUses() = %+v", tools)
			}
			deltas, stop := 0, provider.Event{}
			for _, e := range evs {
				if e.Type == provider.EventTextDelta {
					deltas++
				}
				if e.Type == provider.EventStop {
					stop = e
				}
			}
			if deltas < 2 {
				t.Errorf("%d text deltas, want the text in several", deltas)
			}
			if stop.Stop != provider.StopToolUse || stop.Usage.Output != 30 {
				t.Errorf("stop event = %+v, want tool_use with 30 output tokens", stop)
			}
			// The second request carries the first answer back.
			req.Messages = append(req.Messages, msg, provider.Message{Role: provider.RoleUser, Content: []provider.Block{
				{Type: provider.BlockToolResult, ToolUseID: "call_a", Content: []provider.Block{provider.TextBlock("package a")}},
				{Type: provider.BlockToolResult, ToolUseID: tools[1].ID, Content: []provider.Block{provider.TextBlock("a.go")}},
			}})
			if _, msg, err := run(t, c, req); err != nil || msg.Text() != "Done." {
				t.Fatalf("second turn: %q, %v", msg.Text(), err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Wire != w || reqs[1].Model != "test-model" || !reqs[0].HasKey {
				t.Fatalf("Requests() = %+v", reqs)
			}
			if strings.Contains(string(reqs[0].Raw), "test-key") || reqs[0].Header.Get("Authorization") != "" || reqs[0].Header.Get("X-Api-Key") != "" {
				t.Errorf("recorded request keeps the credential")
			}
			if !strings.Contains(string(reqs[1].Raw), "package a") {
				t.Errorf("second request lacks the tool result: %s", reqs[1].Raw)
			}
		})
	}
}

func TestErrorsAndRetries(t *testing.T) {
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			srv := NewServer(
				Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", Header: map[string]string{"Retry-After-Ms": "5"}},
				Reply{Cut: true},
				Reply{Text: "ok"},
				Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "bad key"},
				Reply{Text: "partial answer that gets cut", Cut: true},
			)
			defer srv.Close()
			c := srv.Client(w, nil)
			evs, msg, err := run(t, c, &provider.Request{Model: "m"})
			retries := 0
			for _, e := range evs {
				if e.Type == provider.EventRetry {
					retries++
				}
			}
			if err != nil || msg.Text() != "ok" || retries != 2 {
				t.Fatalf("got %q, %d retries, err %v; want ok after 2 retries", msg.Text(), retries, err)
			}
			_, _, err = run(t, c, &provider.Request{Model: "m"})
			var ae *provider.APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !strings.Contains(ae.Message, "bad key") {
				t.Fatalf("Err() = %v, want the 401", err)
			}
			_, msg, err = run(t, c, &provider.Request{Model: "m"})
			var ce *provider.ConnError
			if !errors.As(err, &ce) || !ce.Truncated || !strings.HasPrefix("partial answer that gets cut", msg.Text()) || msg.Text() == "" {
				t.Fatalf("cut after output: %q, %v; want the partial text and a truncated error", msg.Text(), err)
			}
		})
	}
}

func TestScriptExhausted(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	_, _, err := run(t, srv.Client(provider.WireAnthropic, nil), &provider.Request{Model: "m"})
	if err == nil || !strings.Contains(err.Error(), "no scripted reply") {
		t.Fatalf("Err() = %v, want the script to say it ran out", err)
	}
}

func TestServerFunc(t *testing.T) {
	srv := NewServerFunc(func(r Recorded) Reply {
		msgs, _ := r.Body["messages"].([]any)
		return Reply{Text: strings.Repeat("x", len(msgs))}
	})
	defer srv.Close()
	_, msg, err := run(t, srv.Client(provider.WireChat, nil), &provider.Request{Model: "m", Messages: []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("a")}},
	}})
	if err != nil || msg.Text() != "x" {
		t.Fatalf("got %q, %v", msg.Text(), err)
	}
	body, _ := json.Marshal(srv.Requests()[0].Body)
	if !strings.Contains(string(body), `"stream":true`) {
		t.Errorf("recorded body = %s", body)
	}
}

func TestHangAndClose(t *testing.T) {
	srv := NewServer(Reply{Hang: true})
	c := srv.Client(provider.WireAnthropic, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := c.Stream(ctx, &provider.Request{Model: "m"})
	for s.Next() {
		if s.Event().Type == provider.EventStart {
			cancel()
		}
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Errorf("Err() = %v, want canceled", s.Err())
	}
	s.Close()
	srv.Close() // must not wait forever for the hanging handler
}
