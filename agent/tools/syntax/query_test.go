package syntax

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

// TestQueries runs find, definition and references over the samples and
// records every result in testdata/queries.golden.
func TestQueries(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "outline"))
	if err != nil {
		t.Fatal(err)
	}
	tool := New(tools.Config{CWD: dir}, Config{})
	tests := []struct {
		path, action, query string
	}{
		{"sample.go", "find", "func:New"},
		{"sample.go", "find", "func:*"},
		{"sample.go", "find", "method:memStore.Get"},
		{"sample.go", "find", "method:*.Put"},
		{"sample.go", "find", "method:Store.*"},
		{"sample.go", "find", "type:Record"},
		{"sample.go", "find", "type:*"},
		{"sample.go", "find", "field:Record.Name"},
		{"sample.go", "find", "field:Meta"},
		{"sample.go", "find", "var:Err*"},
		{"sample.go", "find", "const:Kind*"},
		{"sample.go", "find", "import:fmt"},
		{"sample.go", "find", "import:cont*"},
		{"sample.go", "find", "call:f.Errorf"},
		{"sample.go", "find", "call:errors.New"},
		{"sample.go", "find", "call:append"},
		{"sample.go", "find", "call:*.Sprint*"},
		{"sample.go", "find", "call:recover"},
		{"sample.go", "find", "Swap"},
		{"sample.go", "find", "Pair.Key"},
		{"sample.go", "find", "func:Missing"},
		{"sample.go", "definition", "Get"},
		{"sample.go", "definition", "memStore.Put"},
		{"sample.go", "references", "ErrMissing"},
		{"sample.go", "references", "m.rows"},
		{"sample.go", "references", "Record.Name"},
		{"sample.py", "find", "method:Point.*"},
		{"sample.py", "find", "field:Point.y"},
		{"sample.py", "find", "call:field"},
		{"sample.py", "definition", "inner"},
		{"sample.py", "references", "x"},
		{"sample.ts", "find", "method:App.*"},
		{"sample.ts", "find", "call:super"},
		{"sample.ts", "definition", "Color"},
		{"sample.js", "references", "this.count"},
		{"sample.js", "find", "call:require"},
		{"sample.js", "references", "count"},
		{"sample.rs", "find", "method:Point.*"},
		{"sample.rs", "find", "field:Point.z"},
		{"sample.rs", "find", "call:HashMap::new"},
		{"sample.rs", "find", "call:write"},
		{"sample.rs", "references", "Point"},
		{"sample.c", "find", "call:qsort"},
		{"sample.c", "find", "const:SQUARE"},
		{"sample.c", "definition", "compare_ints"},
		{"sample.c", "references", "compare_ints"},
		{"sample.cpp", "find", "method:Buffer.operator*"},
		{"sample.cpp", "find", "call:lambda"},
		{"sample.cpp", "definition", "Buffer.run"},
		{"Sample.java", "find", "method:Service.*"},
		{"Sample.java", "find", "call:out.println"},
		{"Sample.java", "find", "type:*"},
		{"Sample.java", "references", "tag"},
	}
	var b strings.Builder
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s %s", tc.path, tc.action, tc.query)
		t.Run(name, func(t *testing.T) {
			r := run(t, tool, map[string]any{"action": tc.action, "path": tc.path, "query": tc.query})
			if r.IsError {
				t.Errorf("ast %s: error %s", name, r.Text())
			}
			fmt.Fprintf(&b, "== %s\n%s\n", name, r.Text())
		})
	}
	checkGolden(t, "queries.golden", b.String())
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in, kind, qual, name, err string
	}{
		{"Parse", "", "", "Parse", ""},
		{"func:Parse", "func", "", "Parse", ""},
		{"method:Server.Close", "method", "Server", "Close", ""},
		{" call:a.b.Name ", "call", "b", "Name", ""},
		{"call:std::mem::swap", "call", "mem", "swap", ""},
		{"import:net/http", "import", "", "net/http", ""},
		{"type:*Error", "type", "", "*Error", ""},
		{"klass:Foo", "", "", "", `unknown query kind "klass"; use one of func, method, type, field, var, const, import, call followed by ":" and a name, for example call:fmt.Errorf or method:Server.Close`},
		{"func:", "", "", "", `query "func:" has no name; write for example func:Parse, type:Config or call:os.Open`},
		{"a b", "", "", "", `query "a b" holds white space; a query is one name such as call:fmt.Errorf (use the grep tool for text)`},
		{"a..b", "", "", "", `query "a..b" has an empty part between dots`},
		{"type:a.b.c", "", "", "", `query "type:a.b.c" has too many parts: write TYPE.NAME (only call: takes a longer path such as call:a.b.Name)`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			q, err := parseQuery(tc.in)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Fatalf("parseQuery(%q) error = %q, want %q", tc.in, got, tc.err)
			}
			if err == nil && (q.kind != tc.kind || q.qual != tc.qual || q.name != tc.name) {
				t.Errorf("parseQuery(%q) = kind %q qual %q name %q, want %q %q %q", tc.in, q.kind, q.qual, q.name, tc.kind, tc.qual, tc.name)
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"a*", "abc", true},
		{"*c", "abc", true},
		{"*b*", "abc", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"*", "", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"é*", "éa", true},
		{"?", "é", true},
	}
	for _, tc := range tests {
		if got := matchGlob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}
