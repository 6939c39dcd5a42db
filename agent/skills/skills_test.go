package skills

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// writeFiles creates files under root from a map of slash paths to text.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nInstructions of %s.\n", name, desc, name, desc)
}

// layout builds a cwd, a ZUT_HOME, a home and two extension skill dirs,
// with skills that collide on purpose.
func layout(t *testing.T) (Options, string) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"proj/.zut/skills/deploy/SKILL.md":      skillMD("deploy", "project zut deploy"),
		"proj/.zut/skills/.hidden/SKILL.md":     skillMD("hidden", "never found"),
		"proj/.zut/skills/notes.txt":            "not a skill",
		"proj/.zut/skills/empty/README.md":      "no SKILL.md here",
		"zuthome/skills/deploy/SKILL.md":        skillMD("deploy", "zut home deploy"),
		"zuthome/skills/pdf/SKILL.md":           skillMD("pdf", "zut home pdf"),
		"proj/.agents/skills/pdf/SKILL.md":      skillMD("pdf", "project agents pdf"),
		"proj/.agents/skills/review/SKILL.md":   skillMD("review", "project agents review"),
		"proj/.agents/skills/broken/SKILL.md":   "---\nname: broken\ndescription: \"unclosed\n---\n",
		"proj/.agents/skills/nodesc/SKILL.md":   "---\nname: nodesc\n---\nbody\n",
		"proj/.agents/skills/nofront/SKILL.md":  "# Just markdown\n",
		"proj/.agents/skills/bad name/SKILL.md": skillMD("bad name", "spaces"),
		"home/.agents/skills/unnamed/SKILL.md":  "---\ndescription: takes its directory's name\n---\nbody\n",
		"home/.agents/skills/review/SKILL.md":   skillMD("review", "home review"),
		"ext1/skills/SKILL.md":                  skillMD("weather", "extension weather"),
		"ext2/skills/a/SKILL.md":                skillMD("weather", "second weather"),
		"ext2/skills/b/SKILL.md":                skillMD("zz-last", "extension b"),
	})
	return Options{
		CWD:           filepath.Join(root, "proj"),
		ZutHome:       filepath.Join(root, "zuthome"),
		Home:          filepath.Join(root, "home"),
		ExtensionDirs: []string{filepath.Join(root, "ext1", "skills"), filepath.Join(root, "ext2", "skills"), filepath.Join(root, "missing")},
	}, root
}

func TestDiscoverPrecedence(t *testing.T) {
	opts, root := layout(t)
	x := Discover(opts)
	type row struct{ name, desc, path string }
	var got []row
	for _, s := range x.List() {
		rel, _ := filepath.Rel(root, s.Path)
		got = append(got, row{s.Name, s.Description, filepath.ToSlash(rel)})
	}
	want := []row{
		{"deploy", "project zut deploy", "proj/.zut/skills/deploy/SKILL.md"},
		{"pdf", "zut home pdf", "zuthome/skills/pdf/SKILL.md"},
		{"review", "project agents review", "proj/.agents/skills/review/SKILL.md"},
		{"unnamed", "takes its directory's name", "home/.agents/skills/unnamed/SKILL.md"},
		{"weather", "extension weather", "ext1/skills/SKILL.md"},
		{"zz-last", "extension b", "ext2/skills/b/SKILL.md"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Discover().List() =\n%v\nwant\n%v", got, want)
	}
	s, ok := x.Lookup("pdf")
	if !ok || s.Dir != filepath.Join(root, "zuthome", "skills", "pdf") {
		t.Errorf("Lookup(%q) = %+v, %v; want the zut home skill", "pdf", s, ok)
	}
	if _, ok := x.Lookup("hidden"); ok {
		t.Errorf("Lookup(%q) found a skill in a hidden directory", "hidden")
	}

	warnings := strings.Join(x.Warnings(), "\n")
	for _, w := range []string{
		`skill "deploy" in ` + filepath.Join(root, "zuthome/skills/deploy/SKILL.md") + ` is ignored: a skill of that name is already loaded from ` + filepath.Join(root, "proj/.zut/skills/deploy/SKILL.md"),
		`skill "pdf" in ` + filepath.Join(root, "proj/.agents/skills/pdf/SKILL.md") + ` is ignored`,
		`skill "review" in ` + filepath.Join(root, "home/.agents/skills/review/SKILL.md") + ` is ignored`,
		`skill "weather" in ` + filepath.Join(root, "ext2/skills/a/SKILL.md") + ` is ignored`,
		"skill " + filepath.Join(root, "proj/.agents/skills/broken/SKILL.md") + ": front matter line 2: description: quoted value is not closed",
		"skill " + filepath.Join(root, "proj/.agents/skills/nodesc/SKILL.md") + ": front matter has no description",
		"skill " + filepath.Join(root, "proj/.agents/skills/nofront/SKILL.md") + ": no front matter",
		"skill " + filepath.Join(root, "proj/.agents/skills/bad name/SKILL.md") + `: name "bad name" may only hold`,
	} {
		if !strings.Contains(warnings, w) {
			t.Errorf("Warnings() = \n%s\nwant one containing %q", warnings, w)
		}
	}
	if n := len(x.Warnings()); n != 8 {
		t.Errorf("len(Warnings()) = %d, want 8:\n%s", n, warnings)
	}
}

func TestDiscoverEmpty(t *testing.T) {
	x := Discover(Options{CWD: t.TempDir()})
	if len(x.List()) != 0 || x.Manifest() != "" || len(x.Warnings()) != 0 {
		t.Errorf("Discover(empty) = %v, %q, %v; want nothing", x.List(), x.Manifest(), x.Warnings())
	}
	var nilIndex *Index
	if _, ok := nilIndex.Lookup("x"); ok || nilIndex.Manifest() != "" || nilIndex.List() != nil {
		t.Errorf("a nil *Index is not empty")
	}
}

func TestDiscoverUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := t.TempDir()
	dir := filepath.Join(root, ".zut", "skills")
	writeFiles(t, root, map[string]string{".zut/skills/a/SKILL.md": skillMD("a", "b")})
	os.Chmod(dir, 0)
	defer os.Chmod(dir, 0o755)
	x := Discover(Options{CWD: root})
	if len(x.Warnings()) != 1 || !strings.Contains(x.Warnings()[0], dir) {
		t.Errorf("Warnings() = %q, want one naming %s", x.Warnings(), dir)
	}
}

