package tui

import (
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
)

// ConfirmChoice is the user's answer to a Confirm dialog.
type ConfirmChoice struct {
	Allow  bool
	Always bool   // allow this tool for the rest of the session
	Reason string // why it was denied, for the model
}

// Confirm is the dialog that asks before a tool runs: allow once, allow
// such calls from now on, or deny with a reason typed on the spot. It
// implements Overlay. Keys: arrows and Enter, or y, a and n directly; Esc
// denies without a reason; PgUp and PgDn scroll the change when it is
// taller than the dialog.
type Confirm struct {
	Tool    string // the tool's name
	Preview string // the short description of the call
	// Diff is the change a write or edit would make, shown in the dialog
	// (a new file: all its lines added).
	Diff *ToolDiff
	// Always is the label of the second choice; empty: "Always allow
	// <tool> this session".
	Always string
	// Once leaves the second choice out: the answer holds for this one
	// request, and nothing is remembered.
	Once bool

	sel    int
	reason *Editor // set while the reason is typed
	// The diff scrolls: diffTop is its first line shown, diffPage the
	// lines shown at the last Render (0: all of it fits).
	diffTop, diffPage int
	diffLines         []string
	diffWidth         int
}

// HandleKey applies a key; done reports that the user decided.
func (d *Confirm) HandleKey(k Key) (choice ConfirmChoice, done bool) {
	if k.Action == KeyRelease {
		return choice, false
	}
	if d.reason != nil {
		switch k.String() {
		case "esc", "ctrl+c":
			return ConfirmChoice{Reason: strings.TrimSpace(d.reason.Value())}, true
		}
		if d.reason.HandleKey(k) == EditSubmit {
			return ConfirmChoice{Reason: strings.TrimSpace(d.reason.Value())}, true
		}
		return choice, false
	}
	switch k.String() {
	case "pageup":
		d.diffTop = max(d.diffTop-max(d.diffPage, 1), 0)
	case "pagedown":
		if d.diffPage > 0 {
			d.diffTop += d.diffPage // Render clamps the end
		}
	case "up", "ctrl+p", "shift+tab":
		d.sel = (d.sel + 2) % 3
		if d.Once && d.sel == 1 {
			d.sel = 0
		}
	case "down", "ctrl+n", "tab":
		d.sel = (d.sel + 1) % 3
		if d.Once && d.sel == 1 {
			d.sel = 2
		}
	case "y", "1":
		return ConfirmChoice{Allow: true}, true
	case "a", "2":
		if !d.Once {
			return ConfirmChoice{Allow: true, Always: true}, true
		}
	case "n", "3":
		d.sel = 2
		d.reason = &Editor{Placeholder: "optional: why not, or what to do instead"}
	case "esc", "ctrl+c":
		return ConfirmChoice{}, true
	case "enter":
		switch d.sel {
		case 0:
			return ConfirmChoice{Allow: true}, true
		case 1:
			return ConfirmChoice{Allow: true, Always: true}, true
		}
		d.reason = &Editor{Placeholder: "optional: why not, or what to do instead"}
	}
	return choice, false
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
	var body []string
	preview := strings.TrimRight(ansi.Printable(d.Preview), "\n")
	pv := 0
	for _, l := range strings.Split(preview, "\n") {
		for _, w := range ansi.WrapSpans([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: t.Style(ansi.RoleText)}}, inner) {
			if pv == 6 {
				body = append(body, ansi.RenderSpans([]ansi.Span{{Text: "…", Style: t.Style(ansi.RoleMuted)}}, p, false))
			}
			if pv < 6 {
				body = append(body, ansi.RenderSpans(w, p, false))
			}
			pv++
		}
	}
	if d.Diff != nil {
		// Room for the diff: what the box, the preview, the options, the
		// footer and a reason being typed leave.
		room := maxRows - 2 - 1 - len(body) - 3 - 1
		if d.reason != nil {
			room -= 2
		}
		body = append(body, d.diffView(inner, max(room, 2), t, p)...)
	}
	if len(body) > 0 && maxRows > 8 {
		body = append(body, "")
	}
	always := d.Always
	if always == "" {
		always = "Always allow " + ansi.Printable(d.Tool) + " this session"
	}
	options := []struct{ label, key string }{
		{"Allow once", "y"},
		{ansi.Printable(always), "a"},
		{"Deny…", "n"},
	}
	sel := t.Style(ansi.RoleSelection).With(t.Style(ansi.RoleSelectionBG))
	for i, o := range options {
		if d.Once && i == 1 {
			continue
		}
		label := "  " + o.label
		if i == d.sel {
			label = "› " + o.label
		}
		label = ansi.Truncate(label, max(inner-2, 1), "…")
		line := ansi.PadRight(label, max(inner-1, 0)) + o.key
		if i == d.sel {
			body = append(body, sel.Render(p, line))
		} else {
			body = append(body, ansi.RenderSpans([]ansi.Span{{Text: line, Style: t.Style(ansi.RoleText)}}, p, false))
		}
	}
	cursorRow, cursorCol := -1, 0
	footer := "↑↓ move · enter choose · esc deny"
	if d.diffPage > 0 {
		footer = "↑↓ move · enter choose · pgup/pgdn scroll · esc deny"
	}
	if d.reason != nil {
		body = append(body, ansi.RenderSpans([]ansi.Span{{Text: "Reason (sent to the model):", Style: t.Style(ansi.RoleMuted)}}, p, false))
		lines, r, c := d.reason.Render(max(inner-2, 1))
		if d.reason.Empty() {
			lines[0] = t.Style(ansi.RoleDim).Render(p, lines[0])
		}
		for i, l := range lines {
			prefix := "  "
			if i == 0 {
				prefix = "› "
			}
			body = append(body, prefix+l)
		}
		cursorRow, cursorCol = 1+len(body)-len(lines)+r, 2+2+c
		footer = "enter deny · esc deny without a reason"
	}
	title := "Allow " + d.Tool + "?"
	out := ansi.Box(title, body, footer, width, maxRows, t, p)
	if cursorRow >= len(out)-1 {
		cursorRow = -1
	}
	return out, cursorRow, min(cursorCol, max(width-1, 0))
}

// diffView renders the change in width cells, at most rows lines: a window
// of the diff with a last line saying which lines show when it is cut.
func (d *Confirm) diffView(width, rows int, t *ansi.Theme, p ansi.Profile) []string {
	if d.diffLines == nil || d.diffWidth != width {
		d.diffLines = RenderDiff(Diff(d.Diff.Old, d.Diff.New, 3), DiffOptions{Width: width, Theme: t, Profile: p})
		d.diffWidth = width
		if len(d.diffLines) == 0 {
			d.diffLines = []string{ansi.RenderSpans([]ansi.Span{{Text: "(no change)", Style: t.Style(ansi.RoleMuted)}}, p, false)}
		}
	}
	lines := d.diffLines
	d.diffPage = 0
	if len(lines) <= rows {
		d.diffTop = 0
		return lines
	}
	page := max(rows-1, 1)
	d.diffTop = min(d.diffTop, len(lines)-page)
	d.diffPage = page
	out := append([]string(nil), lines[d.diffTop:d.diffTop+page]...)
	more := fmt.Sprintf("lines %d–%d of %d · pgup/pgdn", d.diffTop+1, d.diffTop+page, len(lines))
	return append(out, ansi.RenderSpans(ansi.TruncateSpans([]ansi.Span{{Text: more, Style: t.Style(ansi.RoleMuted)}}, width), p, false))
}
