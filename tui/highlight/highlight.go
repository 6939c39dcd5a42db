package highlight

import (
	"github.com/zut-go/zut/tui/ansi"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the syntax highlighter: small line-oriented tokenizers that
// carry a state from one line to the next (inside a block comment, a
// multi-line string, a heredoc, a YAML block scalar). They colour
// keywords, strings, numbers, comments, function and type names where
// cheap, operators and punctuation; they do not parse.

// synKind is the class of a highlighted token.
type synKind uint8

const (
	synPlain synKind = iota
	synKeyword
	synString
	synNumber
	synComment
	synFunction
	synType
	synOperator
	synPunct
	synBuiltin
	synAdded
	synRemoved
	synHunk
)

// synRoles maps token classes to theme roles.
var synRoles = [...]ansi.Role{
	synKeyword:  ansi.RoleSyntaxKeyword,
	synString:   ansi.RoleSyntaxString,
	synNumber:   ansi.RoleSyntaxNumber,
	synComment:  ansi.RoleSyntaxComment,
	synFunction: ansi.RoleSyntaxFunction,
	synType:     ansi.RoleSyntaxType,
	synOperator: ansi.RoleSyntaxOperator,
	synPunct:    ansi.RoleSyntaxPunctuation,
	synBuiltin:  ansi.RoleSyntaxBuiltin,
	synAdded:    ansi.RoleDiffAdded,
	synRemoved:  ansi.RoleDiffRemoved,
	synHunk:     ansi.RoleDiffHunk,
}

// hlToken is a run of a line in one class.
type hlToken struct {
	text string
	kind synKind
}

// HighlightState is what a tokenizer remembers between lines. The zero value is
// the start of a file.
type HighlightState struct {
	mode   hlMode
	depth  int    // nesting of block comments (Rust)
	delim  string // what ends the string or heredoc
	indent int    // YAML block scalar: indentation of its parent
}

type hlMode uint8

const (
	modeNormal hlMode = iota
	modeComment
	modeString
	modeRawString // a string without escapes
	modeHeredoc
	modeBlockScalar
)

// Language describes one tokenizer. Most languages share lexGeneric and
// differ only in these tables; shell, YAML and diff have their own.
type Language struct {
	name         string
	words        map[string]synKind
	lineComments []string
	blockComment [2]string
	nested       bool   // block comments nest (Rust)
	quotes       string // quote characters of one-line strings
	multiQuotes  string // quote characters whose strings span lines
	rawQuotes    string // multi-line quote characters without escapes (Go `)
	triple       bool   // Python """ and ''' strings
	charQuote    bool   // ' starts a character literal (C, Go, Rust)
	capsTypes    bool   // Capitalised identifiers are types
	keyStrings   bool   // a string before ':' is a key (JSON)
	preprocessor bool   // # lines are directives (C)
	decorators   bool   // @name is a decorator (Python)
	macros       bool   // name! is a macro (Rust)
	attributes   bool   // #[...] is an attribute (Rust)
	prefixes     []string
	defWords     map[string]synKind // the identifier after these words is a function or type
	lex          func(l *Language, line string, st HighlightState) ([]hlToken, HighlightState)
}

// Line styles one line of code, given the state after the previous line,
// with t's syntax colours over base, and returns the state after it. The
// line must not hold newlines and should be Printable.
func (l *Language) Line(line string, st HighlightState, t *ansi.Theme, base ansi.Style) ([]ansi.Span, HighlightState) {
	toks, st := l.tokens(line, st)
	return tokenSpans(toks, t, base), st
}

// tokens splits one line into tokens, given the state after the previous
// line, and returns the state after this one.
func (l *Language) tokens(line string, st HighlightState) ([]hlToken, HighlightState) {
	if l.lex != nil {
		return l.lex(l, line, st)
	}
	return lexGeneric(l, line, st)
}

// Highlight colours code written in lang (a name, alias or file name such
// as "go", "py" or "main.rs") for profile p and returns one line per source
// line, without wrapping. Unknown languages come back plain. Control
// characters are made visible and tabs expanded.
func Highlight(code, lang string, t *ansi.Theme, p ansi.Profile) []string {
	l := LookupLanguage(lang)
	code = strings.TrimSuffix(code, "\n")
	src := strings.Split(code, "\n")
	out := make([]string, len(src))
	var st HighlightState
	base := t.Style(ansi.RoleText)
	for i, line := range src {
		line = ansi.ExpandTabs(ansi.Printable(strings.TrimSuffix(line, "\r")))
		if l == nil {
			out[i] = base.Render(p, line)
			continue
		}
		var spans []ansi.Span
		spans, st = l.Line(line, st, t, base)
		out[i] = ansi.RenderSpans(spans, p, false)
	}
	return out
}

// LanguageFor returns the canonical name of the language called name (a
// fence info word or alias such as "golang", "py", "tsx", "sh") or of the
// file name's extension ("x/main.go"), or "" when there is no tokenizer
// for it.
func LanguageFor(name string) string {
	if l := LookupLanguage(name); l != nil {
		return l.name
	}
	return ""
}

// LookupLanguage finds a tokenizer by name, alias, extension or file name.
func LookupLanguage(name string) *Language {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil
	}
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	}
	name = strings.TrimPrefix(name, "{")
	name = strings.TrimSuffix(name, "}")
	name = strings.TrimPrefix(name, ".")
	if l, ok := languageAliases()[name]; ok {
		return languages()[l]
	}
	if ext := strings.TrimPrefix(filepath.Ext(name), "."); ext != "" {
		if l, ok := languageAliases()[ext]; ok {
			return languages()[l]
		}
	}
	switch filepath.Base(name) {
	case "makefile", "dockerfile", ".bashrc", ".zshrc", ".profile", ".bash_profile":
		return languages()["shell"]
	}
	return nil
}

