package tui

import (
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/markdown"
	"strings"
)

// ListItem is one entry of a List.
type ListItem struct {
	Label  string
	Detail string // shown muted after the label
	Value  string // what the caller acts on
	Indent int    // depth, for trees
	Mark   string // one cell before the label, such as "●" for the current entry
	Muted  bool   // drawn in the muted colour
}

// ListAction says what a key did to a List.
type ListAction uint8

const (
	ListNone   ListAction = iota // the selection or filter changed, or nothing
	ListChoose                   // Enter on an item
	ListCancel                   // Esc or Ctrl+C
	ListLeft                     // Left: for lists of settings, the previous value
	ListRight                    // Right: the next value
)

// List is a picker: a titled box of items, one selected, that the user
// moves through with the arrow keys and chooses with Enter. With Filter
// set, typing narrows the items to those whose label or detail contains
// what was typed. It implements Overlay. A List is not safe for
// concurrent use.
type List struct {
	Title string
	// Message is text shown above the items (markdown when Markdown is
	// set), for dialogs that ask a question.
	Message  string
	Markdown bool
	Items    []ListItem
	Hint     string // the footer; a default one is shown when empty
	Filter   bool
	Border   string // frame colour (a theme colour value); empty: the theme's

	sel int // index into view
	top int // first row of view shown
	// A message taller than its room scrolls: msgTop is its first line
	// shown, msgPage the lines shown at the last Render (0: not cut).
	msgTop, msgPage int
	query           string
	view            []int
	built           bool
}

// SetItems replaces the items, keeping the selection on the item with the
// same Value when there is one.
func (l *List) SetItems(items []ListItem) {
	cur, ok := l.Current()
	l.Items = items
	l.built = false
	l.refresh()
	if ok {
		l.Select(cur.Value)
	}
}

// Select moves the selection to the first item whose Value is v.
func (l *List) Select(v string) {
	l.refresh()
	for i, idx := range l.view {
		if l.Items[idx].Value == v {
			l.sel = i
			return
		}
	}
}

// Current returns the selected item.
func (l *List) Current() (ListItem, bool) {
	l.refresh()
	if l.sel < 0 || l.sel >= len(l.view) {
		return ListItem{}, false
	}
	return l.Items[l.view[l.sel]], true
}

// Query returns the filter text typed so far.
func (l *List) Query() string { return l.query }

func (l *List) refresh() {
	if l.built {
		return
	}
	l.built = true
	l.view = l.view[:0]
	q := strings.ToLower(l.query)
	for i, it := range l.Items {
		if q == "" || strings.Contains(strings.ToLower(it.Label), q) || strings.Contains(strings.ToLower(it.Detail), q) || strings.Contains(strings.ToLower(it.Value), q) {
			l.view = append(l.view, i)
		}
	}
	l.sel = min(max(l.sel, 0), max(len(l.view)-1, 0))
}

// HandleKey applies a key.
func (l *List) HandleKey(k Key) ListAction {
	if k.Action == KeyRelease {
		return ListNone
	}
	l.refresh()
	n := len(l.view)
	name := k.String()
	if l.msgPage > 0 {
		// A cut message scrolls with page keys, and with the arrows when
		// there is nothing to choose.
		step := 0
		switch name {
		case "pageup":
			step = -l.msgPage
		case "pagedown":
			step = l.msgPage
		case "up", "ctrl+p":
			if n == 0 {
				step = -1
			}
		case "down", "ctrl+n":
			if n == 0 {
				step = 1
			}
		}
		if step != 0 {
			l.msgTop = max(l.msgTop+step, 0) // Render clamps the end
			return ListNone
		}
	}
	switch name {
	case "up", "ctrl+p", "shift+tab":
		if n > 0 {
			l.sel = (l.sel - 1 + n) % n
		}
	case "down", "ctrl+n", "tab":
		if n > 0 {
			l.sel = (l.sel + 1) % n
		}
	case "pageup":
		l.sel = max(l.sel-10, 0)
	case "pagedown":
		l.sel = min(l.sel+10, max(n-1, 0))
	case "home":
		l.sel = 0
	case "end":
		l.sel = max(n-1, 0)
	case "enter":
		if n > 0 {
			return ListChoose
		}
	case "esc", "ctrl+c":
		return ListCancel
	case "left":
		return ListLeft
	case "right":
		return ListRight
	case "backspace", "ctrl+h":
		if l.Filter && l.query != "" {
			_, size := lastRune(l.query)
			l.query = l.query[:len(l.query)-size]
			l.built = false
			l.refresh()
		}
	case "ctrl+u":
		if l.Filter {
			l.query = ""
			l.built = false
			l.refresh()
		}
	default:
		if txt := k.Text(); txt != "" && l.Filter {
			l.query += txt
			l.built = false
			l.sel = 0
			l.refresh()
		}
	}
	return ListNone
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xc0 != 0x80 {
			return []rune(s[i:])[0], len(s) - i
		}
	}
	return 0, len(s)
}

