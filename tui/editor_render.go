package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"slices"
	"strings"
)

// editorRow is one visual row of the editor: text[start:end], without the
// newline that ends a logical line.
type editorRow struct{ start, end int }

// layout breaks the text into visual rows of at most width cells: each
// logical line wraps after spaces, and words longer than a row break
// between grapheme clusters.
func (e *Editor) layout(width int) []editorRow {
	width = max(width, 1)
	e.layoutWidth = width
	var rows []editorRow
	ls := 0
	for {
		le := len(e.text)
		if i := strings.IndexByte(e.text[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		rows = e.wrapLine(rows, ls, le, width)
		if le == len(e.text) {
			return rows
		}
		ls = le + 1
	}
}

func (e *Editor) wrapLine(rows []editorRow, ls, le, width int) []editorRow {
	start, col, brk := ls, 0, -1
	for pos := ls; pos < le; {
		n, w := e.clusterAt(pos)
		if col+w > width && pos > start {
			switch {
			case e.text[pos] == ' ':
				// A space that does not fit starts the next row.
				rows = append(rows, editorRow{start, pos})
				start, col = pos, 0
			case brk > start:
				rows = append(rows, editorRow{start, brk})
				start, col = brk, e.cellsBetween(brk, pos)
			default:
				rows = append(rows, editorRow{start, pos})
				start, col = pos, 0
			}
			brk = -1
			continue
		}
		col += w
		pos += n
		if n == 1 && e.text[pos-1] == ' ' {
			brk = pos
		}
	}
	return append(rows, editorRow{start, le})
}

// cellsBetween returns the display width of text[a:b].
func (e *Editor) cellsBetween(a, b int) int {
	w := 0
	for pos := a; pos < b; {
		n, cw := e.clusterAt(pos)
		w += cw
		pos += n
	}
	return w
}

// cursorCell returns the visual row and column of the cursor. A cursor
// after a row that fills the width is at column width; Render shows it at
// the start of an extra row.
func (e *Editor) cursorCell(rows []editorRow, width int) (row, col int) {
	for i, r := range rows {
		if r.start <= e.cur {
			row = i
		}
	}
	return row, e.cellsBetween(rows[row].start, e.cur)
}

// Render lays the editor out for width cells and returns its rows and the
// cursor's row and column in them. The placeholder shows when the text is
// empty. Tabs show as spaces; nothing else is styled.
func (e *Editor) Render(width int) (lines []string, row, col int) {
	width = max(width, 1)
	e.lastWidth = width
	if e.text == "" {
		if e.Placeholder == "" {
			return []string{""}, 0, 0
		}
		p := ansi.Truncate(ansi.Sanitize(strings.SplitN(e.Placeholder, "\n", 2)[0]), width, "…")
		if e.PlaceholderStyle != nil {
			p = e.PlaceholderStyle(p)
		}
		return []string{p}, 0, 0
	}
	rows := e.layout(width)
	lines = make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.ReplaceAll(e.text[r.start:r.end], "\t", strings.Repeat(" ", e.tabWidth()))
	}
	row, col = e.cursorCell(rows, width)
	if col >= width {
		// The cursor after a full last row of a logical line gets a row
		// of its own.
		row, col = row+1, 0
		lines = slices.Insert(lines, row, "")
	}
	return lines, row, col
}
