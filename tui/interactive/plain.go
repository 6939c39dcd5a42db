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
	// echo says the input is a terminal in cooked mode, which echoes
	// what is typed: zut then shows "› " when it waits for a line.
	echo bool
	// wait says the UI waits for a line; prompted that "› " ends the
	// output, so the next output starts on a line of its own.
	wait, prompted bool
}

func newPlainScreen(out io.Writer) *plainScreen { return &plainScreen{out: out} }

func (p *plainScreen) Commit(lines ...string) {
	if p.err != nil || len(lines) == 0 {
		return
	}
	plain := make([]string, len(lines))
	for i, l := range lines {
		plain[i] = tui.PlainLine(l)
	}
	text := strings.Join(plain, "\n") + "\n"
	if p.prompted {
		text = "\n" + text
		p.prompted = false
	}
	_, p.err = io.WriteString(p.out, text)
}

// Render shows the input prompt when the UI waits for a line.
func (p *plainScreen) Render(live []string, cursorRow, cursorCol int) error {
	if p.err == nil && p.echo && p.wait && !p.prompted {
		_, p.err = io.WriteString(p.out, "› ")
		p.prompted = true
	}
	return p.err
}

// lineRead says a line was typed: the terminal's echo ended the prompt's
// line.
func (p *plainScreen) lineRead() { p.prompted = false }

// Clear ends the prompt's line, so that what follows (the exit message)
// starts on a line of its own.
func (p *plainScreen) Clear() error {
	if p.err == nil && p.prompted {
		_, p.err = io.WriteString(p.out, "\n")
		p.prompted = false
	}
	return p.err
}
func (p *plainScreen) Resize(width, height int) {}
func (p *plainScreen) Invalidate()              {}

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
