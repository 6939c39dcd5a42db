package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// hookCase is one scripted conversation with the interceptions and events
// added beyond v2. Its agent events and the lifecycle events the
// extensions got (with their members) are golden files under
// testdata/hooks/.
type hookCase struct {
	name    string
	replies []reply
	hooks   fakeHooks
	input   Input
	setup   func(a *Agent)
	wantErr error
	check   func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, tool *echoTool)
}

func TestHooks(t *testing.T) {
	cases := []hookCase{
		{
			name:  "input_handled",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"input": true}}, input: func(text, source string) InputDecision { return InputDecision{Handled: true, By: "todo"} }},
			input: Input{Text: "/todo add milk", Source: "interactive"},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				if n := len(c.Requests()); n != 0 {
					t.Errorf("%d model requests for handled input, want 0", n)
				}
				if n := len(s.Messages()); n != 0 {
					t.Errorf("%d messages stored for handled input, want 0", n)
				}
			},
		},
		{
			name: "input_transformed",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"input": true}}, input: func(text, source string) InputDecision {
				return InputDecision{Text: strings.ToUpper(text) + " (" + source + ")", By: "shout"}
			}},
			input:   Input{Text: "hello", Source: "rpc"},
			replies: []reply{{text: "HI"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				if got := s.Messages()[0].Text(); got != "HELLO (rpc)" {
					t.Errorf("stored prompt = %q, want the transformed text", got)
				}
			},
		},
		{
			name: "before_agent_start_system_and_inject",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"before_agent_start": true}}, beforeStart: func(prompt string) BeforeAgentStartDecision {
				return BeforeAgentStartDecision{SystemPrompt: "PLAN MODE: read only.", InjectText: "[plan] active"}
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}}, {text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				for i, r := range c.Requests() {
					if !strings.HasSuffix(r.System, "\n\nPLAN MODE: read only.") {
						t.Errorf("request %d system = %q, want the extension's text appended", i, r.System)
					}
				}
				if got := s.Messages()[0].Content; len(got) != 2 || got[0].Text != "[plan] active" || got[1].Text != "hi" {
					t.Errorf("stored prompt = %+v, want the injected text before the prompt", got)
				}
				if got := a.systemFor(""); got != "base system" {
					t.Errorf("system after the prompt = %q, want the configured one only", got)
				}
			},
		},
		{
			name: "tool_result_replaced",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"tool_result": true}}, toolResult: func(r ToolResultInfo) ToolResultDecision {
				return ToolResultDecision{ContentSet: true, Content: "[redacted " + r.ToolName + "]", IsError: true, By: "scrub"}
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"secret"}`)}}, {text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				msgs := c.Requests()[1].Messages
				res := msgs[len(msgs)-1].Content[0]
				if res.Type != provider.BlockToolResult || !res.IsError || res.Content[0].Text != "[redacted echo]" {
					t.Errorf("tool result sent = %+v, want the replacement, as an error", res)
				}
			},
		},
		{
			name: "context_prepare_rewrites_one_request",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"context_prepare": true}}, context: func(msgs []ContextMessage) ([]ContextMessage, bool) {
				out := []ContextMessage{{Index: -1, Role: "system", Content: "Project notes: use tabs."}, {Index: -1, Role: "user", Content: "earlier: we agreed on Go"}}
				for _, m := range msgs {
					if m.Role == "user" {
						m.Content = m.Content + " (please)"
					}
					out = append(out, m)
				}
				return out, true
			}},
			replies: []reply{{text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				r := c.Requests()[0]
				if !strings.HasSuffix(r.System, "Project notes: use tabs.") {
					t.Errorf("system = %q, want the injected system message", r.System)
				}
				if len(r.Messages) != 2 || r.Messages[0].Text() != "earlier: we agreed on Go" || r.Messages[1].Text() != "hi (please)" {
					t.Errorf("messages sent = %+v", r.Messages)
				}
				if got := s.Messages()[0].Text(); got != "hi" {
					t.Errorf("stored prompt = %q, want it unchanged", got)
				}
			},
		},
		{
			name: "context_prepare_keeps_tool_pairs",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"context_prepare": true}}, context: func(msgs []ContextMessage) ([]ContextMessage, bool) {
				// Drop the assistant message holding the tool call, keep
				// the user message holding its result.
				var out []ContextMessage
				for _, m := range msgs {
					if m.Role != "assistant" {
						out = append(out, m)
					}
				}
				return out, true
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}}, {text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				for _, m := range c.Requests()[1].Messages {
					for _, b := range m.Content {
						if b.Type == provider.BlockToolResult {
							t.Errorf("an orphaned tool result was sent: %+v", b)
						}
					}
				}
			},
		},
		{
			name: "context_prepare_sees_and_rewrites_tool_results",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"context_prepare": true}}, context: func(msgs []ContextMessage) ([]ContextMessage, bool) {
				// The tool result's text is there to read, and to shorten.
				out := append([]ContextMessage(nil), msgs...)
				for i, m := range out {
					if m.Content == "echo: a" {
						out[i].Content = "echo: (shortened)"
					}
				}
				return out, true
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}}, {text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				var got string
				for _, m := range c.Requests()[1].Messages {
					for _, b := range m.Content {
						if b.Type == provider.BlockToolResult {
							got = textOfBlocks(b.Content)
						}
					}
				}
				if got != "echo: (shortened)" {
					t.Errorf("tool result sent = %q, want the rewritten text", got)
				}
			},
		},
		{
			name: "context_prepare_rewrites_two_tool_results",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"context_prepare": true}}, context: func(msgs []ContextMessage) ([]ContextMessage, bool) {
				out := append([]ContextMessage(nil), msgs...)
				for i, m := range out {
					if m.Content == "echo: a\n\necho: b" {
						out[i].Content = "both echoed"
					}
				}
				return out, true
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`), toolUse("t2", "echo", `{"text":"b"}`)}}, {text: "ok"}},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, _ *echoTool) {
				msgs := c.Requests()[1].Messages
				last := msgs[len(msgs)-1].Content
				// The results stay first (and only): the Anthropic API
				// refuses text before them.
				if len(last) != 2 || last[0].Type != provider.BlockToolResult || last[1].Type != provider.BlockToolResult {
					t.Fatalf("message sent = %+v, want the two tool results alone", last)
				}
				if got := textOfBlocks(last[0].Content); got != "both echoed" {
					t.Errorf("first result = %q, want the rewritten text", got)
				}
				if got := textOfBlocks(last[1].Content); got != "(this result's text is in the result of t1)" {
					t.Errorf("second result = %q, want a pointer to the first", got)
				}
			},
		},
		{
			name:  "active_tools_restrict",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{}},
			setup: func(a *Agent) { a.SetActiveTools([]string{"read"}) },
			replies: []reply{
				{tools: []provider.Block{toolUse("t1", "echo", `{"text":"a"}`)}},
				{text: "ok"},
			},
			check: func(t *testing.T, a *Agent, c *scriptedClient, s *memStore, tool *echoTool) {
				if len(tool.calls) != 0 {
					t.Errorf("an inactive tool ran: %v", tool.calls)
				}
				if n := len(c.Requests()[0].Tools); n != 0 {
					t.Errorf("%d tools offered, want 0 (echo is not active)", n)
				}
				if infos := a.ToolInfos(); len(infos) != 1 || infos[0].Enabled {
					t.Errorf("ToolInfos() = %+v, want echo disabled", infos)
				}
				a.SetActiveTools(nil)
				if infos := a.ToolInfos(); !infos[0].Enabled {
					t.Errorf("ToolInfos() after SetActiveTools(nil) = %+v, want echo enabled", infos)
				}
			},
		},
		{
			name: "extension_tool_progress",
			hooks: fakeHooks{fakeExtensions: &fakeExtensions{
				tools: []ExtensionTool{{Extension: "slow", Def: provider.Tool{Name: "slow_task", Schema: json.RawMessage(`{"type":"object"}`)}}},
				onTool: func(call ToolInvocation) (ToolOutcome, error) {
					call.Progress("Step 1/2")
					call.Progress("Step 2/2")
					return ToolOutcome{Extension: "slow", Result: tools.Result{Content: []provider.Block{provider.TextBlock("done")}}}, nil
				},
			}},
			replies: []reply{{tools: []provider.Block{toolUse("t1", "slow_task", `{}`)}}, {text: "ok"}},
		},
		{
			name:    "agent_end_error",
			hooks:   fakeHooks{fakeExtensions: &fakeExtensions{}},
			replies: []reply{{text: "part", err: errOverloaded}},
			wantErr: errOverloaded,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, c, store, tool, rec := newHookAgent(tc.hooks, tc.replies)
			if tc.setup != nil {
				tc.setup(a)
			}
			in := tc.input
			if in.Text == "" {
				in.Text = "hi"
			}
			if err := a.Prompt(context.Background(), in); err != tc.wantErr {
				t.Fatalf("Prompt() = %v, want %v", err, tc.wantErr)
			}
			checkGolden(t, filepath.Join("testdata", "hooks", tc.name+".jsonl"), eventLines(t, rec.events))
			checkGolden(t, filepath.Join("testdata", "hooks", tc.name+".ext.txt"), []byte(tc.hooks.eventDetails()))
			if tc.check != nil {
				tc.check(t, a, c, store, tool)
			}
		})
	}
}

