package syntax

// This file is the tokenizer shared by the outliners of the languages zut
// does not parse exactly. It knows each language's comments, strings and
// literals well enough that nothing inside them is ever taken for code:
// block and nested comments, Python prefixes and triple quotes, JavaScript
// template literals (with ${...} nesting) and regular expressions, Rust raw
// strings and lifetimes, C++ raw strings and digit separators, C
// preprocessor lines, Java text blocks.

// tokKind is the class of a token.
type tokKind uint8

const (
	tIdent     tokKind = iota // identifiers and keywords
	tPunct                    // operators and brackets
	tString                   // string, character and template-literal text
	tNumber                   // numeric literals
	tRegex                    // JavaScript regular expression literals
	tDirective                // a whole C preprocessor line
	tGroup                    // braces skipped inside an item (made by the outliner)
)

// token is one token; text is a slice of the source.
type token struct {
	text  string
	off   int // byte offset in the source
	line  int // 1-based line of the first byte
	col   int // indentation column when first is set (tabs to multiples of 8)
	kind  tokKind
	first bool // the first token of its line
	space bool // preceded by white space or a comment
}

// lexSpec says what a language's tokens look like.
type lexSpec struct {
	lineComments []string // "//", "#"
	blockComment bool     // /* ... */
	nestComments bool     // block comments nest (Rust)
	hashComment  bool     // # starts a comment (Python)
	directives   bool     // # at the start of a line starts a C preprocessor line
	python       bool     // string prefixes, triple quotes, backslash joins lines
	js           bool     // template literals, regular expressions, #private names
	rust         bool     // raw strings, byte strings, lifetimes, raw identifiers
	cpp          bool     // raw strings, encoding prefixes, digit separators
	java         bool     // text blocks
	dollar       bool     // $ is an identifier character
	multiline    bool     // ordinary strings may span lines (Rust)
}

// lexer state; lex runs it over the whole source.
type lexer struct {
	spec  *lexSpec
	src   string
	pos   int
	line  int
	first bool
	space bool
	toks  []token
	// startLine is the line of the token being scanned.
	startLine int
	// JavaScript template nesting: the brace depth at each open "${".
	braces    int
	templates []int
}

// lex splits src into tokens. It never fails: text it cannot make sense of
// becomes punctuation, and an unterminated literal runs to where the
// language would end it (the line end, or the end of the source).
func lex(spec *lexSpec, src string) []token {
	l := &lexer{spec: spec, src: src, line: 1, first: true, toks: make([]token, 0, len(src)/5+8)}
	for l.pos < len(l.src) {
		l.next()
	}
	return l.toks
}

func (l *lexer) emit(kind tokKind, start int) {
	t := token{text: l.src[start:l.pos], off: start, line: l.startLine, kind: kind, first: l.first, space: l.space}
	if t.first {
		t.col = indentCol(l.src[l.lineStart(start):start])
	}
	l.toks = append(l.toks, t)
	l.first, l.space = false, false
}

func (l *lexer) lineStart(off int) int {
	i := off
	for i > 0 && l.src[i-1] != '\n' {
		i--
	}
	return i
}

// indentCol is the width of the white space prefix ws.
func indentCol(ws string) int {
	c := 0
	for i := 0; i < len(ws); i++ {
		switch ws[i] {
		case '\t':
			c = c/8*8 + 8
		case ' ':
			c++
		default:
			c = 0 // form feed and others reset, as Python does
		}
	}
	return c
}

// newline records a line end at pos (which holds '\n').
func (l *lexer) newline() {
	l.pos++
	l.line++
}

func (l *lexer) at(s string) bool {
	return len(l.src)-l.pos >= len(s) && l.src[l.pos:l.pos+len(s)] == s
}

func (l *lexer) peek(i int) byte {
	if l.pos+i < len(l.src) {
		return l.src[l.pos+i]
	}
	return 0
}

