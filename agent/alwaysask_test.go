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

// TestAlwaysAsk: a tool in Policy.AlwaysAsk (a packaged agent's bash
// "ask") is confirmed by a person at every call, whatever --yolo, an
// allow rule or an earlier "always" answer say; with nobody to ask it is
// refused and does not run.
func TestAlwaysAsk(t *testing.T) {
	allowAll, err := permissions.ParseRule("bash", permissions.Allow, permissions.SourceFlag)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		confirm   bool // a person can be asked
		answer    ConfirmAnswer
		wantAsked int
		wantRan   []bool // x1, x2 exist afterwards
		wantText  string // in the first result
	}{
		{"asked twice despite yolo, an allow rule and always", true, ConfirmAnswer{Allow: true, Always: true}, 2, []bool{true, true}, ""},
		{"declined", true, ConfirmAnswer{}, 2, []bool{false, false}, "the user declined"},
		{"nobody to ask", false, ConfirmAnswer{}, 0, []bool{false, false}, `tool "bash" was denied: the agent t's bash "ask" has every bash call confirmed by a person, and nobody can confirm it in this mode`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &scriptedClient{replies: []reply{{tools: []provider.Block{
				toolUse("t1", "bash", `{"command":"touch x1","timeout":30}`),
				toolUse("t2", "bash", `{"command":"touch x2","timeout":30}`),
			}}, {text: "ok"}}}
			rec := &recorder{}
			asked := 0
			cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{},
				Tools: tools.Builtins(tools.Config{CWD: dir, Home: dir}), Emit: rec.emit, Now: func() time.Time { return testTime },
				Policy: Policy{Yolo: true, Rules: permissions.NewSet(allowAll), AlwaysAsk: []string{"bash"}, AlwaysAskWhy: `the agent t's bash "ask"`}}
			if tc.confirm {
				cfg.Confirm = confirmFunc(func(ConfirmRequest) ConfirmAnswer { asked++; return tc.answer })
			}
			if err := New(cfg).Prompt(context.Background(), Input{Text: "go"}); err != nil {
				t.Fatal(err)
			}
			if asked != tc.wantAsked {
				t.Errorf("asked %d times, want %d", asked, tc.wantAsked)
			}
			for i, name := range []string{"x1", "x2"} {
				_, err := os.Stat(filepath.Join(dir, name))
				if ran := err == nil; ran != tc.wantRan[i] {
					t.Errorf("%s ran: %v, want %v", name, ran, tc.wantRan[i])
				}
			}
			var first string
			for _, ev := range rec.events {
				if r, ok := ev.(ToolResult); ok {
					for _, b := range r.Content {
						first += b.Text
					}
					break
				}
			}
			if !strings.Contains(first, tc.wantText) {
				t.Errorf("first result %q, want %q", first, tc.wantText)
			}
		})
	}
}
