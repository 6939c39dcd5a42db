package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

func toolsConfig(dir string) tools.Config { return tools.Config{CWD: dir} }

// goSource is a realistic Go file of about n lines: types with fields,
// methods with bodies, constants, comments.
func goSource(n int) []byte {
	var b strings.Builder
	b.WriteString("// Package gen is generated for benchmarks.\npackage gen\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `// T%[1]d is type number %[1]d.
type T%[1]d struct {
	Name  string `+"`json:\"name\"`"+`
	Count int
	items []string
}

const limit%[1]d = %[1]d * 2

// Add appends s (%[1]d).
func (t *T%[1]d) Add(s string, extra ...int) error {
	if len(t.items) > limit%[1]d {
		return fmt.Errorf("add %%q: over %%d", s, limit%[1]d)
	}
	t.items = append(t.items, strings.TrimSpace(s))
	t.Count++
	return nil
}

`, i)
	}
	return []byte(b.String())
}

// BenchmarkOutlineGo5000 is the target of the issue: ast outline of a
// 5,000-line Go file (the tool's own path: parse, outline, signatures).
func BenchmarkOutlineGo5000(b *testing.B) {
	src := goSource(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		res := analyze("outline", query{}, langGo, "gen.go", src)
		if len(res.symbols) < 1000 {
			b.Fatalf("outline found %d symbols", len(res.symbols))
		}
	}
}

// BenchmarkOutlineTool measures the same through Run (file reading and
// rendering included).
func BenchmarkOutlineTool(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gen.go"), goSource(5000), 0o644); err != nil {
		b.Fatal(err)
	}
	tool := New(toolsConfig(dir), Config{})
	for b.Loop() {
		if r := tool.Run(b.Context(), []byte(`{"action":"outline","path":"gen.go"}`), nil); r.IsError {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkOutlineTokens outlines a 5,000-line file in each tokenizer
// language (the samples repeated).
func BenchmarkOutlineTokens(b *testing.B) {
	for _, name := range []string{"sample.py", "sample.ts", "sample.rs", "sample.cpp", "Sample.java"} {
		one, err := os.ReadFile(filepath.Join("testdata", "outline", name))
		if err != nil {
			b.Fatal(err)
		}
		src := []byte(strings.Repeat(string(one), 5000/countLines(one)+1))
		lang := languageOf(name)
		b.Run(lang.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				analyze("outline", query{}, lang, name, src)
			}
		})
	}
}

// BenchmarkMinified is the worst case of a tokenizer language: one line
// of 1 MiB with divisions, braces and references everywhere.
func BenchmarkMinified(b *testing.B) {
	src := []byte(strings.Repeat("a=b/c/d;f({x:g/2},h(i));var j={k:l/m};", 1<<20/38))
	q, _ := parseQuery("b")
	for b.Loop() {
		analyze("references", q, langJS, "min.js", src)
	}
}