// next consumes white space, one comment, or one token.
func (l *lexer) next() {
	c := l.src[l.pos]
	switch {
	case c == '\n':
		l.newline()
		l.first, l.space = true, true
		return
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		l.pos++
		l.space = true
		return
	case c == '\\' && l.spec.python && (l.peek(1) == '\n' || l.peek(1) == '\r' && l.peek(2) == '\n'):
		l.pos++ // an explicit line join: the next line continues this one
		if l.src[l.pos] == '\r' {
			l.pos++
		}
		l.newline()
		l.space = true
		return
	}
	if l.comment() {
		l.space = true
		return
	}
	start := l.pos
	l.startLine = l.line
	switch {
	case c == '}' && l.spec.js && len(l.templates) > 0 && l.templates[len(l.templates)-1] == l.braces:
		// The "}" closing a template substitution: the template goes on.
		l.templates = l.templates[:len(l.templates)-1]
		l.pos++
		l.template(start)
	case c == '#' && l.spec.directives && l.first:
		l.directive()
		l.emit(tDirective, start)
	case isIdentStart(c, l.spec) || c == '#' && l.spec.js && l.pos+1 < len(l.src) && isIdentStart(l.src[l.pos+1], l.spec):
		l.pos++
		for l.pos < len(l.src) && isIdentChar(l.src[l.pos], l.spec) {
			l.pos++
		}
		if l.prefixedLiteral(start) {
			return
		}
		l.emit(tIdent, start)
	case c >= '0' && c <= '9' || c == '.' && l.peek(1) >= '0' && l.peek(1) <= '9':
		l.number()
		l.emit(tNumber, start)
	case c == '"':
		l.quoted(start)
	case c == '\'':
		l.apostrophe(start)
	case c == '`' && l.spec.js:
		l.pos++
		l.template(start)
	case c == '/' && l.spec.js && l.regexAllowed() && l.regex():
		l.emit(tRegex, start)
	default:
		l.punct()
		l.emit(tPunct, start)
	}
}

// comment consumes a comment at pos, if there is one.
func (l *lexer) comment() bool {
	if l.pos == 0 && l.spec.js && l.at("#!") { // a shebang line
		l.toLineEnd()
		return true
	}
	if l.spec.hashComment && l.src[l.pos] == '#' {
		l.toLineEnd()
		return true
	}
	for _, lc := range l.spec.lineComments {
		if l.at(lc) {
			l.toLineEnd()
			return true
		}
	}
	if l.spec.blockComment && l.at("/*") {
		l.pos += 2
		depth := 1
		for l.pos < len(l.src) && depth > 0 {
			switch {
			case l.src[l.pos] == '\n':
				l.newline()
			case l.at("*/"):
				l.pos += 2
				depth--
			case l.spec.nestComments && l.at("/*"):
				l.pos += 2
				depth++
			default:
				l.pos++
			}
		}
		return true
	}
	return false
}

func (l *lexer) toLineEnd() {
	for l.pos < len(l.src) && l.src[l.pos] != '\n' {
		l.pos++
	}
}

// directive consumes a preprocessor line with its backslash continuations
// and the comments inside it.
func (l *lexer) directive() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n':
			return
		case c == '\\' && (l.peek(1) == '\n' || l.peek(1) == '\r' && l.peek(2) == '\n'):
			l.pos++
			if l.src[l.pos] == '\r' {
				l.pos++
			}
			l.newline()
		case l.at("//"):
			l.toLineEnd()
			return
		case l.at("/*"):
			l.comment()
		case c == '"' || c == '\'':
			l.pos++
			l.closeQuote(c, false)
		default:
			l.pos++
		}
	}
}

func isIdentStart(c byte, spec *lexSpec) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 || c == '$' && spec.dollar
}

func isIdentChar(c byte, spec *lexSpec) bool {
	return isIdentStart(c, spec) || c >= '0' && c <= '9'
}

