package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextFiles: which files count, in which order, with imports,
// cycles, missing imports, links and the total cap.
func TestContextFiles(t *testing.T) {
	big := strings.Repeat("x", 60<<10)
	tests := []struct {
		name  string
		files map[string]string // relative to a temp dir: home/, zut/, repo/ (a repository), repo/sub is the cwd
		links map[string]string // link -> target, relative to the temp dir
		want  []string          // "path" or "path <- importer" or "path: skipped reason"
	}{
		{
			name: "both AGENTS.md and CLAUDE.md, AGENTS.md first, CLAUDE.local.md last",
			files: map[string]string{
				"repo/CLAUDE.md": "c", "repo/AGENTS.md": "a", "repo/CLAUDE.local.md": "l", "repo/sub/AGENTS.md": "s",
			},
			want: []string{"repo/AGENTS.md", "repo/CLAUDE.md", "repo/CLAUDE.local.md", "repo/sub/AGENTS.md"},
		},
		{
			name: "the user's files first: ~/.claude, ~/.codex, ~/.pi/agent, $ZUT_HOME",
			files: map[string]string{
				"home/.claude/CLAUDE.md": "c", "home/.codex/AGENTS.md": "x", "home/.pi/agent/AGENTS.md": "p", "zut/AGENTS.md": "z", "repo/sub/CLAUDE.md": "s",
			},
			want: []string{"home/.claude/CLAUDE.md", "home/.codex/AGENTS.md", "home/.pi/agent/AGENTS.md", "zut/AGENTS.md", "repo/sub/CLAUDE.md"},
		},
		{
			name: "imports: relative, ~/, nested, in a code span not",
			files: map[string]string{
				"repo/AGENTS.md":         "see @docs/style.md and @~/notes.md, not `@skip.md`",
				"repo/docs/style.md":     "style: @more/deep.md.",
				"repo/docs/more/deep.md": "deep",
				"home/notes.md":          "notes",
			},
			want: []string{"repo/AGENTS.md", "repo/docs/style.md <- repo/AGENTS.md", "repo/docs/more/deep.md <- repo/docs/style.md", "home/notes.md <- repo/AGENTS.md"},
		},
		{
			name: "a cycle and a missing import are noted",
			files: map[string]string{
				"repo/AGENTS.md": "@a.md @gone.md",
				"repo/a.md":      "@AGENTS.md",
			},
			want: []string{"repo/AGENTS.md", "repo/a.md <- repo/AGENTS.md", "repo/AGENTS.md <- repo/a.md: skipped already included", "repo/gone.md <- repo/AGENTS.md: skipped not found"},
		},
		{
			name:  "CLAUDE.md linked to AGENTS.md counts once",
			files: map[string]string{"repo/AGENTS.md": "a"},
			links: map[string]string{"repo/CLAUDE.md": "AGENTS.md"},
			want:  []string{"repo/AGENTS.md"},
		},
		{
			name: "imports nest at most five levels",
			files: map[string]string{
				"repo/AGENTS.md": "@1.md", "repo/1.md": "@2.md", "repo/2.md": "@3.md", "repo/3.md": "@4.md",
				"repo/4.md": "@5.md", "repo/5.md": "@6.md", "repo/6.md": "six",
			},
			want: []string{"repo/AGENTS.md", "repo/1.md <- repo/AGENTS.md", "repo/2.md <- repo/1.md", "repo/3.md <- repo/2.md",
				"repo/4.md <- repo/3.md", "repo/5.md <- repo/4.md", "repo/5.md <- repo/4.md: skipped its @imports were not followed"},
		},
		{
			name: "the total cap leaves files out with a note",
			files: map[string]string{
				"home/.claude/CLAUDE.md": big, "home/.codex/AGENTS.md": big, "zut/AGENTS.md": big,
				"repo/AGENTS.md": big, "repo/CLAUDE.md": big,
			},
			want: []string{"home/.claude/CLAUDE.md", "home/.codex/AGENTS.md", "zut/AGENTS.md", "repo/AGENTS.md", "repo/CLAUDE.md: skipped left out"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"home", "zut", "repo/.git", "repo/sub"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			for p, text := range tc.files {
				p = filepath.Join(dir, p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for l, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
					t.Fatal(err)
				}
			}
			files := ContextFiles(ContextOptions{ZutHome: filepath.Join(dir, "zut"), UserHome: filepath.Join(dir, "home"), CWD: filepath.Join(dir, "repo", "sub")})
			var got []string
			rel := func(p string) string { r, _ := filepath.Rel(dir, p); return filepath.ToSlash(r) }
			for _, f := range files {
				s := rel(f.Path)
				if f.ImportedBy != "" {
					s += " <- " + rel(f.ImportedBy)
				}
				if f.Skipped != "" {
					s += ": skipped " + f.Skipped
				}
				got = append(got, s)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ContextFiles =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("file %d = %q, want it to start with %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestSystemPromptImports: an imported file's text reaches the prompt
// under its own heading.
func TestSystemPromptImports(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("Use @rules.md"), 0o644)
	os.WriteFile(filepath.Join(dir, "rules.md"), []byte("Always tabs."), 0o644)
	s, _ := SystemPrompt(PromptOptions{CWD: dir})
	want := "# Instructions from " + filepath.Join(dir, "rules.md") + " (imported by " + filepath.Join(dir, "CLAUDE.md") + ")\n\nAlways tabs."
	if !strings.Contains(s, want) {
		t.Fatalf("SystemPrompt = %q, want it to hold %q", s, want)
	}
}

// BenchmarkContextFiles finds the context files of a repository five
// levels deep, with a user file and an import.
func BenchmarkContextFiles(b *testing.B) {
	dir := b.TempDir()
	cwd := filepath.Join(dir, "repo", "a", "b", "c", "d")
	os.MkdirAll(cwd, 0o755)
	os.MkdirAll(filepath.Join(dir, "repo", ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "home", ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, "home", ".claude", "CLAUDE.md"), []byte("user rules"), 0o644)
	os.WriteFile(filepath.Join(dir, "repo", "AGENTS.md"), []byte(strings.Repeat("rule\n", 500)+"@docs/style.md\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "repo", "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "repo", "docs", "style.md"), []byte("style"), 0o644)
	o := ContextOptions{UserHome: filepath.Join(dir, "home"), CWD: cwd}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := len(ContextFiles(o)); n != 3 {
			b.Fatalf("found %d files, want 3", n)
		}
	}
}
