package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/tui/ansi"
)

// Prompt is a dialog that asks for one line of text: a title, a message,
// and an editor. It implements Overlay. Enter answers, Esc cancels.
type Prompt struct {
	Title    string
	Message  string
	Markdown bool
	Editor   Editor
	Border   string // frame colour (a theme colour value); empty: the theme's
	// Masked shows a dot for each character typed (a secret such as an
	// API key), on one line.
	Masked bool
}

// HandleKey applies a key: done reports an answer (the text) or, with
// cancelled, that the user declined.
func (d *Prompt) HandleKey(k Key) (text string, done, cancelled bool) {
	if k.Action == KeyRelease {
		return "", false, false
	}
	switch k.String() {
	case "esc", "ctrl+c":
		return "", true, true
	}
	if d.Editor.HandleKey(k) == EditSubmit {
		return d.Editor.Value(), true, false
	}
	return "", false, false
}

// Render implements Overlay.
func (d *Prompt) Render(width, maxRows int, t *ansi.Theme, p ansi.Profile) ([]string, int, int) {
	inner := max(width-4, 1)
	var body []string
	if d.Message != "" {
		msg := messageLines(d.Message, d.Markdown, inner, t, p)
		if limit := max(maxRows-5, 1); len(msg) > limit {
			msg = msg[len(msg)-limit:]
		}
		body = append(body, msg...)
	}
	lines, r, c := d.Editor.Render(max(inner-2, 1))
	if d.Masked && !d.Editor.Empty() {
		n := min(utf8.RuneCountInString(d.Editor.Value()), max(inner-3, 1))
		lines, r, c = []string{strings.Repeat("•", n)}, 0, n
	}
	if d.Editor.Empty() && d.Editor.Placeholder != "" {
		lines[0] = t.Style(ansi.RoleDim).Render(p, lines[0])
	}
	first := len(body)
	for i, l := range lines {
		prefix := "  "
		if i == 0 {
			prefix = t.Style(ansi.RoleAccent).Render(p, "›") + " "
		}
		body = append(body, prefix+l)
	}
	out := ansi.BoxColored(d.Title, body, "enter answer · esc cancel", width, maxRows, t, p, d.Border)
	row := 1 + first + r
	if row >= len(out)-1 || width < 6 {
		return out, -1, 0
	}
	return out, row, min(2+2+c, width-1)
}
