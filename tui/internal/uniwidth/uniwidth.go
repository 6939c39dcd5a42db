// Package uniwidth answers two questions about Unicode text for terminals:
// how many cells a character or grapheme cluster occupies, and where the
// grapheme clusters of a string begin and end (UAX #29 extended grapheme
// clusters). Its tables are generated from the Unicode Character Database;
// package tui and the virtual terminal of tui/vt share them so that both
// agree on every width.
//
// All functions are pure and safe for concurrent use.
package uniwidth

import "unicode/utf8"

//go:generate go run ../widthgen -o tables_width.go

// Grapheme properties: the Grapheme_Cluster_Break values plus
// Extended_Pictographic, in the order widthgen writes them.
const (
	propOther = iota
	propCR
	propLF
	propControl
	propExtend
	propZWJ
	propRI
	propPrepend
	propSpacingMark
	propL
	propV
	propT
	propLV
	propLVT
	propPict
)

// lookup returns the cell width and grapheme property of r.
func lookup(r rune) (width, prop uint8) {
	if r < 0x7f {
		if r >= 0x20 {
			return 1, propOther
		}
		switch r {
		case '\r':
			return 0, propCR
		case '\n':
			return 0, propLF
		}
		if r < 0 {
			return 1, propOther
		}
		return 0, propControl
	}
	if r > 0x10FFFF {
		return 1, propOther
	}
	v := stage2[int(stage1[r/trieBlock])*trieBlock+int(r%trieBlock)]
	return v >> 4, v & 0x0f
}

// Rune returns the number of cells r occupies when drawn alone: 2 for East
// Asian wide and fullwidth characters and for emoji with emoji
// presentation, 0 for combining marks, format and control characters,
// Hangul medial vowels and final consonants, 1 otherwise.
func Rune(r rune) int {
	w, _ := lookup(r)
	return int(w)
}

// IsControl reports whether r is a C0 or C1 control character or DEL.
func IsControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0)
}

// Cluster returns the byte length of the first grapheme cluster of s and
// the number of cells it occupies. The width of a cluster is the widest of
// its characters, and 2 when an emoji or keycap base is followed by the
// emoji presentation selector U+FE0F; so emoji ZWJ sequences, flags and
// skin-tone modified emoji are all 2. Invalid UTF-8 is one cluster per bad
// byte, of width 1 (terminals draw U+FFFD). Cluster("") is 0, 0.
func Cluster(s string) (size, width int) {
	if len(s) == 0 {
		return 0, 0
	}
	// ASCII fast path: a printable byte followed by ASCII (or nothing) is a
	// cluster of its own.
	if c := s[0]; c >= 0x20 && c < 0x7f && (len(s) == 1 || s[1] < 0x80) {
		return 1, 1
	}
	r0, n := utf8.DecodeRuneInString(s)
	if r0 == utf8.RuneError && n == 1 {
		return 1, 1
	}
	w0, p0 := lookup(r0)
	width = int(w0)
	prev := p0
	pict := p0 == propPict // inside ExtPict Extend*
	pictZWJ := false       // just saw ExtPict Extend* ZWJ
	ris := 0
	if p0 == propRI {
		ris = 1
	}
	pos := n
	for pos < len(s) {
		r, m := utf8.DecodeRuneInString(s[pos:])
		if r == utf8.RuneError && m == 1 {
			break
		}
		w, p := lookup(r)
		if !joins(prev, p, pictZWJ, ris) {
			break
		}
		switch {
		case p == propPict:
			pict, pictZWJ = true, false
		case p == propZWJ:
			pictZWJ = pict
			pict = false
		case p == propExtend:
			pictZWJ = false
		default:
			pict, pictZWJ = false, false
		}
		if p == propRI {
			ris++
		}
		if int(w) > width {
			width = int(w)
		}
		if r == 0xFE0F && (p0 == propPict || r0 == '#' || r0 == '*' || (r0 >= '0' && r0 <= '9')) {
			width = 2
		}
		pos += m
		prev = p
	}
	return pos, width
}

// joins reports whether there is no grapheme cluster boundary between a
// character of property prev and one of property cur (UAX #29 rules GB3
// to GB13). pictZWJ says the text so far ends in ExtPict Extend* ZWJ; ris
// counts the regional indicators of the cluster.
func joins(prev, cur uint8, pictZWJ bool, ris int) bool {
	switch {
	case prev == propCR && cur == propLF:
		return true
	case prev == propCR || prev == propLF || prev == propControl:
		return false
	case cur == propCR || cur == propLF || cur == propControl:
		return false
	case prev == propL && (cur == propL || cur == propV || cur == propLV || cur == propLVT):
		return true
	case (prev == propLV || prev == propV) && (cur == propV || cur == propT):
		return true
	case (prev == propLVT || prev == propT) && cur == propT:
		return true
	case cur == propExtend || cur == propZWJ || cur == propSpacingMark:
		return true
	case prev == propPrepend:
		return true
	case prev == propZWJ && cur == propPict:
		return pictZWJ
	case prev == propRI && cur == propRI:
		return ris%2 == 1
	}
	return false
}

// String returns the number of cells s occupies, cluster by cluster.
// Control characters count 0; escape sequences are not recognised here.
func String(s string) int {
	w := 0
	for i := 0; i < len(s); {
		n, cw := Cluster(s[i:])
		w += cw
		i += n
	}
	return w
}
