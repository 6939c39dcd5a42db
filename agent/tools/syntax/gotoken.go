package syntax

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// This file is the scanner of Go: the tokens of the language
// specification, with the semicolons it inserts at line ends, the
// comments beside them, and the partner of every bracket. golang.go reads
// declarations, calls and references from them.

// gKind is the class of a Go token.
type gKind uint8

const (
	gIdent   gKind = iota // identifiers
	gKeyword              // the 25 keywords
	gOp                   // operators and punctuation
	gLit                  // numbers, runes, strings
	gSemi                 // ";", written or inserted at a line end or at the end
)

// gTok is one token; its text is src[off:end] ("" for an inserted
// semicolon).
type gTok struct {
	off, end int32
	line     int32
	match    int32 // the index of a bracket's partner, -1 if unmatched
	kind     gKind
	first    bool // the first token of its line
}

// span is a comment: src[start:end].
type span struct{ start, end int }

// goError is a syntax error at a line and column (bytes, from 1).
type goError struct {
	off  int
	line int
	col  int
	msg  string
}

// goFile is one scanned Go file.
type goFile struct {
	src      string
	toks     []gTok
	comments []span
	lines    []int // the offset of each line's start
	err      *goError
	// Filled by the parser (golang.go).
	ann  []gAnn
	pkg  int // the index of the package name, -1 without a package clause
	top  []goDecl
	syms []Symbol
}

// text is the source of token i.
func (g *goFile) text(i int) string {
	t := &g.toks[i]
	return g.src[int(t.off):int(t.end)]
}

// is reports whether token i exists and is the operator or keyword s.
func (g *goFile) is(i int, s string) bool {
	if i < 0 || i >= len(g.toks) {
		return false
	}
	t := &g.toks[i]
	return (t.kind == gOp || t.kind == gKeyword) && g.src[int(t.off):int(t.end)] == s
}

func (g *goFile) kind(i int) gKind {
	if i < 0 || i >= len(g.toks) {
		return gSemi
	}
	return g.toks[i].kind
}

// lineAt is the line of byte offset off.
func (g *goFile) lineAt(off int) int {
	return sort.Search(len(g.lines), func(i int) bool { return g.lines[i] > off })
}

// fail records a syntax error at offset off unless an earlier one is
// known: the first error is the one shown.
func (g *goFile) fail(off int, format string, args ...any) {
	if g.err != nil && g.err.off <= off {
		return
	}
	line := g.lineAt(off)
	g.err = &goError{off: off, line: line, col: off - g.lines[line-1] + 1, msg: fmt.Sprintf(format, args...)}
}

// String is the error as the tool shows it.
func (e *goError) String() string {
	return tools.Clip(fmt.Sprintf("line %d:%d: %s", e.line, e.col, e.msg), 200)
}

// found names token i in an error as go/parser does: a name or literal
// as written, a line end as newline, an operator or keyword quoted.
func (g *goFile) found(i int) string {
	if i >= len(g.toks) {
		return "'EOF'"
	}
	switch t := &g.toks[i]; {
	case t.kind == gIdent || t.kind == gLit:
		return tools.Clip(g.text(i), 40)
	case t.kind == gSemi && t.end == t.off:
		return "newline"
	}
	return "'" + g.text(i) + "'"
}

func isGoKeyword(w string) bool {
	switch w {
	case "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
		"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
		"return", "select", "struct", "switch", "type", "var":
		return true
	}
	return false
}

