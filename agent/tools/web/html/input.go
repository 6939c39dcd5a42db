package html

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// This file is the standard's input stream preprocessing: newline
// normalisation, the input-stream parse errors and positions for errors.

// normalizeNewlines turns "\r\n" and lone "\r" into "\n". It returns src
// itself when there is no carriage return.
func normalizeNewlines(src []byte) []byte {
	i := bytes.IndexByte(src, '\r')
	if i < 0 {
		return src
	}
	out := make([]byte, 0, len(src))
	for i >= 0 {
		out = append(out, src[:i]...)
		out = append(out, '\n')
		src = src[i+1:]
		if len(src) > 0 && src[0] == '\n' {
			src = src[1:]
		}
		i = bytes.IndexByte(src, '\r')
	}
	return append(out, src...)
}

// inputErrors finds the characters that are parse errors wherever they
// appear: controls other than whitespace and NUL, noncharacters, and
// surrogates (which only WTF-8 input can hold).
func inputErrors(src []byte) []ParseError {
	var errs []ParseError
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if c != 0 && c != '\t' && c != '\n' && c != '\f' && (c < 0x20 || c == 0x7F) {
				errs = append(errs, ParseError{Code: "control-character-in-input-stream", Offset: i})
			}
			i++
			continue
		}
		if isSurrogateAt(src, i) {
			errs = append(errs, ParseError{Code: "surrogate-in-input-stream", Offset: i})
			i += 3
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		switch {
		case r >= 0x80 && r <= 0x9F:
			errs = append(errs, ParseError{Code: "control-character-in-input-stream", Offset: i})
		case isNoncharacter(r):
			errs = append(errs, ParseError{Code: "noncharacter-in-input-stream", Offset: i})
		}
		i += n
	}
	return errs
}

// isSurrogateAt reports whether src holds the three-byte UTF-8 form of a
// surrogate code point (U+D800 to U+DFFF) at i.
func isSurrogateAt(src []byte, i int) bool {
	return i+2 < len(src) && src[i] == 0xED && src[i+1] >= 0xA0 && src[i+1] <= 0xBF && src[i+2]&0xC0 == 0x80
}

// sortErrors orders errors by offset, keeping the order of errors at the
// same offset.
func sortErrors(errs []ParseError) {
	slices.SortStableFunc(errs, func(a, b ParseError) int { return a.Offset - b.Offset })
}

// position returns the 1-based line and column of offset in src, with
// columns in UTF-16 code units.
func position(src []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(src))
	line = 1 + bytes.Count(src[:offset], []byte{'\n'})
	start := bytes.LastIndexByte(src[:offset], '\n') + 1
	col = 1
	for i := start; i < offset; {
		if isSurrogateAt(src, i) {
			col++
			i += 3
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r > 0xFFFF {
			col += 2
		} else {
			col++
		}
		i += n
	}
	return line, col
}
