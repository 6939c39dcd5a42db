package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"time"
)

// Frame is one screen update: lines to commit to scrollback, then the
// live region with the cursor at CursorRow, CursorCol (CursorRow < 0
// hides it). It is what Screen.Commit and Screen.Render take.
type Frame struct {
	Commit               []string
	Live                 []string
	CursorRow, CursorCol int
}

// promptWidth is the width of the "› " before the editor's rows.
const promptWidth = 2

// Frame lays out the next screen at time now (for spinners and elapsed
// times). From top to bottom the live region holds the live transcript,
// the /btw box, notes, the activity line, queued prompts, temporary status
// lines, widgets, then the focus: a dialog, the panel or the editor (with
// its completion menu), then the extensions' status items and the footer.
// A region taller than the terminal is the Screen's to cut: it shows the
// bottom, where the focus is.
func (c *Chat) Frame(now time.Time) Frame {
	commit, live := c.transcript(now)
	f := Frame{Commit: commit, CursorRow: -1}
	// The live transcript never needs more than a screenful.
	if extra := len(live) - c.height; extra > 0 {
		live = live[extra:]
	}
	rows := append(c.bannerLines(c.chrome.headers), live...)
	// With a side rail, the chrome below the transcript is laid out in
	// the width left of it, then the rail is put beside it.
	split, rail, full := len(rows), c.railOn(), c.width
	if rail {
		c.width = full - c.railWidth() - 1
		defer func() { c.width = full }()
	}
	t := c.opts.Theme
	p := c.opts.Profile
	small := c.height < 10 || c.chrome.hidden.Separator
	maxBox := max(c.height-3, 3)
	if c.chrome.side != nil {
		rows = append(rows, c.sideLines(min(maxBox, 12))...)
	}
	rows = append(rows, c.noteLines()...)
	if c.chrome.activity != nil {
		rows = append(rows, c.activityLine(now))
	}
	rows = append(rows, c.queueLines()...)
	for _, n := range c.chrome.flash {
		rows = append(rows, c.noticeLines(n.Level, n.Source, n.Text, c.width)...)
	}
	rows = append(rows, c.widgetLines(false, rail)...)

	rule := ansi.RenderSpans([]ansi.Span{{Text: strings.Repeat("─", c.width), Style: t.Style(ansi.RoleBorder)}}, p, false)
	switch {
	case c.chrome.overlay != nil:
		lines, r, col := c.chrome.overlay.Render(c.width, maxBox, t, p)
		if r >= 0 {
			f.CursorRow, f.CursorCol = len(rows)+r, col
		}
		rows = append(rows, lines...)
	case c.chrome.panel != nil:
		rows = append(rows, c.panelLines(maxBox)...)
	case c.Editor != nil:
		if !small && !c.chrome.compact {
			rows = append(rows, rule)
		}
		pw := promptWidth
		if c.width <= 2*promptWidth {
			pw = 0 // no room for the prompt mark
		}
		lines, r, col := c.Editor.Render(max(c.width-pw, 1))
		accent := t.Style(ansi.RoleAccent)
		accent.Bold = true
		for i, l := range lines {
			prefix := ""
			switch {
			case pw == 0:
			case i == 0:
				prefix = ansi.RenderSpans([]ansi.Span{{Text: "›", Style: accent}}, p, false) + " "
			default:
				prefix = "  "
			}
			rows = append(rows, prefix+l)
		}
		f.CursorRow, f.CursorCol = len(rows)-len(lines)+r, col+pw
		if !small && !c.chrome.compact {
			rows = append(rows, rule)
		}
		if m := c.Editor.Menu(); m != nil {
			sel := t.Style(ansi.RoleSelection).With(t.Style(ansi.RoleSelectionBG))
			menuRows := min(8, max(c.height/3, 2))
			rows = append(rows, m.Render(c.width, menuRows, func(s string) string { return sel.Render(p, s) })...)
		}
	}
	rows = append(rows, c.widgetLines(true, rail)...)
	if len(c.chrome.status) > 0 {
		rows = append(rows, c.statusLine())
	}
	if c.chrome.footer != (Footer{}) && !c.chrome.hidden.StatusBar {
		rows = append(rows, c.footerLine())
	}
	rows = append(rows, c.bannerLines(c.chrome.footers)...)
	if rail {
		c.width = full
		bottom := c.withRail(rows[split:])
		if f.CursorRow >= 0 {
			f.CursorRow += len(bottom) - (len(rows) - split)
		}
		rows = append(rows[:split:split], bottom...)
	}
	f.Live = rows
	return f
}

// SetCompact says whether to leave out the rules around the editor (they
// are always left out on terminals under 10 rows).
func (c *Chat) SetCompact(on bool) { c.chrome.compact = on }