// newHookAgent returns an agent with the echo tool, a scripted model and
// the fake hooks.
func newHookAgent(h fakeHooks, replies []reply) (*Agent, *scriptedClient, *memStore, *echoTool, *recorder) {
	c := &scriptedClient{replies: replies}
	store := &memStore{}
	tool := &echoTool{name: "echo"}
	rec := &recorder{}
	a := New(Config{
		Client: c, Model: Model{ID: "m", Provider: "test", ContextWindow: 1000},
		System: "base system", Store: store, Tools: []tools.Tool{tool}, Policy: Policy{Yolo: true},
		Extensions: h, Emit: rec.emit, Now: func() time.Time { return testTime },
	})
	return a, c, store, tool, rec
}

// TestBeforeCompactCancels checks that before_compact cancels a manual
// compaction with an error naming the extension, and an automatic one
// with a notice.
func TestBeforeCompactCancels(t *testing.T) {
	var seen []ContextStats
	h := fakeHooks{fakeExtensions: &fakeExtensions{intercept: map[string]bool{"before_compact": true}}, compact: func(c ContextStats) CancelDecision {
		seen = append(seen, c)
		return CancelDecision{Cancel: true, Reason: "plan in progress", By: "plan-mode"}
	}}
	a, c, store, _, rec := newHookAgent(h, []reply{
		{text: "one", usage: provider.Usage{Input: 950}},
		{text: "two"},
	})
	for _, p := range []string{"first", "second"} {
		if err := a.Prompt(context.Background(), Input{Text: p}); err != nil {
			t.Fatalf("Prompt(%q) = %v", p, err)
		}
	}
	store.mu.Lock()
	store.messages = append(store.messages, store.messages...)
	store.mu.Unlock()
	_, err := a.Compact(context.Background(), "")
	var ce *CancelledError
	if !errors.As(err, &ce) || ce.By != "plan-mode" || ce.Reason != "plan in progress" {
		t.Fatalf("Compact() = %v, want a CancelledError by plan-mode", err)
	}
	if len(seen) != 2 || !seen[0].IsAutomatic || seen[1].IsAutomatic || seen[1].ContextLimit != 1000 || seen[1].MessageCount != 8 {
		t.Errorf("before_compact saw %+v, want one automatic then one manual with the stats", seen)
	}
	if n := len(c.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (no summarising request)", n)
	}
	checkGolden(t, filepath.Join("testdata", "hooks", "before_compact_cancels.jsonl"), eventLines(t, rec.events))
}

