package html

import (
	stdhtml "html"
	"strings"
	"unicode/utf8"
)

// The character reference states. They run once the "&" is consumed and
// append what the reference stands for to the text, or to the attribute
// value when inAttr is set.

// longestEntity is the length of the longest named character reference,
// "CounterClockwiseContourIntegral;".
const longestEntity = 32

func (z *Tokenizer) appendRef(inAttr bool, b ...byte) {
	if inAttr {
		z.arena = append(z.arena, b...)
	} else {
		z.text = append(z.text, b...)
	}
}

func (z *Tokenizer) appendRefString(inAttr bool, s string) {
	if inAttr {
		z.arena = append(z.arena, s...)
	} else {
		z.text = append(z.text, s...)
	}
}

// charRef is the character reference state; z.pos is just past the "&".
func (z *Tokenizer) charRef(inAttr bool) {
	src := z.src
	switch {
	case z.pos < len(src) && isAlnum(src[z.pos]):
		z.namedRef(inAttr)
	case z.pos < len(src) && src[z.pos] == '#':
		z.pos++
		z.numericRef(inAttr)
	default:
		z.appendRef(inAttr, '&')
	}
}

// namedRef is the named character reference state and, when no name
// matches, the ambiguous ampersand state.
func (z *Tokenizer) namedRef(inAttr bool) {
	src := z.src
	i := z.pos
	for i < len(src) && isAlnum(src[i]) && i-z.pos < longestEntity {
		i++
	}
	if i < len(src) && src[i] == ';' && i-z.pos < longestEntity {
		i++
	}
	value, n := lookupEntity(src[z.pos:i])
	if n > 0 {
		name := src[z.pos : z.pos+n]
		next := z.pos + n
		if name[n-1] != ';' {
			if inAttr && next < len(src) && (src[next] == '=' || isAlnum(src[next])) {
				// Left as written, for historical reasons.
				z.appendRef(true, '&')
				z.appendRef(true, name...)
				z.pos = next
				return
			}
			z.err("missing-semicolon-after-character-reference", next)
		}
		z.appendRefString(inAttr, value)
		z.pos = next
		return
	}
	z.appendRef(inAttr, '&')
	j := z.pos
	for j < len(src) && isAlnum(src[j]) {
		j++
	}
	z.appendRef(inAttr, src[z.pos:j]...)
	z.pos = j
	if j < len(src) && src[j] == ';' {
		z.err("unknown-named-character-reference", j)
	}
}

// lookupEntity finds the longest named character reference at the start of
// run, which holds ASCII letters and digits, maybe followed by ";". It
// returns the reference's value and its length in run, 0 when none
// matches.
//
// The table is the standard library's: html.UnescapeString knows every
// named reference of HTML5, and for a name it does not know it falls back
// to the longest legacy name (one valid without ";") that prefixes it,
// which is exactly the standard's rule. The fallback leaves the rest of
// run after the value, which tells how much was matched.
func lookupEntity(run []byte) (string, int) {
	switch string(run) { // the common ones, without a round trip
	case "amp;":
		return "&", 4
	case "lt;":
		return "<", 3
	case "gt;":
		return ">", 3
	case "quot;":
		return `"`, 5
	case "nbsp;":
		return "\u00a0", 5
	case "nLt;": // the two names the standard library's table leaves out
		return "\u226A\u20D2", 4 // (their values are longer than their names)
	case "nGt;":
		return "\u226B\u20D2", 4
	}
	s := "&" + string(run)
	r := stdhtml.UnescapeString(s)
	if r == s {
		return "", 0
	}
	_, size := utf8.DecodeRuneInString(r)
	rest := r[size:]
	// A legacy prefix matched: r is its one-rune value and the rest of run.
	if rest != "" && len(rest) < len(run) && strings.HasSuffix(s, rest) {
		return r[:size], len(run) - len(rest)
	}
	return r, len(run)
}

// numericRef runs the numeric character reference states; z.pos is just
// past the "#".
func (z *Tokenizer) numericRef(inAttr bool) {
	src := z.src
	start := z.pos - 2 // the "&"
	hex := z.pos < len(src) && src[z.pos]|0x20 == 'x'
	if hex {
		z.pos++
	}
	digits := z.pos
	code := 0
	for z.pos < len(src) {
		c := src[z.pos]
		var d int
		switch {
		case isDigit(c):
			d = int(c - '0')
		case hex && c|0x20 >= 'a' && c|0x20 <= 'f':
			d = int(c|0x20-'a') + 10
		default:
			goto end
		}
		if hex {
			code = code*16 + d
		} else {
			code = code*10 + d
		}
		if code > utf8.MaxRune {
			code = utf8.MaxRune + 1
		}
		z.pos++
	}
end:
	if z.pos == digits {
		z.err("absence-of-digits-in-numeric-character-reference", z.pos)
		z.appendRef(inAttr, src[start:z.pos]...)
		return
	}
	if z.pos < len(src) && src[z.pos] == ';' {
		z.pos++
	} else {
		z.err("missing-semicolon-after-character-reference", z.pos)
	}
	at := z.pos
	r := rune(code)
	switch {
	case code == 0:
		z.err("null-character-reference", at)
		r = utf8.RuneError
	case code > utf8.MaxRune:
		z.err("character-reference-outside-unicode-range", at)
		r = utf8.RuneError
	case code >= 0xD800 && code <= 0xDFFF:
		z.err("surrogate-character-reference", at)
		r = utf8.RuneError
	case isNoncharacter(r):
		z.err("noncharacter-character-reference", at)
	case code == 0x0D || isControl(r) && !isSpace(byte(code)):
		z.err("control-character-reference", at)
		if code >= 0x80 && code <= 0x9F {
			r = windows1252[code-0x80]
		}
	}
	var b [utf8.UTFMax]byte
	n := utf8.EncodeRune(b[:], r)
	z.appendRef(inAttr, b[:n]...)
}

// isNoncharacter reports whether r is one of Unicode's noncharacters.
func isNoncharacter(r rune) bool {
	return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE && r <= utf8.MaxRune
}

// isControl reports whether r is a C0 control, DELETE or a C1 control.
func isControl(r rune) bool { return r <= 0x1F || r >= 0x7F && r <= 0x9F }
