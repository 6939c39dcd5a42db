package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// grepTree is a repository exercising the ignore rules.
var grepTree = map[string]string{
	".git/config":       "TODO in git\n",
	".git/info/exclude": "excluded.txt\n",
	".gitignore": "# comment\n*.log\nbuild/\n/root-only.txt\n!keep.log\ndocs/**/draft.md\n\\#hash.txt\n" +
		"trailing.txt   \ncache/\n[Tt]emp*.txt\n",
	".ignore":                    "by-dot-ignore.txt\n",
	"a.go":                       "package a\n\nfunc Foo() {}\n\n// TODO: first\nvar x = 1 // todo lower\n",
	"b.go":                       "package a\n// TODO: second\n",
	"keep.log":                   "TODO keep (re-included)\n",
	"x.log":                      "TODO ignored log\n",
	"build/out.go":               "TODO ignored build\n",
	"root-only.txt":              "TODO ignored anchored\n",
	"docs/draft.md":              "TODO ignored draft (zero dirs)\n",
	"docs/a/b/draft.md":          "TODO ignored draft (two dirs)\n",
	"docs/final.md":              "TODO final\n",
	"#hash.txt":                  "TODO ignored hash\n",
	"trailing.txt":               "TODO ignored trailing spaces\n",
	"cache":                      "TODO cache is a file, the pattern is for directories\n",
	"Temp1.txt":                  "TODO ignored class\n",
	"excluded.txt":               "TODO ignored by info/exclude\n",
	"by-dot-ignore.txt":          "TODO ignored by .ignore\n",
	"bin.dat":                    "TODO\x00binary\n",
	"late-binary.dat":            strings.Repeat("TODO early\n", 10) + strings.Repeat("x", 70000) + "\x00\n",
	"crlf.txt":                   "TODO crlf\r\nnext\r\n",
	".hidden/h.txt":              "TODO hidden file\n",
	"sub/.gitignore":             "local.txt\n!important.log\n",
	"sub/local.txt":              "TODO ignored local\n",
	"local.txt":                  "TODO local at root\n",
	"sub/important.log":          "TODO re-included deeper\n",
	"sub/root-only.txt":          "TODO anchored elsewhere\n",
	"sub/build/y.go":             "TODO ignored nested build\n",
	"sub/nested/.gitignore":      "/anch.txt\n",
	"sub/nested/anch.txt":        "TODO ignored nested anchored\n",
	"sub/nested/deeper/anch.txt": "TODO deeper anchored\n",
	"sub/ctx.txt":                "one\ntwo\nTODO three\nfour\nfive\nsix\nseven\nTODO eight\nnine\nTODO ten\neleven\n",
	"long.txt":                   "TODO " + strings.Repeat("é", 400) + "\n",
}

func grepSetup(t *testing.T) Config {
	t.Helper()
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, grepTree)
	if err := os.Symlink("a.go", filepath.Join(cfg.CWD, "link.go")); err != nil {
		t.Fatal(err)
	}
	return cfg
}

var grepQueries = []struct {
	name string
	args map[string]any
}{
	{"todo", map[string]any{"pattern": "TODO"}},
	{"ignore case", map[string]any{"pattern": "todo", "ignore_case": true, "glob": "*.go"}},
	{"glob go", map[string]any{"pattern": "TODO", "glob": "*.go"}},
	{"glob overrides ignore", map[string]any{"pattern": "TODO", "glob": "*.log"}},
	{"negated glob", map[string]any{"pattern": "TODO", "glob": "!*.txt"}},
	{"negated glob dir", map[string]any{"pattern": "TODO", "glob": "!sub"}},
	{"anchored glob", map[string]any{"pattern": "TODO", "glob": "sub/**/*.txt"}},
	{"context", map[string]any{"pattern": "TODO", "path": "sub/ctx.txt", "context": 2}},
	{"context across files", map[string]any{"pattern": "package", "context": 1}},
	{"limit", map[string]any{"pattern": "TODO", "limit": 3}},
	{"limit keeps context", map[string]any{"pattern": "TODO", "path": "sub", "limit": 2, "context": 1}},
	{"subdirectory", map[string]any{"pattern": "TODO", "path": "sub"}},
	{"file", map[string]any{"pattern": "func \\w+", "path": "a.go"}},
	{"regex anchors", map[string]any{"pattern": "^TODO (crlf|final)$"}},
	{"no match", map[string]any{"pattern": "NOTHING_MATCHES_THIS"}},
	{"no match with glob", map[string]any{"pattern": "TODO", "glob": "*.rs"}},
}