// tokenSpans styles tokens with the theme; plain text takes base.
func tokenSpans(toks []hlToken, t *ansi.Theme, base ansi.Style) []ansi.Span {
	spans := make([]ansi.Span, 0, len(toks))
	for _, tk := range toks {
		st := base
		if tk.kind != synPlain {
			st = base.With(t.Style(synRoles[tk.kind]))
		}
		if n := len(spans); n > 0 && spans[n-1].Style == st {
			spans[n-1].Text += tk.text
			continue
		}
		spans = append(spans, ansi.Span{Text: tk.text, Style: st})
	}
	return spans
}

// lexer accumulates the tokens of one line.
type lexer struct {
	line string
	toks []hlToken
}

func (x *lexer) emit(text string, k synKind) {
	if text == "" {
		return
	}
	if n := len(x.toks); n > 0 && x.toks[n-1].kind == k {
		x.toks[n-1].text += text
		return
	}
	x.toks = append(x.toks, hlToken{text: text, kind: k})
}

// lastSignificant returns the last token that is not spaces or a comment.
func (x *lexer) lastSignificant() hlToken {
	for i := len(x.toks) - 1; i >= 0; i-- {
		t := x.toks[i]
		if t.kind == synComment || t.kind == synPlain && strings.TrimSpace(t.text) == "" {
			continue
		}
		return t
	}
	return hlToken{}
}

