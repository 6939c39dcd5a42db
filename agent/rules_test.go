package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// TestPolicyRules runs one tool call under each kind of rule and checks
// who was asked, whether the tool ran, and what the model and the notices
// were told.
func TestPolicyRules(t *testing.T) {
	rule := func(text string, e permissions.Effect) *permissions.Set {
		r, err := permissions.ParseRule(text, e, permissions.SourceFlag)
		if err != nil {
			t.Fatal(err)
		}
		return permissions.NewSet(r)
	}
	tests := []struct {
		name      string
		policy    Policy
		args      string
		confirm   bool // a person can be asked (and says yes)
		wantAsked bool
		wantRan   bool
		wantText  string // in the result sent to the model
		wantNote  string // in a notice
	}{
		{name: "deny rule beats yolo", policy: Policy{Yolo: true, Rules: rule("echo(rm *)", permissions.Deny)}, args: `{"text":"rm x","command":"rm x","mutate":true}`,
			wantText: "deny echo(rm *)", wantNote: "refused echo"},
		{name: "allow rule skips the dialog", policy: Policy{Rules: rule("echo(go test *)", permissions.Allow)}, args: `{"text":"go test ./...","command":"go test ./...","mutate":true}`,
			confirm: true, wantRan: true},
		{name: "allow rule does not match", policy: Policy{Rules: rule("echo(go test *)", permissions.Allow)}, args: `{"text":"go vet","command":"go vet","mutate":true}`,
			confirm: true, wantAsked: true, wantRan: true},
		{name: "ask rule on a read-only call", policy: Policy{Rules: rule("echo(secret)", permissions.Ask)}, args: `{"text":"secret","command":"secret"}`,
			confirm: true, wantAsked: true, wantRan: true},
		{name: "ask rule with nobody to ask", policy: Policy{Rules: rule("echo(secret)", permissions.Ask)}, args: `{"text":"secret","command":"secret"}`,
			wantText: "needs a person", wantNote: "refused echo"},
		{name: "headless default runs", policy: Policy{}, args: `{"text":"x","command":"x","mutate":true}`, wantRan: true},
		{name: "no-yolo refuses", policy: Policy{DenyMutating: true}, args: `{"text":"x","command":"x","mutate":true}`,
			wantText: "--no-yolo", wantNote: "refused echo"},
		{name: "deny rule sees through sh -c", policy: Policy{Yolo: true, Rules: rule("echo(rm *)", permissions.Deny)}, args: `{"text":"x","command":"sh -c 'rm -rf x'","mutate":true}`,
			wantText: "deny echo(rm *) (command line, this run) refuses it: it runs `rm -rf x` through sh -c", wantNote: "through sh -c"},
		{name: "deny rule and a name built when it runs", policy: Policy{Yolo: true, Rules: rule("echo(rm *)", permissions.Deny)}, args: `{"text":"x","command":"$(echo rm) x","mutate":true}`,
			wantText: "zut cannot tell what `$(echo rm)` runs", wantNote: "zut cannot tell"},
		{name: "allow flags say why a name built when it runs is refused", policy: Policy{DenyMutating: true, DenyHint: "no --allow rule matches it", Rules: rule("echo(git *)", permissions.Allow)}, args: `{"text":"x","command":"$G status","mutate":true}`,
			wantText: "zut cannot tell what `$G` runs; no --allow rule matches it", wantNote: "zut cannot tell"},
		{name: "allow flags refuse the rest", policy: Policy{DenyMutating: true, DenyHint: "no --allow rule matches it", Rules: rule("echo(ok)", permissions.Allow)}, args: `{"text":"x","command":"x","mutate":true}`,
			wantText: "no --allow rule matches it", wantNote: "no --allow rule"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &scriptedClient{replies: []reply{{tools: []provider.Block{toolUse("t1", "echo", tc.args)}}, {text: "ok"}}}
			tool := &echoTool{name: "echo"}
			rec := &recorder{}
			asked := false
			cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{}, Tools: []tools.Tool{tool},
				Policy: tc.policy, Emit: rec.emit, Now: func() time.Time { return testTime }}
			if tc.confirm {
				cfg.Confirm = confirmFunc(func(ConfirmRequest) ConfirmAnswer { asked = true; return ConfirmAnswer{Allow: true} })
			}
			if err := New(cfg).Prompt(context.Background(), Input{Text: "go"}); err != nil {
				t.Fatal(err)
			}
			if asked != tc.wantAsked || (len(tool.calls) > 0) != tc.wantRan {
				t.Errorf("asked = %v, ran = %v; want %v, %v", asked, len(tool.calls) > 0, tc.wantAsked, tc.wantRan)
			}
			var result, notes string
			for _, ev := range rec.events {
				switch ev := ev.(type) {
				case ToolResult:
					for _, b := range ev.Content {
						result += b.Text
					}
				case Notice:
					notes += ev.Message + "\n"
				}
			}
			if tc.wantText != "" && !strings.Contains(result, tc.wantText) {
				t.Errorf("the result sent to the model = %q, want it to say %q", result, tc.wantText)
			}
			if tc.wantNote == "" && notes != "" || !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notices = %q, want %q", notes, tc.wantNote)
			}
		})
	}
}

// TestConfirmShowsChange: the confirmation of an edit carries what the
// edit would do, before the file changes.
func TestConfirmShowsChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("one\ntwo\n"), 0o644)
	c := &scriptedClient{replies: []reply{
		{tools: []provider.Block{toolUse("t1", "edit", `{"path":"a.txt","edits":[{"oldText":"two","newText":"TWO"}]}`)}},
		{text: "ok"},
	}}
	var got *tools.FileChange
	var onDisk string
	cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{}, Tools: tools.Builtins(tools.Config{CWD: dir, Home: dir}),
		Confirm: confirmFunc(func(r ConfirmRequest) ConfirmAnswer {
			got = r.Change
			b, _ := os.ReadFile(path)
			onDisk = string(b)
			return ConfirmAnswer{Allow: true}
		})}
	if err := New(cfg).Prompt(context.Background(), Input{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Old != "one\ntwo\n" || got.New != "one\nTWO\n" || onDisk != "one\ntwo\n" {
		t.Errorf("ConfirmRequest.Change = %+v with the file holding %q, want the planned change before it is made", got, onDisk)
	}
}