func runGrepQueries(t *testing.T, cfg Config) []goldenCase {
	t.Helper()
	var cases []goldenCase
	for _, q := range grepQueries {
		cases = append(cases, goldenCase{q.name, call(t, &grepTool{cfg}, q.args)})
	}
	return cases
}

func TestGrepGo(t *testing.T) {
	cfg := grepSetup(t)
	cfg.NoRipgrep = true
	checkGolden(t, "grep.golden", runGrepQueries(t, cfg))
}

// TestGrepRipgrep checks that the rg backend gives exactly the output of
// the Go backend (the same golden file).
func TestGrepRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed; the rg backend is not tested (apt-get install ripgrep)")
	}
	cfg := grepSetup(t)
	cfg.NoRipgrep, cfg.Ripgrep = false, rg
	if *update {
		t.Skip("golden files are written by the Go backend")
	}
	checkGolden(t, "grep.golden", runGrepQueries(t, cfg))
}

func TestGrepErrors(t *testing.T) {
	cfg := grepSetup(t)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing path", map[string]any{"pattern": "x", "path": "sbu"}, "grep: sbu: no such file or directory; did you mean sub?"},
		{"binary file", map[string]any{"pattern": "x", "path": "bin.dat"}, "grep: bin.dat is a binary file (binary data); grep searches text files"},
		{"empty pattern", map[string]any{"pattern": ""}, "grep: pattern is empty; give a regular expression to search for"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, &grepTool{cfg}, tc.args)
			if !r.IsError || r.Text() != tc.want {
				t.Errorf("grep(%v) = %q, want error %q", tc.args, r.Text(), tc.want)
			}
		})
	}
}

func TestGrepRipgrepFallback(t *testing.T) {
	cfg := grepSetup(t)
	cfg.NoRipgrep, cfg.Ripgrep = false, filepath.Join(cfg.TempDir, "no-such-rg")
	r := call(t, &grepTool{cfg}, map[string]any{"pattern": "TODO: second"})
	if r.IsError || r.Text() != "b.go:2:// TODO: second\n[1 match in 1 file]" {
		t.Errorf("grep with a broken rg = %q, want the Go backend's answer", r.Text())
	}
}

func TestGrepOutputCap(t *testing.T) {
	cfg := testConfig(t)
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "match %d %s\n", i, strings.Repeat("y", 200))
	}
	writeFiles(t, cfg.CWD, map[string]string{"many.txt": b.String()})
	r := call(t, &grepTool{cfg}, map[string]any{"pattern": "match", "limit": 1000})
	text := r.Text()
	if len(text) > grepMaxBytes+200 || !strings.HasSuffix(text, "[output cut at 50.0 KiB; narrow the pattern, path or glob]") {
		t.Errorf("grep over 1000 long lines returned %d bytes ending %q", len(text), text[len(text)-80:])
	}
}

func TestGrepAbort(t *testing.T) {
	cfg := grepSetup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, noRG := range []bool{true, false} {
		cfg.NoRipgrep = noRG
		r := (&grepTool{cfg}).Run(ctx, []byte(`{"pattern":"TODO"}`), nil)
		if !r.IsError || r.Text() != "grep: aborted" {
			t.Errorf("grep (NoRipgrep %v) with a cancelled context = %q", noRG, r.Text())
		}
	}
}

