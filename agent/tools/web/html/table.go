package html

import "strings"

// tableRows are the rows of one table, each a list of cell nodes (slices
// of one array).
type tableRows struct {
	rows    [][]int32
	header  bool // the first row is a header (th cells or thead)
	caption int32
}

// rows collects the rows of table i, not looking into nested tables.
func (t *tree) rows(i int32) tableRows {
	tr := tableRows{caption: -1}
	var all []int32
	addRow := func(row int32, inHead bool) {
		start := len(all)
		allTH := true
		for c := t.nodes[row].first; c >= 0; c = t.nodes[c].next {
			switch t.nodes[c].tag {
			case tagTd:
				allTH = false
				all = append(all, c)
			case tagTh:
				all = append(all, c)
			}
		}
		if len(all) == start {
			return
		}
		cells := all[start:len(all):len(all)]
		if len(tr.rows) == 0 {
			tr.header = inHead || allTH
		}
		tr.rows = append(tr.rows, cells)
	}
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		switch t.nodes[c].tag {
		case tagCaption:
			if tr.caption < 0 {
				tr.caption = c
			}
		case tagTr:
			addRow(c, false)
		case tagThead, tagTbody, tagTfoot:
			for g := t.nodes[c].first; g >= 0; g = t.nodes[g].next {
				if t.nodes[g].tag == tagTr {
					addRow(g, t.nodes[c].tag == tagThead)
				}
			}
		}
	}
	return tr
}

// hasTable reports whether a table is below node i.
func (t *tree) hasTable(i int32) bool {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].tag == tagTable || t.hasTable(c) {
			return true
		}
	}
	return false
}

// table writes a data table as "| a | b |" rows, and a table used for
// layout (one column, nested tables or long cells) as plain blocks.
func (r *renderer) table(i int32) {
	tr := r.t.rows(i)
	cols := 0
	layout := false
	for _, row := range tr.rows {
		cols = max(cols, len(row))
		for _, c := range row {
			if r.t.nodes[c].textLen > 400 || r.t.hasTable(c) {
				layout = true
			}
		}
	}
	if cols <= 1 || layout || r.flat > 0 {
		r.block(1)
		if tr.caption >= 0 {
			r.node(tr.caption)
		}
		for _, row := range tr.rows {
			for _, c := range row {
				r.block(1)
				r.children(c)
				r.block(1)
			}
		}
		return
	}
	r.block(2)
	if tr.caption >= 0 {
		r.node(tr.caption)
		r.block(1)
	}
	r.noWrap++
	for k, row := range tr.rows {
		var b strings.Builder
		b.WriteString("|")
		empty := true
		for c := 0; c < cols; c++ {
			s := ""
			if c < len(row) {
				s = r.cellText(row[c])
			}
			if s != "" {
				empty = false
			}
			b.WriteString(" " + s + " |")
		}
		if empty && !(k == 0 && tr.header) {
			continue
		}
		r.block(1)
		r.word(b.String())
		if k == 0 && tr.header {
			r.block(1)
			r.word("|" + strings.Repeat(" --- |", cols))
		}
	}
	r.noWrap--
	r.block(2)
}

// cellText renders a table cell on one line, with "|" escaped.
func (r *renderer) cellText(c int32) string {
	sub := r.cell
	if sub == nil {
		sub = &renderer{t: r.t, base: r.base, page: r.page, links: r.links, rootLen: r.rootLen, resolved: r.resolved}
		r.cell = sub
	}
	sub.out = sub.out[:0]
	sub.lineStart, sub.flat, sub.noWrap, sub.inLink, sub.space, sub.nl, sub.glue = true, 1, 1, r.inLink, false, 0, ""
	sub.children(c)
	s := collapseSpace(string(sub.out))
	if strings.IndexByte(s, '|') >= 0 {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	return s
}
