package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"slices"
	"time"
)

// Note is a one-shot message shown below the transcript: from an
// extension (notify, or a display note when Display is set) or from zut.
// Notes go away when the user sends the next prompt, presses Esc or runs
// /clear.
type Note struct {
	Source  string // the extension's name, or "" for zut
	Level   string // info, success, warn, error
	Text    string
	Display bool // a display note: plain text, no level colour
}

// StatusItem is one persistent status item of an extension. Items are
// shown by Priority, lower first, then in the order they came.
type StatusItem struct {
	Source, Key, Level, Text string
	Priority                 int
}

// Banner is an extension's header (shown above the live region) or footer
// (below the status bar). Border, when set, is a colour (as theme files
// write them) for a frame around the text.
type Banner struct {
	Source, Text string
	Markdown     bool
	Border       string
}

// Hidden lists parts of the chrome extensions asked to hide.
type Hidden struct {
	StatusBar, Separator bool
}

// Widget is a persistent block of an extension shown above the input
// (or below it, when Below is set). Widgets are drawn by Priority, lower
// first, then in the order they came. Markdown renders the lines as
// markdown; Border, a colour as theme files write them, frames the widget
// unless NoBorder is set.
type Widget struct {
	Source, ID, Title string
	Lines             []string
	Below             bool
	// Right asks for the side rail at the right of the editor; on a
	// terminal narrower than RailMinWidth it is drawn above the editor.
	Right    bool
	Priority int
	Markdown bool
	Border   string
	NoBorder bool
}

// Panel is the content of the panel slot: an extension-owned,
// interactive block that takes the editor's place while it is open.
type Panel struct {
	Source, ID, Title string
	Lines             []string
	Footer            string
}

// Activity is what the activity line shows while something runs: a
// spinner, a label, the time since Since, a detail such as token counts
// and a hint. When RetryAt is in the future the line counts down to it
// instead.
type Activity struct {
	Label   string
	Since   time.Time
	Detail  string
	Hint    string
	RetryAt time.Time
	Retry   string
	// Waiting says the run waits for the user (a confirmation): the line
	// shows a still mark and no clock.
	Waiting bool
}

// Queued is a prompt waiting for the running one, or steering text on
// its way into it.
type Queued struct {
	Text  string
	Steer bool
}

// SideAnswer is a /btw question and its answer, shown in a box until
// dismissed.
type SideAnswer struct {
	Question, Answer, Err string
	Done                  bool
}

// Footer is the bottom line: left and right parts.
type Footer struct{ Left, Right string }

// Overlay is a dialog or picker drawn in the editor's place: the
// confirmation dialog, /model, /settings, /tree and the others. Render
// lays it out in at most maxRows lines and says where the cursor goes
// (cursorRow < 0 hides it).
type Overlay interface {
	Render(width, maxRows int, t *ansi.Theme, p ansi.Profile) (lines []string, cursorRow, cursorCol int)
}

// chrome is everything around the transcript.
type chrome struct {
	notes    []Note
	status   []StatusItem
	widgets  []Widget
	panel    *Panel
	activity *Activity
	queue    []Queued
	flash    []Note
	side     *SideAnswer
	overlay  Overlay
	footer   Footer
	compact  bool // draw no rules around the editor
	headers  []Banner
	footers  []Banner
	hidden   Hidden
}

// AddNote shows a note below the transcript.
func (c *Chat) AddNote(n Note) { c.chrome.notes = append(c.chrome.notes, n) }

// ClearNotes removes the notes of source, or all notes when all is set.
func (c *Chat) ClearNotes(source string, all bool) {
	keep := c.chrome.notes[:0]
	for _, n := range c.chrome.notes {
		if !all && n.Source != source {
			keep = append(keep, n)
		}
	}
	c.chrome.notes = keep
}

// Notes returns the notes shown.
func (c *Chat) Notes() []Note { return c.chrome.notes }

