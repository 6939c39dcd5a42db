package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zut-go/zut/tui/ansi"
)

// ConfirmChoice is the user's answer to a Confirm dialog.
type ConfirmChoice struct {
	Allow  bool
	Always bool   // allow calls like this one from now on
	Reason string // why it was denied, for the model
	// Stop denies the call and ends the turn: the model is not asked
	// again (Esc, Ctrl+C, or the last choice).
	Stop bool
}

// Confirm is the dialog that asks before a tool runs: allow once, allow
// such calls from now on, deny and tell the model why (the turn goes on),
// or deny and stop the turn. It implements Overlay.
//
// The dialog shows the whole call: every line of Body (long lines wrapped,
// never cut, with their line numbers) and the change of Diff. When they do
// not fit, they scroll: PgUp and PgDn move a page, Home and End go to the
// first and the last line, and a line says which lines show of how many.
//
// Keys: arrows and Enter, or y, a and n directly; Esc and Ctrl+C stop
// the turn, also while the reason is typed.
type Confirm struct {
	Tool    string // the tool's name
	Preview string // the short description of the call
	// Body is the whole call: a command line, code, the arguments as
	// JSON. Every line of it is shown.
	Body string
	// BodyLabel names what Body holds in the line counting it
	// ("command", "code", "arguments"); empty: "call".
	BodyLabel string
	// Diff is the change a write or edit would make, shown in the dialog
	// (a new file: all its lines added).
	Diff *ToolDiff
	// Always is the label of the second choice; empty: "Always allow
	// <tool> this session". AlwaysShort is its form for a narrow dialog
	// (under 44 columns); empty: "Always".
	Always, AlwaysShort string
	// Once leaves the "always" choice out: the answer holds for this one
	// request, and nothing is remembered.
	Once bool

	sel    int
	reason *Editor // set while the reason is typed
	// The body and the diff scroll together: top is the first row shown,
	// page the rows shown at the last Render (0: all of them fit).
	top, page int
	rows      []confirmRow // the rendered rows, for rowsWidth
	rowsWidth int
	lines     int // lines of the body and the diff
}

// confirmRow is one screen row of the body or the diff, and the number of
// the line it shows (a long line takes several rows).
type confirmRow struct {
	text string
	line int
}

// The choices, in the order they are shown.
const (
	choiceOnce = iota
	choiceAlways
	choiceDeny
	choiceStop
	choices
)

// HandleKey applies a key; done reports that the user decided.
func (d *Confirm) HandleKey(k Key) (choice ConfirmChoice, done bool) {
	if k.Action == KeyRelease {
		return choice, false
	}
	if d.reason != nil {
		switch k.String() {
		case "esc", "ctrl+c":
			return ConfirmChoice{Reason: strings.TrimSpace(d.reason.Value()), Stop: true}, true
		}
		if d.reason.HandleKey(k) == EditSubmit {
			return ConfirmChoice{Reason: strings.TrimSpace(d.reason.Value())}, true
		}
		return choice, false
	}
	switch k.String() {
	case "pageup":
		d.top = max(d.top-max(d.page, 1), 0)
	case "pagedown":
		if d.page > 0 {
			d.top += d.page // Render clamps the end
		}
	case "home":
		d.top = 0
	case "end":
		if d.page > 0 {
			d.top = len(d.rows) // Render clamps the end
		}
	case "up", "ctrl+p", "shift+tab":
		d.sel = (d.sel + choices - 1) % choices
		if d.Once && d.sel == choiceAlways {
			d.sel = choiceOnce
		}
	case "down", "ctrl+n", "tab":
		d.sel = (d.sel + 1) % choices
		if d.Once && d.sel == choiceAlways {
			d.sel = choiceDeny
		}
	case "y", "1":
		return ConfirmChoice{Allow: true}, true
	case "a", "2":
		if !d.Once {
			return ConfirmChoice{Allow: true, Always: true}, true
		}
	case "n", "3":
		d.sel = choiceDeny
		d.askReason()
	case "esc", "ctrl+c", "4":
		return ConfirmChoice{Stop: true}, true
	case "enter":
		switch d.sel {
		case choiceOnce:
			return ConfirmChoice{Allow: true}, true
		case choiceAlways:
			return ConfirmChoice{Allow: true, Always: true}, true
		case choiceStop:
			return ConfirmChoice{Stop: true}, true
		}
		d.askReason()
	}
	return choice, false
}