// prefixedLiteral handles an identifier that is really the prefix of a
// literal: Python r"", b”, f"""; Rust r#""#, b"", b”, raw identifiers;
// C++ u8"", L”, R"(...)".
func (l *lexer) prefixedLiteral(start int) bool {
	word := l.src[start:l.pos]
	c := l.peek(0)
	switch {
	case l.spec.python && (c == '"' || c == '\'') && isPyPrefix(word):
		l.quoted(start)
		return true
	case l.spec.rust:
		switch {
		case (word == "r" || word == "br" || word == "cr") && (c == '"' || c == '#'):
			hashes := 0
			for l.peek(hashes) == '#' {
				hashes++
			}
			if l.peek(hashes) != '"' {
				if word == "r" && hashes == 1 && isIdentStart(l.peek(1), l.spec) { // r#type
					l.pos++
					for l.pos < len(l.src) && isIdentChar(l.src[l.pos], l.spec) {
						l.pos++
					}
					l.emit(tIdent, start)
					return true
				}
				return false
			}
			l.pos += hashes + 1
			l.closeRaw(`"` + repeat('#', hashes))
			l.emit(tString, start)
			return true
		case (word == "b" || word == "c") && c == '"':
			l.quoted(start)
			return true
		case word == "b" && c == '\'':
			l.pos++
			l.closeQuote('\'', false)
			l.emit(tString, start)
			return true
		}
	case l.spec.cpp && (c == '"' || c == '\''):
		switch word {
		case "R", "u8R", "uR", "UR", "LR":
			if c != '"' {
				return false
			}
			l.pos++
			d := l.pos
			for l.pos < len(l.src) && l.pos-d <= 16 && l.src[l.pos] != '(' && l.src[l.pos] != '"' && l.src[l.pos] != '\n' {
				l.pos++
			}
			if l.pos >= len(l.src) || l.src[l.pos] != '(' { // not a raw string after all
				l.pos = d
				l.closeQuote('"', false)
				l.emit(tString, start)
				return true
			}
			delim := ")" + l.src[d:l.pos] + `"`
			l.pos++
			l.closeRaw(delim)
			l.emit(tString, start)
			return true
		case "u8", "u", "U", "L":
			l.pos++
			l.closeQuote(c, false)
			l.emit(tString, start)
			return true
		}
	}
	return false
}

func isPyPrefix(w string) bool {
	if len(w) > 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case 'r', 'R', 'b', 'B', 'f', 'F', 'u', 'U':
		default:
			return false
		}
	}
	return true
}

func repeat(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// closeRaw consumes up to and including end, escapes ignored.
func (l *lexer) closeRaw(end string) {
	for l.pos < len(l.src) {
		if l.at(end) {
			l.pos += len(end)
			return
		}
		if l.src[l.pos] == '\n' {
			l.newline()
		} else {
			l.pos++
		}
	}
}

// quoted consumes a string starting at pos (a quote character) and emits
// it: Python and Java triple quotes run to the matching triple.
func (l *lexer) quoted(start int) {
	q := l.src[l.pos]
	triple := string([]byte{q, q, q})
	if (l.spec.python || l.spec.java && q == '"') && l.at(triple) {
		l.pos += 3
		for l.pos < len(l.src) && !l.at(triple) {
			switch l.src[l.pos] {
			case '\\':
				l.pos++
				if l.pos < len(l.src) && l.src[l.pos] == '\n' {
					l.newline()
				} else if l.pos < len(l.src) {
					l.pos++
				}
			case '\n':
				l.newline()
			default:
				l.pos++
			}
		}
		l.pos = min(l.pos+3, len(l.src))
		l.emit(tString, start)
		return
	}
	l.pos++
	l.closeQuote(q, l.spec.multiline)
	l.emit(tString, start)
}

// closeQuote consumes the rest of a literal opened by q: escapes are
// skipped (a backslash before a line end continues the literal), and an
// unterminated literal ends at the line end unless multiline is set.
func (l *lexer) closeQuote(q byte, multiline bool) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == q:
			l.pos++
			return
		case c == '\\':
			l.pos++
			if l.pos < len(l.src) {
				if l.src[l.pos] == '\n' {
					l.newline()
				} else {
					l.pos++
				}
			}
		case c == '\n':
			if !multiline {
				return
			}
			l.newline()
		default:
			l.pos++
		}
	}
}

// apostrophe handles "'": a string (Python, JavaScript), a character
// literal, or a Rust lifetime or loop label.
func (l *lexer) apostrophe(start int) {
	if l.spec.python || l.spec.js {
		l.quoted(start)
		return
	}
	if l.spec.rust && l.peek(1) != '\\' {
		// 'a' is a character, 'a (no closing quote after one character) a lifetime.
		n := 1
		if c := l.peek(1); c >= 0x80 {
			for n < 5 && l.peek(n+1) >= 0x80 && l.peek(n+1) < 0xC0 {
				n++
			}
		}
		if l.peek(n+1) != '\'' && isIdentStart(l.peek(1), l.spec) {
			l.pos++
			for l.pos < len(l.src) && isIdentChar(l.src[l.pos], l.spec) {
				l.pos++
			}
			l.emit(tIdent, start)
			return
		}
	}
	l.pos++
	l.closeQuote('\'', false)
	l.emit(tString, start)
}

