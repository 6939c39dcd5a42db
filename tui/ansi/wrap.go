package ansi

import (
	"strings"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// Wrap breaks s into lines of at most width cells (width below 1 counts as
// 1). Newlines in s end lines; long lines break after spaces, and words
// longer than a line break anywhere between grapheme clusters. The spaces
// at a break are dropped; leading indentation is kept. Tabs expand to the
// next multiple of DefaultTabWidth.
//
// Escape sequences are zero-width and kept: SGR styles and OSC 8 links
// still open at the end of a line are closed there and reopened at the
// start of the next, so every line can be printed on its own. A wide
// character never splits; when width is 1 it is replaced by "…".
//
// Wrap expects text made safe by Sanitize: other control characters count
// as zero-width and pass through.
func Wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	w := wrapper{width: width}
	for {
		line, rest, more := strings.Cut(s, "\n")
		if strings.IndexByte(line, '\t') >= 0 {
			line = expandTabs(line, DefaultTabWidth)
		}
		w.line(line)
		if !more {
			break
		}
		s = rest
	}
	return w.out
}

// expandTabs replaces the tabs of one line with spaces up to the next tab
// stop, measuring the text before each tab in cells.
func expandTabs(line string, tabWidth int) string {
	var b strings.Builder
	col := 0
	for {
		i := strings.IndexByte(line, '\t')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		col += StringWidth(line[:i])
		n := tabWidth - col%tabWidth
		b.WriteString(strings.Repeat(" ", n))
		col += n
		line = line[i+1:]
	}
}

// wrapItem is one escape sequence or grapheme cluster of a line.
type wrapItem struct {
	start, end int32 // byte offsets in the line
	width      int8
	kind       uint8
}

const (
	itemText = iota
	itemSpace
	itemEscape
)

// wrapper accumulates the wrapped lines and the ANSI state carried from
// one line to the next.
type wrapper struct {
	width int
	out   []string
	st    EscapeState
	items []wrapItem
}

func (w *wrapper) tokenize(line string) {
	if cap(w.items) < len(line) {
		w.items = make([]wrapItem, 0, len(line))
	}
	w.items = w.items[:0]
	for i := 0; i < len(line); {
		c := line[i]
		if c > ' ' && c < 0x7f && (i+1 == len(line) || line[i+1] < 0x80) {
			w.items = append(w.items, wrapItem{int32(i), int32(i + 1), 1, itemText})
			i++
			continue
		}
		if c == 0x1b {
			if n := EscapeLen(line[i:]); n > 0 {
				w.items = append(w.items, wrapItem{int32(i), int32(i + n), 0, itemEscape})
				i += n
				continue
			}
		}
		n, cw := uniwidth.Cluster(line[i:])
		kind := uint8(itemText)
		if n == 1 && c == ' ' {
			kind = itemSpace
		}
		w.items = append(w.items, wrapItem{int32(i), int32(i + n), int8(cw), kind})
		i += n
	}
}

// line wraps one logical line (no newlines).
func (w *wrapper) line(line string) {
	w.tokenize(line)
	items := w.items
	if len(items) == 0 {
		w.out = append(w.out, "")
		return
	}
	rows := 0
	start, col := 0, 0
	brk, brkEnd := -1, -1 // last space run after text: [brk, brkEnd)
	inRun, seenText := false, false
	for i := 0; i < len(items); {
		it := items[i]
		switch it.kind {
		case itemEscape:
			i++
			continue
		case itemSpace:
			if col+int(it.width) > w.width {
				end := i
				if inRun && brk >= 0 {
					end = brk
				}
				w.emit(line, start, end)
				rows++
				w.applyRange(line, end, i)
				i = w.skipSpaces(line, i)
				start, col, brk, inRun, seenText = i, 0, -1, false, false
				continue
			}
			if !inRun {
				inRun = true
				if seenText {
					brk = i
				}
			}
			if brk >= 0 {
				brkEnd = i + 1
			}
			col += int(it.width)
			i++
			continue
		}
		if col+int(it.width) > w.width {
			switch {
			case brk >= 0:
				w.emit(line, start, brk)
				rows++
				w.applyRange(line, brk, brkEnd)
				start, brk, inRun = brkEnd, -1, false
				col = 0
				for _, x := range items[start:i] {
					col += int(x.width)
				}
				seenText = col > 0
				continue
			case col == 0:
				// A wide cluster on a one-cell line.
				w.emitReplaced(line, start, i)
				rows++
				i++
				start, seenText = i, false
				continue
			default:
				w.emit(line, start, i)
				rows++
				start, col, brk, inRun, seenText = i, 0, -1, false, false
				continue
			}
		}
		inRun = false
		seenText = true
		col += int(it.width)
		i++
	}
	if start < len(items) {
		visible := false
		for _, x := range items[start:] {
			if x.kind != itemEscape {
				visible = true
				break
			}
		}
		if visible || rows == 0 {
			w.emit(line, start, len(items))
			return
		}
		w.applyRange(line, start, len(items))
	}
}

// emit appends the row made of items [a, b) with the state reopened before
// it and closed after it.
func (w *wrapper) emit(line string, a, b int) {
	if a >= b {
		w.out = append(w.out, "")
		return
	}
	prefix := w.st.Open()
	w.applyRange(line, a, b)
	body := line[w.items[a].start:w.items[b-1].end]
	w.out = append(w.out, prefix+body+w.st.Close())
}

// emitReplaced emits the escapes of [a, b) followed by "…" in place of the
// too-wide cluster b.
func (w *wrapper) emitReplaced(line string, a, b int) {
	prefix := w.st.Open()
	var body strings.Builder
	for _, x := range w.items[a:b] {
		body.WriteString(line[x.start:x.end])
	}
	w.applyRange(line, a, b)
	w.out = append(w.out, prefix+body.String()+"…"+w.st.Close())
}

// applyRange applies the escape sequences of items [a, b) to the state.
func (w *wrapper) applyRange(line string, a, b int) {
	for _, x := range w.items[a:b] {
		if x.kind == itemEscape {
			w.st.Apply(line[x.start:x.end])
		}
	}
}

// skipSpaces returns the index of the first item at or after i that is
// not a space, applying the escapes it passes.
func (w *wrapper) skipSpaces(line string, i int) int {
	for ; i < len(w.items); i++ {
		x := w.items[i]
		switch x.kind {
		case itemEscape:
			w.st.Apply(line[x.start:x.end])
		case itemSpace:
		default:
			return i
		}
	}
	return i
}
