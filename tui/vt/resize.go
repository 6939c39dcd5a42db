package vt

// Resize changes the size of the terminal. With Reflow set, soft-wrapped
// lines of the screen and the scrollback are rewrapped to the new width
// and the cursor follows its character; otherwise rows are cut or padded.
// Either way, when the screen gets shorter the rows above the cursor move
// into the scrollback so that the cursor stays on screen, and when it
// gets taller rows come back from the scrollback (reflow) or blank rows
// are added below (no reflow).
func (t *Terminal) Resize(w, h int) {
	w, h = max(w, 1), max(h, 1)
	t.last = nil
	t.pendingWrap = false
	if t.Reflow && w != t.width {
		t.reflow(w, h)
		return
	}
	for i := range t.rows {
		t.rows[i] = resizeRow(t.rows[i], w)
	}
	for i := range t.scrollback {
		t.scrollback[i] = resizeRow(t.scrollback[i], w)
	}
	t.width = w
	if h < t.height {
		if over := t.cy - (h - 1); over > 0 {
			t.scrollback = append(t.scrollback, t.rows[:over]...)
			t.rows = append([]row(nil), t.rows[over:]...)
			t.cy -= over
		}
		t.rows = t.rows[:h]
	}
	for len(t.rows) < h {
		t.rows = append(t.rows, t.blankRow())
	}
	t.height = h
	t.cx = min(t.cx, w-1)
}

// resizeRow cuts or pads a row to w cells without leaving half a wide
// character.
func resizeRow(r row, w int) row {
	cells := make([]Cell, w)
	copy(cells, r.cells)
	if w > 0 && w < len(r.cells) && cells[w-1].Wide {
		cells[w-1] = Cell{Style: cells[w-1].Style}
	}
	return row{cells: cells, wrapped: r.wrapped && w >= len(r.cells)}
}

// reflow rewraps every logical line to width w and places the screen so
// that the cursor and the last non-blank row stay visible.
func (t *Terminal) reflow(w, h int) {
	all := append(append([]row(nil), t.scrollback...), t.rows...)
	curRow := len(t.scrollback) + t.cy
	// Drop blank rows after the last used one (and after the cursor).
	end := len(all)
	for end > curRow+1 && rowText(all[end-1].cells) == "" && !all[end-2].wrapped {
		end--
	}
	all = all[:end]

	var out []row
	newCurRow, newCurCol := 0, 0
	for i := 0; i < len(all); {
		// Gather one logical line: rows joined by soft wraps.
		var cells []Cell
		cursorOff := -1
		for {
			r := all[i]
			rc := r.cells
			if r.wrapped {
				// A row that wrapped early because a wide character did
				// not fit ends in a blank padding cell; drop it.
				if n := len(rc); n > 0 && rc[n-1].Text == "" && !rc[n-1].Cont && i+1 < len(all) && all[i+1].cells[0].Wide {
					rc = rc[:n-1]
				}
			}
			if i == curRow {
				cursorOff = len(cells) + t.cx
			}
			cells = append(cells, rc...)
			i++
			if !r.wrapped || i == len(all) {
				break
			}
		}
		// Trim trailing blanks, but not past the cursor.
		n := len(cells)
		for n > 0 && cells[n-1].Text == "" && !cells[n-1].Cont && cells[n-1].Style == (Style{}) {
			n--
		}
		if cursorOff >= 0 && n < cursorOff {
			n = min(cursorOff, len(cells))
		}
		cells = cells[:n]
		rows, cr, cc := wrapCells(cells, w, cursorOff)
		if cursorOff >= 0 {
			newCurRow, newCurCol = len(out)+cr, cc
		}
		out = append(out, rows...)
	}
	top := max(0, len(out)-h)
	if newCurRow < top {
		top = newCurRow
	}
	// Copy: the screen and the scrollback must not share an array, or
	// scrolling into one would overwrite the other.
	t.scrollback = append([]row(nil), out[:top]...)
	t.rows = append([]row(nil), out[top:min(len(out), top+h)]...)
	t.width, t.height = w, h
	for len(t.rows) < h {
		t.rows = append(t.rows, t.blankRow())
	}
	t.cy, t.cx = newCurRow-top, min(newCurCol, w-1)
}

// wrapCells lays cells out in rows of width w and returns where cell
// offset cursor (or -1) lands.
func wrapCells(cells []Cell, w, cursor int) (rows []row, cr, cc int) {
	cur := row{cells: make([]Cell, w)}
	x := 0
	off := 0
	for _, c := range cells {
		if c.Cont {
			off++
			continue
		}
		cw := 1
		if c.Wide && w > 1 {
			cw = 2
		}
		if x+cw > w {
			cur.wrapped = true
			rows = append(rows, cur)
			cur = row{cells: make([]Cell, w)}
			x = 0
		}
		if off == cursor || (cw == 2 && off+1 == cursor) {
			cr, cc = len(rows), x
		}
		if cw == 1 {
			c.Wide = false
		}
		cur.cells[x] = c
		if cw == 2 {
			cur.cells[x+1] = Cell{Cont: true, Style: c.Style}
		}
		x += cw
		off += cw
		if c.Wide && cw == 1 {
			off++
		}
	}
	if cursor >= off {
		// The cursor sits after the text.
		col := x + cursor - off
		for col >= w {
			cur.wrapped = true
			rows = append(rows, cur)
			cur = row{cells: make([]Cell, w)}
			col -= w
		}
		cr, cc = len(rows), col
	}
	rows = append(rows, cur)
	return rows, cr, cc
}