// Render implements Overlay.
func (l *List) Render(width, maxRows int, t *ansi.Theme, p ansi.Profile) ([]string, int, int) {
	l.refresh()
	inner := max(width-4, 1)
	var body []string
	cursorRow, cursorCol := -1, 0
	if l.Message != "" {
		msg := messageLines(l.Message, l.Markdown, inner, t, p)
		// Leave rows for the box (2), the footer, up to three items with
		// the blank line above them, and the filter.
		reserve := 3
		if len(l.Items) > 0 {
			reserve += 1 + min(len(l.Items), 3)
		}
		if l.Filter {
			reserve++
		}
		l.msgPage = 0
		if limit := max(maxRows-reserve, 1); len(msg) > limit {
			// The last row tells where the view is; with one row, the
			// text alone.
			page := max(limit-1, 1)
			l.msgTop = min(l.msgTop, len(msg)-page)
			l.msgPage = page
			shown := msg[l.msgTop : l.msgTop+page : l.msgTop+page]
			if limit > 1 {
				more := fmt.Sprintf("lines %d–%d of %d · pgup/pgdn", l.msgTop+1, l.msgTop+page, len(msg))
				shown = append(shown, ansi.RenderSpans(ansi.TruncateSpans([]ansi.Span{{Text: more, Style: t.Style(ansi.RoleMuted)}}, inner), p, false))
			}
			msg = shown
		}
		body = append(body, msg...)
		if len(l.Items) > 0 {
			body = append(body, "")
		}
	}
	if l.Filter {
		q := []ansi.Span{{Text: "filter: ", Style: t.Style(ansi.RoleMuted)}, {Text: ansi.Printable(l.query), Style: t.Style(ansi.RoleText)}}
		body = append(body, ansi.RenderSpans(ansi.TruncateSpans(q, inner), p, false))
		cursorRow, cursorCol = 1+len(body)-1, min(2+ansi.SpansWidth(q), width-3)
	}
	footer := l.Hint
	if footer == "" {
		footer = "↑↓ move · enter choose · esc cancel"
		if l.Filter {
			footer = "type to filter · " + footer
		}
	}
	// Rows for items: the box takes 2 rows, the footer 1, the filter 1.
	room := max(maxRows-3-len(body), 1)
	if l.sel < l.top {
		l.top = l.sel
	}
	if l.sel >= l.top+room {
		l.top = l.sel - room + 1
	}
	l.top = min(l.top, max(len(l.view)-room, 0))
	if len(l.view) == 0 && len(l.Items) > 0 {
		body = append(body, ansi.RenderSpans([]ansi.Span{{Text: "(nothing matches)", Style: t.Style(ansi.RoleMuted)}}, p, false))
	}
	sel := t.Style(ansi.RoleSelection).With(t.Style(ansi.RoleSelectionBG))
	for i := l.top; i < len(l.view) && i < l.top+room; i++ {
		it := l.Items[l.view[i]]
		mark := it.Mark
		if mark == "" {
			mark = " "
		}
		lead := strings.Repeat("  ", min(it.Indent, inner/4))
		labelStyle := t.Style(ansi.RoleText)
		if it.Muted {
			labelStyle = t.Style(ansi.RoleMuted)
		}
		cursor := "  "
		if i == l.sel {
			cursor = "› "
		}
		spans := []ansi.Span{{Text: cursor + lead}, {Text: mark + " ", Style: t.Style(ansi.RoleAccent)}, {Text: ansi.Printable(it.Label), Style: labelStyle}}
		if it.Detail != "" {
			spans = append(spans, ansi.Span{Text: "  " + strings.ReplaceAll(ansi.Printable(it.Detail), "\n", " "), Style: t.Style(ansi.RoleMuted)})
		}
		spans = ansi.TruncateSpans(spans, inner)
		if i == l.sel {
			plain := ""
			for _, s := range spans {
				plain += s.Text
			}
			spans = []ansi.Span{{Text: ansi.PadRight(plain, inner), Style: sel}}
		}
		body = append(body, ansi.RenderSpans(spans, p, false))
	}
	lines := ansi.BoxColored(l.Title, body, footer, width, maxRows, t, p, l.Border)
	if width < 6 && cursorRow >= 0 {
		cursorCol = min(cursorCol, width-1)
	}
	return lines, cursorRow, cursorCol
}

// messageLines renders a dialog's message in width cells: markdown, or
// plain text wrapped.
func messageLines(text string, isMarkdown bool, width int, t *ansi.Theme, p ansi.Profile) []string {
	if isMarkdown {
		return markdown.Render(text, markdown.Options{Width: width, Theme: t, Profile: p})
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(ansi.Printable(text), "\n"), "\n") {
		for _, w := range ansi.WrapSpans([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: t.Style(ansi.RoleText)}}, width) {
			out = append(out, ansi.RenderSpans(w, p, false))
		}
	}
	return out
}
