package host

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestConflicts: first registration in load order wins (C8, C10),
// commands collide in any case, reserved names (C9) and active built-in
// tools shadow, an inactive built-in does not, and every loser is in the
// log and in doctor.
func TestConflicts(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	dev := goExt(t, t.TempDir(), "first", "-commands", "Deploy,clear", "-tools", "shared,bash,web_anything,mine,edit")
	goExt(t, f.project(), "second", "-commands", "deploy,DEPLOY2", "-tools", "shared,grep,other")
	goExt(t, f.global(), "third", "-commands", "deploy2", "-tools", "mine,my_builtin")
	cfg := f.config(dev)
	cfg.Builtins = []string{"my_builtin", "bash"} // edit is switched off
	cfg.BuiltinCommands = []string{"/Clear"}
	h := f.start(t, cfg)

	var got []string
	for _, r := range h.Diagnostics() {
		for _, c := range r.Commands {
			got = append(got, fmt.Sprintf("%s command %s %s", r.Name, c.Name, c.State))
		}
		for _, tl := range r.Tools {
			got = append(got, fmt.Sprintf("%s tool %s %s", r.Name, tl.Name, tl.State))
		}
	}
	want := []string{
		"first command Deploy active",
		"first command clear shadowed",
		"first tool shared active",
		"first tool bash shadowed",
		"first tool web_anything shadowed",
		"first tool mine active",
		"first tool edit active",
		"second command deploy shadowed",
		"second command DEPLOY2 active",
		"second tool shared shadowed",
		"second tool grep shadowed",
		"second tool other active",
		"third command deploy2 shadowed",
		"third tool mine shadowed",
		"third tool my_builtin shadowed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("registrations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, tc := range []struct{ ext, line string }{
		{"second", `command "deploy" is shadowed by extension "first"`},
		{"first", `tool "bash" is shadowed by the active built-in tool`},
		{"first", `tool "web_anything" is shadowed by a reserved tool name (C9)`},
		{"second", `tool "grep" is shadowed by a reserved tool name (C9)`},
		{"third", `tool "mine" is shadowed by extension "first"`},
	} {
		if !strings.Contains(readLog(t, LogPath(f.home, tc.ext)), tc.line) {
			t.Errorf("log of %s lacks %q", tc.ext, tc.line)
		}
		if !strings.Contains(strings.Join(report(t, h.Diagnostics(), tc.ext).Warnings, "\n"), tc.line) {
			t.Errorf("doctor warnings of %s lack %q", tc.ext, tc.line)
		}
	}
	resp, err := h.InvokeCommand(context.Background(), "deploy", "")
	if err != nil || resp.Display != "ran Deploy " {
		t.Errorf("InvokeCommand(deploy) = %+v, %v, want first's Deploy", resp, err)
	}
	res, err := h.CallTool(context.Background(), "mine", nil)
	if err != nil || res.Extension != "first" {
		t.Errorf("CallTool(mine) = %+v, %v, want first's", res, err)
	}
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Extension+"/"+tl.Name)
	}
	if got := strings.Join(names, " "); got != "first/edit first/mine second/other first/shared" {
		t.Errorf("Tools() = %s", got)
	}
}

func TestReserved(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"web_search", true}, {"web_open", true}, {"web_find", true}, {"web_click", true}, {"web_whatever", true},
		{"grep", true}, {"ast", true}, {"python", true}, {"schedule", true}, {"update_goal", true}, {"plan", true},
		// Built-ins outside the spec's list shadow only while active.
		{"bash", false}, {"read", false}, {"skill", false}, {"lsp", false}, {"worktree", false},
		{"weather", false}, {"Bash", false}, {"webby", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reserved(tc.name); got != tc.want {
				t.Errorf("Reserved(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}
