package main

import (
	"io"
	"strings"
)

// plainScreen is the screen of a dumb terminal (TERM=dumb) or of output
// that is not a terminal: committed lines are written as they are, and the
// live region is not drawn at all, since nothing can be redrawn there.
// The UI commits notes and dialogs instead (see ui.plain).
type plainScreen struct {
	out io.Writer
	err error
}

func newPlainScreen(out io.Writer) *plainScreen { return &plainScreen{out: out} }

func (p *plainScreen) Commit(lines ...string) {
	if p.err != nil || len(lines) == 0 {
		return
	}
	_, p.err = io.WriteString(p.out, strings.Join(lines, "\n")+"\n")
}

func (p *plainScreen) Render(live []string, cursorRow, cursorCol int) error { return p.err }
func (p *plainScreen) Clear() error                                         { return p.err }
func (p *plainScreen) Resize(width, height int)                             {}
func (p *plainScreen) Invalidate()                                          {}
