package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"io"
	"strconv"
	"strings"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// Screen draws zut's inline interface on the terminal's main screen. The
// transcript goes into the terminal's own scrollback: Commit queues lines
// that are written once and never touched again. Below them sits the live
// region (streaming text, notes, widgets, status, editor, panel), which
// Render redraws by comparing it with what is on screen and rewriting only
// the rows, or the ends of rows, that changed.
//
// The Screen only writes, to the io.Writer it was given; it keeps track of
// the cursor by counting rows relative to the top of the live region, so
// it never needs to ask the terminal where anything is. A frame with
// nothing new writes nothing.
//
// A Screen has a single owner (the UI loop) and is not safe for concurrent
// use.
type Screen struct {
	out           io.Writer
	width, height int
	syncOutput    bool
	noReflow      bool

	shown   []string // live rows on screen, from the region's top
	rows    int      // rows from the region's top known to exist on screen
	curRow  int      // cursor row relative to the region's top
	curCol  int      // cursor column, or -1 when unknown
	hidden  bool     // the cursor is hidden
	pending []string // committed lines not yet written

	// relayout is, after a resize, the number of rows to move up before
	// erasing and drawing the live region from scratch; -1 otherwise.
	relayout int
	// fed counts the line feeds that created rows since the region was
	// last laid out from scratch. Once they reach the terminal's height
	// the last row created is the terminal's bottom row, and a region
	// that shrinks keeps reaching it (blank rows on top, which the next
	// committed lines fill) instead of leaving blank rows below it.
	fed int

	buf   []byte // the body of the frame being built
	frame []byte // the frame with its wrapping
}

// NewScreen returns a Screen drawing on out, a terminal of width x height
// cells. The cursor is assumed to be at the start of an empty line, which
// becomes the top of the live region.
func NewScreen(out io.Writer, width, height int) *Screen {
	return &Screen{out: out, width: max(width, 1), height: max(height, 1), rows: 1, curCol: 0, relayout: -1}
}

// SetSyncOutput says whether the terminal supports synchronized output
// (mode 2026). When it does, every frame that changes text is wrapped in
// it and the terminal shows the frame at once; otherwise the cursor is
// hidden while a frame is drawn.
func (s *Screen) SetSyncOutput(on bool) { s.syncOutput = on }

// SetReflow says whether the terminal rewraps its lines when it gets
// narrower (the default; true of kitty, VTE, iTerm2, WezTerm, Ghostty,
// Windows Terminal, tmux) or cuts them (xterm, the Linux console). Resize
// uses it to find the top of the live region.
func (s *Screen) SetReflow(on bool) { s.noReflow = !on }

// Size returns the size the Screen draws for.
func (s *Screen) Size() (width, height int) { return s.width, s.height }

// Resize records a new terminal size. The next Render moves to where the
// top of the live region is now, erases from there down and draws the
// region again. When the terminal got narrower and reflows (SetReflow), it
// counts the rows the terminal rewrapped the old live rows into. If that
// guess is wrong the error is on the safe side: a terminal that reflows
// but was said not to shows stale pieces of the old region above the new
// one; a terminal that cuts but was said to reflow loses a few visible
// rows of transcript above the region.
func (s *Screen) Resize(width, height int) {
	width, height = max(width, 1), max(height, 1)
	if width == s.width && height == s.height {
		return
	}
	up := s.relayout
	if up < 0 {
		up = 0
		for i := 0; i < s.curRow && i < len(s.shown); i++ {
			if s.noReflow {
				up++
			} else {
				up += rowsAfterReflow(ansi.StringWidth(s.shown[i]), s.width, width)
			}
		}
		up += max(0, s.curRow-len(s.shown))
		if s.curCol > 0 && width < s.width && !s.noReflow {
			up += s.curCol / width
		}
	}
	s.width, s.height = width, height
	s.relayout = up
	s.shown, s.rows, s.curRow, s.curCol, s.fed = nil, 1, 0, -1, 0
}

// rowsAfterReflow is the number of rows a line of w cells, drawn on a
// terminal oldWidth wide, occupies once the terminal is newWidth wide.
func rowsAfterReflow(w, oldWidth, newWidth int) int {
	if newWidth >= oldWidth || w <= newWidth {
		return 1
	}
	return (w + newWidth - 1) / newWidth
}

