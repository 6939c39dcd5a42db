package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestDemoScenario(t *testing.T) {
	user := func(s string) Message { return Message{Role: RoleUser, Content: []Block{{Type: BlockText, Text: s}}} }
	call := func(id, name, args string) Message {
		return Message{Role: RoleAssistant, Content: []Block{{Type: BlockToolUse, ID: id, Name: name, Input: json.RawMessage(args)}}}
	}
	result := func(id, text string, isErr bool) Message {
		return Message{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: id, IsError: isErr, Content: []Block{{Type: BlockText, Text: text}}}}}
	}
	both := []Tool{{Name: "bash"}, {Name: "read"}}
	tests := []struct {
		name     string
		tools    []Tool
		msgs     []Message
		wantTool string // the call the reply makes, "" for the answer
		wantArgs string
		want     string // in the text
	}{
		{"first prompt lists", both, []Message{user("what is this?")}, "bash", `{"command":"ls -a | head -20","timeout":10}`, "You asked: “what is this?”"},
		{"listing shows go.mod", both, []Message{user("q"), call("a", "bash", `{}`), result("a", ".\n..\ngo.mod\nmain.go", false)},
			"read", `{"limit":40,"path":"go.mod"}`, "The listing shows `go.mod`"},
		{"README.md is preferred", both, []Message{user("q"), call("a", "bash", `{}`), result("a", "go.mod\nREADME.md", false)},
			"read", `{"limit":40,"path":"README.md"}`, ""},
		{"nothing to read answers", both, []Message{user("q"), call("a", "bash", `{}`), result("a", "x.txt", false)},
			"", "", "showed **1 entries**"},
		{"denied bash still answers", both, []Message{user("q"), call("a", "bash", `{}`), result("a", "denied by the user", true)},
			"", "", "## What I saw"},
		{"after the read, the answer", both, []Message{user("q"), call("a", "bash", `{}`), result("a", "go.mod", false),
			call("b", "read", `{"path":"go.mod"}`), result("b", "     1\tmodule example.com/x\n     2\t", false)},
			"", "", "`go.mod` begins with `module example.com/x`"},
		{"no bash: read first", []Tool{{Name: "read"}}, []Message{user("q")}, "read", `{"limit":40,"path":"README.md"}`, "demo model"},
		{"no tools: answer", nil, []Message{user("q")}, "", "", "A real model would now propose a change"},
		{"a new prompt starts over", both, []Message{user("q"), call("a", "bash", `{}`), result("a", "go.mod", false), user("again")},
			"bash", `{"command":"ls -a | head -20","timeout":10}`, "“again”"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Demo{}.Stream(context.Background(), &Request{Messages: tc.msgs, Tools: tc.tools})
			if err != nil {
				t.Fatal(err)
			}
			var stop StopReason
			for s.Next() {
				if e := s.Event(); e.Type == EventStop {
					stop = e.Stop
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			m := s.Message()
			var tool, args string
			for _, b := range m.Content {
				if b.Type == BlockToolUse {
					tool, args = b.Name, string(b.Input)
				}
			}
			if tool != tc.wantTool || args != tc.wantArgs {
				t.Errorf("call = %s %s, want %s %s", tool, args, tc.wantTool, tc.wantArgs)
			}
			if !strings.Contains(m.Text(), tc.want) {
				t.Errorf("text = %q, want it to hold %q", m.Text(), tc.want)
			}
			if want := map[bool]StopReason{true: StopToolUse, false: StopEndTurn}[tc.wantTool != ""]; stop != want {
				t.Errorf("stop = %s, want %s", stop, want)
			}
		})
	}
}

// TestDemoStreamClose: Close or a cancelled context ends a stream that is
// pausing between pieces, and the message holds only what was handed out.
func TestDemoStreamClose(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Demo{Delay: 1 << 40}.Stream(ctx, &Request{Messages: []Message{{Role: RoleUser, Content: []Block{{Type: BlockText, Text: "hi"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
		if s.Event().Type == EventStart {
			break
		}
	}
	cancel()
	if s.Next() {
		t.Fatalf("Next after cancel = true (%v)", s.Event())
	}
	if s.Err() == nil {
		t.Fatal("Err after cancel = nil")
	}
	if got := s.Message().Text(); got != "" {
		t.Errorf("Message after cancel = %q, want nothing (no piece was handed out)", got)
	}
	s.Close()
}

func TestResolveDemo(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		wantErr string
	}{
		{"provider", Options{Provider: "demo"}, ""},
		{"model", Options{Model: "demo/scripted"}, ""},
		{"unknown model", Options{Provider: "demo", Model: "big"}, `unknown model "big"`},
		{"base url", Options{Provider: "demo", BaseURL: "http://127.0.0.1:1"}, "does not apply"},
		{"delay", Options{Provider: "demo", Getenv: func(string) string { return "x" }}, "ZUT_DEMO_DELAY_MS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(context.Background(), tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Display != "demo/scripted" || r.KeySource != "" || r.Keyless != "" {
				t.Errorf("Resolve = %s (key %q, keyless %q)", r.Display, r.KeySource, r.Keyless)
			}
		})
	}
}
