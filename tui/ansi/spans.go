package ansi

import (
	"strings"
	"unicode/utf8"
)

// This file holds the text plumbing shared by the markdown, diff and tool
// renderers: making outside text inert, stepping over grapheme clusters,
// and wrapping styled spans to a width.

// Printable makes text from outside (model output, tool results) inert on
// a terminal. Unlike Sanitize it keeps no escape sequence at all, because
// the renderers here style text themselves: C0 controls other than tab and
// newline are shown in caret notation (ESC as ^[), DEL as ^?, C1 controls
// as M-^@..M-^_, CR LF becomes LF, invalid UTF-8 becomes U+FFFD, and line
// and paragraph separators become spaces.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !needsCleaning(r, size) {
				i += size
				continue
			}
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			i++
			continue
		case c == '\n' || c == '\t' || c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			b.WriteByte('^')
			b.WriteByte(c ^ 0x40)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == 0x2028 || r == 0x2029:
			b.WriteByte(' ')
		case r >= 0x80 && r < 0xa0:
			b.WriteString("M-^")
			b.WriteByte(byte(r-0x80) ^ 0x40)
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i-size : i])
		}
	}
	return b.String()
}

// needsCleaning reports whether a decoded non-ASCII rune must be replaced.
func needsCleaning(r rune, size int) bool {
	return r == utf8.RuneError && size <= 1 || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029
}

// ExpandTabs replaces tabs with spaces up to the next multiple of
// DefaultTabWidth cells. It is for one line: s must not hold newlines.
func ExpandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); {
		if s[i] == '\t' {
			n := DefaultTabWidth - col%DefaultTabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			i++
			continue
		}
		n, w := NextCluster(s[i:])
		b.WriteString(s[i : i+n])
		col += w
		i += n
	}
	return b.String()
}

// NextCluster returns the byte length and cell width of the grapheme
// cluster at the start of s, which must not be empty.
func NextCluster(s string) (n, width int) {
	if c := s[0]; c < 0x80 && (len(s) == 1 || s[1] < 0x80) {
		if c < 0x20 || c == 0x7f {
			return 1, 0
		}
		return 1, 1
	}
	cl, w := FirstGrapheme(s)
	if len(cl) == 0 {
		return 1, 0
	}
	return len(cl), w
}

// TextWidth is the cell width of plain text (no escape sequences), cluster
// by cluster.
func TextWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && (i+1 == len(s) || s[i+1] < 0x80) {
			w++
			i++
			continue
		}
		n, cw := NextCluster(s[i:])
		w += cw
		i += n
	}
	return w
}

// SpansWidth is the cell width of a run of spans.
func SpansWidth(spans []Span) int {
	w := 0
	for _, sp := range spans {
		w += TextWidth(sp.Text)
	}
	return w
}

// atom is an unbreakable piece of wrapped text: a word (which may change
// style midway), a run of spaces, or a hard line break.
type atom struct {
	parts []Span
	width int
	kind  atomKind
}

type atomKind uint8

const (
	atomWord atomKind = iota
	atomSpace
	atomBreak
)

// atomize splits spans into atoms. Breaks are allowed at spaces and on
// either side of a wide (East Asian) character.
func atomize(spans []Span) []atom {
	var atoms []atom
	open := false // whether the last atom may still grow
	for _, sp := range spans {
		add := func(kind atomKind, text string, w int) {
			if open && atoms[len(atoms)-1].kind == kind {
				a := &atoms[len(atoms)-1]
				a.parts = append(a.parts, Span{Text: text, Style: sp.Style, Link: sp.Link})
				a.width += w
				return
			}
			atoms = append(atoms, atom{kind: kind, width: w, parts: []Span{{Text: text, Style: sp.Style, Link: sp.Link}}})
			open = true
		}
		s := sp.Text
		for i := 0; i < len(s); {
			switch s[i] {
			case '\n':
				atoms = append(atoms, atom{kind: atomBreak})
				open = false
				i++
				continue
			case ' ':
				j := i
				for j < len(s) && s[j] == ' ' {
					j++
				}
				add(atomSpace, s[i:j], j-i)
				i = j
				continue
			}
			j, w := i, 0
			for j < len(s) && s[j] != ' ' && s[j] != '\n' {
				n, cw := NextCluster(s[j:])
				if cw == 2 {
					break
				}
				j += n
				w += cw
			}
			if j > i {
				add(atomWord, s[i:j], w)
				i = j
				continue
			}
			// A wide character is a word of its own.
			n, cw := NextCluster(s[i:])
			open = false
			add(atomWord, s[i:i+n], cw)
			open = false
			i += n
		}
	}
	return atoms
}