func (d *Confirm) askReason() {
	d.reason = &Editor{Placeholder: "optional: why not, or what to do instead"}
}

// Paste adds pasted text to the reason while it is typed.
func (d *Confirm) Paste(s string) {
	if d.reason != nil {
		d.reason.Paste(s)
	}
}

// Render implements Overlay.
func (d *Confirm) Render(width, maxRows int, t *ansi.Theme, p ansi.Profile) ([]string, int, int) {
	inner := max(width-4, 1)
	text := t.Style(ansi.RoleText)
	muted := func(s string) string {
		return ansi.RenderSpans(ansi.TruncateSpans([]ansi.Span{{Text: s, Style: t.Style(ansi.RoleMuted)}}, inner), p, false)
	}

	options := d.options(inner, t, p)
	var reason []string
	cursorRow, cursorCol := -1, 0
	if d.reason != nil {
		reason = append(reason, muted("Reason (sent to the model):"))
		lines, r, c := d.reason.Render(max(inner-2, 1))
		if d.reason.Empty() {
			lines[0] = t.Style(ansi.RoleDim).Render(p, lines[0])
		}
		for i, l := range lines {
			prefix := "  "
			if i == 0 {
				prefix = "› "
			}
			reason = append(reason, prefix+l)
		}
		cursorRow, cursorCol = len(reason)-len(lines)+r, 2+2+c
	}

	// The rows inside the box: maxRows less the frame and the footer. The
	// choices always show; the preview, the count and the blank line give
	// way to the body and the diff when rows are short.
	room := max(maxRows-3, 1)
	preview := d.previewLines(inner, text, muted, p)
	rows := d.contentRows(inner, t, p)
	caption := ""
	if strings.Contains(strings.TrimRight(d.Body, "\n"), "\n") {
		label := d.BodyLabel
		if label == "" {
			label = "call"
		}
		caption = fmt.Sprintf("%s · %d lines", label, d.bodyLines())
	}
	gap := len(rows) > 0 || len(preview) > 0
	fixed := func() int {
		n := len(preview) + len(options) + len(reason)
		if caption != "" {
			n++
		}
		if gap {
			n++
		}
		return n
	}
	shrink := func() bool {
		switch {
		case gap && (maxRows <= 8 || len(rows) == 0):
			gap = false
		case len(preview) > 1:
			preview = preview[:1]
		case caption != "" && len(rows) > 0:
			caption = ""
		case gap:
			gap = false
		case len(preview) > 0 && len(rows) > 0:
			preview = nil
		default:
			return false
		}
		return true
	}
	for fixed()+min(len(rows), 3) > room && shrink() {
	}
	var body []string
	body = append(body, preview...)
	if caption != "" {
		body = append(body, muted(caption))
	}
	body = append(body, d.window(rows, max(room-fixed(), 2), muted)...)
	if gap {
		body = append(body, "")
	}
	body = append(body, options...)
	if cursorRow >= 0 {
		cursorRow += 1 + len(body)
	}
	body = append(body, reason...)

	footer := d.footer(inner)
	title := "Allow " + d.Tool + "?"
	out := ansi.Box(title, body, footer, width, maxRows, t, p)
	if cursorRow >= len(out)-1 {
		cursorRow = -1
	}
	return out, cursorRow, min(cursorCol, max(width-1, 0))
}