// template consumes JavaScript template text after "`" or after the "}"
// that closes a substitution, up to the closing "`" or the next "${".
func (l *lexer) template(start int) {
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; {
		case c == '`':
			l.pos++
			l.emit(tString, start)
			return
		case c == '\\':
			l.pos++
			if l.pos < len(l.src) {
				if l.src[l.pos] == '\n' {
					l.newline()
				} else {
					l.pos++
				}
			}
		case c == '$' && l.peek(1) == '{':
			l.pos += 2
			l.emit(tString, start)
			l.templates = append(l.templates, l.braces)
			return
		case c == '\n':
			l.newline()
		default:
			l.pos++
		}
	}
	l.emit(tString, start)
}

// regexKeywords are the keywords after which "/" starts a regular
// expression rather than a division.
func regexKeywords() map[string]bool {
	return regexKeywordsLazy.get(func() map[string]bool {
		return map[string]bool{"return": true, "typeof": true, "instanceof": true, "in": true, "of": true,
			"new": true, "delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
			"yield": true, "await": true}
	})
}

var regexKeywordsLazy lazy[map[string]bool]

// regexAllowed reports whether a "/" at pos can start a regular expression,
// judging by the token before it.
func (l *lexer) regexAllowed() bool {
	if l.at("//") || l.at("/*") {
		return false
	}
	n := len(l.toks)
	if n == 0 {
		return true
	}
	switch p := l.toks[n-1]; p.kind {
	case tIdent:
		return regexKeywords()[p.text]
	case tPunct:
		switch p.text {
		case ")", "]", "}", "++", "--":
			return false
		}
		return true
	}
	return false
}

// maxRegex bounds the scan for the end of a regular expression, so that a
// long line of divisions does not cost the square of its length.
const maxRegex = 2048

// regex consumes a regular expression literal with its flags. It returns
// false, consuming nothing, when no closing "/" comes before the line end
// (or within maxRegex bytes).
func (l *lexer) regex() bool {
	inClass := false
	for i := l.pos + 1; i < len(l.src) && i < l.pos+maxRegex; i++ {
		switch c := l.src[i]; {
		case c == '\n' || c == '\r':
			return false
		case c == '\\':
			if i+1 < len(l.src) && l.src[i+1] == '\n' {
				return false
			}
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			i++
			for i < len(l.src) && isIdentChar(l.src[i], l.spec) {
				i++
			}
			l.pos = i
			return true
		}
	}
	return false
}

// number consumes a numeric literal, with the digit separators and
// exponent signs of every language here.
func (l *lexer) number() {
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		prev := l.src[l.pos-1]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' && l.peek(1) != '.':
			l.pos++
		case (c == '+' || c == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P') && !isHexLiteral(l.src, l.pos):
			l.pos++
		case c == '\'' && l.spec.cpp && isAlnum(l.peek(1)):
			l.pos++
		default:
			return
		}
	}
}

// isHexLiteral reports whether the number ending just before pos is hex
// without a binary exponent (0x1e+2 is 0x1e plus 2).
func isHexLiteral(src string, pos int) bool {
	i := pos
	for i > 0 && (isAlnum(src[i-1]) || src[i-1] == '.' || src[i-1] == '_' || src[i-1] == '\'') {
		i--
	}
	lit := src[i:pos]
	if len(lit) < 2 || lit[0] != '0' || lit[1] != 'x' && lit[1] != 'X' {
		return false
	}
	last := lit[len(lit)-1]
	return last != 'p' && last != 'P'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// multi are the operators of more than one character that the outliners
// look at or that would otherwise be misread (=> is not = and >).
var multi = []string{"...", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", ":=", "**", "++", "--"}

func (l *lexer) punct() {
	if l.spec.js {
		switch l.src[l.pos] {
		case '{':
			l.braces++
		case '}':
			l.braces--
		}
	}
	for _, m := range multi {
		if l.at(m) {
			l.pos += len(m)
			return
		}
	}
	l.pos++
}
