package lsp

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// encoding is a position encoding: what a position's Character counts.
type encoding int

const (
	encUTF16 encoding = iota // UTF-16 code units, the LSP default
	encUTF8                  // bytes
	encUTF32                 // code points
)

// parseEncoding reads a PositionEncodingKind; unknown kinds are UTF-16.
func parseEncoding(s string) encoding {
	switch s {
	case "utf-8":
		return encUTF8
	case "utf-32":
		return encUTF32
	}
	return encUTF16
}

func (e encoding) String() string {
	return [...]string{"utf-16", "utf-8", "utf-32"}[e]
}

// units is how many code units of e the rune r (of size bytes) takes. An
// invalid byte counts as one unit, as the U+FFFD it stands for.
func (e encoding) units(r rune, size int) int {
	switch e {
	case encUTF8:
		return size
	case encUTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// text is a document's content with the byte offsets of its lines. Lines
// end at "\n", "\r\n" or "\r", as the specification says.
type text struct {
	s      string
	starts []int // byte offset of each line's first byte
}

func newText(s string) *text {
	t := &text{s: s, starts: []int{0}}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			t.starts = append(t.starts, i+1)
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// lineCount is the number of lines as people count them: a final line
// end does not start another line.
func (t *text) lineCount() int {
	n := len(t.starts)
	if n > 1 && t.starts[n-1] == len(t.s) {
		n--
	}
	return n
}

// lineBounds returns the byte offsets of the content of line i (0-based),
// without its line end.
func (t *text) lineBounds(i int) (start, end int) {
	start = t.starts[i]
	end = len(t.s)
	if i+1 < len(t.starts) {
		end = t.starts[i+1]
	}
	for end > start && (t.s[end-1] == '\n' || t.s[end-1] == '\r') {
		end--
	}
	return start, end
}

// line returns the content of line i (0-based), "" past the end.
func (t *text) line(i int) string {
	if i < 0 || i >= len(t.starts) {
		return ""
	}
	s, e := t.lineBounds(i)
	return t.s[s:e]
}

// toPosition converts a 1-based line and 1-based column counted in
// characters (code points) into an LSP position in encoding e.
func (t *text) toPosition(line, col int, e encoding) (position, error) {
	if line < 1 || line > len(t.starts) {
		return position{}, fmt.Errorf("line %d is past the end of the file (%d lines)", line, t.lineCount())
	}
	l := t.line(line - 1)
	n := utf8.RuneCountInString(l)
	if col < 1 || col > n+1 {
		return position{}, fmt.Errorf("column %d is past the end of line %d (%d characters)", col, line, n)
	}
	units := 0
	for i := 0; col > 1 && i < len(l); col-- {
		r, size := utf8.DecodeRuneInString(l[i:])
		units += e.units(r, size)
		i += size
	}
	return position{Line: line - 1, Character: units}, nil
}

// offset converts an LSP position into a byte offset. A line past the end
// is the end of the text; a character past the end of its line is the
// line's end; one inside a character rounds down to its start.
func (t *text) offset(p position, e encoding) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(t.starts) {
		return len(t.s)
	}
	start, end := t.lineBounds(p.Line)
	units := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(t.s[i:end])
		u := e.units(r, size)
		if units+u > p.Character {
			return i
		}
		units += u
		i += size
	}
	return end
}

// point converts a byte offset into a 1-based line and a 1-based column
// counted in characters.
func (t *text) point(off int) (line, col int) {
	off = max(0, min(off, len(t.s)))
	i := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	start, end := t.lineBounds(i)
	off = min(off, end)
	return i + 1, utf8.RuneCountInString(t.s[start:off]) + 1
}

// positionAt converts a byte offset into an LSP position in encoding e.
func (t *text) positionAt(off int, e encoding) position {
	off = max(0, min(off, len(t.s)))
	i := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	start, end := t.lineBounds(i)
	off = min(off, end)
	units := 0
	for j := start; j < off; {
		r, size := utf8.DecodeRuneInString(t.s[j:off])
		units += e.units(r, size)
		j += size
	}
	return position{Line: i, Character: units}
}

// change is the smallest single-range change that turns old into new: the
// byte range [start, oldEnd) of old replaced by new[start:newEnd]. Its
// ends fall on character boundaries and never between "\r" and "\n".
func change(old, new string) (start, oldEnd, newEnd int) {
	n := min(len(old), len(new))
	for start < n && old[start] == new[start] {
		start++
	}
	for start > 0 && (start < len(old) && !utf8.RuneStart(old[start]) || start < len(new) && !utf8.RuneStart(new[start]) || old[start-1] == '\r') {
		start--
	}
	oldEnd, newEnd = len(old), len(new)
	for oldEnd > start && newEnd > start && old[oldEnd-1] == new[newEnd-1] {
		oldEnd--
		newEnd--
	}
	splits := func(s string, i int) bool {
		return i > 0 && i < len(s) && (!utf8.RuneStart(s[i]) || s[i-1] == '\r' && s[i] == '\n')
	}
	for splits(old, oldEnd) || splits(new, newEnd) {
		oldEnd++
		newEnd++
	}
	return start, oldEnd, newEnd
}

// wordAt returns the identifier around byte offset off of line l, for
// headings ("definition of Greet").
func wordAt(l string, off int) string {
	isWord := func(r rune) bool {
		return r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && r != utf8.RuneError
	}
	off = max(0, min(off, len(l)))
	s := off
	for s > 0 {
		r, size := utf8.DecodeLastRuneInString(l[:s])
		if !isWord(r) {
			break
		}
		s -= size
	}
	e := off
	for e < len(l) {
		r, size := utf8.DecodeRuneInString(l[e:])
		if !isWord(r) {
			break
		}
		e += size
	}
	return l[s:e]
}

// findWord returns the byte offset of the first occurrence of word in s
// that stands as a whole word, else the first occurrence at all, else -1.
func findWord(s, word string) int {
	if word == "" {
		return -1
	}
	first := -1
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return first
		}
		i += off
		if first < 0 {
			first = i
		}
		if wordAt(s, i) == word {
			return i
		}
		off = i + 1
	}
}