// WrapSpans breaks spans into lines of at most width cells. Spaces where
// a line breaks are dropped, except leading spaces at the start of the
// text or after a hard break, which keep indentation. Words longer than
// the width are broken between characters. The result has at least one
// line.
func WrapSpans(spans []Span, width int) [][]Span {
	width = max(width, 1)
	var lines [][]Span
	var cur []Span
	curW := 0
	var space []Span
	spaceW := 0
	hardStart := true
	flush := func() {
		lines = append(lines, cur)
		cur, curW = nil, 0
		space, spaceW = nil, 0
	}
	for _, a := range atomize(spans) {
		switch a.kind {
		case atomBreak:
			flush()
			hardStart = true
		case atomSpace:
			if curW == 0 && hardStart {
				for _, p := range a.parts {
					cur = append(cur, p)
				}
				curW += a.width
				if curW >= width {
					cur = cutSpans(cur, width)
					curW = SpansWidth(cur)
				}
				continue
			}
			space, spaceW = a.parts, a.width
		case atomWord:
			hardStart = false
			if curW > 0 && curW+spaceW+a.width <= width {
				cur = append(cur, space...)
				cur = append(cur, a.parts...)
				curW += spaceW + a.width
				space, spaceW = nil, 0
				continue
			}
			if curW == 0 && a.width <= width-curW {
				cur = append(cur, a.parts...)
				curW += a.width
				space, spaceW = nil, 0
				continue
			}
			if curW > 0 {
				flush()
			}
			space, spaceW = nil, 0
			if a.width <= width {
				cur = append(cur, a.parts...)
				curW = a.width
				continue
			}
			for _, chunk := range BreakWord(a.parts, width) {
				if curW > 0 {
					flush()
				}
				cur = chunk
				curW = SpansWidth(chunk)
			}
		}
	}
	lines = append(lines, cur)
	return lines
}

// BreakWord cuts the parts of an over-long word into chunks of at most
// width cells.
func BreakWord(parts []Span, width int) [][]Span {
	var chunks [][]Span
	var cur []Span
	curW := 0
	for _, p := range parts {
		s := p.Text
		start := 0
		for i := 0; i < len(s); {
			n, w := NextCluster(s[i:])
			if curW+w > width && curW > 0 {
				if i > start {
					cur = append(cur, Span{Text: s[start:i], Style: p.Style, Link: p.Link})
				}
				chunks = append(chunks, cur)
				cur, curW = nil, 0
				start = i
			}
			curW += w
			i += n
		}
		if start < len(s) {
			cur = append(cur, Span{Text: s[start:], Style: p.Style, Link: p.Link})
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// cutSpans keeps at most width cells of spans, never splitting a cluster.
func cutSpans(spans []Span, width int) []Span {
	var out []Span
	w := 0
	for _, sp := range spans {
		s := sp.Text
		i := 0
		for i < len(s) {
			n, cw := NextCluster(s[i:])
			if w+cw > width {
				if i > 0 {
					out = append(out, Span{Text: s[:i], Style: sp.Style, Link: sp.Link})
				}
				return out
			}
			w += cw
			i += n
		}
		out = append(out, sp)
	}
	return out
}

// TruncateSpans cuts spans to width cells, ending in "…" when it had to
// cut.
func TruncateSpans(spans []Span, width int) []Span {
	if SpansWidth(spans) <= width {
		return spans
	}
	if width <= 0 {
		return nil
	}
	out := cutSpans(spans, width-1)
	st := Style{}
	if len(out) > 0 {
		st = out[len(out)-1].Style
	} else if len(spans) > 0 {
		st = spans[0].Style
	}
	return append(out, Span{Text: "…", Style: st})
}

// PadSpans appends spaces (in style st) to reach width cells.
func PadSpans(spans []Span, width int, st Style) []Span {
	if n := width - SpansWidth(spans); n > 0 {
		return append(spans, Span{Text: strings.Repeat(" ", n), Style: st})
	}
	return spans
}

// HardWrap breaks spans into lines of width cells exactly, keeping every
// space: code is cut, not reflowed.
func HardWrap(spans []Span, width int) [][]Span {
	if len(spans) == 0 {
		return [][]Span{nil}
	}
	if SpansWidth(spans) <= width {
		return [][]Span{spans}
	}
	return BreakWord(spans, width)
}
