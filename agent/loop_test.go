package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// loopCase is one scripted conversation.
type loopCase struct {
	name    string
	replies []reply
	policy  Policy
	ext     *fakeExtensions
	confirm Confirmer
	prompt  string
	steps   int
	wantErr error
	check   func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool)
}

func TestLoop(t *testing.T) {
	replacer := &fakeExtensions{
		intercept: map[string]bool{"assistant_message": true},
		assistant: func(text string) AssistantMessageDecision {
			return AssistantMessageDecision{Text: strings.ReplaceAll(text, "sk-123", "[redacted]")}
		},
	}
	cases := []loopCase{
		{
			name:    "text_answer",
			replies: []reply{{text: "Hello there.", usage: provider.Usage{Input: 10, Output: 3}}},
			check: func(t *testing.T, c *scriptedClient, s *memStore, _ *echoTool) {
				if got := len(s.Messages()); got != 2 {
					t.Errorf("stored %d messages, want 2", got)
				}
			},
		},
		{
			name: "one_tool_call",
			replies: []reply{
				{text: "Let me check.", tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}},
				{text: "Done."},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if strings.Join(tool.calls, ",") != "a" {
					t.Errorf("tool calls = %v, want [a]", tool.calls)
				}
				reqs := c.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d requests, want 2", len(reqs))
				}
				last := reqs[1].Messages[len(reqs[1].Messages)-1]
				if last.Content[0].Type != provider.BlockToolResult || last.Content[0].ToolUseID != "t1" {
					t.Errorf("second request ends with %+v, want the tool result for t1", last)
				}
			},
		},
		{
			name: "two_tool_calls_in_order",
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"first"}`), toolUse("t2", "echo", `{"text":"second"}`)}},
				{text: "Both done."},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if strings.Join(tool.calls, ",") != "first,second" {
					t.Errorf("tool calls = %v, want [first second]", tool.calls)
				}
			},
		},
		{
			name: "unknown_tool_is_an_error_result",
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "nosuch", `{}`)}},
				{text: "Sorry."},
			},
		},
		{
			name:    "max_steps",
			steps:   1,
			wantErr: ErrMaxSteps,
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}},
			},
		},
		{
			name: "blocked_by_interceptor",
			ext: &fakeExtensions{
				intercept: map[string]bool{"tool_call": true},
				toolCall: func(name string, args json.RawMessage) ToolCallDecision {
					return ToolCallDecision{Block: true, Reason: "no echo today", By: "guard"}
				},
			},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}},
				{text: "Understood."},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if len(tool.calls) != 0 {
					t.Errorf("blocked tool ran: %v", tool.calls)
				}
			},
		},
		{
			name: "args_rewritten_by_interceptor",
			ext: &fakeExtensions{
				intercept: map[string]bool{"tool_call": true},
				toolCall: func(name string, args json.RawMessage) ToolCallDecision {
					return ToolCallDecision{Args: json.RawMessage(`{"text":"GUARDED"}`), By: "guard"}
				},
			},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}},
				{text: "ok"},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if strings.Join(tool.calls, ",") != "GUARDED" {
					t.Errorf("tool saw %v, want the rewritten args", tool.calls)
				}
			},
		},
		{
			name: "hidden_context_sent_not_stored",
			ext: &fakeExtensions{
				intercept: map[string]bool{"turn_start": true},
				turnStart: func(step int) TurnStartDecision {
					return TurnStartDecision{Context: "[phases] Current phase: parse"}
				},
			},
			replies: []reply{{text: "ok"}},
			check: func(t *testing.T, c *scriptedClient, s *memStore, _ *echoTool) {
				req := c.Requests()[0]
				if len(req.Ephemeral) != 1 || !strings.Contains(req.Ephemeral[0].Text, "Current phase: parse") {
					t.Errorf("hidden context missing from request: %+v", req.Ephemeral)
				}
				for _, m := range s.Messages() {
					if strings.Contains(m.Text(), "Current phase") {
						t.Errorf("hidden context was stored: %+v", m)
					}
				}
			},
		},
		{
			name: "turn_blocked",
			ext: &fakeExtensions{
				intercept: map[string]bool{"turn_start": true},
				turnStart: func(step int) TurnStartDecision {
					return TurnStartDecision{Block: true, Reason: "outside business hours", By: "gate"}
				},
			},
			wantErr: ErrAborted,
			check: func(t *testing.T, c *scriptedClient, s *memStore, _ *echoTool) {
				if n := len(c.Requests()); n != 0 {
					t.Errorf("%d model requests after a blocked turn, want 0", n)
				}
			},
		},
		{
			name:    "assistant_text_replaced",
			ext:     replacer,
			replies: []reply{{text: "your key is sk-123"}},
			check: func(t *testing.T, c *scriptedClient, s *memStore, _ *echoTool) {
				if got := s.Messages()[1].Text(); got != "your key is sk-123" {
					t.Errorf("stored text = %q, want the original", got)
				}
				// Extensions are told what the user saw.
				if got := replacer.eventDetails(); !strings.Contains(got, `assistant_message text="your key is [redacted]"`) {
					t.Errorf("events:\n%s\nwant assistant_message with the replaced text", got)
				}
			},
		},
		{
			name: "extension_tool_with_state",
			ext: &fakeExtensions{
				tools: []ExtensionTool{{Extension: "todo", Def: provider.Tool{Name: "todo_add", Schema: json.RawMessage(`{"type":"object"}`)}}},
				onTool: func(call ToolInvocation) (ToolOutcome, error) {
					return ToolOutcome{Extension: "todo", Result: tools.Result{Content: []provider.Block{provider.TextBlock("added")}},
						State: json.RawMessage(`{"items":1}`), StateSet: true}, nil
				},
			},
			policy: Policy{Yolo: true},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "todo_add", `{"text":"x"}`)}},
				{text: "Added."},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, _ *echoTool) {
				if got := string(s.States()["todo"]); got != `{"items":1}` {
					t.Errorf("state = %s, want {\"items\":1}", got)
				}
			},
		},
		{
			name: "extension_crash_is_error_result",
			ext: &fakeExtensions{
				tools: []ExtensionTool{{Extension: "weather", Def: provider.Tool{Name: "weather", Schema: json.RawMessage(`{"type":"object"}`)}}},
				onTool: func(call ToolInvocation) (ToolOutcome, error) {
					return ToolOutcome{}, errExtCrashed
				},
			},
			policy: Policy{Yolo: true},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "weather", `{"city":"Berlin"}`)}},
				{text: "The weather extension failed."},
			},
		},
		{
			name:   "interactive_tool_rejected_in_print_mode",
			policy: Policy{Yolo: true},
			ext: &fakeExtensions{
				tools: []ExtensionTool{{Extension: "ask", Interactive: true, Def: provider.Tool{Name: "ask_user", Schema: json.RawMessage(`{"type":"object"}`)}}},
			},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "ask_user", `{}`)}},
				{text: "ok"},
			},
		},
		{
			name:   "no_yolo_denies_mutating",
			policy: Policy{DenyMutating: true},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a","mutate":true}`), toolUse("t2", "echo", `{"text":"b"}`)}},
				{text: "ok"},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if strings.Join(tool.calls, ",") != "b" {
					t.Errorf("tool calls = %v, want only the read-only one", tool.calls)
				}
			},
		},
		{
			name:    "confirmation_denied",
			confirm: confirmFunc(func(r ConfirmRequest) ConfirmAnswer { return ConfirmAnswer{Allow: false, Reason: "not now"} }),
			ext:     &fakeExtensions{},
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a","mutate":true}`)}},
				{text: "ok"},
			},
			check: func(t *testing.T, c *scriptedClient, s *memStore, tool *echoTool) {
				if len(tool.calls) != 0 {
					t.Errorf("denied tool ran")
				}
			},
		},
		{
			name:    "provider_error",
			replies: []reply{{text: "partial", err: errOverloaded}},
			wantErr: errOverloaded,
		},
		{
			name: "thinking_then_text",
			replies: []reply{
				{thinking: "hmm", text: "Answer."},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &scriptedClient{replies: tc.replies}
			store := &memStore{}
			tool := &echoTool{name: "echo"}
			rec := &recorder{}
			cfg := Config{
				Client: c, Model: Model{ID: "m", Provider: "test", ContextWindow: 100000},
				Store: store, Tools: []tools.Tool{tool}, Policy: tc.policy, MaxSteps: tc.steps,
				Emit: rec.emit, Now: func() time.Time { return testTime }, Confirm: tc.confirm,
			}
			if tc.ext != nil {
				cfg.Extensions = tc.ext
			}
			a := New(cfg)
			prompt := tc.prompt
			if prompt == "" {
				prompt = "hi"
			}
			err := a.Prompt(context.Background(), Input{Text: prompt})
			if err != tc.wantErr {
				t.Fatalf("Prompt() = %v, want %v", err, tc.wantErr)
			}
			checkGolden(t, filepath.Join("testdata", "loop", tc.name+".jsonl"), eventLines(t, rec.events))
			if tc.check != nil {
				tc.check(t, c, store, tool)
			}
			if tc.ext != nil {
				checkGolden(t, filepath.Join("testdata", "loop", tc.name+".ext.txt"), []byte(strings.Join(tc.ext.eventNames(), "\n")+"\n"))
			}
		})
	}
}

