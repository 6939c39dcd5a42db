package telegram

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessage is Telegram's limit on a message's text after entities are
// parsed, in UTF-16 code units.
const MaxMessage = 4096

// Split cuts f into messages of at most limit UTF-16 code units each. It
// cuts, in this order of preference, at a blank line, at a line break, at a
// line break inside a code block (which is closed in one message and
// reopened in the next), at a space, at a space inside an entity, and only
// then anywhere between two characters; never inside a character or
// between a character and its combining marks. A cut looks no further back
// than half the limit. Parts lose the line breaks and spaces at the cut
// (the indentation of a code line stays); empty parts are dropped.
func Split(f Formatted, limit int) []Formatted {
	limit = max(limit, 8)
	var out []Formatted
	rest := f.trim()
	for UTF16Len(rest.Text) > limit {
		fit := fitting(rest.Text, limit)
		cut, next := rest.cutPoint(fit)
		if part := rest.slice(0, cut).trimRight(); strings.TrimSpace(part.Text) != "" {
			out = append(out, part)
		}
		rest = rest.slice(next, len(rest.Text))
		rest = rest.trimLeftLines()
	}
	if rest = rest.trimRight(); strings.TrimSpace(rest.Text) != "" {
		out = append(out, rest)
	}
	return out
}

// fitting returns the length in bytes of the longest prefix of s that has at
// most limit UTF-16 code units.
func fitting(s string, limit int) int {
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > limit {
			return i
		}
		n += w
	}
	return len(s)
}

// cut priorities, best first
const (
	cutParagraph = iota
	cutLine
	cutCodeLine
	cutSpace
	cutInside
	cutNone
)

// cutPoint chooses where to end the first part, which must be at most fit
// bytes long. It returns the end of the first part and the start of the
// rest.
func (f Formatted) cutPoint(fit int) (cut, next int) {
	lo := fit / 2
	// cover[k-lo] says what covers byte k: 0 nothing, 1 only pre or
	// blockquote, 2 an inline entity.
	cover := make([]uint8, fit-lo+1)
	for _, e := range f.Entities {
		if e.End <= lo || e.Start > fit {
			continue
		}
		level := uint8(2)
		if e.Type == EntityPre || e.Type == EntityBlockquote {
			level = 1
		}
		for k := max(e.Start, lo); k < min(e.End, fit+1); k++ {
			cover[k-lo] = max(cover[k-lo], level)
		}
	}
	best, bestAt := cutNone, -1
	for k := fit; k > lo && best > cutParagraph; k-- {
		if k >= len(f.Text) {
			continue
		}
		c := f.Text[k]
		if c != '\n' && c != ' ' {
			continue
		}
		p := cutNone
		switch cv := cover[k-lo]; {
		case c == '\n' && cv == 0 && (k > 0 && f.Text[k-1] == '\n' || k+1 < len(f.Text) && f.Text[k+1] == '\n'):
			p = cutParagraph
		case c == '\n' && cv == 0:
			p = cutLine
		case c == '\n' && cv == 1:
			p = cutCodeLine
		case c == ' ' && cv == 0:
			p = cutSpace
		default:
			p = cutInside
		}
		if p < best {
			best, bestAt = p, k
		}
	}
	if bestAt > 0 {
		return bestAt, bestAt + 1
	}
	k := graphemeStart(f.Text, fit)
	if k == 0 {
		k = fit // one cluster longer than the limit: cut it
	}
	return k, k
}

// graphemeStart moves n back so that s[:n] does not end inside a character
// or before a combining mark, a joiner or a variation selector.
func graphemeStart(s string, n int) int {
	n = runeStart(s, n)
	for n > 0 && n < len(s) {
		r, _ := utf8.DecodeRuneInString(s[n:])
		prev, size := utf8.DecodeLastRuneInString(s[:n])
		if !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) && r != 0x200D && prev != 0x200D &&
			!(r >= 0xFE00 && r <= 0xFE0F) && !(r >= 0x1F3FB && r <= 0x1F3FF) {
			break
		}
		n -= size
	}
	return n
}

// trimLeftLines drops the line breaks at the start of f (spaces stay: they
// may indent code).
func (f Formatted) trimLeftLines() Formatted {
	k := len(f.Text) - len(strings.TrimLeft(f.Text, "\n"))
	if k == 0 {
		return f
	}
	return f.slice(k, len(f.Text))
}

// trimRight drops the white space at the end of f.
func (f Formatted) trimRight() Formatted {
	end := len(strings.TrimRight(f.Text, " \t\n"))
	if end == len(f.Text) {
		return f
	}
	return f.slice(0, end)
}