// SetStatus sets, replaces or (with empty Text) removes a status item.
func (c *Chat) SetStatus(s StatusItem) {
	defer func() {
		slices.SortStableFunc(c.chrome.status, func(a, b StatusItem) int { return a.Priority - b.Priority })
	}()
	for i, x := range c.chrome.status {
		if x.Source == s.Source && x.Key == s.Key {
			if s.Text == "" {
				c.chrome.status = append(c.chrome.status[:i], c.chrome.status[i+1:]...)
			} else {
				c.chrome.status[i] = s
			}
			return
		}
	}
	if s.Text != "" {
		c.chrome.status = append(c.chrome.status, s)
	}
}

// SetBanner sets or (with empty Text) removes the header (footer false) or
// footer (footer true) of b.Source.
func (c *Chat) SetBanner(b Banner, footer bool) {
	list := &c.chrome.headers
	if footer {
		list = &c.chrome.footers
	}
	for i, x := range *list {
		if x.Source == b.Source {
			if b.Text == "" {
				*list = append((*list)[:i], (*list)[i+1:]...)
			} else {
				(*list)[i] = b
			}
			return
		}
	}
	if b.Text != "" {
		*list = append(*list, b)
	}
}

// SetHidden hides parts of the chrome.
func (c *Chat) SetHidden(h Hidden) { c.chrome.hidden = h }

// SetWidget sets or replaces a widget.
func (c *Chat) SetWidget(w Widget) {
	defer func() {
		slices.SortStableFunc(c.chrome.widgets, func(a, b Widget) int { return a.Priority - b.Priority })
	}()
	for i, x := range c.chrome.widgets {
		if x.Source == w.Source && x.ID == w.ID {
			c.chrome.widgets[i] = w
			return
		}
	}
	c.chrome.widgets = append(c.chrome.widgets, w)
}

// ClearWidget removes a widget.
func (c *Chat) ClearWidget(source, id string) {
	for i, x := range c.chrome.widgets {
		if x.Source == source && x.ID == id {
			c.chrome.widgets = append(c.chrome.widgets[:i], c.chrome.widgets[i+1:]...)
			return
		}
	}
}

// ClearSource removes everything source put on screen: notes, status
// items, widgets and its panel (an extension stopped or was reloaded).
func (c *Chat) ClearSource(source string) {
	c.ClearNotes(source, false)
	st := c.chrome.status[:0]
	for _, s := range c.chrome.status {
		if s.Source != source {
			st = append(st, s)
		}
	}
	c.chrome.status = st
	ws := c.chrome.widgets[:0]
	for _, w := range c.chrome.widgets {
		if w.Source != source {
			ws = append(ws, w)
		}
	}
	c.chrome.widgets = ws
	if p := c.chrome.panel; p != nil && p.Source == source {
		c.chrome.panel = nil
	}
}

// SetPanel fills the panel slot; nil empties it.
func (c *Chat) SetPanel(p *Panel) { c.chrome.panel = p }

// Panel returns the open panel, or nil.
func (c *Chat) Panel() *Panel { return c.chrome.panel }

// SetActivity sets the activity line; nil removes it.
func (c *Chat) SetActivity(a *Activity) { c.chrome.activity = a }

// Activity returns the activity line, or nil.
func (c *Chat) Activity() *Activity { return c.chrome.activity }

// SetQueue sets the queued prompts shown.
func (c *Chat) SetQueue(q []Queued) { c.chrome.queue = q }

// SetFlash sets the temporary status lines (such as the /reload-ext
// report); nil removes them.
func (c *Chat) SetFlash(lines []Note) { c.chrome.flash = lines }

// SetSide sets the /btw box; nil removes it.
func (c *Chat) SetSide(s *SideAnswer) { c.chrome.side = s }

// Side returns the /btw box, or nil.
func (c *Chat) Side() *SideAnswer { return c.chrome.side }

// SetOverlay puts a dialog in the editor's place; nil removes it.
func (c *Chat) SetOverlay(o Overlay) { c.chrome.overlay = o }

// Overlay returns the open dialog, or nil.
func (c *Chat) Overlay() Overlay { return c.chrome.overlay }

// SetFooter sets the bottom line.
func (c *Chat) SetFooter(f Footer) { c.chrome.footer = f }