// lexGeneric tokenizes the C family and its relatives.
func lexGeneric(l *Language, line string, st HighlightState) ([]hlToken, HighlightState) {
	x := &lexer{line: line}
	i := 0
	// Finish what the previous line left open.
	switch st.mode {
	case modeComment:
		i, st = l.blockCommentFrom(x, line, 0, st)
	case modeString, modeRawString:
		i, st = scanString(x, line, 0, st)
	}
	if l.preprocessor && st.mode == modeNormal && i == 0 {
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "#") {
			return lexDirective(x, line), st
		}
	}
	for i < len(line) && st.mode == modeNormal {
		c := line[i]
		rest := line[i:]
		switch {
		case c == ' ':
			j := i
			for j < len(line) && line[j] == ' ' {
				j++
			}
			x.emit(line[i:j], synPlain)
			i = j
			continue
		case l.startsLineComment(rest):
			x.emit(rest, synComment)
			return x.toks, st
		case l.blockComment[0] != "" && strings.HasPrefix(rest, l.blockComment[0]):
			st = HighlightState{mode: modeComment, depth: 1}
			x.emit(l.blockComment[0], synComment)
			i, st = l.blockCommentFrom(x, line, i+len(l.blockComment[0]), st)
			continue
		case l.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''")):
			st = HighlightState{mode: modeString, delim: rest[:3]}
			x.emit(rest[:3], synString)
			i, st = scanString(x, line, i+3, st)
			continue
		case strings.IndexByte(l.quotes, c) >= 0 || strings.IndexByte(l.multiQuotes, c) >= 0 || strings.IndexByte(l.rawQuotes, c) >= 0 || c == '\'' && l.charQuote:
			if c == '\'' && l.charQuote {
				if n := charLiteral(rest); n > 0 {
					x.emit(rest[:n], synString)
					i += n
					continue
				}
				if l.macros { // a Rust lifetime
					j := i + 1
					for j < len(line) && isIdentByte(line[j]) {
						j++
					}
					x.emit(line[i:j], synType)
					i = j
					continue
				}
				if strings.IndexByte(l.quotes+l.multiQuotes+l.rawQuotes, c) < 0 {
					x.emit("'", synOperator)
					i++
					continue
				}
			}
			mode := modeString
			if strings.IndexByte(l.rawQuotes, c) >= 0 {
				mode = modeRawString
			}
			start := len(x.toks)
			st = HighlightState{mode: mode, delim: string(c)}
			x.emit(string(c), synString)
			i, st = scanString(x, line, i+1, st)
			if st.mode != modeNormal && strings.IndexByte(l.multiQuotes+l.rawQuotes, c) < 0 {
				// A one-line string that does not end on its line.
				st = HighlightState{}
			}
			if l.keyStrings && st.mode == modeNormal && strings.HasPrefix(strings.TrimLeft(line[i:], " "), ":") {
				for k := start; k < len(x.toks); k++ {
					x.toks[k].kind = synType
				}
			}
			continue
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9':
			n := numberLen(rest)
			x.emit(rest[:n], synNumber)
			i += n
			continue
		case l.decorators && c == '@':
			j := i + 1
			for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
				j++
			}
			x.emit(line[i:j], synBuiltin)
			i = j
			continue
		case l.attributes && c == '#' && (strings.HasPrefix(rest, "#[") || strings.HasPrefix(rest, "#![")):
			j := strings.IndexByte(rest, ']')
			if j < 0 {
				j = len(rest) - 1
			}
			x.emit(rest[:j+1], synBuiltin)
			i += j + 1
			continue
		case isIdentStart(rest):
			j := i
			for j < len(line) {
				r, size := utf8.DecodeRuneInString(line[j:])
				if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					break
				}
				j += size
			}
			word := line[i:j]
			// String prefixes: r"..", b'..', f"..", L"..".
			if j < len(line) && (line[j] == '"' || line[j] == '\'') && containsFold(l.prefixes, word) {
				x.emit(word, synString)
				i = j
				continue
			}
			if l.macros && strings.ContainsRune(word, 'r') && j < len(line) && line[j] == '#' && containsFold(l.prefixes, word) {
				// A Rust raw string: r#"..."#.
				k := j
				for k < len(line) && line[k] == '#' {
					k++
				}
				if k < len(line) && line[k] == '"' {
					hashes := line[j:k]
					x.emit(line[i:k+1], synString)
					st = HighlightState{mode: modeRawString, delim: `"` + hashes}
					i, st = scanString(x, line, k+1, st)
					continue
				}
			}
			x.emit(word, l.classify(x, word, line[j:]))
			i = j
			continue
		case strings.IndexByte("(){}[];,.", c) >= 0:
			x.emit(line[i:i+1], synPunct)
			i++
			continue
		case strings.IndexByte("+-*/%=<>!&|^~?:", c) >= 0:
			j := i
			for j < len(line) && strings.IndexByte("+-*/%=<>!&|^~?:", line[j]) >= 0 && !l.startsLineComment(line[j:]) &&
				!(l.blockComment[0] != "" && strings.HasPrefix(line[j:], l.blockComment[0])) {
				j++
			}
			if j == i {
				j++
			}
			x.emit(line[i:j], synOperator)
			i = j
			continue
		}
		_, size := utf8.DecodeRuneInString(rest)
		x.emit(line[i:i+size], synPlain)
		i += size
	}
	return x.toks, st
}