// previewLines is the preview wrapped: at most three rows when the body or
// the diff below shows the whole call, all of it otherwise.
func (d *Confirm) previewLines(width int, style ansi.Style, muted func(string) string, p ansi.Profile) []string {
	preview := strings.TrimRight(ansi.Printable(d.Preview), "\n")
	if preview == "" || d.inPreview() {
		return nil
	}
	var out []string
	for _, l := range strings.Split(preview, "\n") {
		for _, w := range ansi.WrapSpans([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: style}}, width) {
			if len(out) == 3 && (d.Body != "" || d.Diff != nil) {
				out[2] = muted("…")
				return out
			}
			out = append(out, ansi.RenderSpans(w, p, false))
		}
	}
	return out
}

// inPreview reports whether the preview is the whole body behind a short
// label (a one-line command: "$ ls -1" for "ls -1"): the preview is then
// shown as the body, never cut, and the command not twice. A preview that
// says more than the body (an extension's header) does not replace it.
func (d *Confirm) inPreview() bool {
	b := strings.TrimRight(d.Body, "\n")
	label, ok := strings.CutSuffix(d.Preview, b)
	return b != "" && ok && !strings.Contains(b, "\n") && len(label) <= 24 && !strings.Contains(label, "\n")
}

// bodyText is the text shown as the body.
func (d *Confirm) bodyText() string {
	if d.inPreview() {
		return strings.TrimRight(ansi.Printable(d.Preview), "\n")
	}
	return strings.TrimRight(ansi.Printable(d.Body), "\n")
}

// bodyLines counts the lines of the body shown.
func (d *Confirm) bodyLines() int {
	if d.Body == "" {
		return 0
	}
	return strings.Count(d.bodyText(), "\n") + 1
}

// contentRows renders the body and the diff in width cells, once per
// width: every line of the body, wrapped at the width and numbered when
// there are several, then the diff.
func (d *Confirm) contentRows(width int, t *ansi.Theme, p ansi.Profile) []confirmRow {
	if d.rows != nil && d.rowsWidth == width {
		return d.rows
	}
	rows := []confirmRow{}
	n := d.bodyLines()
	if n > 0 {
		src := strings.Split(d.bodyText(), "\n")
		numW := 0
		if n > 1 {
			numW = len(strconv.Itoa(n)) + 1
		}
		textW := max(width-numW, 1)
		if width-numW < 8 {
			numW, textW = 0, width // too narrow for numbers
		}
		for i, l := range src {
			for j, w := range ansi.HardWrap([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: t.Style(ansi.RoleText)}}, textW) {
				gutter := ""
				if numW > 0 {
					num := strings.Repeat(" ", numW)
					if j == 0 {
						num = fmt.Sprintf("%*d ", numW-1, i+1)
					}
					gutter = t.Style(ansi.RoleDim).Render(p, num)
				}
				rows = append(rows, confirmRow{text: gutter + ansi.RenderSpans(w, p, false), line: i + 1})
			}
		}
	}
	if d.Diff != nil {
		diff := RenderDiff(Diff(d.Diff.Old, d.Diff.New, 3), DiffOptions{Width: width, Theme: t, Profile: p})
		if len(diff) == 0 {
			diff = []string{ansi.RenderSpans([]ansi.Span{{Text: "(no change)", Style: t.Style(ansi.RoleMuted)}}, p, false)}
		}
		for i, l := range diff {
			rows = append(rows, confirmRow{text: l, line: n + i + 1})
		}
		n += len(diff)
	}
	d.rows, d.rowsWidth, d.lines = rows, width, n
	return rows
}

// window is the part of rows that fits in room rows: all of them, or a
// page and a last line saying which lines show.
func (d *Confirm) window(rows []confirmRow, room int, muted func(string) string) []string {
	d.page = 0
	if len(rows) <= room {
		d.top = 0
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = r.text
		}
		return out
	}
	page := max(room-1, 1)
	d.top = max(min(d.top, len(rows)-page), 0)
	d.page = page
	var out []string
	for _, r := range rows[d.top : d.top+page] {
		out = append(out, r.text)
	}
	pos := fmt.Sprintf("lines %d–%d of %d · pgup/pgdn", rows[d.top].line, rows[d.top+page-1].line, d.lines)
	if len(rows) != d.lines {
		// Long lines take several rows: count rows, and say how many lines.
		pos = fmt.Sprintf("rows %d–%d of %d (%d lines) · pgup/pgdn", d.top+1, d.top+page, len(rows), d.lines)
	}
	return append(out, muted(pos))
}