// Commit queues lines for the scrollback; the next Render (or Clear)
// writes them above the live region in the same frame. When they are the
// rows at the top of the live region, as when streamed text that was live
// becomes final, nothing is rewritten: the region's top just moves down.
// Lines wider than the terminal are cut with an ellipsis; wrap them first.
func (s *Screen) Commit(lines ...string) {
	s.pending = append(s.pending, lines...)
}

// Invalidate forgets what the Screen drew: the next Render draws the live
// region afresh from the cursor's current line, without erasing. Use it
// after something else wrote to the terminal.
func (s *Screen) Invalidate() {
	s.shown, s.rows, s.curRow, s.curCol, s.relayout, s.fed = nil, 1, 0, -1, -1, 0
	s.hidden = false
}

// Clear writes the pending committed lines, erases the live region and
// leaves the cursor visible at the start of the line where the region
// began: call it before suspending, running a program in the foreground
// or exiting.
func (s *Screen) Clear() error {
	s.buf = s.buf[:0]
	s.startRelayout()
	s.writeCommits()
	if len(s.shown) > 0 || s.curRow != 0 {
		s.moveTo(0)
		s.buf = append(s.buf, "\r\x1b[J"...)
		s.curCol = 0
	}
	s.shown, s.fed = nil, 0
	return s.flush(true, true)
}

// Render makes the live region show live, with the cursor at cursorRow,
// cursorCol of it; cursorRow < 0 hides the cursor. Lines must not contain
// newlines; lines wider than the terminal are cut with an ellipsis, and a
// region taller than the terminal shows its last rows. Only what changed
// since the previous frame is written.
func (s *Screen) Render(live []string, cursorRow, cursorCol int) error {
	next := make([]string, len(live))
	for i, l := range live {
		next[i] = s.clamp(l)
	}
	if extra := len(next) - s.height; extra > 0 {
		next = next[extra:]
		if cursorRow >= 0 {
			cursorRow = max(cursorRow-extra, 0)
		}
	}
	s.buf = s.buf[:0]
	s.startRelayout()
	s.writeCommits()
	if pad := s.rows - len(next); pad > 0 && s.fed >= s.height-1 {
		// The terminal is full: keep the region down to its last row.
		next = append(make([]string, pad), next...)
		if cursorRow >= 0 {
			cursorRow += pad
		}
	}
	visible := cursorRow >= 0
	if !visible {
		cursorRow, cursorCol = max(len(next)-1, 0), 0
	}
	cursorRow = min(cursorRow, max(len(next)-1, 0))
	cursorCol = min(max(cursorCol, 0), s.width-1)

	s.shiftRows(next)
	for i, l := range next {
		if i < len(s.shown) && s.shown[i] == l {
			continue
		}
		s.moveTo(i)
		if i < len(s.shown) {
			s.rewriteLine(l, s.shown[i])
		} else {
			s.newLine(l)
		}
	}
	if len(next) < len(s.shown) {
		s.moveTo(len(next))
		s.buf = append(s.buf, "\r\x1b[J"...)
		s.curCol = 0
	}
	s.shown = next
	drawn := len(s.buf) > 0
	s.moveTo(cursorRow)
	if s.curCol != cursorCol {
		s.cha(cursorCol)
	}
	return s.flush(drawn, visible)
}

// shiftRows moves rows that stay the same but change position with
// insert-line and delete-line instead of redrawing them: when rows are
// added to or removed from the region above an unchanged bottom part (the
// status line and the editor, typically), the bottom part is shifted.
func (s *Screen) shiftRows(next []string) {
	k := len(next) - len(s.shown)
	if k == 0 || len(s.shown) == 0 {
		return
	}
	cs := 0
	for cs < len(s.shown) && cs < len(next) && s.shown[len(s.shown)-1-cs] == next[len(next)-1-cs] {
		cs++
	}
	if cs == 0 {
		return
	}
	if k > 0 {
		p := len(s.shown) - cs
		if s.rows < len(next) {
			// Create the rows first: line feeds at the bottom scroll
			// everything, the region included, up.
			s.moveTo(len(next) - 1)
		}
		s.moveTo(p)
		s.csi(k, 'L')
		s.curCol = -1
		shifted := make([]string, 0, len(next))
		shifted = append(shifted, s.shown[:p]...)
		shifted = append(shifted, make([]string, k)...)
		s.shown = append(shifted, s.shown[p:]...)
		return
	}
	m := -k
	p := len(s.shown) - cs - m
	if p < 0 {
		return
	}
	s.moveTo(p)
	s.csi(m, 'M')
	s.curCol = -1
	s.shown = append(s.shown[:p:p], s.shown[p+m:]...)
}

