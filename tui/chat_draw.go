package tui

import (
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
				out = append(out, clampLine(l, c.width))
			}
			continue
		}
		out = append(out, boxColored("", body, "", c.width, 1<<20, t, c.opts.Profile, b.Border)...)
	}
	return out
}

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
