package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/markdown"
	"strconv"
	"strings"
	"time"
)

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
				out = append(out, ansi.ClampLine(l, c.width))
			}
			continue
		}
		out = append(out, ansi.BoxColored("", body, "", c.width, 1<<20, t, c.opts.Profile, b.Border)...)
	}
	return out
}

// noteLines renders the notes.
func (c *Chat) noteLines() []string {
	var out []string
	t := c.opts.Theme
	for _, n := range c.chrome.notes {
		if n.Display {
			var head []ansi.Span
			if n.Source != "" {
				head = []ansi.Span{{Text: "[" + ansi.Printable(n.Source) + "] ", Style: t.Style(ansi.RoleAccent)}}
			}
			out = append(out, c.prefixed(head, n.Text, t.Style(ansi.RoleText), c.width)...)
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
	muted := t.Style(ansi.RoleMuted)
	spin := ansi.Span{Text: t.Spinner.Frame(spinnerTick(t, a.Since, now)) + " ", Style: t.Style(ansi.RoleSpinner)}
	var spans []ansi.Span
	if a.Waiting {
		spans = []ansi.Span{{Text: "? ", Style: t.Style(ansi.RoleWarn)}, {Text: a.Label, Style: t.Style(ansi.RoleWarn)}}
		if a.Detail != "" {
			spans = append(spans, ansi.Span{Text: " · " + a.Detail, Style: muted})
		}
	} else if !a.RetryAt.IsZero() && now.Before(a.RetryAt) {
		secs := int((a.RetryAt.Sub(now) + time.Second - 1) / time.Second)
		spans = []ansi.Span{spin, {Text: "Retrying in " + strconv.Itoa(secs) + "s", Style: t.Style(ansi.RoleWarn)}}
		if a.Retry != "" {
			spans = append(spans, ansi.Span{Text: " · " + ansi.Printable(a.Retry), Style: muted})
		}
	} else {
		label := a.Label
		if label == "" {
			label = "Working"
		}
		spans = []ansi.Span{spin, {Text: label + "…", Style: t.Style(ansi.RoleAccent)}}
		if !a.Since.IsZero() && !now.IsZero() {
			spans = append(spans, ansi.Span{Text: " " + shortDuration(now.Sub(a.Since)), Style: muted})
		}
		if a.Detail != "" {
			spans = append(spans, ansi.Span{Text: " · " + a.Detail, Style: muted})
		}
	}
	if a.Hint != "" {
		spans = append(spans, ansi.Span{Text: " · " + a.Hint, Style: t.Style(ansi.RoleDim)})
	}
	return ansi.RenderSpans(ansi.TruncateSpans(spans, c.width), c.opts.Profile, false)
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
		first, _, more := strings.Cut(strings.TrimSpace(ansi.Printable(q.Text)), "\n")
		if more {
			first += " …"
		}
		spans := []ansi.Span{{Text: label, Style: t.Style(ansi.RoleMuted)}, {Text: ansi.ExpandTabs(first), Style: t.Style(ansi.RoleText)}}
		out = append(out, ansi.RenderSpans(ansi.TruncateSpans(spans, c.width), c.opts.Profile, false))
	}
	if len(out) > 0 {
		hint := []ansi.Span{{Text: "  esc takes the last one back into the editor", Style: t.Style(ansi.RoleDim)}}
		out = append(out, ansi.RenderSpans(ansi.TruncateSpans(hint, c.width), c.opts.Profile, false))
	}
	return out
}

// widgetLines renders the widgets above the input, or below it; rail
// says whether right_bar widgets go to the side rail (Frame decides it
// before it narrows the width for the rail).
func (c *Chat) widgetLines(below, rail bool) []string {
	return c.renderWidgets(func(w Widget) bool {
		if w.Right && rail {
			return false
		}
		return w.Below == below
	})
}

// RailMinWidth is the terminal width from which right_bar widgets get a
// side rail; narrower terminals draw them above the editor.
const RailMinWidth = 100

// railOn reports whether the side rail is drawn: a right_bar widget on a
// wide enough terminal.
func (c *Chat) railOn() bool {
	if c.width < RailMinWidth {
		return false
	}
	for _, w := range c.chrome.widgets {
		if w.Right {
			return true
		}
	}
	return false
}

// railWidth is the rail's width in cells, the separator left out.
func (c *Chat) railWidth() int { return min(40, c.width/3) }

// railLines renders the right_bar widgets in the rail's width.
func (c *Chat) railLines() []string {
	save := c.width
	c.width = c.railWidth()
	defer func() { c.width = save }()
	return c.renderWidgets(func(w Widget) bool { return w.Right })
}

// withRail puts the rail at the right of the bottom rows (the chrome
// under the transcript), which were laid out in the width left of it;
// the rail is aligned with their bottom, and blank rows are added above
// them when the rail is taller.
func (c *Chat) withRail(rows []string) []string {
	rail := c.railLines()
	left := c.width - c.railWidth() - 1
	for len(rows) < len(rail) {
		rows = append([]string{""}, rows...)
	}
	sep := ansi.RenderSpans([]ansi.Span{{Text: "│", Style: c.opts.Theme.Style(ansi.RoleBorder)}}, c.opts.Profile, false)
	off := len(rows) - len(rail)
	out := make([]string, len(rows))
	for i, r := range rows {
		if i < off {
			out[i] = r
			continue
		}
		out[i] = ansi.PadRight(ansi.ClampLine(r, left), left) + sep + rail[i-off]
	}
	return out
}

// renderWidgets renders the widgets keep selects, in order.
func (c *Chat) renderWidgets(keep func(Widget) bool) []string {
	t := c.opts.Theme
	var out []string
	for _, w := range c.chrome.widgets {
		if !keep(w) {
			continue
		}
		if w.Markdown || (w.Border != "" && !w.NoBorder) {
			out = append(out, c.richWidget(w)...)
			continue
		}
		if w.Title != "" {
			title := []ansi.Span{{Text: "▍", Style: t.Style(ansi.RoleAccent)}, {Text: ansi.Printable(w.Title), Style: t.Style(ansi.RoleAccent).With(ansi.Style{Bold: true})}}
			out = append(out, ansi.RenderSpans(ansi.TruncateSpans(title, c.width), c.opts.Profile, false))
		}
		lines := w.Lines
		if len(lines) > 10 {
			lines = append(lines[:9:9], "… +"+strconv.Itoa(len(w.Lines)-9)+" lines")
		}
		for _, l := range lines {
			out = append(out, ansi.ClampLine("  "+extText(l), c.width))
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
			body = append(body, ansi.ClampLine(extText(l), width))
		}
	}
	if len(body) > 10 {
		body = append(body[:9:9], ansi.RenderSpans([]ansi.Span{{Text: "… +" + strconv.Itoa(len(body)-9) + " lines", Style: t.Style(ansi.RoleMuted)}}, p, false))
	}
	if framed {
		return ansi.BoxColored(w.Title, body, "", c.width, 1<<10, t, p, w.Border)
	}
	if w.Title != "" {
		title := []ansi.Span{{Text: "▍", Style: t.Style(ansi.RoleAccent)}, {Text: ansi.Printable(w.Title), Style: t.Style(ansi.RoleAccent).With(ansi.Style{Bold: true})}}
		body = append([]string{ansi.RenderSpans(ansi.TruncateSpans(title, c.width), p, false)}, body...)
	}
	return body
}

// extText makes a line from an extension safe to draw on one row: its
// styles and links stay, everything else that could move the cursor goes.
func extText(s string) string {
	s = ansi.Sanitize(s)
	return strings.ReplaceAll(s, "\n", " ")
}

// statusLine renders the extensions' status items on one line.
func (c *Chat) statusLine() string {
	t := c.opts.Theme
	var spans []ansi.Span
	for i, s := range c.chrome.status {
		if i > 0 {
			spans = append(spans, ansi.Span{Text: "  "})
		}
		st := t.Style(ansi.RoleStatusBar)
		if s.Level != "" && s.Level != "info" {
			st = levelStyle(t, s.Level)
		}
		spans = append(spans, ansi.Span{Text: strings.ReplaceAll(ansi.Printable(s.Text), "\n", " "), Style: st})
	}
	return ansi.RenderSpans(ansi.TruncateSpans(spans, c.width), c.opts.Profile, false)
}

// footerLine renders the bottom line, its right part aligned right.
func (c *Chat) footerLine() string {
	t := c.opts.Theme
	st := t.Style(ansi.RoleStatusBar).With(t.Style(ansi.RoleStatusBarBG))
	left := []ansi.Span{{Text: ansi.Printable(c.chrome.footer.Left), Style: st}}
	right := []ansi.Span{{Text: ansi.Printable(c.chrome.footer.Right), Style: st}}
	rw := ansi.SpansWidth(right)
	if rw > 0 && rw+2 < c.width {
		left = ansi.TruncateSpans(left, c.width-rw-2)
		left = ansi.PadSpans(left, c.width-rw, st)
		left = append(left, right...)
	} else {
		left = ansi.TruncateSpans(left, c.width)
	}
	return ansi.RenderSpans(left, c.opts.Profile, false)
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
	return ansi.Box(title, body, footer, c.width, maxRows, c.opts.Theme, c.opts.Profile)
}

// sideLines renders the /btw box.
func (c *Chat) sideLines(maxRows int) []string {
	s := c.chrome.side
	t := c.opts.Theme
	var body []string
	switch {
	case s.Err != "":
		body = ansi.Wrap(ansi.RenderSpans([]ansi.Span{{Text: ansi.Printable(s.Err), Style: t.Style(ansi.RoleError)}}, c.opts.Profile, false), max(c.width-4, 1))
	case s.Answer == "":
		body = []string{ansi.RenderSpans([]ansi.Span{{Text: "thinking…", Style: t.Style(ansi.RoleMuted)}}, c.opts.Profile, false)}
	default:
		body = markdown.Render(s.Answer, markdown.Options{Width: max(c.width-4, 1), Theme: t, Profile: c.opts.Profile, Role: ansi.RoleAssistantText})
	}
	footer := "esc closes · not kept in the conversation"
	if !s.Done {
		footer = "esc cancels"
	}
	q := strings.ReplaceAll(strings.TrimSpace(s.Question), "\n", " ")
	return ansi.Box("btw: "+q, body, footer, c.width, maxRows, t, c.opts.Profile)
}
