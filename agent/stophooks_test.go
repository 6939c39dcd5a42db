package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// stopExtensions is fakeExtensions with a stop hook: it asks to go on
// while goOn says so.
type stopExtensions struct {
	*fakeExtensions
	goOn   func(n int, active bool) bool
	calls  int
	active []bool
}

func (s *stopExtensions) InterceptStop(ctx context.Context, answer string, active bool) StopDecision {
	s.calls++
	s.active = append(s.active, active)
	if s.goOn(s.calls, active) {
		return StopDecision{Continue: true, Reason: "run the tests first (" + answer + ")"}
	}
	return StopDecision{}
}

// TestStopHooks: a stop hook keeps the model going with its reason, says
// whether it did before, and cannot keep it going forever.
func TestStopHooks(t *testing.T) {
	tests := []struct {
		name     string
		goOn     func(n int, active bool) bool
		requests int
	}{
		{"stops at once", func(int, bool) bool { return false }, 1},
		{"once more", func(n int, active bool) bool { return !active }, 2},
		{"always: bounded", func(int, bool) bool { return true }, maxStopContinues + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var replies []reply
			for i := 0; i < tc.requests; i++ {
				replies = append(replies, reply{text: "done " + string(rune('a'+i))})
			}
			x := &stopExtensions{fakeExtensions: &fakeExtensions{}, goOn: tc.goOn}
			c := &scriptedClient{replies: replies}
			a := New(Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{}, Policy: Policy{Yolo: true},
				Extensions: x, Emit: func(Event) {}, Now: func() time.Time { return testTime }})
			if err := a.Prompt(context.Background(), Input{Text: "go"}); err != nil {
				t.Fatal(err)
			}
			if got := len(c.Requests()); got != tc.requests {
				t.Fatalf("requests = %d, want %d", got, tc.requests)
			}
			if tc.requests > 1 {
				msgs := c.Requests()[1].Messages
				if last := msgs[len(msgs)-1].Text(); last != "run the tests first (done a)" {
					t.Errorf("second request ends with %q, want the hook's reason", last)
				}
				if len(x.active) < 2 || x.active[0] || !x.active[1] {
					t.Errorf("active = %v, want false then true", x.active)
				}
			}
		})
	}
}

// TestHookPermission: a PreToolUse hook's permission decision reaches the
// confirmation: allow runs a call --no-yolo would refuse (unless a rule
// denies or asks), ask refuses it when nobody can be asked.
func TestHookPermission(t *testing.T) {
	tests := []struct {
		name    string
		perm    string
		rule    string // a deny or ask rule, "" for none
		ran     bool
		refusal string
	}{
		{"no opinion: --no-yolo refuses", "", "", false, "--no-yolo"},
		{"allow runs it", "allow", "", true, ""},
		{"allow, but a deny rule", "allow", "deny", false, "the permission rule deny echo"},
		{"allow, but an ask rule", "allow", "ask", false, "the permission rule ask echo"},
		{"ask needs a person", "ask", "", false, "needs a person to confirm it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := &fakeExtensions{intercept: map[string]bool{"tool_call": true}, toolCall: func(name string, args json.RawMessage) ToolCallDecision {
				return ToolCallDecision{Permission: tc.perm}
			}}
			rules := permissions.NewSet()
			switch tc.rule {
			case "deny":
				rules.Add(permissions.Rule{Effect: permissions.Deny, Tool: "echo"})
			case "ask":
				rules.Add(permissions.Rule{Effect: permissions.Ask, Tool: "echo"})
			}
			tool := &echoTool{name: "echo"}
			c := &scriptedClient{replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", `{"text":"x","mutate":true}`)}}, {text: "ok"}}}
			a := New(Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{}, Tools: []tools.Tool{tool},
				Policy: Policy{DenyMutating: true, Rules: rules}, Extensions: x, Emit: func(Event) {}, Now: func() time.Time { return testTime }})
			if err := a.Prompt(context.Background(), Input{Text: "go"}); err != nil {
				t.Fatal(err)
			}
			if ran := len(tool.calls) == 1; ran != tc.ran {
				t.Errorf("ran = %v, want %v", ran, tc.ran)
			}
			if tc.refusal != "" {
				msgs := c.Requests()[1].Messages
				got := textOfBlocks(msgs[len(msgs)-1].Content[0].Content)
				if !strings.Contains(got, tc.refusal) {
					t.Errorf("result = %q, want %q", got, tc.refusal)
				}
			}
		})
	}
}
