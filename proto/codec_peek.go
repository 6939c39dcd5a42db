package proto

import "bytes"

// The peek functions find one top-level member of a JSON object without
// decoding the rest, so that the Reader can pick the frame struct before
// it decodes the line once, into that struct. They do not validate: the
// decode that follows does. When they cannot answer simply (an escaped
// key or value, a member spelled in another case) they report !ok and the
// caller falls back to encoding/json.

// peekType returns the raw value of the first top-level "type" member of
// line when that value is a string without escapes.
func peekType(line []byte) ([]byte, bool) {
	return peekString(line, "type")
}

// peekID returns the top-level "id" member of line when it is a plain
// string, or "" when it cannot be read that way.
func peekID(line []byte) string {
	if v, ok := peekString(line, "id"); ok {
		return string(v)
	}
	return ""
}

// peekString walks the members of the object in b and returns the value
// of the first member named key, when it is a string without escapes.
func peekString(b []byte, key string) ([]byte, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil, false // '}' (no such member) or not JSON
		}
		k, next, ok := scanString(b, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipSpace(b, i+1)
		if string(k) == key {
			if i >= len(b) || b[i] != '"' {
				return nil, false
			}
			v, _, ok := scanString(b, i)
			if !ok || bytes.IndexByte(v, '\\') >= 0 {
				return nil, false
			}
			return v, true
		}
		if i, ok = skipValue(b, i); !ok {
			return nil, false
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return nil, false
		}
		i++
	}
}

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

// scanString reads the string starting at b[i] == '"'. It returns its raw
// contents (escapes left as they are) and the index after the closing
// quote.
func scanString(b []byte, i int) (raw []byte, next int, ok bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return nil, 0, false
		}
		q := j + k
		bs := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return b[i+1 : q], q + 1, true
		}
		j = q + 1
	}
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		_, next, ok := scanString(b, i)
		return next, ok
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				_, next, ok := scanString(b, i)
				if !ok {
					return 0, false
				}
				i = next
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	for i < len(b) { // number, true, false, null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, true
		}
		i++
	}
	return i, true
}
