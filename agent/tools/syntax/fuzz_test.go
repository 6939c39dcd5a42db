package syntax

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzLangs are the languages FuzzOutline picks from by its first input.
var fuzzLangs = []*language{langPython, langJS, langTS, langRust, langC, langCPP, langJava, langGo}

// FuzzOutline feeds arbitrary bytes to every outliner and search: none may
// panic or hang, and every symbol must lie inside the source.
func FuzzOutline(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "outline", "sample*"))
	files = append(files, filepath.Join("testdata", "outline", "Sample.java"))
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil || filepath.Ext(p) == ".golden" {
			continue
		}
		for i, l := range fuzzLangs {
			if l == languageOf(p) {
				f.Add(uint8(i), src)
			}
		}
	}
	for i := range fuzzLangs {
		for _, s := range []string{"", "{", "}", "(", "'", "\"", "`${", "/*", "r#\"", "R\"x(", "#define \\", "class A { fn(", "def f(:\n\tx", "struct { enum {"} {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		lang := fuzzLangs[int(which)%len(fuzzLangs)]
		lines := countLines(src)
		for _, action := range []string{"outline", "find", "references"} {
			q, _ := parseQuery("*")
			if action == "find" {
				q, _ = parseQuery("call:*")
			}
			res := analyze(action, q, lang, "f", src)
			for _, s := range res.symbols {
				if s.Line < 1 || s.Line > lines+1 || s.Depth < 0 || s.EndLine != 0 && s.EndLine < s.Line && lang.exact {
					t.Fatalf("%s %s: symbol %+v outside the %d lines of %q", lang.name, action, s, lines, src)
				}
			}
		}
	})
}
