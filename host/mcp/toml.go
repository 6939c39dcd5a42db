package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The TOML reader of Codex's ~/.codex/config.toml: the subset such files
// use. Tables ([a.b], [a."quoted key"]) and arrays of tables ([[a]]);
// key = value with bare, quoted and dotted keys; basic, literal and
// multi-line strings; integers, floats and booleans; arrays and inline
// tables, which may span lines. Dates and times are not read: such a value
// is an error, as is anything outside the subset, and every error says
// its line and column.

// TOMLError is a syntax error at Line and Col (1-based, Col in bytes).
type TOMLError struct {
	Line, Col int
	Msg       string
}

func (e *TOMLError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// maxTOMLDepth bounds the nesting of arrays and inline tables.
const maxTOMLDepth = 32

// ParseTOML reads a TOML document into nested maps: a table is a
// map[string]any, an array a []any, strings, int64, float64 and bool.
func ParseTOML(data []byte) (map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, &TOMLError{Line: 1, Col: 1, Msg: "the file is not UTF-8"}
	}
	p := &tomlParser{s: string(data), line: 1, lineStart: 0}
	root := map[string]any{}
	cur := root
	defined := map[string]bool{} // tables opened with [name]
	for {
		p.skipSpaceNewlines()
		if p.eof() {
			return root, nil
		}
		switch p.peek() {
		case '[':
			var err error
			cur, err = p.tableHeader(root, defined)
			if err != nil {
				return nil, err
			}
		default:
			if err := p.keyValue(cur, 0); err != nil {
				return nil, err
			}
		}
		if err := p.endOfLine(); err != nil {
			return nil, err
		}
	}
}

type tomlParser struct {
	s         string
	i         int
	line      int
	lineStart int
}

func (p *tomlParser) errf(format string, a ...any) error {
	return &TOMLError{Line: p.line, Col: p.i - p.lineStart + 1, Msg: fmt.Sprintf(format, a...)}
}

func (p *tomlParser) eof() bool  { return p.i >= len(p.s) }
func (p *tomlParser) peek() byte { return p.s[p.i] }

func (p *tomlParser) newline() {
	p.i++
	p.line++
	p.lineStart = p.i
}

// skipSpace skips blanks on the line.
func (p *tomlParser) skipSpace() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

// skipComment skips a comment up to the end of the line.
func (p *tomlParser) skipComment() {
	if !p.eof() && p.peek() == '#' {
		for !p.eof() && p.peek() != '\n' {
			p.i++
		}
	}
}

// skipSpaceNewlines skips blanks, comments and line ends.
func (p *tomlParser) skipSpaceNewlines() {
	for {
		p.skipSpace()
		p.skipComment()
		switch {
		case p.eof():
			return
		case p.peek() == '\n':
			p.newline()
		case p.peek() == '\r' && strings.HasPrefix(p.s[p.i:], "\r\n"):
			p.i++
			p.newline()
		default:
			return
		}
	}
}

// endOfLine wants only blanks and a comment before the line ends.
func (p *tomlParser) endOfLine() error {
	p.skipSpace()
	p.skipComment()
	switch {
	case p.eof():
		return nil
	case p.peek() == '\n':
		p.newline()
		return nil
	case strings.HasPrefix(p.s[p.i:], "\r\n"):
		p.i++
		p.newline()
		return nil
	}
	return p.errf("unexpected %q after the value; one key = value per line", p.peek())
}

// tableHeader reads [a.b] or [[a.b]] and returns the table it opens.
func (p *tomlParser) tableHeader(root map[string]any, defined map[string]bool) (map[string]any, error) {
	array := strings.HasPrefix(p.s[p.i:], "[[")
	if array {
		p.i += 2
	} else {
		p.i++
	}
	p.skipSpace()
	keys, err := p.key()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	closer := "]"
	if array {
		closer = "]]"
	}
	if !strings.HasPrefix(p.s[p.i:], closer) {
		return nil, p.errf("want %s to close the table name", closer)
	}
	p.i += len(closer)
	t, err := p.parent(root, keys)
	if err != nil {
		return nil, err
	}
	last := keys[len(keys)-1]
	full := strings.Join(keys, ".")
	if array {
		v, ok := t[last]
		if !ok {
			v = []any{}
		}
		list, ok := v.([]any)
		if !ok {
			return nil, p.errf("%s is not an array of tables", full)
		}
		tbl := map[string]any{}
		t[last] = append(list, tbl)
		return tbl, nil
	}
	if defined[full] {
		return nil, p.errf("table [%s] is defined twice", full)
	}
	defined[full] = true
	switch v := t[last].(type) {
	case nil:
		tbl := map[string]any{}
		t[last] = tbl
		return tbl, nil
	case map[string]any:
		return v, nil
	}
	return nil, p.errf("%s is already a value, not a table", full)
}

