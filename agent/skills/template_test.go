package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDiscoverTemplates: every source, namespaces, precedence, front
// matter.
func TestDiscoverTemplates(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"repo/sub/.zut/prompts/fix-issue.md":       "---\ndescription: fix a GitHub issue\nargument-hint: NUMBER\n---\nFix issue #$1 now.\n",
		"repo/.claude/commands/frontend/review.md": "---\nallowed-tools: Bash(git diff:*), Read\nmodel: claude-x\n---\nReview the frontend.\n",
		"repo/.pi/prompts/pi-one.md":               "# Pi template\n\nDo the pi thing.\n",
		"repo/.claude/commands/fix-issue.md":       "shadowed by the nearer .zut one",
		"repo/.claude/commands/notes.txt":          "not a template",
		"zut/prompts/mine.md":                      "mine",
		"home/.claude/commands/user-cmd.md":        "user claude",
		"home/.codex/prompts/codex-cmd.md":         "codex $ARGUMENTS",
		"home/.pi/agent/prompts/pi-user.md":        "pi user",
		"home/.claude/commands/a/b/c/too-deep.md":  "too deep",
		"repo/.claude/commands/bad name.md":        "bad",
		"repo/.claude/commands/broken.md":          "---\ndescription: x\n",
	})
	os.MkdirAll(filepath.Join(root, "repo", ".git"), 0o755)
	x := DiscoverTemplates(TemplateOptions{CWD: filepath.Join(root, "repo", "sub"), Root: filepath.Join(root, "repo"),
		ZutHome: filepath.Join(root, "zut"), Home: filepath.Join(root, "home")})
	var names []string
	for _, tm := range x.List() {
		names = append(names, tm.Name)
	}
	want := []string{"fix-issue", "frontend:review", "pi-one", "mine", "user-cmd", "codex-cmd", "pi-user"}
	if !slices.Equal(names, want) {
		t.Fatalf("templates = %q, want %q", names, want)
	}
	fix, _ := x.Lookup("FIX-ISSUE")
	if fix.Description != "fix a GitHub issue" || fix.ArgumentHint != "NUMBER" || !fix.Project {
		t.Errorf("fix-issue = %+v", fix)
	}
	rev, _ := x.Lookup("frontend:review")
	if !slices.Equal(rev.AllowedTools, []string{"Bash(git diff:*)", "Read"}) || rev.Model != "claude-x" {
		t.Errorf("frontend:review = %+v", rev)
	}
	if pi, _ := x.Lookup("pi-one"); pi.Description != "Pi template" {
		t.Errorf("pi-one description = %q, want the first line", pi.Description)
	}
	if u, _ := x.Lookup("user-cmd"); u.Project {
		t.Errorf("user-cmd is marked a project template")
	}
	warns := strings.Join(x.Warnings(), "\n")
	for _, w := range []string{"/fix-issue in " + filepath.Join(root, "repo", ".claude", "commands", "fix-issue.md") + " is ignored", "bad name", "broken.md"} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings = %q, want one about %q", warns, w)
		}
	}
}

// TestTemplateExpand: $ARGUMENTS, $1..$9, quotes, and arguments kept when
// the body does not use them.
func TestTemplateExpand(t *testing.T) {
	tests := []struct{ body, args, want string }{
		{"Fix issue #$1.", "42 now", "Fix issue #42."},
		{"All: $ARGUMENTS.", "a b  c", "All: a b  c."},
		{"$2 then $1, $3 empty", `"first word" second`, "second then first word,  empty"},
		{"No placeholders.", "extra text", "No placeholders.\n\nextra text"},
		{"No placeholders.", "", "No placeholders."},
		{"Costs $5 and $x", "", "Costs  and $x"},
		{"$9", "1 2 3 4 5 6 7 8 9", "9"},
	}
	for _, tc := range tests {
		got := Template{Body: tc.body}.Expand(tc.args)
		if got != tc.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

// TestSplitTools: the forms allowed-tools is written in.
func TestSplitTools(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Bash(git add:*), Bash(git status:*)", []string{"Bash(git add:*)", "Bash(git status:*)"}},
		{"[Read, Grep]", []string{"Read", "Grep"}},
		{"Read Grep", []string{"Read", "Grep"}},
		{"- Read - Bash(npm run test:*)", []string{"Read", "Bash(npm run test:*)"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := splitTools(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("splitTools(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
