package tui

import "github.com/zut-go/zut/tui/ansi"

// Print is a note an extension adds to the transcript: shown to the user,
// never sent to the model. Style is "plain", "info", "error" or "block";
// a block is framed, titled with Subtitle and coloured with Border (a
// colour as theme files write them). Lines, when set, are the note as a
// message renderer drew it, shown as they are.
type Print struct {
	Source, Style, Text string
	Markdown            bool
	Subtitle, Border    string
	Lines               []string
}

// AddPrint adds an extension's note to the transcript.
func (c *Chat) AddPrint(pr Print) {
	c.push(&blockItem{build: func(width int) []string { return c.printLines(pr, width) }})
}

func (c *Chat) printLines(pr Print, width int) []string {
	t := c.opts.Theme
	p := c.opts.Profile
	if pr.Lines != nil {
		out := make([]string, 0, len(pr.Lines))
		for _, l := range pr.Lines {
			out = append(out, ansi.ClampLine(extText(l), width))
		}
		return out
	}
	switch pr.Style {
	case "info", "error":
		if !pr.Markdown {
			return c.noticeLines(pr.Style, pr.Source, pr.Text, width)
		}
		// Markdown under the note's mark: the mark and source on the first
		// line, the rendered text indented below them.
		head := c.noticeLines(pr.Style, pr.Source, "", width)
		body := messageLines(pr.Text, true, max(width-2, 1), t, p)
		for _, l := range body {
			head = append(head, ansi.ClampLine("  "+l, width))
		}
		return head
	case "block":
		title := pr.Subtitle
		if title == "" {
			title = pr.Source
		}
		body := messageLines(pr.Text, pr.Markdown, max(width-4, 1), t, p)
		return ansi.BoxColored(title, body, "", width, 1<<20, t, p, pr.Border)
	}
	out := messageLines(pr.Text, pr.Markdown, width, t, p)
	if pr.Subtitle != "" {
		head := ansi.RenderSpans([]ansi.Span{{Text: ansi.Printable(pr.Subtitle), Style: t.Style(ansi.RoleMuted)}}, p, false)
		out = append([]string{ansi.ClampLine(head, width)}, out...)
	}
	return out
}
