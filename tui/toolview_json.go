package tui

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonField is one field of a JSON object that may still be arriving.
type jsonField struct {
	key string
	// str is the decoded value of a string field, as far as it arrived.
	str      string
	isString bool
	// raw is the JSON text of any other value, as far as it arrived.
	raw string
	// complete reports that the value ended.
	complete bool
}

// partialObject reads the fields of a JSON object whose text may be cut
// off anywhere, as tool arguments are while they stream. It returns the
// fields it could read in order, the last one possibly incomplete. Text
// that is not an object gives no fields.
func partialObject(s string) []jsonField {
	p := &jsonScan{s: s}
	p.space()
	if !p.eat('{') {
		return nil
	}
	var fields []jsonField
	for {
		p.space()
		if p.done() || p.eat('}') {
			return fields
		}
		if p.s[p.i] != '"' {
			return fields
		}
		key, ok := p.str()
		if !ok {
			return fields
		}
		p.space()
		if !p.eat(':') {
			return fields
		}
		p.space()
		if p.done() {
			return fields
		}
		f := jsonField{key: key}
		switch p.s[p.i] {
		case '"':
			f.isString = true
			f.str, f.complete = p.str()
		case '{', '[':
			start := p.i
			f.complete = p.nested()
			f.raw = p.s[start:p.i]
		default:
			start := p.i
			for !p.done() && strings.IndexByte(",}] \t\r\n", p.s[p.i]) < 0 {
				p.i++
			}
			f.raw = p.s[start:p.i]
			f.complete = !p.done()
		}
		fields = append(fields, f)
		if !f.complete {
			return fields
		}
		p.space()
		if !p.eat(',') {
			return fields
		}
	}
}

// jsonScan is a cursor over JSON text.
type jsonScan struct {
	s string
	i int
}

func (p *jsonScan) done() bool { return p.i >= len(p.s) }

func (p *jsonScan) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *jsonScan) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str decodes the string at the cursor; ok is false when it is cut off
// (the part decoded so far is still returned).
func (p *jsonScan) str() (string, bool) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\':
			if p.i+1 >= len(p.s) {
				p.i = len(p.s)
				return b.String(), false
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					p.i = len(p.s)
					return b.String(), false
				}
				if utf16.IsSurrogate(r) {
					rest := p.s[p.i:]
					if len(rest) < 6 && strings.HasPrefix(rest, `\u`[:min(len(rest), 2)]) {
						// The low half of a surrogate pair may follow.
						p.i = len(p.s)
						return b.String(), false
					}
					r2 := utf8.RuneError
					if strings.HasPrefix(rest, `\u`) {
						save := p.i
						p.i += 2
						r2, _ = p.hex4()
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b.WriteRune(d)
							continue
						}
						p.i = save
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		default:
			j := p.i
			for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\\' {
				j++
			}
			b.WriteString(p.s[p.i:j])
			p.i = j
		}
	}
	return b.String(), false
}

// hex4 reads four hex digits.
func (p *jsonScan) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			p.i += 4
			return utf8.RuneError, true
		}
		r = r<<4 | rune(v)
	}
	p.i += 4
	return r, true
}

// nested skips an object or array, reporting whether it closed.
func (p *jsonScan) nested() bool {
	depth := 0
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '"':
			if _, ok := p.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				p.i++
				return true
			}
		}
		p.i++
	}
	return false
}

// compactJSON removes insignificant space from JSON text; text that is
// not valid JSON (a value still arriving) has its runs of space collapsed.
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	return strings.Join(strings.Fields(s), " ")
}
