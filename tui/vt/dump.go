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

// Content renders what the terminal holds, the scrollback and the screen
// as one run of rows, without the blank rows after the last row written or
// holding the cursor, framed like Dump; with rows > 0 only its last rows
// rows. Unlike Dump it does not depend on where the screen happens to be
// scrolled, which an inline interface cannot control: the same output in
// a taller live region that shrank again gives the same Content.
func (t *Terminal) Content(rows int) string {
	all := append(append([]row(nil), t.scrollback...), t.rows...)
	cursor := len(t.scrollback) + t.cy
	end := len(all)
	for end > cursor+1 && usedCells(all[end-1].cells) == 0 {
		end--
	}
	start := 0
	if rows > 0 && end-rows > 0 {
		start = end - rows
	}
	var b strings.Builder
	fmt.Fprintf(&b, "     +%s+\n", strings.Repeat("-", t.width))
	for y := start; y < end; y++ {
		cells := all[y].cells
		pad := t.width - usedCells(cells)
		fmt.Fprintf(&b, "%4d |%s%s|\n", y-start, rowText(cells), strings.Repeat(" ", max(pad, 0)))
	}
	fmt.Fprintf(&b, "     +%s+\n", strings.Repeat("-", t.width))
	vis := "visible"
	if !t.CursorVisible {
		vis = "hidden"
	}
	fmt.Fprintf(&b, "cursor %d,%d %s\n", cursor-start, t.cx, vis)
	return b.String()
}
