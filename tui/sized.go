package tui

import "github.com/zut-go/zut/tui/ansi"

import "strings"

// Sized draws an Overlay in at most Width columns and MaxRows rows (0:
// what the screen gives), centred across the screen when Center is set
// and left-aligned otherwise. An extension's ui.overlay asks for its size
// this way.
type Sized struct {
	Overlay
	Width, MaxRows int
	Center         bool
}

// Render implements Overlay.
func (s Sized) Render(width, maxRows int, t *ansi.Theme, p ansi.Profile) ([]string, int, int) {
	w, rows := width, maxRows
	if s.Width > 0 {
		w = min(s.Width, width)
	}
	if s.MaxRows > 0 {
		rows = min(s.MaxRows, maxRows)
	}
	lines, row, col := s.Overlay.Render(w, rows, t, p)
	pad := 0
	if s.Center {
		pad = (width - w) / 2
	}
	if pad == 0 {
		return lines, row, col
	}
	indent := strings.Repeat(" ", pad)
	for i, l := range lines {
		lines[i] = indent + l
	}
	return lines, row, col + pad
}