// classify decides the class of an identifier from the language's word
// lists and its surroundings.
func (l *Language) classify(x *lexer, word, after string) synKind {
	if k, ok := l.words[word]; ok {
		return k
	}
	prev := x.lastSignificant()
	if prev.kind == synKeyword {
		if k, ok := l.defWords[prev.text]; ok {
			return k
		}
	}
	a := strings.TrimLeft(after, " ")
	if l.macros && strings.HasPrefix(a, "!") && !strings.HasPrefix(a, "!=") {
		return synBuiltin
	}
	if strings.HasPrefix(a, "(") {
		return synFunction
	}
	if l.capsTypes {
		if r, _ := utf8.DecodeRuneInString(word); unicode.IsUpper(r) {
			return synType
		}
	}
	return synPlain
}

func (l *Language) startsLineComment(s string) bool {
	for _, p := range l.lineComments {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// blockCommentFrom scans a block comment from line[i] until it closes.
func (l *Language) blockCommentFrom(x *lexer, line string, i int, st HighlightState) (int, HighlightState) {
	open, close := l.blockComment[0], l.blockComment[1]
	j := i
	for j < len(line) {
		switch {
		case strings.HasPrefix(line[j:], close):
			j += len(close)
			st.depth--
			if st.depth <= 0 {
				x.emit(line[i:j], synComment)
				return j, HighlightState{}
			}
			continue
		case l.nested && strings.HasPrefix(line[j:], open):
			j += len(open)
			st.depth++
			continue
		}
		j++
	}
	x.emit(line[i:], synComment)
	return len(line), st
}

// scanString scans string text from line[i] until st.delim closes it;
// backslash escapes count unless the string is raw.
func scanString(x *lexer, line string, i int, st HighlightState) (int, HighlightState) {
	j := i
	for j < len(line) {
		if line[j] == '\\' && st.mode == modeString {
			j += 2
			continue
		}
		if strings.HasPrefix(line[j:], st.delim) {
			j += len(st.delim)
			x.emit(line[i:j], synString)
			return j, HighlightState{}
		}
		j++
	}
	x.emit(line[i:], synString)
	return len(line), st
}

// lexDirective colours a C preprocessor line: the directive, an include
// path as a string, a trailing comment.
func lexDirective(x *lexer, line string) []hlToken {
	ind := len(line) - len(strings.TrimLeft(line, " "))
	x.emit(line[:ind], synPlain)
	rest := line[ind:]
	j := 1
	for j < len(rest) && rest[j] == ' ' {
		j++
	}
	for j < len(rest) && isIdentByte(rest[j]) {
		j++
	}
	directive := strings.TrimSpace(rest[1:j])
	x.emit(rest[:j], synKeyword)
	tail, comment := rest[j:], ""
	if c := strings.Index(tail, "//"); c >= 0 {
		tail, comment = tail[:c], tail[c:]
	}
	if directive == "include" || directive == "import" {
		x.emit(tail, synString)
	} else {
		x.emit(tail, synPlain)
	}
	x.emit(comment, synComment)
	return x.toks
}

// charLiteral returns the length of a character literal such as 'a',
// '\n' or '\u{1F600}' at the start of s, or 0.
func charLiteral(s string) int {
	if len(s) < 3 || s[0] != '\'' {
		return 0
	}
	if s[1] == '\\' {
		if j := strings.IndexByte(s[2:], '\''); j >= 0 && j < 12 {
			return j + 3
		}
		return 0
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	if 1+size < len(s) && s[1+size] == '\'' {
		return size + 2
	}
	return 0
}

// numberLen measures a number literal: decimal, hex, octal, binary,
// floats with exponents, digit separators and type suffixes.
func numberLen(s string) int {
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
			i++
			if !hex && (c == 'e' || c == 'E') || hex && (c == 'p' || c == 'P') {
				if i < len(s) && (s[i] == '+' || s[i] == '-') {
					i++
				}
			}
		case c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i++
		case c == '.' && i > 0 && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == ')' || s[i+1] == ','):
			i++
		default:
			return max(i, 1)
		}
	}
	return max(i, 1)
}

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func containsFold(list []string, s string) bool {
	for _, p := range list {
		if strings.EqualFold(p, s) {
			return true
		}
	}
	return false
}
