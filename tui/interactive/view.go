package interactive

import (
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
)

// showHeader puts the startup header in the chat: version, model,
// directory, session, extensions, and every extension that failed to
// load with its whole diagnostic.
func (u *ui) showHeader() {
	a := u.app
	t := u.theme
	p := u.chat.Options().Profile
	model := "no model"
	if a.Resolved() != nil {
		model = a.Resolved().Display
	}
	sess := "new session"
	if n := a.Session().Len(); n > 0 {
		sess = fmt.Sprintf("resumed %s (%d entries)", a.Session().ID(), n)
		if title := a.Session().Title(); title != "" {
			sess = fmt.Sprintf("resumed %q", title)
		}
	} else if a.Session().Path() == "" {
		sess = "not saved (--no-session)"
	}
	var exts []string
	if a.Host() != nil {
		for _, r := range a.Host().Diagnostics() {
			if r.Status == "ok" || r.Status == "auto-ready" || r.Status == "theme-only" {
				exts = append(exts, r.Name)
			}
		}
	}
	home := u.env.Getenv("HOME")
	rows := [][2]string{
		{"model", model},
		{"dir", shortPath(a.CWD(), home)},
		{"session", sess},
	}
	if len(exts) > 0 {
		rows = append(rows, [2]string{"extensions", strings.Join(exts, ", ")})
	}
	head := []ansi.Span{{Text: "zut", Style: withBold(t.Style(ansi.RoleAccent))}, {Text: " " + app.Version, Style: t.Style(ansi.RoleMuted)}}
	if !u.hideStartup {
		u.chat.AddBlock(func(width int) []string {
			lines := []string{ansi.Truncate(ansi.RenderSpans(head, p, false), width, "…")}
			for _, r := range rows {
				spans := []ansi.Span{{Text: fmt.Sprintf("%-10s ", r[0]), Style: t.Style(ansi.RoleMuted)}, {Text: r[1], Style: t.Style(ansi.RoleText)}}
				lines = append(lines, ansi.Truncate(ansi.RenderSpans(spans, p, false), width, "…"))
			}
			hint := []ansi.Span{{Text: "/help for keys and commands · ctrl+c twice to exit", Style: t.Style(ansi.RoleDim)}}
			return append(lines, ansi.Truncate(ansi.RenderSpans(hint, p, false), width, "…"))
		})
	}
	if !u.headerShown {
		u.headerShown = true
		for _, n := range u.early {
			u.chat.AddNotice(n.Level, n.Source, n.Text)
		}
		u.early = nil
	}
	if a.ModelError() != nil {
		u.chat.AddNotice("warn", "", "no model: "+a.ModelError().Error())
	}
	if a.Resolved() != nil && a.Resolved().Note != "" {
		u.chat.AddNotice("info", "", a.Resolved().Note)
	}
	if a.Host() != nil {
		for _, f := range app.LoadErrors(a.Host().Diagnostics()) {
			u.chat.AddNotice("error", "", f)
		}
	}
	u.refreshCommands()
	u.dirty = true
}

func withBold(s ansi.Style) ansi.Style {
	s.Bold = true
	return s
}

// keyHelp lists the keys, for /help and /hotkeys (docs/tui.md has the
// same list).
var keyHelp = [][2]string{
	{"enter", "send; while zut works, queue it as a follow-up"},
	{"alt+enter", "while zut works: steer the running turn; otherwise a new line"},
	{"shift+enter, ctrl+j", "new line (also \\ before enter)"},
	{"esc", "close the btw box, take back a queued prompt, interrupt, clear notes"},
	{"ctrl+c", "clear the input; on an empty input interrupt, twice to exit"},
	{"ctrl+d", "exit, on an empty input"},
	{"up, down", "move between lines; at the top or bottom, walk the history"},
	{"tab", "complete /commands, @files and paths"},
	{"ctrl+o", "expand tool output and thinking (again to collapse)"},
	{"ctrl+t", "fold or unfold the plan"},
	{"ctrl+g", "edit the prompt in $VISUAL or $EDITOR"},
	{"ctrl+v", "paste the clipboard: text, or an image as a file path"},
	{"ctrl+z", "suspend zut; fg brings it back"},
	{"ctrl+l", "redraw the screen"},
	{"ctrl+a, ctrl+e, home, end", "start, end of the line"},
	{"alt+b, alt+f, ctrl+←, ctrl+→", "word left, word right"},
	{"ctrl+k, ctrl+u, ctrl+w, alt+d", "delete to end, to start, word before, word after"},
	{"ctrl+y, alt+y", "paste deleted text, cycle through it"},
	{"ctrl+_", "undo"},
	{"in a panel", "arrows, enter, tab, letters go to the extension; esc closes it"},
}

// showKeys adds the key list to the chat.
func (u *ui) showKeys() {
	t := u.theme
	p := u.chat.Options().Profile
	u.chat.AddBlock(func(width int) []string {
		out := []string{ansi.RenderSpans([]ansi.Span{{Text: "Keys", Style: withBold(t.Style(ansi.RoleMDHeading))}}, p, false)}
		return append(out, u.twoColumns(keyHelp, width)...)
	})
}

// showHelp adds the keys and the commands to the chat.
func (u *ui) showHelp() {
	u.showKeys()
	t := u.theme
	p := u.chat.Options().Profile
	var rows [][2]string
	for _, c := range u.app.Commands() {
		name := "/" + c.Name
		if c.Name == "skill" {
			name = "/skill:<name>"
		}
		desc := c.Description
		if c.Extension != "" {
			desc = "[" + c.Extension + "] " + desc
		}
		rows = append(rows, [2]string{name, desc})
	}
	rows = append(rows, [2]string{"!command", "run a shell command; its output goes with your next prompt"})
	u.chat.AddBlock(func(width int) []string {
		out := []string{"", ansi.RenderSpans([]ansi.Span{{Text: "Commands", Style: withBold(t.Style(ansi.RoleMDHeading))}}, p, false)}
		return append(out, u.twoColumns(rows, width)...)
	})
}

// twoColumns lays out name/description rows; on narrow terminals the
// description goes under the name.
func (u *ui) twoColumns(rows [][2]string, width int) []string {
	t := u.theme
	p := u.chat.Options().Profile
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, ansi.StringWidth(r[0]))
	}
	nameW = min(nameW, 30)
	var out []string
	if width < nameW+20 {
		for _, r := range rows {
			out = append(out, ansi.Truncate(ansi.RenderSpans([]ansi.Span{{Text: r[0], Style: t.Style(ansi.RoleAccent)}}, p, false), width, "…"))
			for _, l := range ansi.Wrap(r[1], max(width-2, 1)) {
				out = append(out, "  "+ansi.RenderSpans([]ansi.Span{{Text: l, Style: t.Style(ansi.RoleMuted)}}, p, false))
			}
		}
		return out
	}
	for _, r := range rows {
		name := ansi.Truncate(r[0], nameW, "…")
		desc := ansi.Wrap(r[1], width-nameW-2)
		for i, d := range desc {
			left := strings.Repeat(" ", nameW)
			if i == 0 {
				left = ansi.PadRight(name, nameW)
			}
			spans := []ansi.Span{{Text: left + "  ", Style: t.Style(ansi.RoleAccent)}, {Text: d, Style: t.Style(ansi.RoleText)}}
			out = append(out, ansi.RenderSpans(spans, p, false))
		}
	}
	return out
}
