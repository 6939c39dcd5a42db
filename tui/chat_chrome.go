package tui

import (
	"slices"
	"strconv"
	"strings"
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
	Priority          int
	Markdown          bool
	Border            string
	NoBorder          bool
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
	Render(width, maxRows int, t *Theme, p Profile) (lines []string, cursorRow, cursorCol int)
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

// bannerLines renders banners.
func (c *Chat) bannerLines(bs []Banner) []string {
	var out []string
	t := c.opts.Theme
	for _, b := range bs {
		width := c.width
		if b.Border != "" {
			width = max(c.width-4, 1)
		}
		body := messageLines(b.Text, b.Markdown, width, t, c.opts.Profile)
		if b.Border == "" {
			for _, l := range body {
				out = append(out, clampLine(l, c.width))
			}
			continue
		}
		out = append(out, boxColored("", body, "", c.width, 1<<20, t, c.opts.Profile, b.Border)...)
	}
	return out
}

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

// noteLines renders the notes.
func (c *Chat) noteLines() []string {
	var out []string
	t := c.opts.Theme
	for _, n := range c.chrome.notes {
		if n.Display {
			var head []Span
			if n.Source != "" {
				head = []Span{{Text: "[" + cleanText(n.Source) + "] ", Style: t.Style(RoleAccent)}}
			}
			out = append(out, c.prefixed(head, n.Text, t.Style(RoleText), c.width)...)
			continue
		}
		out = append(out, c.noticeLines(n.Level, n.Source, n.Text, c.width)...)
	}
	return out
}

// activityLine renders the spinner line.
func (c *Chat) activityLine(now time.Time) string {
	a := c.chrome.activity
	t := c.opts.Theme
	muted := t.Style(RoleMuted)
	spin := Span{Text: t.Spinner.Frame(spinnerTick(t, a.Since, now)) + " ", Style: t.Style(RoleSpinner)}
	var spans []Span
	if !a.RetryAt.IsZero() && now.Before(a.RetryAt) {
		secs := int((a.RetryAt.Sub(now) + time.Second - 1) / time.Second)
		spans = []Span{spin, {Text: "Retrying in " + strconv.Itoa(secs) + "s", Style: t.Style(RoleWarn)}}
		if a.Retry != "" {
			spans = append(spans, Span{Text: " · " + cleanText(a.Retry), Style: muted})
		}
	} else {
		label := a.Label
		if label == "" {
			label = "Working"
		}
		spans = []Span{spin, {Text: label + "…", Style: t.Style(RoleAccent)}}
		if !a.Since.IsZero() && !now.IsZero() {
			spans = append(spans, Span{Text: " " + shortDuration(now.Sub(a.Since)), Style: muted})
		}
		if a.Detail != "" {
			spans = append(spans, Span{Text: " · " + a.Detail, Style: muted})
		}
	}
	if a.Hint != "" {
		spans = append(spans, Span{Text: " · " + a.Hint, Style: t.Style(RoleDim)})
	}
	return RenderSpans(truncateSpans(spans, c.width), c.opts.Profile, false)
}

// shortDuration shows whole seconds, then minutes and seconds.
func shortDuration(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return strconv.Itoa(s) + "s"
	}
	return strconv.Itoa(s/60) + "m" + pad2(s%60) + "s"
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// queueLines renders the queued prompts.
func (c *Chat) queueLines() []string {
	t := c.opts.Theme
	var out []string
	for _, q := range c.chrome.queue {
		label := "⏎ queued: "
		if q.Steer {
			label = "↳ steering: "
		}
		first, _, more := strings.Cut(strings.TrimSpace(cleanText(q.Text)), "\n")
		if more {
			first += " …"
		}
		spans := []Span{{Text: label, Style: t.Style(RoleMuted)}, {Text: tabsToSpaces(first), Style: t.Style(RoleText)}}
		out = append(out, RenderSpans(truncateSpans(spans, c.width), c.opts.Profile, false))
	}
	if len(out) > 0 {
		hint := []Span{{Text: "  esc takes the last one back into the editor", Style: t.Style(RoleDim)}}
		out = append(out, RenderSpans(truncateSpans(hint, c.width), c.opts.Profile, false))
	}
	return out
}

// widgetLines renders the widgets above the input, or below it.
func (c *Chat) widgetLines(below bool) []string {
	t := c.opts.Theme
	var out []string
	for _, w := range c.chrome.widgets {
		if w.Below != below {
			continue
		}
		if w.Markdown || (w.Border != "" && !w.NoBorder) {
			out = append(out, c.richWidget(w)...)
			continue
		}
		if w.Title != "" {
			title := []Span{{Text: "▍", Style: t.Style(RoleAccent)}, {Text: cleanText(w.Title), Style: t.Style(RoleAccent).with(Style{Bold: true})}}
			out = append(out, RenderSpans(truncateSpans(title, c.width), c.opts.Profile, false))
		}
		lines := w.Lines
		if len(lines) > 10 {
			lines = append(lines[:9:9], "… +"+strconv.Itoa(len(w.Lines)-9)+" lines")
		}
		for _, l := range lines {
			out = append(out, clampLine("  "+extText(l), c.width))
		}
	}
	return out
}

// richWidget renders a widget with markdown or a frame.
func (c *Chat) richWidget(w Widget) []string {
	t := c.opts.Theme
	p := c.opts.Profile
	framed := w.Border != "" && !w.NoBorder
	width := c.width
	if framed {
		width = max(c.width-4, 1)
	}
	var body []string
	if w.Markdown {
		body = messageLines(strings.Join(w.Lines, "\n"), true, width, t, p)
	} else {
		for _, l := range w.Lines {
			body = append(body, clampLine(extText(l), width))
		}
	}
	if len(body) > 10 {
		body = append(body[:9:9], RenderSpans([]Span{{Text: "… +" + strconv.Itoa(len(body)-9) + " lines", Style: t.Style(RoleMuted)}}, p, false))
	}
	if framed {
		return boxColored(w.Title, body, "", c.width, 1<<10, t, p, w.Border)
	}
	if w.Title != "" {
		title := []Span{{Text: "▍", Style: t.Style(RoleAccent)}, {Text: cleanText(w.Title), Style: t.Style(RoleAccent).with(Style{Bold: true})}}
		body = append([]string{RenderSpans(truncateSpans(title, c.width), p, false)}, body...)
	}
	return body
}

// extText makes a line from an extension safe to draw on one row: its
// styles and links stay, everything else that could move the cursor goes.
func extText(s string) string {
	s = Sanitize(s)
	return strings.ReplaceAll(s, "\n", " ")
}

// statusLine renders the extensions' status items on one line.
func (c *Chat) statusLine() string {
	t := c.opts.Theme
	var spans []Span
	for i, s := range c.chrome.status {
		if i > 0 {
			spans = append(spans, Span{Text: "  "})
		}
		st := t.Style(RoleStatusBar)
		if s.Level != "" && s.Level != "info" {
			st = levelStyle(t, s.Level)
		}
		spans = append(spans, Span{Text: strings.ReplaceAll(cleanText(s.Text), "\n", " "), Style: st})
	}
	return RenderSpans(truncateSpans(spans, c.width), c.opts.Profile, false)
}

// footerLine renders the bottom line, its right part aligned right.
func (c *Chat) footerLine() string {
	t := c.opts.Theme
	st := t.Style(RoleStatusBar).with(t.Style(RoleStatusBarBG))
	left := []Span{{Text: cleanText(c.chrome.footer.Left), Style: st}}
	right := []Span{{Text: cleanText(c.chrome.footer.Right), Style: st}}
	rw := spansWidth(right)
	if rw > 0 && rw+2 < c.width {
		left = truncateSpans(left, c.width-rw-2)
		left = padSpans(left, c.width-rw, st)
		left = append(left, right...)
	} else {
		left = truncateSpans(left, c.width)
	}
	return RenderSpans(left, c.opts.Profile, false)
}

// box frames body lines with a title and a footer, for panels and
// dialogs, in at most maxRows lines (the body is cut from the bottom with
// a count of the hidden lines).
func box(title string, body []string, footer string, width, maxRows int, t *Theme, p Profile) []string {
	return boxColored(title, body, footer, width, maxRows, t, p, "")
}

// boxColored is box with the frame in color (a theme colour value), or in
// the theme's panel border colour when color is empty or unreadable.
func boxColored(title string, body []string, footer string, width, maxRows int, t *Theme, p Profile, color string) []string {
	border := t.Style(RolePanelBorder)
	if color != "" {
		if col, err := ParseColor(color); err == nil {
			border.FG = col
		}
	}
	inner := max(width-4, 1)
	if width < 6 {
		// Too narrow for a frame: the lines alone.
		out := []string{}
		if title != "" {
			out = append(out, clampLine(RenderSpans([]Span{{Text: cleanText(title), Style: t.Style(RolePanelTitle)}}, p, false), width))
		}
		for _, l := range body {
			out = append(out, clampLine(l, width))
		}
		return out
	}
	top := []Span{{Text: "╭─", Style: border}}
	if title != "" {
		top = append(top, Span{Text: " ", Style: border}, Span{Text: cleanText(title), Style: t.Style(RolePanelTitle).with(Style{Bold: true})}, Span{Text: " ", Style: border})
	}
	top = truncateSpans(top, width-1)
	if n := width - 1 - spansWidth(top); n > 0 {
		top = append(top, Span{Text: strings.Repeat("─", n), Style: border})
	}
	top = append(top, Span{Text: "╮", Style: border})
	room := max(maxRows-2, 1)
	if footer != "" {
		room = max(room-1, 1)
	}
	if len(body) > room {
		hidden := len(body) - room + 1
		body = append(body[:room-1:room-1], RenderSpans([]Span{{Text: "… +" + strconv.Itoa(hidden) + " lines", Style: t.Style(RoleMuted)}}, p, false))
	}
	out := []string{RenderSpans(top, p, false)}
	side := RenderSpans([]Span{{Text: "│", Style: border}}, p, false)
	row := func(l string) string {
		l = clampLine(l, inner)
		return side + " " + l + strings.Repeat(" ", max(inner-StringWidth(l), 0)) + " " + side
	}
	for _, l := range body {
		out = append(out, row(l))
	}
	if footer != "" {
		out = append(out, row(RenderSpans([]Span{{Text: cleanText(footer), Style: t.Style(RoleMuted)}}, p, false)))
	}
	bottom := []Span{{Text: "╰" + strings.Repeat("─", width-2) + "╯", Style: border}}
	return append(out, RenderSpans(bottom, p, false))
}

// panelLines renders the panel in at most maxRows lines.
func (c *Chat) panelLines(maxRows int) []string {
	pn := c.chrome.panel
	body := make([]string, 0, len(pn.Lines))
	for _, l := range pn.Lines {
		body = append(body, extText(l))
	}
	title := pn.Title
	if title == "" {
		title = pn.Source
	}
	footer := pn.Footer
	if footer == "" {
		footer = "esc closes"
	}
	return box(title, body, footer, c.width, maxRows, c.opts.Theme, c.opts.Profile)
}

// sideLines renders the /btw box.
func (c *Chat) sideLines(maxRows int) []string {
	s := c.chrome.side
	t := c.opts.Theme
	var body []string
	switch {
	case s.Err != "":
		body = Wrap(RenderSpans([]Span{{Text: cleanText(s.Err), Style: t.Style(RoleError)}}, c.opts.Profile, false), max(c.width-4, 1))
	case s.Answer == "":
		body = []string{RenderSpans([]Span{{Text: "thinking…", Style: t.Style(RoleMuted)}}, c.opts.Profile, false)}
	default:
		body = RenderMarkdown(s.Answer, MarkdownOptions{Width: max(c.width-4, 1), Theme: t, Profile: c.opts.Profile, Role: RoleAssistantText})
	}
	footer := "esc closes · not kept in the conversation"
	if !s.Done {
		footer = "esc cancels"
	}
	q := strings.ReplaceAll(strings.TrimSpace(s.Question), "\n", " ")
	return box("btw: "+q, body, footer, c.width, maxRows, t, c.opts.Profile)
}
