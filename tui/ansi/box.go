package ansi

import (
	"strconv"
	"strings"
)

// Box frames body lines with a title and a footer, for panels and
// dialogs, in at most maxRows lines (the body is cut from the bottom with
// a count of the hidden lines).
func Box(title string, body []string, footer string, width, maxRows int, t *Theme, p Profile) []string {
	return BoxColored(title, body, footer, width, maxRows, t, p, "")
}

// BoxColored is box with the frame in color (a theme colour value), or in
// the theme's panel border colour when color is empty or unreadable.
func BoxColored(title string, body []string, footer string, width, maxRows int, t *Theme, p Profile, color string) []string {
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
			out = append(out, ClampLine(RenderSpans([]Span{{Text: Printable(title), Style: t.Style(RolePanelTitle)}}, p, false), width))
		}
		for _, l := range body {
			out = append(out, ClampLine(l, width))
		}
		return out
	}
	top := []Span{{Text: "╭─", Style: border}}
	if title != "" {
		top = append(top, Span{Text: " ", Style: border}, Span{Text: Printable(title), Style: t.Style(RolePanelTitle).With(Style{Bold: true})}, Span{Text: " ", Style: border})
	}
	top = TruncateSpans(top, width-1)
	if n := width - 1 - SpansWidth(top); n > 0 {
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
		l = ClampLine(l, inner)
		return side + " " + l + strings.Repeat(" ", max(inner-StringWidth(l), 0)) + " " + side
	}
	for _, l := range body {
		out = append(out, row(l))
	}
	if footer != "" {
		out = append(out, row(RenderSpans([]Span{{Text: Printable(footer), Style: t.Style(RoleMuted)}}, p, false)))
	}
	bottom := []Span{{Text: "╰" + strings.Repeat("─", width-2) + "╯", Style: border}}
	return append(out, RenderSpans(bottom, p, false))
}