func TestManifest(t *testing.T) {
	opts, _ := layout(t)
	got := Discover(opts).Manifest()
	golden(t, "manifest.golden", got)
}

func TestManifestBounded(t *testing.T) {
	var list []Skill
	for i := range 200 {
		list = append(list, Skill{Name: fmt.Sprintf("skill-%03d", i), Description: strings.Repeat("word ", 100), Path: "/s"})
	}
	m := New(list...).Manifest()
	if len(m) > maxManifest {
		t.Errorf("len(Manifest()) = %d, want at most %d", len(m), maxManifest)
	}
	if !strings.Contains(m, "more skills not listed") {
		t.Errorf("Manifest() of 200 long skills does not say some were left out:\n%s", m[len(m)-300:])
	}
	if !strings.Contains(m, "- skill-000: word word") || !strings.Contains(m, "…") {
		t.Errorf("Manifest() does not list the first skill with a cut description:\n%s", m[:400])
	}
}

func TestBody(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a/SKILL.md": "\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\n\r\n# A\r\nSee ./ref.md\r\n",
		"b/SKILL.md": "---\nname: b\ndescription: d\n---\n",
	})
	tests := []struct {
		name, want string
	}{
		{"a", "# A\r\nSee ./ref.md\r\n"},
		{"b", ""},
	}
	x := Discover(Options{CWD: root, ExtensionDirs: []string{root}})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := x.Lookup(tc.name)
			if !ok {
				t.Fatalf("Lookup(%q) failed; warnings %v", tc.name, x.Warnings())
			}
			got, truncated, err := s.Body()
			if err != nil || truncated || got != tc.want {
				t.Errorf("Body() = %q, %v, %v; want %q", got, truncated, err, tc.want)
			}
		})
	}
	os.Remove(filepath.Join(root, "a", "SKILL.md"))
	s, _ := x.Lookup("a")
	if _, _, err := s.Body(); err == nil || !strings.Contains(err.Error(), `read skill "a"`) {
		t.Errorf("Body() of a removed file: error %v, want one naming the skill", err)
	}
}

func TestNewDuplicates(t *testing.T) {
	x := New(Skill{Name: "a", Description: "1", Path: "/1"}, Skill{Name: "a", Description: "2", Path: "/2"})
	if s, _ := x.Lookup("a"); s.Description != "1" || len(x.Warnings()) != 1 || !slices.Equal(x.Names(), []string{"a"}) {
		t.Errorf("New(a, a) kept %+v with warnings %v, want the first and one warning", s, x.Warnings())
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestDiscoverClaudeAndAncestors: .claude/skills beside .agents/skills,
// and the project's directories found up to the repository root, the
// nearest first.
func TestDiscoverClaudeAndAncestors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // name: description
	}{
		{"claude project and user", map[string]string{
			"repo/sub/.claude/skills/lint/SKILL.md": skillMD("lint", "claude project lint"),
			"home/.claude/skills/notes/SKILL.md":    skillMD("notes", "claude user notes"),
		}, []string{"lint: claude project lint", "notes: claude user notes"}},
		{"at the repository root", map[string]string{
			"repo/.claude/skills/root/SKILL.md": skillMD("root", "root claude"),
			"repo/.agents/skills/top/SKILL.md":  skillMD("top", "root agents"),
			"repo/.zut/skills/z/SKILL.md":       skillMD("z", "root zut"),
		}, []string{"z: root zut", "top: root agents", "root: root claude"}},
		{"the nearest wins", map[string]string{
			"repo/.claude/skills/a/SKILL.md":     skillMD("a", "root"),
			"repo/sub/.claude/skills/a/SKILL.md": skillMD("a", "nearest"),
		}, []string{"a: nearest"}},
		{"agents before claude in one directory", map[string]string{
			"repo/sub/.claude/skills/a/SKILL.md": skillMD("a", "claude"),
			"repo/sub/.agents/skills/a/SKILL.md": skillMD("a", "agents"),
		}, []string{"a: agents"}},
		{"not above the repository root", map[string]string{
			".claude/skills/out/SKILL.md": skillMD("out", "outside"),
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "repo", "sub"), 0o755)
			os.MkdirAll(filepath.Join(root, "home"), 0o755)
			writeFiles(t, root, tc.files)
			x := Discover(Options{CWD: filepath.Join(root, "repo", "sub"), Root: filepath.Join(root, "repo"), Home: filepath.Join(root, "home")})
			var got []string
			for _, s := range x.List() {
				got = append(got, s.Name+": "+s.Description)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Discover = %q, want %q", got, tc.want)
			}
		})
	}
}