// narrowConfirm is the inner width under which the choices take their
// short labels.
const narrowConfirm = 40

// options renders the four choices in width cells: the label wrapped
// (never cut), the key on the right of its first row.
func (d *Confirm) options(width int, t *ansi.Theme, p ansi.Profile) []string {
	always, short := d.Always, d.AlwaysShort
	if always == "" {
		always = "Always allow " + d.Tool + " this session"
	}
	if short == "" {
		short = "Always"
	}
	opts := []struct{ label, key string }{
		{"Allow once", "y"},
		{ansi.Printable(always), "a"},
		{"No, tell the model why…", "n"},
		{"No, and stop the turn", "esc"},
	}
	if width < narrowConfirm {
		opts[0].label, opts[1].label, opts[2].label, opts[3].label = "Yes", ansi.Printable(short), "No, say why", "Stop turn"
	}
	const keyW = 3
	labelW := max(width-2-1-keyW, 1)
	sel := t.Style(ansi.RoleSelection).With(t.Style(ansi.RoleSelectionBG))
	var out []string
	for i, o := range opts {
		if i == choiceAlways && d.Once {
			continue
		}
		for j, w := range labelRows(o.label, labelW) {
			prefix, key := "  ", ""
			if j == 0 {
				key = o.key
				if i == d.sel {
					prefix = "› "
				}
			}
			line := prefix + ansi.PadRight(ansi.RenderSpans(w, ansi.ProfileNone, false), labelW) + " " + fmt.Sprintf("%*s", keyW, key)
			line = ansi.Truncate(line, width, "")
			if i == d.sel {
				out = append(out, sel.Render(p, line))
			} else {
				out = append(out, ansi.RenderSpans([]ansi.Span{{Text: line, Style: t.Style(ansi.RoleText)}}, p, false))
			}
		}
	}
	return out
}

// labelRows wraps a choice's label in width cells, a line break shown
// as ⏎. A label longer than three rows (the rule "always" would save can
// hold a whole script) keeps its head and its tail, where a rule's
// wildcard is, and loses its middle to "…": the choices must fit, and
// the body above shows the call in full.
func labelRows(label string, width int) [][]ansi.Span {
	label = strings.ReplaceAll(label, "\n", "⏎")
	rows := ansi.WrapSpans([]ansi.Span{{Text: label}}, width)
	if len(rows) <= 3 || width < 4 {
		return rows
	}
	head := ansi.Truncate(label, 2*width, "")
	tail := []rune(label)
	for i := len(tail) - 1; i >= 0; i-- {
		if ansi.StringWidth(string(tail[i:])) > width-1 {
			tail = tail[i+1:]
			break
		}
	}
	return ansi.HardWrap([]ansi.Span{{Text: head + strings.Repeat(" ", 2*width-ansi.StringWidth(head)) + "…" + string(tail)}}, width)
}

// footer is the longest key help that fits width.
func (d *Confirm) footer(width int) string {
	variants := []string{"↑↓ move · enter choose · esc stop the turn", "enter choose · esc stop", "esc stop"}
	switch {
	case d.reason != nil:
		variants = []string{"enter deny, the model goes on · esc stop the turn", "enter deny · esc stop", "esc stop"}
	case d.page > 0:
		variants = []string{"↑↓ move · enter choose · pgup/pgdn scroll · esc stop the turn", "↑↓ enter · pgup/pgdn scroll · esc stop the turn", "pgup/pgdn scroll · esc stop", "esc stop"}
	}
	for _, v := range variants {
		if ansi.StringWidth(v) <= width {
			return v
		}
	}
	return variants[len(variants)-1]
}
