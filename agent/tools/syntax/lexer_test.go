package syntax

import (
	"strings"
	"testing"
)

// TestLex checks the literals and comments of each language: the
// identifiers left over after lexing must be exactly want.
func TestLex(t *testing.T) {
	tests := []struct {
		name string
		lang *language
		src  string
		want string // the identifier tokens, space-separated
	}{
		{"python prefixes", langPython, `a = rb'x\'' + F"""q
"" """ + u'z' # c d`, "a"},
		{"python line join", langPython, "a = \\\n  b", "a b"},
		{"js template nesting", langJS, "a = `x ${ b + `y ${ c } }` } z ${d}` + e", "a b c d e"},
		{"js regex vs division", langJS, "a = b / c / d; e = /x\\/y [/]/g.test(f)", "a b c d e test f"},
		{"js regex after return", langJS, "return /}/.source", "return source"},
		{"js private and shebang", langJS, "#!/usr/bin/env node\nclass A { #p = 1 }", "class A #p"},
		{"js comments", langJS, "a /* b */ // c\n d", "a d"},
		{"rust raw strings", langRust, `a = r##"b "# c"##; d = br"e"; f = b'g'; h = c"i"`, "a d f h"},
		{"rust lifetimes and chars", langRust, `fn a<'b>(c: &'b str) -> char { 'd' } 'e: loop {} '\''`, "fn a 'b c 'b str char 'e loop"},
		{"rust raw identifier", langRust, "r#type + r#match", "r#type r#match"},
		{"rust nested comments", langRust, "a /* b /* c */ d */ e", "a e"},
		{"cpp raw string", langCPP, `a = R"x(b )" c)x" + d;`, "a d"},
		{"cpp digit separators", langCPP, "a = 1'000'000 + b; c = 'd';", "a b c"},
		{"cpp prefixes", langCPP, `a = u8"b" + L'c' + U"d";`, "a"},
		{"c directive continuation", langC, "#define A(b) \\\n  c(b)\nd", "d"},
		{"c hex float", langC, "a = 0x1p-3 + 0x1e+b", "a b"},
		{"java text block", langJava, "a = \"\"\"\n b \" \"\" c\n \"\"\"; d", "a d"},
		{"java char", langJava, `a = '"'; b = '\''; c`, "a b c"},
		{"unterminated string", langJava, "a = \"b c\nd", "a d"},
		{"unterminated comment", langC, "a /* b", "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var idents []string
			for _, tk := range lex(tc.lang.lex, tc.src) {
				if tk.kind == tIdent {
					idents = append(idents, tk.text)
				}
			}
			if got := strings.Join(idents, " "); got != tc.want {
				t.Errorf("lex(%q) identifiers = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestLexLines checks the line numbers and first-of-line flags after
// literals that span lines.
func TestLexLines(t *testing.T) {
	src := "a '''x\ny''' b\nc \\\n d\n  e"
	toks := lex(langPython.lex, src)
	want := []struct {
		text  string
		line  int
		first bool
		col   int
	}{{"a", 1, true, 0}, {"'''x\ny'''", 1, false, 0}, {"b", 2, false, 0}, {"c", 3, true, 0}, {"d", 4, false, 0}, {"e", 5, true, 2}}
	if len(toks) != len(want) {
		t.Fatalf("lex(%q) = %d tokens, want %d", src, len(toks), len(want))
	}
	for i, w := range want {
		if g := toks[i]; g.text != w.text || g.line != w.line || g.first != w.first || g.col != w.col {
			t.Errorf("token %d = %q line %d first %v col %d, want %q line %d first %v col %d", i, g.text, g.line, g.first, g.col, w.text, w.line, w.first, w.col)
		}
	}
}
