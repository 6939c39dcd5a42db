package interactive

import (
	"io"
	"strings"

	"github.com/zut-go/zut/tui"
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

// note shows a one-shot note. On a plain terminal, where nothing can be
// taken back, it goes into the transcript instead.
func (u *ui) note(n tui.Note) {
	switch {
	case !u.plain:
		u.chat.AddNote(n)
	case n.Display:
		u.chat.AddPrint(tui.Print{Source: n.Source, Text: n.Text})
	default:
		u.chat.AddNotice(n.Level, n.Source, n.Text)
	}
	u.dirty = true
}

// plainShow writes lines that a terminal would show in the live region
// (a dialog, a panel) into the transcript of a plain terminal.
func (u *ui) plainShow(o tui.Overlay) {
	if !u.plain || o == nil {
		return
	}
	lines, _, _ := o.Render(u.width, 1<<10, u.theme, u.chat.Options().Profile)
	u.chat.AddLines(lines...)
	u.dirty = true
}

// plainPanel writes the open panel into the transcript of a plain
// terminal.
func (u *ui) plainPanel() {
	p := u.chat.Panel()
	if !u.plain || p == nil {
		return
	}
	title := p.Title
	if title == "" {
		title = p.Source
	}
	u.chat.AddLines("[" + title + "]")
	u.chat.AddLines(p.Lines...)
	if p.Footer != "" {
		u.chat.AddLines(p.Footer)
	}
}
