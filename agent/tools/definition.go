package tools

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendSchema appends the JSON encoding of a schema written as Go values,
// byte for byte what json.Marshal writes (keys sorted, the same escapes),
// without reflection: every Definition call encodes its schema, and the
// agent asks for definitions several times a turn (names, filters, the
// request). It handles the values schemas are made of (maps with string
// keys, slices of any or of strings, strings, booleans, integers, nil);
// ok is false for anything else, and the caller then asks json.Marshal.
func appendSchema(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case string:
		return appendSchemaString(b, v), true
	case []string:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendSchemaString(b, s)
		}
		return append(b, ']'), true
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendSchema(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendSchemaString(b, k), ':')
			if b, ok = appendSchema(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendSchemaString appends s as a JSON string. Quotes and backslashes
// are escaped and valid UTF-8 copied, as json.Marshal does; a string with
// anything else it escapes (control characters, <, >, &, U+2028, U+2029,
// invalid UTF-8) is left to json.Marshal, so those escapes are its own.
func appendSchemaString(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
			continue
		case c < utf8.RuneSelf && c >= 0x20 && c != '<' && c != '>' && c != '&':
			b = append(b, c)
			i++
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r != utf8.RuneError || size != 1) && r != '\u2028' && r != '\u2029' {
				b = append(b, s[i:i+size]...)
				i += size
				continue
			}
		}
		q, _ := json.Marshal(s) // a string always encodes
		return append(b[:start], q...)
	}
	return append(b, '"')
}