// TestSetModelBy checks the model_change event and lifecycle event.
func TestSetModelBy(t *testing.T) {
	h := fakeHooks{fakeExtensions: &fakeExtensions{}}
	a, _, _, _, rec := newHookAgent(h, nil)
	if err := a.SetModelBy(&scriptedClient{}, Model{ID: "m2", Provider: "other"}, "extension"); err != nil {
		t.Fatal(err)
	}
	if err := a.SetModel(&scriptedClient{}, Model{ID: "m2", Provider: "other"}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "hooks", "model_change.jsonl"), eventLines(t, rec.events))
	checkGolden(t, filepath.Join("testdata", "hooks", "model_change.ext.txt"), []byte(h.eventDetails()))
}

// TestContextStats checks the estimate used by session.context_stats.
func TestContextStats(t *testing.T) {
	a, _, store, _, _ := newHookAgent(fakeHooks{fakeExtensions: &fakeExtensions{}}, nil)
	store.messages = []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(strings.Repeat("word ", 400))}}}
	st := a.ContextStats()
	if st.MessageCount != 1 || st.ContextLimit != 1000 || st.EstimatedTokens <= 0 || st.UsagePercent != float64(int(float64(st.EstimatedTokens)*1000/1000))/10 {
		t.Errorf("ContextStats() = %+v", st)
	}
}

// shortStore is a memStore whose conversation is too short to compact
// unless everything but the latest messages may go (keep 0, as /compact
// asks for).
type shortStore struct{ *memStore }

func (s shortStore) PlanCompaction(keep int) (CompactionPlan, bool) {
	if keep > 0 {
		return CompactionPlan{}, false
	}
	return s.memStore.PlanCompaction(keep)
}

// TestCompactShort: an automatic compaction with nothing to do says
// nothing (it announced "compacting" and then nothing happened); a
// compaction the user asks for summarises a short conversation and emits
// one CompactDone, marked as not automatic.
func TestCompactShort(t *testing.T) {
	c := &scriptedClient{replies: []reply{{text: "one", usage: provider.Usage{Input: 950}}, {text: "two"}, {text: "the summary"}}}
	rec := &recorder{}
	a := New(Config{
		Client: c, Model: Model{ID: "m", Provider: "test", ContextWindow: 1000},
		System: "base system", Store: shortStore{&memStore{}}, Policy: Policy{Yolo: true},
		Emit: rec.emit, Now: func() time.Time { return testTime },
	})
	for _, p := range []string{"first", "second"} {
		if err := a.Prompt(context.Background(), Input{Text: p}); err != nil {
			t.Fatalf("Prompt(%q) = %v", p, err)
		}
	}
	for _, e := range rec.events {
		if n, ok := e.(Notice); ok && strings.Contains(n.Message, "compacting") {
			t.Errorf("automatic compaction with nothing to compact announced %q", n.Message)
		}
	}
	summary, err := a.Compact(context.Background(), "")
	if err != nil || summary != "the summary" {
		t.Fatalf("Compact() = %q, %v; want the summary", summary, err)
	}
	var done []CompactDone
	for _, e := range rec.events {
		if d, ok := e.(CompactDone); ok {
			done = append(done, d)
		}
	}
	if len(done) != 1 || done[0].Automatic {
		t.Errorf("CompactDone events = %+v, want one, not automatic", done)
	}
}
