package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// settings builds a hooks member: event -> matcher -> commands.
func settings(t *testing.T, ev Event, matcher string, cmds ...string) json.RawMessage {
	t.Helper()
	var hs []map[string]any
	for _, c := range cmds {
		hs = append(hs, map[string]any{"type": "command", "command": c})
	}
	b, err := json.Marshal(map[string]any{string(ev): []map[string]any{{"matcher": matcher, "hooks": hs}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunEvents: a real shell hook for each event gets the event's input
// on stdin (recorded to a file), and its answer is read.
func TestRunEvents(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks run with sh")
	}
	yes := true
	empty := ""
	tests := []struct {
		ev      Event
		in      Input
		subject []string
		stdout  string   // what the hook prints
		members []string // members the recorded input must hold, as "key":value JSON
		check   func(t *testing.T, r Result)
	}{
		{PreToolUse, Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}, []string{"Bash"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check it"}}`,
			[]string{`"tool_name":"Bash"`, `"tool_input":{"command":"ls"}`},
			func(t *testing.T, r Result) {
				if r.Permission != "ask" || r.PermissionReason != "check it" || r.Block {
					t.Errorf("result = %+v, want permission ask", r)
				}
			}},
		{PostToolUse, Input{ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/x"}`), ToolResponse: map[string]any{"content": "ok"}}, []string{"Write"},
			`{"decision":"block","reason":"lint failed","hookSpecificOutput":{"additionalContext":"see lint.log"}}`,
			[]string{`"tool_response":{"content":"ok"}`},
			func(t *testing.T, r Result) {
				if !r.Block || r.Reason != "lint failed" || len(r.Context) != 1 || r.Context[0] != "see lint.log" {
					t.Errorf("result = %+v, want a block with context", r)
				}
			}},
		{UserPromptSubmit, Input{Prompt: "fix it"}, nil, "The build is red.",
			[]string{`"prompt":"fix it"`},
			func(t *testing.T, r Result) {
				if len(r.Context) != 1 || r.Context[0] != "The build is red." {
					t.Errorf("result = %+v, want plain stdout as context", r)
				}
			}},
		{Stop, Input{StopHookActive: &yes}, nil, `{"decision":"block","reason":"run the tests first"}`,
			[]string{`"stop_hook_active":true`},
			func(t *testing.T, r Result) {
				if !r.Block || r.Reason != "run the tests first" {
					t.Errorf("result = %+v, want a block", r)
				}
			}},
		{SubagentStop, Input{StopHookActive: new(bool)}, nil, `{"continue":false,"stopReason":"enough"}`,
			[]string{`"stop_hook_active":false`},
			func(t *testing.T, r Result) {
				if !r.Stop || r.StopReason != "enough" {
					t.Errorf("result = %+v, want stop", r)
				}
			}},
		{SessionStart, Input{Source: "startup"}, []string{"startup"}, `{"hookSpecificOutput":{"additionalContext":"branch main"}}`,
			[]string{`"source":"startup"`},
			func(t *testing.T, r Result) {
				if len(r.Context) != 1 || r.Context[0] != "branch main" {
					t.Errorf("result = %+v, want the context", r)
				}
			}},
		{SessionEnd, Input{Reason: "other"}, nil, `{"systemMessage":"bye"}`,
			[]string{`"reason":"other"`},
			func(t *testing.T, r Result) {
				if len(r.Messages) != 1 || r.Messages[0] != "bye" {
					t.Errorf("result = %+v, want the system message", r)
				}
			}},
		{PreCompact, Input{Trigger: "auto", CustomInstructions: &empty}, []string{"auto"}, "",
			[]string{`"trigger":"auto"`, `"custom_instructions":""`},
			func(t *testing.T, r Result) {
				if r.Block || len(r.Messages) > 0 {
					t.Errorf("result = %+v, want nothing", r)
				}
			}},
		{Notification, Input{Message: "zut needs your permission to use Bash"}, nil, "ignored text",
			[]string{`"message":"zut needs your permission to use Bash"`},
			func(t *testing.T, r Result) {
				if len(r.Context) > 0 {
					t.Errorf("result = %+v: plain stdout is context only for UserPromptSubmit and SessionStart", r)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(string(tc.ev), func(t *testing.T) {
			dir := t.TempDir()
			rec := filepath.Join(dir, "input.json")
			out := filepath.Join(dir, "out")
			os.WriteFile(out, []byte(tc.stdout), 0o644)
			var c Config
			if w := c.Add(settings(t, tc.ev, "", "cat > "+rec+"; cat "+out), "settings.json", false); len(w) > 0 {
				t.Fatal(w)
			}
			r := &Runner{Dir: dir}
			in := tc.in
			in.Event, in.SessionID, in.TranscriptPath = tc.ev, "s-1", "/t.jsonl"
			res := r.Run(context.Background(), c.Commands(tc.ev, true, tc.subject...), in)
			got, err := os.ReadFile(rec)
			if err != nil {
				t.Fatalf("the hook did not run: %v (result %+v)", err, res)
			}
			for _, m := range append([]string{`"session_id":"s-1"`, `"transcript_path":"/t.jsonl"`, `"cwd":"` + dir + `"`, `"hook_event_name":"` + string(tc.ev) + `"`}, tc.members...) {
				if !strings.Contains(string(got), m) {
					t.Errorf("input %s lacks %s", got, m)
				}
			}
			tc.check(t, res)
		})
	}
}

// TestRunExitCodes: exit 2 blocks with stderr, other codes are notes,
// a hook past its timeout is stopped, JSON deny blocks, and the project
// dir is in the environment.
func TestRunExitCodes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks run with sh")
	}
	tests := []struct {
		name    string
		cmd     string
		timeout string
		want    func(r Result) bool
	}{
		{"exit 2 blocks with stderr", `echo "no curl here" >&2; exit 2`, "", func(r Result) bool { return r.Block && r.Reason == "no curl here" }},
		{"exit 1 is a note", `echo oops >&2; exit 1`, "", func(r Result) bool {
			return !r.Block && len(r.Messages) == 1 && strings.Contains(r.Messages[0], "exit code 1: oops")
		}},
		{"JSON deny blocks", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not on main"}}'`, "", func(r Result) bool {
			return r.Block && r.Permission == "deny" && r.Reason == "not on main"
		}},
		{"legacy approve allows", `echo '{"decision":"approve","reason":"fine"}'`, "", func(r Result) bool { return r.Permission == "allow" && !r.Block }},
		{"bad JSON is a note", `echo '{"decision":'`, "", func(r Result) bool { return len(r.Messages) == 1 && strings.Contains(r.Messages[0], "JSON") }},
		{"timeout stops the hook", `sleep 600`, "1", func(r Result) bool {
			return !r.Block && len(r.Messages) == 1 && strings.Contains(r.Messages[0], "timed out after 1s")
		}},
		{"CLAUDE_PROJECT_DIR", `[ "$CLAUDE_PROJECT_DIR" = "$PWD" ] || exit 2`, "", func(r Result) bool { return !r.Block && len(r.Messages) == 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]any{"type": "command", "command": tc.cmd}
			if tc.timeout != "" {
				h["timeout"] = json.Number(tc.timeout)
			}
			raw, _ := json.Marshal(map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash|Edit", "hooks": []any{h}}}})
			var c Config
			c.Add(raw, "s.json", false)
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			r := &Runner{Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}
			res := r.Run(context.Background(), c.Commands(PreToolUse, true, "Bash"), Input{Event: PreToolUse, ToolName: "Bash"})
			if !tc.want(res) {
				t.Errorf("result = %+v", res)
			}
		})
	}
}

// TestConfig: matchers, trust, and the warnings of what is not run.
func TestConfig(t *testing.T) {
	var c Config
	w := c.Add(json.RawMessage(`{
		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]},
			{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "b", "timeout": 5}]},
			{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "c"}]},
			{"matcher": "", "hooks": [{"type": "command", "command": "d"}]},
			{"matcher": "(", "hooks": [{"type": "command", "command": "bad"}]},
			{"matcher": "*", "hooks": [{"type": "prompt", "prompt": "x"}]}
		],
		"PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}]
	}`), "user.json", false)
	c.Add(json.RawMessage(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "p"}]}]}`), ".claude/settings.json", true)
	if len(w) != 3 {
		t.Errorf("warnings = %q, want 3 (bad matcher, prompt type, unknown event)", w)
	}
	names := func(cmds []Command) string {
		var s []string
		for _, c := range cmds {
			s = append(s, c.Command)
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		subjects []string
		trusted  bool
		want     string
	}{
		{[]string{"Bash", "bash"}, false, "a d"},
		{[]string{"Bash", "bash"}, true, "a d p"},
		{[]string{"Write", "write"}, false, "b d"},
		{[]string{"mcp__gh__issue"}, false, "c d"},
		{[]string{"BashX"}, false, "d"},
	}
	for _, tc := range tests {
		if got := names(c.Commands(PreToolUse, tc.trusted, tc.subjects...)); got != tc.want {
			t.Errorf("Commands(%v, trusted %v) = %q, want %q", tc.subjects, tc.trusted, got, tc.want)
		}
	}
	if !c.Has(PreToolUse, false) || c.Has(Stop, true) {
		t.Errorf("Has is wrong")
	}
}