// flush wraps the frame body and writes it. drawn says whether text
// changed (a cursor move alone needs no wrapping); visible is the cursor
// visibility the frame should end with.
func (s *Screen) flush(drawn, visible bool) error {
	if len(s.buf) == 0 && visible != s.hidden {
		return nil
	}
	f := s.frame[:0]
	switch {
	case drawn && s.syncOutput:
		f = append(f, "\x1b[?2026h"...)
	case drawn && !s.hidden:
		f = append(f, "\x1b[?25l"...)
		s.hidden = true
	}
	f = append(f, s.buf...)
	if visible == s.hidden {
		if visible {
			f = append(f, "\x1b[?25h"...)
		} else {
			f = append(f, "\x1b[?25l"...)
		}
		s.hidden = !visible
	}
	if drawn && s.syncOutput {
		f = append(f, "\x1b[?2026l"...)
	}
	s.frame = f
	_, err := s.out.Write(f)
	return err
}

// startRelayout emits the move and erase a resize asked for.
func (s *Screen) startRelayout() {
	if s.relayout < 0 {
		return
	}
	if s.relayout > 0 {
		s.buf = append(s.buf, "\x1b["...)
		s.buf = strconv.AppendInt(s.buf, int64(s.relayout), 10)
		s.buf = append(s.buf, 'A')
	}
	s.buf = append(s.buf, "\r\x1b[J"...)
	s.relayout = -1
	s.curCol = 0
}

// writeCommits writes the pending committed lines over the top rows of
// the live region, changing only what differs (streamed text that was
// live usually is the committed line already), and below them when there
// are more; those rows then leave the region, whose top moves down.
func (s *Screen) writeCommits() {
	if len(s.pending) == 0 {
		return
	}
	row := 0 // the region's row the next committed line goes to
	for _, l := range s.pending {
		if text, ok := strings.CutPrefix(l, unwrappedMark); ok {
			row += s.writeUnwrapped(row, text)
			continue
		}
		l = s.clamp(l)
		switch {
		case row >= len(s.shown):
			s.moveTo(row)
			s.newLine(l)
		case s.shown[row] != l:
			s.moveTo(row)
			s.rewriteLine(l, s.shown[row])
		}
		row++
	}
	n := row
	if n >= len(s.shown) {
		s.shown = nil
	} else {
		s.shown = s.shown[n:]
	}
	s.curRow -= n
	s.rows -= n
	clear(s.pending)
	s.pending = s.pending[:0]
}

// unwrappedMark starts a line that Unwrapped made; it is an APC
// sequence, which terminals ignore should it ever reach one.
const unwrappedMark = "\x1b_zut:unwrapped\x1b\\"

// Unwrapped marks a line for Commit that the terminal wraps itself
// instead of zut cutting it, so that copied from the scrollback it is one
// piece (a path, a URL). In the live region it is cut as any line.
func Unwrapped(line string) string { return unwrappedMark + line }

// PlainLine is a committed line as text for an output that is no
// terminal to draw on (the mark of Unwrapped removed).
func PlainLine(line string) string { return strings.TrimPrefix(line, unwrappedMark) }

// writeUnwrapped writes an Unwrapped line from the region's row down,
// letting the terminal wrap it: it erases the rest of the region first
// (the next Render draws it again) and returns the rows it took.
func (s *Screen) writeUnwrapped(row int, l string) int {
	l = closed(strings.NewReplacer("\r", " ", "\n", " ").Replace(l))
	w := ansi.StringWidth(l)
	rows := max(1, (w+s.width-1)/s.width)
	s.moveTo(row)
	s.buf = append(s.buf, "\r\x1b[J"...)
	s.buf = append(s.buf, l...)
	s.shown = s.shown[:min(row, len(s.shown))]
	if rows > 1 {
		s.fed += rows - 1 // the terminal made those rows
	}
	s.curRow = row + rows - 1
	s.rows = s.curRow + 1
	s.curCol = -1
	return rows
}

