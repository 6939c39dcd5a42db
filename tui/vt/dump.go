package vt

import (
	"fmt"
	"strings"
)

// Dump renders the terminal for golden files: the scrollback (when
// withScrollback is set), the screen framed by a ruler of the terminal's
// width, and the cursor. With styles set, each screen row that has styled
// cells is followed by a line of the form
//
//	~ 0-4 bold fg=1; 6-9 link=https://go.dev
//
// listing runs of equal style by column.
func (t *Terminal) Dump(withScrollback, styles bool) string {
	var b strings.Builder
	if withScrollback {
		for _, l := range t.Scrollback() {
			fmt.Fprintf(&b, "     |%s\n", l)
		}
	}
	fmt.Fprintf(&b, "     +%s+\n", strings.Repeat("-", t.width))
	for y, r := range t.rows {
		text := rowText(r.cells)
		pad := t.width - usedCells(r.cells)
		fmt.Fprintf(&b, "%4d |%s%s|\n", y, text, strings.Repeat(" ", max(pad, 0)))
		if styles {
			if runs := styleRuns(r.cells); runs != "" {
				fmt.Fprintf(&b, "     ~ %s\n", runs)
			}
		}
	}
	fmt.Fprintf(&b, "     +%s+\n", strings.Repeat("-", t.width))
	vis := "visible"
	if !t.CursorVisible {
		vis = "hidden"
	}
	fmt.Fprintf(&b, "cursor %d,%d %s\n", t.cy, t.cx, vis)
	return b.String()
}

// usedCells returns the number of cells up to the last non-blank one.
func usedCells(cells []Cell) int {
	n := 0
	for x, c := range cells {
		if (c.Text != "" && c.Text != " ") || c.Cont {
			n = x + 1
		}
	}
	return n
}

func styleRuns(cells []Cell) string {
	var runs []string
	for x := 0; x < len(cells); {
		st := cells[x].Style
		end := x + 1
		for end < len(cells) && cells[end].Style == st {
			end++
		}
		if d := describeStyle(st); d != "" {
			runs = append(runs, fmt.Sprintf("%d-%d %s", x, end-1, d))
		}
		x = end
	}
	return strings.Join(runs, "; ")
}

func describeStyle(s Style) string {
	var parts []string
	for _, f := range []struct {
		on   bool
		name string
	}{{s.Bold, "bold"}, {s.Dim, "dim"}, {s.Italic, "italic"}, {s.Underline, "underline"},
		{s.Blink, "blink"}, {s.Reverse, "reverse"}, {s.Hidden, "hidden"}, {s.Strike, "strike"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	if s.FG != "" {
		parts = append(parts, "fg="+s.FG)
	}
	if s.BG != "" {
		parts = append(parts, "bg="+s.BG)
	}
	if s.Link != "" {
		parts = append(parts, "link="+s.Link)
	}
	return strings.Join(parts, " ")
}
