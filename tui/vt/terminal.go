// Package vt is a small virtual terminal for tests: it interprets the
// escape sequences zut writes (cursor motion, erasing, scrolling into a
// scrollback buffer, SGR styles, OSC 8 links, private modes such as
// synchronized output) into a grid of cells that tests dump as text and
// compare with golden files.
//
// It follows xterm where behaviours differ: autowrap with a pending-wrap
// state at the right margin, wide characters that do not fit the last
// column wrap first, and LF moves down without returning to column 0 (as
// in raw mode). Grapheme clusters and their widths come from the same
// tables as package tui, so the virtual terminal and the renderer agree.
//
// A Terminal is not safe for concurrent use.
package vt

import (
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// Style is the graphic rendition of a cell. Colours are "" for the
// default, "0".."15" for the ANSI colours, "p0".."p255" for the xterm
// palette and "#rrggbb" for RGB.
type Style struct {
	Bold, Dim, Italic, Underline, Blink, Reverse, Hidden, Strike bool
	FG, BG                                                       string
	Link                                                         string // OSC 8 URI
}

// Cell is one cell of the grid.
type Cell struct {
	Text  string // the grapheme cluster; "" for a blank cell and for the right half of a wide one
	Wide  bool   // the left half of a two-cell character
	Cont  bool   // the right half of a two-cell character
	Style Style
}

type row struct {
	cells   []Cell
	wrapped bool // the text continues on the next row (autowrap happened)
}

// Terminal is a virtual terminal of Width x Height cells with unlimited
// scrollback.
type Terminal struct {
	width, height int
	rows          []row // the screen, height rows
	scrollback    []row
	cx, cy        int
	pendingWrap   bool
	pen           Style
	savedX        int
	savedY        int
	last          *Cell // the cell written last, for joining combining marks
	lastX, lastY  int

	// Reflow makes Resize rewrap soft-wrapped lines to the new width, as
	// kitty, VTE, iTerm2 and Windows Terminal do; without it the grid is
	// cut or padded, as in xterm.
	Reflow bool
	// Respond, when set, receives the replies to queries (DA1, DECRQM,
	// kitty keyboard, OSC 11, cursor position) as a terminal would send
	// them to the application.
	Respond func(reply string)
	// Background is the colour the terminal reports for its background
	// (OSC 11), as "rgb:RRRR/GGGG/BBBB"; black when empty.
	Background string

	// CursorVisible is the DECTCEM state.
	CursorVisible bool
	// Modes holds the private modes set with CSI ? n h and reset with
	// CSI ? n l (2026 synchronized output, 2004 bracketed paste, ...).
	Modes map[int]bool
	// KittyFlags is the stack of kitty keyboard flags pushed with CSI > f u.
	KittyFlags []int
	// ModifyOtherKeys is the xterm modifyOtherKeys level.
	ModifyOtherKeys int
	// Title is the last window title set with OSC 0 or 2.
	Title string
	// Bells counts BEL characters.
	Bells int
	// Unknown lists the escape sequences the terminal did not understand.
	Unknown []string
	// SyncFrames counts completed synchronized updates (mode 2026 set then
	// reset).
	SyncFrames int

	autowrap bool
	partial  []byte // an incomplete sequence or UTF-8 rune held between writes
}

// New returns a terminal of w columns and h rows with the cursor at the
// top left, visible.
func New(w, h int) *Terminal {
	t := &Terminal{width: max(w, 1), height: max(h, 1), CursorVisible: true, autowrap: true, Modes: map[int]bool{}}
	t.rows = make([]row, t.height)
	for i := range t.rows {
		t.rows[i] = t.blankRow()
	}
	return t
}

// Size returns the width and height.
func (t *Terminal) Size() (w, h int) { return t.width, t.height }

// Cursor returns the 0-based cursor row and column.
func (t *Terminal) Cursor() (row, col int) { return t.cy, t.cx }

// Cell returns the cell at 0-based row and column of the screen.
func (t *Terminal) Cell(row, col int) Cell { return t.rows[row].cells[col] }

func (t *Terminal) blankRow() row {
	return row{cells: make([]Cell, t.width)}
}

// blank is an erased cell: erasing uses the current background colour.
func (t *Terminal) blank() Cell {
	return Cell{Style: Style{BG: t.pen.BG}}
}

// Write interprets p. It never fails; sequences split across writes are
// held until complete.
func (t *Terminal) Write(p []byte) (int, error) {
	data := p
	if len(t.partial) > 0 {
		data = append(t.partial, p...)
		t.partial = nil
	}
	i := 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == 0x1b:
			n := t.escape(data[i:])
			if n == 0 {
				t.partial = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			i += n
		case c < 0x20 || c == 0x7f:
			t.control(c)
			i++
		default:
			if !utf8.FullRune(data[i:]) {
				t.partial = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			r, n := utf8.DecodeRune(data[i:])
			if r >= 0x80 && r < 0xa0 {
				// C1 controls: zut never sends them; record and drop.
				t.Unknown = append(t.Unknown, string(data[i:i+n]))
			} else {
				t.print(string(data[i : i+n]))
			}
			i += n
		}
	}
	return len(p), nil
}

// WriteString is Write for a string.
func (t *Terminal) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

func (t *Terminal) control(c byte) {
	switch c {
	case '\r':
		t.cx, t.pendingWrap = 0, false
	case '\n', 0x0b, 0x0c:
		t.linefeed()
	case 0x08:
		if t.cx > 0 {
			t.cx--
		}
		t.pendingWrap = false
	case '\t':
		t.cx = min((t.cx/8+1)*8, t.width-1)
		t.pendingWrap = false
	case 0x07:
		t.Bells++
	}
	t.last = nil
}

// linefeed moves the cursor down, scrolling the screen into the
// scrollback at the bottom.
func (t *Terminal) linefeed() {
	t.pendingWrap = false
	if t.cy < t.height-1 {
		t.cy++
		return
	}
	t.scrollUp(1)
}

func (t *Terminal) scrollUp(n int) {
	for range min(n, t.height) {
		t.scrollback = append(t.scrollback, t.rows[0])
		copy(t.rows, t.rows[1:])
		t.rows[t.height-1] = t.blankRow()
	}
	t.last = nil
}

// print places one grapheme piece (a rune) at the cursor, joining it to
// the previous cell when it continues that cell's cluster.
func (t *Terminal) print(s string) {
	if t.last != nil {
		joined := t.last.Text + s
		if n, w := uniwidth.Cluster(joined); n == len(joined) {
			old := 1
			if t.last.Wide {
				old = 2
			}
			t.last.Text = joined
			if w == 2 && old == 1 && t.lastX+1 < t.width {
				t.last.Wide = true
				next := &t.rows[t.lastY].cells[t.lastX+1]
				*next = Cell{Cont: true, Style: t.last.Style}
				if t.cy == t.lastY && t.cx == t.lastX+1 {
					t.advance(1)
				}
			}
			return
		}
	}
	_, w := uniwidth.Cluster(s)
	if w == 0 {
		// A mark with nothing to join: keep it in the cell under the
		// cursor without moving.
		return
	}
	if t.pendingWrap && t.autowrap {
		t.rows[t.cy].wrapped = true
		t.cx = 0
		t.linefeed()
	}
	if w == 2 && t.cx == t.width-1 {
		if t.autowrap {
			t.rows[t.cy].wrapped = true
			t.setCell(t.cy, t.cx, t.blank())
			t.cx = 0
			t.linefeed()
		} else {
			w = 1
		}
	}
	if t.width == 1 && w == 2 {
		w = 1
	}
	st := t.pen
	t.setCell(t.cy, t.cx, Cell{Text: s, Wide: w == 2, Style: st})
	if w == 2 {
		t.setCell(t.cy, t.cx+1, Cell{Cont: true, Style: st})
	}
	t.last, t.lastX, t.lastY = &t.rows[t.cy].cells[t.cx], t.cx, t.cy
	t.advance(w)
}

func (t *Terminal) advance(w int) {
	t.cx += w
	if t.cx >= t.width {
		t.cx = t.width - 1
		t.pendingWrap = true
	}
}

// setCell writes a cell, clearing the other half of any wide character it
// overwrites.
func (t *Terminal) setCell(y, x int, c Cell) {
	cells := t.rows[y].cells
	old := cells[x]
	if old.Wide && x+1 < len(cells) {
		cells[x+1] = Cell{Style: cells[x+1].Style}
	}
	if old.Cont && x > 0 {
		cells[x-1] = Cell{Style: cells[x-1].Style}
	}
	cells[x] = c
}

// erase blanks cells [from, to) of row y.
func (t *Terminal) erase(y, from, to int) {
	from, to = max(from, 0), min(to, t.width)
	for x := from; x < to; x++ {
		t.setCell(y, x, t.blank())
	}
	t.last = nil
}

// Lines returns the screen rows as text, trailing blanks trimmed.
func (t *Terminal) Lines() []string {
	out := make([]string, len(t.rows))
	for i, r := range t.rows {
		out[i] = rowText(r.cells)
	}
	return out
}

// Scrollback returns the rows that scrolled off the top, oldest first, as
// text.
func (t *Terminal) Scrollback() []string {
	out := make([]string, len(t.scrollback))
	for i, r := range t.scrollback {
		out[i] = rowText(r.cells)
	}
	return out
}

func rowText(cells []Cell) string {
	var b strings.Builder
	for _, c := range cells {
		switch {
		case c.Cont:
		case c.Text == "":
			b.WriteByte(' ')
		default:
			b.WriteString(c.Text)
		}
	}
	return strings.TrimRight(b.String(), " ")
}
