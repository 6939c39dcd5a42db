package markdown

import (
	"github.com/zut-go/zut/tui/ansi"
	"regexp"
	"strings"
)

// This file renders GFM tables: box-drawn borders, the header in bold,
// columns aligned as the delimiter row says. A table wider than the width
// gets narrower columns whose cells wrap; when even one cell per column
// cannot fit, each row is shown as "header: value" lines instead.

// brTag matches the <br> tags models put in table cells for line breaks.
func brTag() *regexp.Regexp {
	return brTagLazy.get(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<br\s*/?>`)
	})
}

var brTagLazy lazy[*regexp.Regexp]

// table renders a table block. While the table streams, a row whose line
// is not complete yet is held back, so half a row never shows; complete
// rows render as final text.
func (r *mdRenderer) table(b *mdBlock, width int, c renderCtx) [][]ansi.Span {
	rows := b.lines
	if !b.final && !r.done {
		rows = rows[:max(b.complete, 1)]
	}
	key := memoKey{b.start, b.kind, b.depth}
	if tc := &r.tableCache; tc.key == key && tc.rows == len(rows) && tc.width == width && tc.aligns == string(b.aligns) && tc.lines != nil {
		return tc.lines
	}
	lines := r.tableLines(b, rows, width, c)
	r.tableCache.key, r.tableCache.rows, r.tableCache.width, r.tableCache.lines = key, len(rows), width, lines
	r.tableCache.aligns = string(b.aligns)
	return lines
}

// tableLines lays out the given rows of a table.
func (r *mdRenderer) tableLines(b *mdBlock, rows []string, width int, c renderCtx) [][]ansi.Span {
	ncols := len(b.aligns)
	border := r.theme.Style(ansi.RoleMDTableBorder)
	head := c.base
	head.Bold = true
	cells := make([][][]ansi.Span, len(rows))
	natural := make([]int, ncols)
	for i, row := range rows {
		texts := splitRow(row)
		cells[i] = make([][]ansi.Span, ncols)
		for j := range ncols {
			text := ""
			if j < len(texts) {
				text = texts[j]
			}
			st := c.base
			if i == 0 {
				st = head
			}
			var spans []ansi.Span
			for k, part := range brTag().Split(text, -1) {
				if k > 0 {
					spans = append(spans, ansi.Span{Text: "\n", Style: st})
				}
				spans = append(spans, renderInline(part, inlineOptions{theme: r.theme, base: st, hyperlinks: r.hyperlinks})...)
			}
			cells[i][j] = spans
			for _, l := range ansi.WrapSpans(spans, 1<<20) {
				natural[j] = max(natural[j], ansi.SpansWidth(l))
			}
		}
	}
	avail := width - 3*ncols - 1
	if avail < ncols*3 && avail < sum(natural) {
		return r.tableRecords(cells, width, border, head)
	}
	widths := fitColumns(natural, avail)

	rule := func(left, mid, right string) []ansi.Span {
		var b strings.Builder
		b.WriteString(left)
		for j, w := range widths {
			if j > 0 {
				b.WriteString(mid)
			}
			b.WriteString(strings.Repeat("─", w+2))
		}
		b.WriteString(right)
		return []ansi.Span{{Text: b.String(), Style: border}}
	}
	lines := [][]ansi.Span{rule("┌", "┬", "┐")}
	for i, row := range cells {
		wrapped := make([][][]ansi.Span, ncols)
		height := 1
		for j, spans := range row {
			wrapped[j] = ansi.WrapSpans(spans, max(widths[j], 1))
			height = max(height, len(wrapped[j]))
		}
		for k := range height {
			line := []ansi.Span{{Text: "│", Style: border}}
			for j := range ncols {
				var cell []ansi.Span
				if k < len(wrapped[j]) {
					cell = wrapped[j][k]
				}
				line = append(line, ansi.Span{Text: " "})
				line = append(line, alignSpans(cell, widths[j], b.aligns[j])...)
				line = append(line, ansi.Span{Text: " "}, ansi.Span{Text: "│", Style: border})
			}
			lines = append(lines, line)
		}
		if i == 0 {
			lines = append(lines, rule("├", "┼", "┤"))
		}
	}
	lines = append(lines, rule("└", "┴", "┘"))
	return lines
}

// tableRecords renders a table too wide for the screen as one block of
// "header: value" lines per row.
func (r *mdRenderer) tableRecords(cells [][][]ansi.Span, width int, border, head ansi.Style) [][]ansi.Span {
	var lines [][]ansi.Span
	for i, row := range cells {
		if i == 0 {
			continue
		}
		if i > 1 {
			lines = append(lines, []ansi.Span{{Text: strings.Repeat("─", width), Style: border}})
		}
		for j, cell := range row {
			var label []ansi.Span
			if j < len(cells[0]) {
				label = append(label, cells[0][j]...)
			}
			label = append(label, ansi.Span{Text: ": ", Style: head})
			lines = append(lines, ansi.WrapSpans(append(label, cell...), width)...)
		}
	}
	if len(lines) == 0 {
		for _, cell := range cells[0] {
			lines = append(lines, ansi.WrapSpans(cell, width)...)
		}
	}
	return lines
}

// fitColumns shrinks column widths until they fit avail cells, taking
// from the widest column first.
func fitColumns(natural []int, avail int) []int {
	widths := make([]int, len(natural))
	total := 0
	for j, n := range natural {
		widths[j] = max(n, 1)
		total += widths[j]
	}
	for total > avail {
		widest := 0
		for j, w := range widths {
			if w > widths[widest] {
				widest = j
			}
		}
		if widths[widest] <= 1 {
			break
		}
		// Take down to the second widest in one step when possible.
		second := 0
		for j, w := range widths {
			if j != widest && w > second {
				second = w
			}
		}
		cut := min(max(widths[widest]-second, 1), total-avail)
		widths[widest] -= cut
		total -= cut
	}
	return widths
}

// alignSpans pads a cell's line to width as the column's alignment says.
func alignSpans(spans []ansi.Span, width int, align byte) []ansi.Span {
	gap := width - ansi.SpansWidth(spans)
	if gap <= 0 {
		return spans
	}
	var left int
	switch align {
	case 'r':
		left = gap
	case 'c':
		left = gap / 2
	}
	out := make([]ansi.Span, 0, len(spans)+2)
	if left > 0 {
		out = append(out, ansi.Span{Text: strings.Repeat(" ", left)})
	}
	out = append(out, spans...)
	if gap-left > 0 {
		out = append(out, ansi.Span{Text: strings.Repeat(" ", gap-left)})
	}
	return out
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