// descend returns the table t[k], making it; the last element of an
// array of tables stands for the array.
func (p *tomlParser) descend(t map[string]any, k, path string) (map[string]any, error) {
	switch v := t[k].(type) {
	case nil:
		n := map[string]any{}
		t[k] = n
		return n, nil
	case map[string]any:
		return v, nil
	case []any:
		if len(v) > 0 {
			if m, ok := v[len(v)-1].(map[string]any); ok {
				return m, nil
			}
		}
	}
	return nil, p.errf("%s is already a value, not a table", path)
}

// key reads a bare, quoted or dotted key.
func (p *tomlParser) key() ([]string, error) {
	var keys []string
	for {
		p.skipSpace()
		if p.eof() {
			return nil, p.errf("want a key")
		}
		var k string
		switch c := p.peek(); {
		case c == '"':
			s, err := p.basicString()
			if err != nil {
				return nil, err
			}
			k = s
		case c == '\'':
			s, err := p.literalString()
			if err != nil {
				return nil, err
			}
			k = s
		default:
			start := p.i
			for !p.eof() && isBareKey(p.peek()) {
				p.i++
			}
			if p.i == start {
				return nil, p.errf("want a key (letters, digits, _ and -, or a quoted key), got %q", c)
			}
			k = p.s[start:p.i]
		}
		keys = append(keys, k)
		p.skipSpace()
		if p.eof() || p.peek() != '.' {
			return keys, nil
		}
		p.i++
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyValue reads key = value into t; depth is the value's nesting.
func (p *tomlParser) keyValue(t map[string]any, depth int) error {
	keys, err := p.key()
	if err != nil {
		return err
	}
	if p.eof() || p.peek() != '=' {
		return p.errf("want = after the key %s", strings.Join(keys, "."))
	}
	p.i++
	p.skipSpace()
	v, err := p.value(depth)
	if err != nil {
		return err
	}
	t, err = p.parent(t, keys)
	if err != nil {
		return err
	}
	last := keys[len(keys)-1]
	if _, dup := t[last]; dup {
		return p.errf("%s is set twice", strings.Join(keys, "."))
	}
	t[last] = v
	return nil
}

// parent is the table that holds the last of the dotted keys, below t,
// made on the way where missing.
func (p *tomlParser) parent(t map[string]any, keys []string) (map[string]any, error) {
	for n, k := range keys[:len(keys)-1] {
		next, err := p.descend(t, k, strings.Join(keys[:n+1], "."))
		if err != nil {
			return nil, err
		}
		t = next
	}
	return t, nil
}

// value reads one value.
func (p *tomlParser) value(depth int) (any, error) {
	if depth > maxTOMLDepth {
		return nil, p.errf("values nest more than %d levels", maxTOMLDepth)
	}
	if p.eof() {
		return nil, p.errf("want a value")
	}
	switch c := p.peek(); {
	case strings.HasPrefix(p.s[p.i:], `"""`):
		return p.multiBasic()
	case strings.HasPrefix(p.s[p.i:], `'''`):
		return p.multiLiteral()
	case c == '"':
		return p.basicString()
	case c == '\'':
		return p.literalString()
	case c == '[':
		return p.array(depth)
	case c == '{':
		return p.inlineTable(depth)
	case strings.HasPrefix(p.s[p.i:], "true") && !p.bareAt(p.i+4):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false") && !p.bareAt(p.i+5):
		p.i += 5
		return false, nil
	}
	return p.number()
}

// bareAt reports whether a bare key character is at i.
func (p *tomlParser) bareAt(i int) bool { return i < len(p.s) && isBareKey(p.s[i]) }

func (p *tomlParser) number() (any, error) {
	start := p.i
	for !p.eof() && strings.IndexByte("+-0123456789_.eExabcdfoABCDFinIN:TZ", p.peek()) >= 0 {
		p.i++
	}
	text := p.s[start:p.i]
	if text == "" {
		return nil, p.errf("want a value (a string, number, true, false, [array] or {table}), got %q", p.peek())
	}
	bad := func(what string) error {
		p.i = start
		return p.errf("%s", what)
	}
	if strings.ContainsAny(text, ":TZ") || dateLike(text) {
		return nil, bad("dates and times are not read here; quote the value")
	}
	clean := strings.ReplaceAll(text, "_", "")
	body := strings.TrimLeft(clean, "+-")
	switch {
	case body == "inf" || body == "nan":
		f, _ := strconv.ParseFloat(clean, 64)
		return f, nil
	case strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0o") || strings.HasPrefix(body, "0b"):
		if body != clean {
			return nil, bad(fmt.Sprintf("%q: a hexadecimal, octal or binary number takes no sign", text))
		}
		if n, err := strconv.ParseInt(clean, 0, 64); err == nil {
			return n, nil
		}
	case !strings.ContainsAny(body, ".eE"):
		if len(body) > 1 && body[0] == '0' {
			return nil, bad(fmt.Sprintf("%q: a number has no leading zero", text))
		}
		if n, err := strconv.ParseInt(clean, 10, 64); err == nil {
			return n, nil
		}
	default:
		if f, err := strconv.ParseFloat(clean, 64); err == nil {
			return f, nil
		}
	}
	return nil, bad(fmt.Sprintf("%q is not a value zut reads (a quoted string, a number, true or false)", text))
}

// dateLike reports whether text starts as a date (1979-05-27).
func dateLike(text string) bool {
	if len(text) < 10 || text[4] != '-' || text[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if text[i] < '0' || text[i] > '9' {
			return false
		}
	}
	return true
}

func (p *tomlParser) basicString() (string, error) {
	p.i++ // "
	var b strings.Builder
	for {
		if p.eof() || p.peek() == '\n' {
			return "", p.errf("the string is not closed with \" on its line")
		}
		c := p.peek()
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

// escape reads one backslash escape into b.
func (p *tomlParser) escape(b *strings.Builder) error {
	p.i++
	if p.eof() {
		return p.errf("the string ends in a backslash")
	}
	c := p.peek()
	p.i++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'f':
		b.WriteByte('\f')
	case 'r':
		b.WriteByte('\r')
	case 'e':
		b.WriteByte(0x1b)
	case '"', '\\':
		b.WriteByte(c)
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if p.i+n > len(p.s) {
			return p.errf("\\%c needs %d hex digits", c, n)
		}
		r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return p.errf("\\%c%s is not a Unicode character", c, p.s[p.i:p.i+n])
		}
		b.WriteRune(rune(r))
		p.i += n
	default:
		p.i--
		return p.errf("unknown escape \\%c", c)
	}
	return nil
}

func (p *tomlParser) literalString() (string, error) {
	p.i++ // '
	start := p.i
	for {
		if p.eof() || p.peek() == '\n' {
			return "", p.errf("the string is not closed with ' on its line")
		}
		if p.peek() == '\'' {
			s := p.s[start:p.i]
			p.i++
			return s, nil
		}
		p.i++
	}
}

func (p *tomlParser) multiBasic() (string, error) {
	p.i += 3
	p.skipFirstNewline()
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.errf(`the string is not closed with """`)
		}
		switch {
		case strings.HasPrefix(p.s[p.i:], `"""`):
			p.i += 3
			for n := 0; n < 2 && !p.eof() && p.peek() == '"'; n++ { // up to two quotes may end the content
				b.WriteByte('"')
				p.i++
			}
			return b.String(), nil
		case p.peek() == '\\' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\n' || p.s[p.i+1] == ' ' || p.s[p.i+1] == '\t' || p.s[p.i+1] == '\r'):
			// A line-ending backslash trims the whitespace after it.
			p.i++
			for !p.eof() && strings.IndexByte(" \t\r\n", p.peek()) >= 0 {
				if p.peek() == '\n' {
					p.newline()
				} else {
					p.i++
				}
			}
		case p.peek() == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case p.peek() == '\n':
			b.WriteByte('\n')
			p.newline()
		default:
			b.WriteByte(p.peek())
			p.i++
		}
	}
}