type confirmFunc func(ConfirmRequest) ConfirmAnswer

func (f confirmFunc) Confirm(ctx context.Context, r ConfirmRequest) (ConfirmAnswer, error) {
	return f(r), nil
}

type testError string

func (e testError) Error() string { return string(e) }

const (
	errExtCrashed = testError(`extension "weather" stopped (exit status 2); its log is ~/.local/state/zut/logs/ext-weather.log`)
	errOverloaded = testError("anthropic: 529 overloaded_error: Overloaded — retry later")
)

func eventLines(t *testing.T, events []Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range events {
		line, err := MarshalEvent(e)
		if err != nil {
			t.Fatalf("MarshalEvent(%T): %v", e, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test ./agent -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./agent -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestAbortMidTool checks that an abort while a tool runs still records a
// result for every tool call of the message.
func TestAbortMidTool(t *testing.T) {
	block := make(chan struct{})
	c := &scriptedClient{replies: []reply{
		{tools: []provider.Block{toolUse("t1", "echo", `{"text":"slow"}`), toolUse("t2", "echo", `{"text":"never"}`)}},
	}}
	store := &memStore{}
	tool := &echoTool{name: "echo", block: block}
	rec := &recorder{}
	started := make(chan struct{}, 1)
	a := New(Config{Client: c, Model: Model{ID: "m"}, Store: store, Tools: []tools.Tool{tool}, Emit: func(e Event) {
		rec.emit(e)
		if _, ok := e.(ToolExecutionStarted); ok {
			started <- struct{}{}
		}
	}})
	done := make(chan error)
	go func() { done <- a.Prompt(context.Background(), Input{Text: "go"}) }()
	<-started
	a.Abort()
	if err := <-done; err != ErrAborted {
		t.Fatalf("Prompt() = %v, want ErrAborted", err)
	}
	msgs := store.Messages()
	last := msgs[len(msgs)-1]
	if len(last.Content) != 2 || last.Content[0].ToolUseID != "t1" || last.Content[1].ToolUseID != "t2" {
		t.Fatalf("last message = %+v, want results for t1 and t2", last)
	}
	if !last.Content[1].IsError {
		t.Errorf("result for the unstarted call is not an error")
	}
	got := strings.Join(rec.types(), " ")
	if !strings.HasSuffix(got, "turn_end done") {
		t.Errorf("events end with %q, want turn_end done", got)
	}
}

func TestNewProgressText(t *testing.T) {
	tests := []struct{ name, prev, cur, want string }{
		{"first", "", "step 1", "step 1"},
		{"a new status line", "step 1", "step 2", "step 2"},
		{"output grows", "a\nb\n", "a\nb\nc\n", "c\n"},
		{"a window of the last lines moves on", "a\nb\nc\n", "b\nc\nd\ne\n", "d\ne\n"},
		{"no overlap", "a\nb\n", "x\ny\n", "x\ny\n"},
		{"no overlap inside a line", "ab", "bc", "bc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := newText(tc.prev, tc.cur); got != tc.want {
				t.Errorf("newText(%q, %q) = %q, want %q", tc.prev, tc.cur, got, tc.want)
			}
		})
	}
}