// goOps are the operators of more than one byte, longest first.
var goOps = [...]string{"<<=", ">>=", "&^=", "...", "&&", "||", "<-", "++", "--", "==", "!=", "<=", ">=",
	":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "&^"}

// scanGo splits src into tokens. It never fails: a malformed literal or
// character is recorded as the file's error and scanning goes on.
func scanGo(src string) *goFile {
	g := &goFile{src: src, pkg: -1, toks: make([]gTok, 0, len(src)/3+8), lines: make([]int, 1, len(src)/24+8)}
	line, i := 1, 0
	if strings.HasPrefix(src, "\uFEFF") {
		i = 3
	}
	semi := false // a line end here ends a statement
	first := true
	add := func(k gKind, off, end int) {
		g.toks = append(g.toks, gTok{off: int32(off), end: int32(end), line: int32(line), match: -1, kind: k, first: first})
		first = false
	}
	newline := func(at int) {
		if semi {
			add(gSemi, at, at)
			semi = false
		}
		line++
		g.lines = append(g.lines, at+1)
		first = true
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			newline(i)
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src)
			} else {
				j += i
			}
			g.comments = append(g.comments, span{i, j})
			i = j
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				g.fail(i, "comment not terminated")
				j = len(src)
			} else {
				j += i + 4
			}
			g.comments = append(g.comments, span{i, j})
			for k := i; k < j; k++ {
				if src[k] == '\n' {
					newline(k)
				}
			}
			i = j
			continue
		}
		start := i
		semi = false
		switch {
		case isGoLetter(c):
			for i < len(src) && (isGoLetter(src[i]) || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			w := src[start:i]
			if isGoKeyword(w) {
				add(gKeyword, start, i)
				semi = w == "break" || w == "continue" || w == "fallthrough" || w == "return"
			} else {
				add(gIdent, start, i)
				semi = true
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i = goNumber(src, i)
			add(gLit, start, i)
			semi = true
		case c == '"' || c == '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
				i++
			}
			if i < len(src) && src[i] == c {
				i++
			} else if c == '"' {
				g.fail(start, "string literal not terminated")
			} else {
				g.fail(start, "rune literal not terminated")
			}
			add(gLit, start, i)
			semi = true
		case c == '`':
			j := strings.IndexByte(src[i+1:], '`')
			if j < 0 {
				g.fail(start, "raw string literal not terminated")
				j = len(src)
			} else {
				j += i + 2
			}
			add(gLit, start, j)
			for k := i; k < j; k++ {
				if src[k] == '\n' {
					line++
					g.lines = append(g.lines, k+1)
				}
			}
			i = j
			semi = true
		default:
			n := 1
			for _, op := range goOps {
				if op[0] == c && strings.HasPrefix(src[i:], op) {
					n = len(op)
					break
				}
			}
			if n == 1 && !strings.ContainsRune("+-*/%&|^<>=!()[]{},;.:~", rune(c)) {
				g.fail(i, "illegal character %#U", rune(c))
			}
			i += n
			if src[start:i] == ";" {
				add(gSemi, start, i)
			} else {
				add(gOp, start, i)
			}
			switch src[start:i] {
			case ")", "]", "}", "++", "--":
				semi = true
			}
		}
	}
	if semi {
		add(gSemi, len(src), len(src))
	}
	g.matchBrackets()
	return g
}

func isGoLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// goNumber is the end of the number starting at i.
func goNumber(src string, i int) int {
	hex := strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X")
	i++
	for i < len(src) {
		c := src[i]
		prev := src[i-1]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' && !strings.HasPrefix(src[i:], "..."):
			i++
		case (c == '+' || c == '-') && (!hex && (prev == 'e' || prev == 'E') || hex && (prev == 'p' || prev == 'P')):
			i++
		default:
			return i
		}
	}
	return i
}

// matchBrackets pairs the brackets. A closing bracket that matches none
// open is an error and stays unmatched; one that matches a bracket further
// out closes the ones between, which stay unmatched too.
func (g *goFile) matchBrackets() {
	var stack []int
	for i := range g.toks {
		if g.toks[i].kind != gOp {
			continue
		}
		var open string
		switch s := g.text(i); s {
		case "(", "[", "{":
			stack = append(stack, i)
			continue
		case ")":
			open = "("
		case "]":
			open = "["
		case "}":
			open = "{"
		default:
			continue
		}
		j := len(stack) - 1
		for j >= 0 && g.text(stack[j]) != open {
			j--
		}
		if j < 0 {
			g.fail(int(g.toks[i].off), "unexpected %s", g.found(i))
			continue
		}
		if j != len(stack)-1 {
			in := stack[len(stack)-1]
			g.fail(int(g.toks[i].off), "expected '%s', found '%s'", closer(g.text(in)), g.text(i))
		}
		g.toks[i].match, g.toks[stack[j]].match = int32(stack[j]), int32(i)
		stack = stack[:j]
	}
	if len(stack) > 0 {
		g.fail(len(g.src), "expected '%s', found 'EOF'", closer(g.text(stack[len(stack)-1])))
	}
}

func closer(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	}
	return "}"
}

// cut is the source from offset a to b on one line, without comments,
// with the white space left by line breaks tidied.
func (g *goFile) cut(a, b int) string {
	if a >= b {
		return ""
	}
	var sb strings.Builder
	cs := g.comments
	i := sort.Search(len(cs), func(i int) bool { return cs[i].end > a })
	pos := a
	for ; i < len(cs) && cs[i].start < b; i++ {
		ca, cb := cs[i].start, cs[i].end
		if ca < pos || cb > b {
			continue
		}
		sb.WriteString(g.src[pos:ca])
		sb.WriteByte(' ')
		pos = cb
	}
	sb.WriteString(g.src[pos:b])
	return tidy(strings.TrimSpace(sb.String()))
}

// tidier drops the space inside brackets and the comma before a closing
// one, made on first use.
func tidier() *strings.Replacer {
	return tidierLazy.get(func() *strings.Replacer {
		return strings.NewReplacer("( ", "(", "[ ", "[", ", )", ")", ",)", ")", " )", ")", ", ]", "]", " ]", "]", ", }", " }")
	})
}

var tidierLazy lazy[*strings.Replacer]

// tidy puts code on one line: runs of white space become one space, none
// is left inside brackets, and a comma before a closing bracket goes.
func tidy(s string) string {
	s = oneLine(s)
	if !strings.ContainsAny(s, "([{") {
		return tools.Clip(s, maxSignature)
	}
	return tools.Clip(tidier().Replace(s), maxSignature)
}