func TestCompileGlob(t *testing.T) {
	tests := []struct {
		pat   string
		match []string
		miss  []string
	}{
		{"*.go", []string{"a.go", "x/y/a.go", ".go"}, []string{"a.goo", "a.go/x"}},
		{"/a.go", []string{"a.go"}, []string{"x/a.go"}},
		{"x/*.go", []string{"x/a.go"}, []string{"x/y/a.go", "z/x/a.go"}},
		{"**/foo", []string{"foo", "a/foo", "a/b/foo"}, []string{"afoo"}},
		{"foo/**", []string{"foo/a", "foo/a/b"}, []string{"foo", "xfoo/a"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"ab", "a/xb"}},
		{"a**b", []string{"ab", "axxb", "d/axb"}, []string{"a/b"}},
		{"?.txt", []string{"a.txt"}, []string{"ab.txt", "/.txt"}},
		{"[a-c]x", []string{"ax", "cx"}, []string{"dx"}},
		{"[!a-c]x", []string{"dx"}, []string{"ax", "/x"}},
		{"[]]x", []string{"]x"}, []string{"ax"}},
		{"\\*lit", []string{"*lit"}, []string{"alit"}},
		{"[unclosed", []string{"[unclosed"}, []string{"u"}},
		{"a.b+c(d)", []string{"a.b+c(d)"}, []string{"aXb+c(d)"}},
	}
	for _, tc := range tests {
		t.Run(tc.pat, func(t *testing.T) {
			re, err := compileGlob(tc.pat)
			if err != nil {
				t.Fatalf("compileGlob(%q): %v", tc.pat, err)
			}
			for _, m := range tc.match {
				if !re.MatchString(m) {
					t.Errorf("compileGlob(%q) (%s) does not match %q", tc.pat, re, m)
				}
			}
			for _, m := range tc.miss {
				if re.MatchString(m) {
					t.Errorf("compileGlob(%q) (%s) matches %q", tc.pat, re, m)
				}
			}
		})
	}
}

func TestIgnoreFile(t *testing.T) {
	f := parseIgnore("/r", []byte("*.o\n!keep.o\nbuild/\n/top\n\\!bang\n# c\n  \nsp\\ \n"))
	tests := []struct {
		rel         string
		dir         bool
		matched, ig bool
	}{
		{"a.o", false, true, true},
		{"x/keep.o", false, true, false},
		{"build", true, true, true},
		{"build", false, false, false},
		{"top", false, true, true},
		{"x/top", false, false, false},
		{"!bang", false, true, true},
		{"sp ", false, true, true},
		{"other", false, false, false},
	}
	for _, tc := range tests {
		m, ig := f.match(tc.rel, tc.dir)
		if m != tc.matched || ig != tc.ig {
			t.Errorf("match(%q, dir %v) = %v, %v; want %v, %v", tc.rel, tc.dir, m, ig, tc.matched, tc.ig)
		}
	}
}

// TestGrepLargeFile covers files streamed line by line (over 8 MiB) in the
// Go backend, with rg as the reference when installed.
func TestGrepLargeFile(t *testing.T) {
	cfg := testConfig(t)
	filler := strings.Repeat("filler line without the word\n", (walkWholeFile/29)+1000)
	writeFiles(t, cfg.CWD, map[string]string{
		"big.txt":     "needle first\n" + filler + "needle last\n",
		"big-bin.txt": "needle before the nul\n" + filler + "\x00needle after\n",
	})
	want := fmt.Sprintf("big.txt:1:needle first\nbig.txt:%d:needle last\n[2 matches in 1 file]", strings.Count(filler, "\n")+2)
	backends := map[string]Config{"go": cfg}
	if rg, err := exec.LookPath("rg"); err == nil {
		c := cfg
		c.NoRipgrep, c.Ripgrep = false, rg
		backends["rg"] = c
	}
	for name, c := range backends {
		t.Run(name, func(t *testing.T) {
			r := call(t, &grepTool{c}, map[string]any{"pattern": "^needle"})
			if r.IsError || r.Text() != want {
				t.Errorf("grep(^needle) = %q, want %q", r.Text(), want)
			}
		})
	}
}

// TestGrepNoLeaks stops rg early (the limit is reached at once) and checks
// that every goroutine of the call has ended.
func TestGrepNoLeaks(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	cfg := grepSetup(t)
	cfg.NoRipgrep, cfg.Ripgrep = false, rg
	before := runtime.NumGoroutine()
	for range 3 {
		r := call(t, &grepTool{cfg}, map[string]any{"pattern": "TODO", "limit": 1})
		if !strings.Contains(r.Text(), "[stopped at 1 match in 1 file;") {
			t.Fatalf("grep limit 1 = %q", r.Text())
		}
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
}