func (p *tomlParser) multiLiteral() (string, error) {
	p.i += 3
	p.skipFirstNewline()
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.errf("the string is not closed with '''")
		}
		if strings.HasPrefix(p.s[p.i:], `'''`) {
			p.i += 3
			for n := 0; n < 2 && !p.eof() && p.peek() == '\''; n++ {
				b.WriteByte('\'')
				p.i++
			}
			return b.String(), nil
		}
		if p.peek() == '\n' {
			b.WriteByte('\n')
			p.newline()
			continue
		}
		b.WriteByte(p.peek())
		p.i++
	}
}

// skipFirstNewline drops a line end right after a multi-line string's
// opening quotes.
func (p *tomlParser) skipFirstNewline() {
	if strings.HasPrefix(p.s[p.i:], "\r\n") {
		p.i++
	}
	if !p.eof() && p.peek() == '\n' {
		p.newline()
	}
}

func (p *tomlParser) array(depth int) ([]any, error) {
	p.i++ // [
	out := []any{}
	for {
		p.skipSpaceNewlines()
		if p.eof() {
			return nil, p.errf("the array is not closed with ]")
		}
		if p.peek() == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpaceNewlines()
		if p.eof() {
			return nil, p.errf("the array is not closed with ]")
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, nil
		default:
			return nil, p.errf("want , or ] in the array, got %q", p.peek())
		}
	}
}

func (p *tomlParser) inlineTable(depth int) (map[string]any, error) {
	p.i++ // {
	out := map[string]any{}
	p.skipSpaceNewlines()
	if !p.eof() && p.peek() == '}' {
		p.i++
		return out, nil
	}
	for {
		p.skipSpaceNewlines()
		if err := p.keyValue(out, depth+1); err != nil {
			return nil, err
		}
		p.skipSpaceNewlines()
		if p.eof() {
			return nil, p.errf("the inline table is not closed with }")
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, nil
		default:
			return nil, p.errf("want , or } in the inline table, got %q", p.peek())
		}
	}
}