// moveTo moves the cursor to row of the live region, keeping its column:
// up with CUU, down with CUD over rows that exist and with line feeds
// (which scroll at the bottom) past them.
func (s *Screen) moveTo(row int) {
	switch {
	case row < s.curRow:
		s.csi(s.curRow-row, 'A')
	case row > s.curRow:
		if last := min(row, s.rows-1); last > s.curRow {
			s.csi(last-s.curRow, 'B')
			s.curRow = last
		}
		if s.curRow < row {
			for ; s.curRow < row; s.curRow++ {
				s.buf = append(s.buf, '\n')
				s.fed++
			}
			// Output post-processing may turn LF into CR LF.
			s.curCol = -1
		}
	}
	s.curRow = row
	s.rows = max(s.rows, row+1)
}

func (s *Screen) csi(n int, final byte) {
	s.buf = append(s.buf, "\x1b["...)
	if n != 1 {
		s.buf = strconv.AppendInt(s.buf, int64(n), 10)
	}
	s.buf = append(s.buf, final)
}

// cha moves to column col (0-based) of the current row.
func (s *Screen) cha(col int) {
	if col == 0 {
		s.buf = append(s.buf, '\r')
	} else {
		s.csi(col+1, 'G')
	}
	s.curCol = col
}

// newLine draws l on a row that showed nothing of the region before.
func (s *Screen) newLine(l string) {
	s.buf = append(s.buf, '\r')
	s.buf = append(s.buf, l...)
	if ansi.StringWidth(l) < s.width {
		s.buf = append(s.buf, "\x1b[K"...)
	}
	s.curCol = -1
}

// rewriteLine turns old into l on the current row, writing only from the
// first grapheme cluster or escape sequence where they differ. A row that
// gets narrower is erased whole first (EL 2) and written again: erasing
// only its end (EL 0) leaves some terminals (tmux) counting the row at its
// old length, so that a narrower terminal rewraps it into blank rows.
func (s *Screen) rewriteLine(l, old string) {
	if ansi.StringWidth(l) < ansi.StringWidth(old) {
		s.buf = append(s.buf, "\r\x1b[2K"...)
		s.buf = append(s.buf, l...)
		s.curCol = -1
		return
	}
	p := commonPrefix(l, old)
	var st ansi.EscapeState
	col := 0
	for i := 0; i < p; {
		if l[i] == 0x1b {
			n := max(ansi.EscapeLen(l[i:]), 1)
			st.Apply(l[i : i+n])
			i += n
			continue
		}
		n, w := uniwidth.Cluster(l[i:p])
		col += w
		i += n
	}
	s.cha(col)
	s.buf = append(s.buf, st.Open()...)
	s.buf = append(s.buf, l[p:]...)
	s.curCol = -1
}

// commonPrefix returns the length of the longest common prefix of a and b
// that ends on an escape sequence or grapheme cluster boundary in both.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	i := 0
	for i < n {
		u, v := unitLen(a[i:]), unitLen(b[i:])
		if u != v || i+u > n {
			break
		}
		i += u
	}
	return i
}

// unitLen is the length of the escape sequence or grapheme cluster at the
// start of s.
func unitLen(s string) int {
	if s[0] == 0x1b {
		return max(ansi.EscapeLen(s), 1)
	}
	n, _ := uniwidth.Cluster(s)
	return n
}

// clamp makes a line safe to draw as one row: at most the terminal's
// width, with no newline, and with its styles and link closed at the end
// so that erasing the rest of the row uses the default colours.
func (s *Screen) clamp(l string) string {
	if strings.ContainsAny(l, "\r\n") {
		l = strings.NewReplacer("\r", " ", "\n", " ").Replace(l)
	}
	if ansi.StringWidth(l) > s.width {
		l = ansi.Truncate(l, s.width, "…")
	}
	return closed(l)
}

// closed returns l with its styles and link closed at its end.
func closed(l string) string {
	if strings.IndexByte(l, 0x1b) < 0 {
		return l
	}
	var st ansi.EscapeState
	for i := 0; i < len(l); {
		if l[i] != 0x1b {
			i++
			continue
		}
		n := max(ansi.EscapeLen(l[i:]), 1)
		st.Apply(l[i : i+n])
		i += n
	}
	return l + st.Close()
}
