package provider

import (
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds a small allocation-free JSON scanner for the hot path of
// the stream decoders: the text and argument deltas that make up almost all
// of a response. Every decoder first tries it and falls back to
// encoding/json whenever the scanner meets anything it does not expect, so
// the scanner only needs to be right when it says ok. FuzzJSONScan checks it
// against encoding/json.

// jsonMembers iterates the members of one JSON object.
type jsonMembers struct {
	data []byte
	pos  int
	bad  bool
	keys [maxMembers][2]int // the keys seen so far, as offsets into data
	n    int
}

// maxMembers bounds the members of an object the scanner handles. Real
// delta events have fewer than ten; past that, and on a repeated key
// (which encoding/json merges into the field already read), the scanner
// leaves the event to encoding/json.
const maxMembers = 16

// objectMembers starts iterating the object in b (leading and trailing
// whitespace allowed). ok is false when b does not start an object.
func objectMembers(b []byte) (jsonMembers, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return jsonMembers{}, false
	}
	return jsonMembers{data: b, pos: i + 1}, true
}

// next returns the next member. key is the raw key without quotes; keys
// holding escapes, upper-case or non-ASCII letters make the iteration fail
// (ok false, failed true), which sends the caller to its encoding/json
// fallback.
func (m *jsonMembers) next() (key, value []byte, ok bool) {
	if m.bad {
		return nil, nil, false
	}
	b := m.data
	i := skipSpace(b, m.pos)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) {
		m.bad = true
		return nil, nil, false
	}
	if b[i] == '}' {
		m.pos = len(b)
		if skipSpace(b, i+1) != len(b) {
			m.bad = true
		}
		return nil, nil, false
	}
	if b[i] != '"' {
		m.bad = true
		return nil, nil, false
	}
	end, escaped := scanString(b, i)
	if end < 0 || escaped {
		m.bad = true
		return nil, nil, false
	}
	key = b[i+1 : end-1]
	if m.n == maxMembers {
		m.bad = true
		return nil, nil, false
	}
	for _, k := range m.keys[:m.n] {
		if string(b[k[0]:k[1]]) == string(key) {
			m.bad = true
			return nil, nil, false
		}
	}
	m.keys[m.n] = [2]int{i + 1, end - 1}
	m.n++
	for _, c := range key {
		// encoding/json matches keys without regard to case (with Unicode
		// folding); real keys are lower-case ASCII, so leave others to it.
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			m.bad = true
			return nil, nil, false
		}
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		m.bad = true
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	vend := skipValue(b, i)
	if vend < 0 {
		m.bad = true
		return nil, nil, false
	}
	m.pos = vend
	return key, b[i:vend], true
}

// failed reports whether iteration stopped on input the scanner does not
// handle.
func (m *jsonMembers) failed() bool { return m.bad }

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the index just past the string starting at b[i] (a
// quote) and whether it holds escapes; end is -1 when it is not closed.
// Raw control characters are not rejected here (unquote rejects them in the
// values that are used).
func scanString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped
		case '\\':
			escaped = true
			j++
		}
	}
	return -1, false
}

// skipValue returns the index just past the value starting at b[i], or -1.
// Nested objects and arrays are matched by depth; scalars are taken up to
// the next delimiter.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return -1
				}
				return j
			}
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// isString reports whether raw is exactly the JSON string s (s must not need
// escaping).
func isString(raw []byte, s string) bool {
	return len(raw) == len(s)+2 && raw[0] == '"' && raw[len(raw)-1] == '"' && string(raw[1:len(raw)-1]) == s
}

// jsonInt decodes a small non-negative JSON integer.
func jsonInt(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(raw) > 1 && raw[0] == '0' {
		return 0, false
	}
	return n, true
}

// unquote decodes the JSON string raw (with its quotes). scratch is reused
// across calls for strings with escapes. The result is one allocation.
func unquote(raw []byte, scratch *[]byte) (string, bool) {
	b, ok := unquoteBytes(raw, scratch)
	if !ok {
		return "", false
	}
	return string(b), true
}

// unquoteBytes is unquote without the allocation: the bytes are raw's own
// when it holds no escapes, else *scratch's, valid until raw or scratch
// changes. It fails on a quote inside raw that no backslash escapes, so
// success also says that raw is one whole string.
func unquoteBytes(raw []byte, scratch *[]byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	i := plainRun(body)
	if i == len(body) {
		return body, true
	}
	buf := append((*scratch)[:0], body[:i]...)
	for i < len(body) {
		c := body[i]
		switch {
		case c == '"' || c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(body) {
				return nil, false
			}
			switch e := body[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(body, i+2)
				if !ok {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
						r2, ok2 = hex4(body, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
				continue
			default:
				return nil, false
			}
			i += 2
		case c < utf8.RuneSelf:
			// A run of bytes that stand for themselves, copied at once.
			n := 1 + plainRun(body[i+1:])
			buf = append(buf, body[i:i+n]...)
			i += n
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, body[i:i+size]...)
			}
			i += size
		}
	}
	*scratch = buf
	return buf, true
}

// plainRun returns how many bytes at the start of b stand for themselves in
// a JSON string: printable ASCII but the quote and the backslash.
func plainRun(b []byte) int {
	for i, c := range b {
		if c-0x20 >= 0x60 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var v rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
