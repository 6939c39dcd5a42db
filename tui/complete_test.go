package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestIgnoreRules(t *testing.T) {
	rules := parseIgnore("", `# comment
*.log
!keep.log
build/
/root-only
docs/*.md
**/gen/**
a/**/z
\#hash
trailing\ 
`)
	sub := parseIgnore("sub", "local\n/anchored\n")
	rules = append(rules, sub...)
	tests := []struct {
		path string
		dir  bool
		want bool
	}{
		{"x.log", false, true},
		{"deep/x.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"build", false, false},
		{"src/build", true, true},
		{"root-only", false, true},
		{"src/root-only", false, false},
		{"docs/a.md", false, true},
		{"docs/sub/a.md", false, false},
		{"x/gen/y.go", false, true},
		{"gen/y.go", false, true},
		{"a/z", false, true},
		{"a/b/c/z", false, true},
		{"#hash", false, true},
		{"trailing ", false, true},
		{"sub/local", false, true},
		{"sub/deeper/local", false, true},
		{"local", false, false},
		{"sub/anchored", false, true},
		{"sub/x/anchored", false, false},
		{"main.go", false, false},
	}
	for _, tc := range tests {
		if got := ignored(rules, tc.path, tc.dir); got != tc.want {
			t.Errorf("ignored(%q, dir %v) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

// writeTree creates files (directories end in "/") under a temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFileIndex(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gitignore":        "node_modules/\n*.tmp\n",
		".git/info/exclude": "secret.txt\n",
		".git/HEAD":         "ref",
		"main.go":           "",
		"secret.txt":        "",
		"x.tmp":             "",
		"node_modules/a.js": "",
		"src/.gitignore":    "gen/\n!keep.tmp\n",
		"src/app.go":        "",
		"src/keep.tmp":      "",
		"src/gen/out.go":    "",
		"src/deep/util.go":  "",
	})
	ix := &FileIndex{Root: root}
	got := strings.Join(ix.Files(), " ")
	want := ".gitignore main.go src/ src/.gitignore src/app.go src/deep/ src/keep.tmp src/deep/util.go"
	if got != want {
		t.Errorf("Files() = %s\nwant      %s", got, want)
	}
	small := &FileIndex{Root: root, Max: 3}
	if n := len(small.Files()); n != 3 || !small.Truncated() {
		t.Errorf("Files() with Max 3 = %d entries, truncated %v", n, small.Truncated())
	}
	os.WriteFile(filepath.Join(root, "new.go"), nil, 0o644)
	ix.Refresh()
	if !strings.Contains(strings.Join(ix.Files(), " "), "new.go") {
		t.Errorf("Refresh did not pick up new.go")
	}
}

func TestFileCompleter(t *testing.T) {
	root := writeTree(t, map[string]string{
		"main.go": "", "src/app.go": "", "src/main_test.go": "", "docs/maintenance.md": "", "README.md": "",
	})
	c := &FileCompleter{Index: &FileIndex{Root: root}}
	tests := []struct {
		text   string
		cursor int
		want   string
	}{
		{"look at @mai", 12, "@main.go |@src/main_test.go |@docs/maintenance.md "},
		{"@src/", 5, "@src/app.go |@src/main_test.go "},
		{"@rdme", 5, "@README.md "},
		{"no mention", 10, ""},
		{"mail@mai", 8, ""},
		{"@zzz", 4, ""},
	}
	for _, tc := range tests {
		r := c.Complete(tc.text, tc.cursor, false)
		var got []string
		if r != nil {
			for _, it := range r.Items {
				got = append(got, it.Value)
			}
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("Complete(%q) = %q, want %q", tc.text, strings.Join(got, "|"), tc.want)
		}
	}
}

func TestPathCompleter(t *testing.T) {
	root := writeTree(t, map[string]string{"src/app.go": "", "src/api/": "", "script.sh": "", ".hidden": ""})
	home := writeTree(t, map[string]string{"notes.txt": ""})
	c := &PathCompleter{Dir: root, Home: home}
	tests := []struct {
		text     string
		explicit bool
		want     string
	}{
		{"run s", true, "script.sh|src/"},
		{"run src/a", true, "src/api/|src/app.go"},
		{"cat ~/no", true, "~/notes.txt"},
		{"cat .h", true, ".hidden"},
		{"cat ", true, "script.sh|src/"},
		{"run s", false, ""},
		{"run nothing/", true, ""},
	}
	for _, tc := range tests {
		r := c.Complete(tc.text, len(tc.text), tc.explicit)
		var got []string
		if r != nil {
			for _, it := range r.Items {
				got = append(got, it.Value)
			}
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("Complete(%q, %v) = %q, want %q", tc.text, tc.explicit, strings.Join(got, "|"), tc.want)
		}
	}
	// Through the editor: Tab with one candidate completes at once.
	e := &Editor{Completer: c}
	e.SetText("cat ~/n")
	e.HandleKey(Key{Code: KeyTab})
	if e.Text() != "cat ~/notes.txt" {
		t.Errorf("Tab completed to %q, want %q", e.Text(), "cat ~/notes.txt")
	}
}

// FuzzEditor drives the editor with random keys and pastes and
// checks that the cursor stays on a cluster boundary inside the text and
// that rendering never panics or exceeds the width by more than a wide
// character on a one-cell row.
func FuzzEditor(f *testing.F) {
	f.Add([]byte("hello\x01\x02world"), uint8(10))
	f.Add([]byte("日本\x10語👨\u200d👩\x05\x06\x07"), uint8(3))
	names := []string{"enter", "shift+enter", "backspace", "delete", "left", "right", "up", "down",
		"home", "end", "ctrl+a", "ctrl+e", "ctrl+k", "ctrl+u", "ctrl+w", "ctrl+y", "alt+y", "alt+b",
		"alt+f", "alt+d", "ctrl+_", "tab", "esc", "ctrl+left", "ctrl+right", "alt+backspace"}
	f.Fuzz(func(t *testing.T, script []byte, width uint8) {
		if len(script) > 2000 {
			return
		}
		w := 1 + int(width)%40
		e := &Editor{Completer: &CommandCompleter{Commands: []Command{{Name: "help"}, {Name: "hello"}}}}
		e.History, _ = OpenHistory("", 5)
		e.History.Add("old\nentry")
		for i := 0; i < len(script); i++ {
			c := script[i]
			switch {
			case c < 0x20 && int(c) < len(names):
				k, _ := ParseKey(names[c])
				if e.HandleKey(k) == EditSubmit {
					e.Submit()
				}
			case c == 0x7f && i+1 < len(script):
				n := int(script[i+1]) % 40
				end := min(len(script), i+2+n)
				e.Paste(string(script[i+2 : end]))
				i = end - 1
			default:
				for _, r := range string([]byte{c}) {
					e.HandleKey(Key{Code: KeyRune, Rune: r})
				}
				if c >= 0x80 {
					e.Insert(string(script[i:min(len(script), i+4)]))
					i += 3
				}
			}
			if e.cur < 0 || e.cur > len(e.text) {
				t.Fatalf("cursor %d outside text of %d bytes", e.cur, len(e.text))
			}
			lines, row, col := e.Render(w)
			if row < 0 || row >= len(lines) || col < 0 || col > w {
				t.Fatalf("Render(%d) cursor %d,%d outside %d lines", w, row, col, len(lines))
			}
			for _, l := range lines {
				if sw := ansi.StringWidth(l); sw > w && !(w == 1 && sw == 2) {
					t.Fatalf("Render(%d) line %q is %d cells", w, l, sw)
				}
			}
		}
	})
}

// fileTree makes a tree of n files in nested directories, with a
// .gitignore excluding a tenth of them.
func fileTree(b *testing.B, n int) string {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.skip\nvendor/\n"), 0o644)
	for i := range n {
		dir := filepath.Join(root, "pkg"+strconv.Itoa(i%50), "sub"+strconv.Itoa(i%7))
		os.MkdirAll(dir, 0o755)
		name := "file" + strconv.Itoa(i) + ".go"
		if i%10 == 0 {
			name = "file" + strconv.Itoa(i) + ".skip"
		}
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	return root
}

func BenchmarkFileIndex(b *testing.B) {
	root := fileTree(b, 10000)
	for b.Loop() {
		ix := &FileIndex{Root: root}
		ix.Files()
	}
}

func BenchmarkFileCompleter(b *testing.B) {
	ix := &FileIndex{Root: fileTree(b, 10000)}
	ix.Files()
	c := &FileCompleter{Index: ix}
	b.ResetTimer()
	for b.Loop() {
		c.Complete("look at @sub3/file12", 20, false)
	}
}
