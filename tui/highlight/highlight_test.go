package highlight

import (
	"flag"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/internal/styletest"
	"github.com/zut-go/zut/tui/internal/txtar"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata.
var update = flag.Bool("update", false, "rewrite golden files")

func TestLanguageFor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"go", "go"}, {"golang", "go"}, {"Go", "go"}, {"main.go", "go"},
		{"py", "python"}, {"python3", "python"}, {"x/y/script.py", "python"},
		{"js", "javascript"}, {"jsx", "javascript"}, {"ts", "typescript"}, {"tsx", "typescript"}, {"app.tsx", "typescript"},
		{"sh", "shell"}, {"bash", "shell"}, {"zsh", "shell"}, {"run.sh", "shell"}, {"Makefile", "shell"},
		{"json", "json"}, {"package.json", "json"}, {"yml", "yaml"}, {"ci.yaml", "yaml"},
		{"diff", "diff"}, {"patch", "diff"}, {"c", "c"}, {"h", "c"}, {"cpp", "cpp"}, {"rs", "rust"}, {"rust", "rust"},
		{"go {linenos}", "go"}, {"{.python}", "python"},
		{"", ""}, {"text", ""}, {"cobol", ""}, {"README", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := LanguageFor(tc.in); got != tc.want {
				t.Errorf("LanguageFor(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestHighlightGolden highlights one sample per language; the styled
// golden shows every token's role.
func TestHighlightGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/highlight/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := txtar.Read(t, path)
			lang := a.Setting("lang", "")
			if LanguageFor(lang) == "" {
				t.Fatalf("no tokenizer for %q", lang)
			}
			code := a.Data("code")
			lines := Highlight(code, lang, styletest.Theme(), ansi.ProfileANSI256)
			if n := strings.Count(code, "\n"); len(lines) != n {
				t.Errorf("Highlight gave %d lines for %d", len(lines), n)
			}
			got := styletest.JoinLines(styletest.MapLines(lines, styletest.Annotate))
			if *update {
				a.Set("styled", got)
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != a.Data("styled") {
				t.Errorf("Highlight(%s):\n--- got\n%s--- want\n%s", path, got, a.Data("styled"))
			}
		})
	}
}

// TestHighlightState checks that multi-line constructs carry over and end.
func TestHighlightState(t *testing.T) {
	tests := []struct {
		name, lang, code string
		line             int // the line to look at
		want             synKind
	}{
		{"go raw string", "go", "s := `a\nb` + x\n", 1, synString},
		{"go after raw string", "go", "s := `a\nb` + x\nreturn\n", 2, synKeyword},
		{"c block comment", "c", "/* a\nb */ int x;\n", 1, synComment},
		{"rust nested comment", "rust", "/* a /* b */\nstill */ fn\n", 1, synComment},
		{"python triple", "python", "x = \"\"\"a\nb\n\"\"\"\ndef\n", 1, synString},
		{"python after triple", "python", "x = \"\"\"a\nb\n\"\"\"\ndef\n", 3, synKeyword},
		{"js template", "js", "let s = `a\n${b}`\n", 1, synString},
		{"shell heredoc", "sh", "cat <<EOF\nif then\nEOF\nif\n", 1, synString},
		{"shell after heredoc", "sh", "cat <<EOF\nif then\nEOF\nif true\n", 3, synKeyword},
		{"yaml block scalar", "yaml", "a: |\n  if: x\nb: 1\n", 1, synString},
		{"yaml after block scalar", "yaml", "a: |\n  if: x\nb: 1\n", 2, synType},
		{"rust raw string", "rust", "let s = r#\"a\n\"b\"#;\n", 1, synString},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := LookupLanguage(tc.lang)
			var st HighlightState
			var toks []hlToken
			for i, line := range strings.Split(strings.TrimSuffix(tc.code, "\n"), "\n") {
				toks, st = l.tokens(line, st)
				if i == tc.line {
					break
				}
			}
			if len(toks) == 0 || toks[0].kind != tc.want {
				t.Errorf("%s line %d tokens = %v, want the first of kind %d", tc.lang, tc.line, toks, tc.want)
			}
		})
	}
}

func FuzzHighlight(f *testing.F) {
	f.Add("go", "func f() { s := `x\n` /* c */ }")
	f.Add("sh", "cat <<'EOF'\n$x\nEOF")
	f.Add("yaml", "a: |\n  b\nc: [1, 'x']")
	f.Add("rust", "r##\"a\"# 'a' b'x' /* /* */")
	f.Fuzz(func(t *testing.T, lang, code string) {
		lines := Highlight(code, lang, nil, ansi.ProfileTrueColor)
		if want := strings.Count(strings.TrimSuffix(code, "\n"), "\n") + 1; len(lines) != want {
			t.Fatalf("Highlight gave %d lines for %d", len(lines), want)
		}
		for _, l := range lines {
			if strings.Contains(styletest.Annotate(l), "«esc") {
				t.Fatalf("foreign escape in %q", l)
			}
		}
		// The tokens of a line are the line.
		if lx := LookupLanguage(lang); lx != nil {
			var st HighlightState
			for _, line := range strings.Split(code, "\n") {
				var toks []hlToken
				toks, st = lx.tokens(line, st)
				var b strings.Builder
				for _, tk := range toks {
					b.WriteString(tk.text)
				}
				if b.String() != line {
					t.Fatalf("%s tokens of %q join to %q", lang, line, b.String())
				}
			}
		}
	})
}
