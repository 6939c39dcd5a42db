package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the width API the rest of the package uses. The first
// version approximates widths with package unicode; the generated tables
// from the Unicode data files replace runeWidth's internals.

// RuneWidth is the number of terminal cells r occupies: 0 for combining and
// zero-width characters, 2 for East Asian wide and fullwidth characters and
// emoji presentation, 1 otherwise. Control characters report 0; use
// Sanitize to make them visible before measuring.
func RuneWidth(r rune) int {
	switch {
	case r == 0, r < 0x20, r >= 0x7f && r < 0xa0:
		return 0
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), r == 0x200b, r == 0x200d, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) ||
		(r >= 0xfe30 && r <= 0xfe6f) ||
		(r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) ||
		(r >= 0x1f300 && r <= 0x1f64f) ||
		(r >= 0x1f900 && r <= 0x1f9ff) ||
		(r >= 0x20000 && r <= 0x3fffd)):
		return 2
	}
	return 1
}

// StringWidth is the number of cells s occupies on one line. ANSI escape
// sequences (CSI, OSC, and two-byte ESC sequences) count as zero.
func StringWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		if n := escapeLen(s[i:]); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w += RuneWidth(r)
		i += size
	}
	return w
}

// Truncate returns s cut to at most w cells, ending in tail (for example
// "…") when it had to cut. Escape sequences are kept.
func Truncate(s string, w int, tail string) string {
	if StringWidth(s) <= w {
		return s
	}
	tw := StringWidth(tail)
	if tw > w {
		tail, tw = "", 0
	}
	var b strings.Builder
	cur := 0
	for i := 0; i < len(s); {
		if n := escapeLen(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		rw := RuneWidth(r)
		if cur+rw > w-tw {
			break
		}
		b.WriteString(s[i : i+size])
		cur += rw
		i += size
	}
	b.WriteString(tail)
	return b.String()
}

// escapeLen returns the length of the escape sequence at the start of s, or
// 0 when s does not start with one.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b {
		return 0
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}
