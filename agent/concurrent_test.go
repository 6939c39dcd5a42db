package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// pairTool is a tools.Concurrent tool that mutates (so it is asked
// about). A call {"id":"a","wait":"b"} marks a started, then waits until
// b has started too, or until ctx ends.
type pairTool struct {
	mu      sync.Mutex
	started map[string]chan struct{}
}

func (t *pairTool) Definition() provider.Tool {
	return provider.Tool{Name: "pair", Description: "pair", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *pairTool) Concurrent(json.RawMessage) bool { return true }
func (t *pairTool) Mutates(json.RawMessage) bool    { return true }

func (t *pairTool) ch(id string) chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started[id] == nil {
		t.started[id] = make(chan struct{})
	}
	return t.started[id]
}

func (t *pairTool) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	var in struct{ ID, Wait string }
	json.Unmarshal(args, &in)
	close(t.ch(in.ID))
	if in.Wait != "" {
		select {
		case <-t.ch(in.Wait):
		case <-ctx.Done():
			return tools.Result{Content: []provider.Block{provider.TextBlock(in.ID + " interrupted")}, IsError: true}
		case <-time.After(60 * time.Second):
			return tools.Result{Content: []provider.Block{provider.TextBlock(in.ID + " ran alone: " + in.Wait + " never started")}, IsError: true}
		}
	}
	progress(in.ID + " working")
	return tools.Result{Content: []provider.Block{provider.TextBlock("pair " + in.ID)}}
}

// TestConcurrentCalls: the calls of a tools.Concurrent tool in one reply
// are asked about one after the other and run side by side; a call of
// another tool waits for them; results come in the order of the calls;
// Stop at a confirmation and an abort behave as with calls run in turn.
func TestConcurrentCalls(t *testing.T) {
	uses := []provider.Block{
		toolUse("p1", "pair", `{"id":"a","wait":"b"}`),
		toolUse("p2", "pair", `{"id":"b","wait":"a"}`),
		toolUse("e1", "echo", `{"text":"after","mutate":true}`),
	}
	tests := []struct {
		name    string
		uses    []provider.Block
		answer  func(ConfirmRequest) ConfirmAnswer
		abort   bool     // cancel the prompt once a and b have started
		asked   []string // the calls asked about, in order
		results []string // the text of each tool_result, in order
		echoed  bool     // the echo call ran
		reqs    int      // model requests
	}{
		{
			name:    "all allowed",
			uses:    uses,
			answer:  func(ConfirmRequest) ConfirmAnswer { return ConfirmAnswer{Allow: true} },
			asked:   []string{"p1", "p2", "e1"},
			results: []string{"pair a", "pair b", "echo: after"},
			echoed:  true, reqs: 2,
		},
		{
			name: "stopped at the second",
			uses: []provider.Block{toolUse("p1", "pair", `{"id":"a"}`), uses[1], uses[2]},
			answer: func(r ConfirmRequest) ConfirmAnswer {
				return ConfirmAnswer{Allow: r.ToolID == "p1", Stop: r.ToolID == "p2"}
			},
			asked:   []string{"p1", "p2"},
			results: []string{"pair a", `tool "pair" was denied: the user stopped the turn`, `tool call "echo" not run: the user stopped the turn`},
			reqs:    1,
		},
		{
			name: "aborted while they run",
			uses: []provider.Block{
				toolUse("p1", "pair", `{"id":"a","wait":"never"}`),
				toolUse("p2", "pair", `{"id":"b","wait":"never"}`),
				uses[2],
			},
			answer:  func(ConfirmRequest) ConfirmAnswer { return ConfirmAnswer{Allow: true} },
			abort:   true,
			asked:   []string{"p1", "p2"},
			results: []string{"a interrupted", "b interrupted", "tool call not run: the user aborted the turn"},
			reqs:    1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pair := &pairTool{started: map[string]chan struct{}{}}
			echo := &echoTool{name: "echo"}
			c := &scriptedClient{replies: []reply{{tools: tc.uses}, {text: "ok"}}}
			rec := &recorder{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.abort {
				go func() {
					<-pair.ch("a")
					<-pair.ch("b")
					cancel()
				}()
			}
			var mu sync.Mutex
			var asked []string
			confirm := confirmFunc(func(r ConfirmRequest) ConfirmAnswer {
				mu.Lock()
				asked = append(asked, r.ToolID)
				mu.Unlock()
				return tc.answer(r)
			})
			a := New(Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{},
				Tools: []tools.Tool{pair, echo}, Emit: rec.emit, Now: func() time.Time { return testTime }, Confirm: confirm})
			a.Prompt(ctx, Input{Text: "go"})

			if !slices.Equal(asked, tc.asked) {
				t.Errorf("asked about %v, want %v", asked, tc.asked)
			}
			var results []string
			for _, ev := range rec.events {
				if r, ok := ev.(ToolResult); ok {
					var s []string
					for _, b := range r.Content {
						s = append(s, b.Text)
					}
					results = append(results, r.ID+": "+strings.Join(s, " "))
				}
			}
			if len(results) != len(tc.results) {
				t.Fatalf("tool results %q, want %d", results, len(tc.results))
			}
			for i, want := range tc.results {
				if prefix := tc.uses[i].ID + ": "; !strings.HasPrefix(results[i], prefix) || !strings.Contains(results[i], want) {
					t.Errorf("result %d = %q, want %s%q", i, results[i], prefix, want)
				}
			}
			if ran := len(echo.calls) > 0; ran != tc.echoed {
				t.Errorf("echo ran: %v, want %v", ran, tc.echoed)
			}
			if got := len(c.Requests()); got != tc.reqs {
				t.Errorf("%d model requests, want %d", got, tc.reqs)
			}
			if tc.echoed {
				// The echo call waited for the pair: it was announced
				// after both their results.
				var seq []string
				for _, ev := range rec.events {
					switch ev := ev.(type) {
					case ToolCall:
						seq = append(seq, "call "+ev.ID)
					case ToolResult:
						seq = append(seq, "result "+ev.ID)
					}
				}
				want := []string{"call p1", "call p2", "result p1", "result p2", "call e1", "result e1"}
				if !slices.Equal(seq, want) {
					t.Errorf("calls and results %v, want %v", seq, want)
				}
			}
		})
	}
}
