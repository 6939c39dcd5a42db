package tui

import (
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/markdown"
	"strconv"
	"strings"
	"time"
)

// ToolStatus is where a tool call is in its life.
type ToolStatus uint8

const (
	ToolStreaming ToolStatus = iota // the model is still writing the arguments
	ToolRunning                     // the tool runs
	ToolDone                        // it finished
	ToolFailed                      // it returned an error
)

// ToolView is everything the transcript shows about one tool call. The
// rendering is a pure function of it: the app keeps one per call, updates
// the fields as events arrive and renders again.
type ToolView struct {
	// Name is the tool's name: bash, read, edit, write, grep, or any
	// extension tool.
	Name string
	// Args is the JSON arguments, possibly cut off while Status is
	// ToolStreaming.
	Args   string
	Status ToolStatus
	// Result is the tool's output, or its error when Status is
	// ToolFailed. While running it may hold progress output.
	Result string
	// Expanded shows the whole result instead of a preview.
	Expanded bool
	// PreviewLines is the number of lines a collapsed result shows; 0
	// means 5.
	PreviewLines int
	// HasDiff says OldText and NewText hold a file before and after an
	// edit or write (OldText empty for a new file); the view then shows
	// their diff instead of Result when the call succeeded.
	HasDiff          bool
	OldText, NewText string
	// Frame is the spinner tick, advanced by the app's timer.
	Frame int
	// Waiting says the call waits for the user's confirmation: a still
	// mark and "waiting for you" instead of the spinner.
	Waiting bool
	// Elapsed is how long the call ran; shown when not zero.
	Elapsed time.Duration

	// An extension's tool renderer may change the view: DisplayName
	// replaces Name, TitleColor colours it, Header replaces the name and
	// key argument, and Body replaces the result (as markdown with
	// BodyMarkdown).
	DisplayName  string
	TitleColor   ansi.Color
	Header       string
	Body         string
	BodyMarkdown bool
}

// expandHint is the key the app binds to expanding tool output.
const expandHint = "(ctrl+o to expand)"

// Render lays out the view in lines of at most width cells: a header with
// a status mark, the tool name and its key argument, then the result
// preview or the diff.
func (v ToolView) Render(width int, t *ansi.Theme, p ansi.Profile) []string {
	width = max(width, 1)
	if t == nil {
		t = ansi.DarkTheme()
	}
	if v.Body != "" && v.Status != ToolStreaming {
		return v.customBody(width, t, p)
	}
	lines := v.spans(width, t)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.ClampLine(ansi.RenderSpans(l, p, false), width)
	}
	return out
}

// customBody renders the header and an extension's body.
func (v ToolView) customBody(width int, t *ansi.Theme, p ansi.Profile) []string {
	out := []string{ansi.ClampLine(ansi.RenderSpans(v.header(partialObject(v.Args), width, t), p, false), width)}
	var body []string
	if v.BodyMarkdown {
		body = markdown.Render(v.Body, markdown.Options{Width: max(width-2, 1), Theme: t, Profile: p, Role: ansi.RoleToolOutput})
	} else {
		body = messageLines(v.Body, false, max(width-2, 1), t, p)
	}
	limit := v.PreviewLines
	if limit <= 0 {
		limit = 5
	}
	if !v.Expanded && len(body) > limit {
		more := ansi.RenderSpans([]ansi.Span{{Text: fmt.Sprintf("… +%d lines %s", len(body)-(limit-1), expandHint), Style: t.Style(ansi.RoleMuted)}}, p, false)
		body = append(body[:limit-1:limit-1], more)
	}
	for _, l := range body {
		out = append(out, ansi.ClampLine("  "+l, width))
	}
	return out
}

func (v ToolView) spans(width int, t *ansi.Theme) [][]ansi.Span {
	fields := partialObject(v.Args)
	lines := [][]ansi.Span{v.header(fields, width, t)}
	body := v.body(fields, width-2, t)
	for _, l := range body {
		if len(l) == 0 {
			lines = append(lines, nil)
			continue
		}
		lines = append(lines, append([]ansi.Span{{Text: "  "}}, l...))
	}
	return lines
}

// header is "✓ name  key argument  1.2s".
func (v ToolView) header(fields []jsonField, width int, t *ansi.Theme) []ansi.Span {
	var mark ansi.Span
	switch v.Status {
	case ToolStreaming, ToolRunning:
		mark = ansi.Span{Text: t.Spinner.Frame(v.Frame), Style: t.Style(ansi.RoleSpinner)}
	case ToolDone:
		mark = ansi.Span{Text: "✓", Style: t.Style(ansi.RoleSuccess)}
	case ToolFailed:
		mark = ansi.Span{Text: "✗", Style: t.Style(ansi.RoleError)}
	}
	if mark.Text == "" {
		mark.Text = "•"
	}
	if v.Waiting && (v.Status == ToolStreaming || v.Status == ToolRunning) {
		mark = ansi.Span{Text: "?", Style: t.Style(ansi.RoleWarn)}
	}
	name := ansi.Printable(v.Name)
	if v.DisplayName != "" {
		name = ansi.Printable(v.DisplayName)
	}
	if name == "" {
		name = "tool"
	}
	titleStyle := t.Style(ansi.RoleToolTitle)
	if v.TitleColor.Kind != ansi.ColorDefault {
		titleStyle.FG = v.TitleColor
	}
	spans := []ansi.Span{mark, {Text: " "}, {Text: name, Style: titleStyle}}
	var tail []ansi.Span
	if v.Elapsed > 0 {
		tail = []ansi.Span{{Text: "  " + formatElapsed(v.Elapsed), Style: t.Style(ansi.RoleMuted)}}
	}
	if mark.Text == "?" && v.Waiting {
		tail = []ansi.Span{{Text: "  waiting for you", Style: t.Style(ansi.RoleWarn)}}
	}
	if v.Header != "" {
		h := strings.ReplaceAll(strings.TrimSpace(ansi.Printable(v.Header)), "\n", " ")
		spans = []ansi.Span{mark, {Text: " "}, {Text: h, Style: titleStyle}}
		return ansi.TruncateSpans(append(spans, tail...), width)
	}
	if arg := v.keyArg(fields); arg != "" {
		avail := width - ansi.SpansWidth(spans) - ansi.SpansWidth(tail) - 1
		if avail >= 2 {
			argSpans := ansi.TruncateSpans([]ansi.Span{{Text: arg, Style: t.Style(ansi.RoleText)}}, avail)
			spans = append(append(spans, ansi.Span{Text: " "}), argSpans...)
		}
	}
	return ansi.TruncateSpans(append(spans, tail...), width)
}

// keyArg is the one-line summary of the arguments: the command of bash,
// the path and range of read, and so on; for other tools the arguments
// as compact JSON.
func (v ToolView) keyArg(fields []jsonField) string {
	get := func(key string) (jsonField, bool) {
		for _, f := range fields {
			if f.key == key {
				return f, true
			}
		}
		return jsonField{}, false
	}
	str := func(key string) string {
		f, ok := get(key)
		if !ok {
			return ""
		}
		if f.isString {
			return f.str
		}
		return f.raw
	}
	oneLine := func(s string) string {
		s = strings.TrimSpace(s)
		if first, _, more := strings.Cut(s, "\n"); more {
			return ansi.Printable(first) + " …"
		}
		return ansi.Printable(s)
	}
	switch v.Name {
	case "bash":
		if cmd := str("command"); cmd != "" {
			return "$ " + oneLine(cmd)
		}
	case "read":
		path := oneLine(str("path"))
		if path == "" {
			break
		}
		off, _ := strconv.Atoi(str("offset"))
		lim, _ := strconv.Atoi(str("limit"))
		switch {
		case off > 0 && lim > 0:
			return fmt.Sprintf("%s:%d-%d", path, off, off+lim-1)
		case off > 0:
			return fmt.Sprintf("%s:%d-", path, off)
		case lim > 0:
			return fmt.Sprintf("%s:1-%d", path, lim)
		}
		return path
	case "edit", "write":
		if path := oneLine(str("path")); path != "" {
			if f, ok := get("edits"); ok && f.complete {
				if n := len(partialArray(f.raw)); n > 1 {
					return fmt.Sprintf("%s (%d edits)", path, n)
				}
			}
			return path
		}
	case "grep":
		if pat := str("pattern"); pat != "" {
			s := `"` + oneLine(pat) + `"`
			if path := oneLine(str("path")); path != "" {
				s += " in " + path
			}
			if glob := oneLine(str("glob")); glob != "" {
				s += " (" + glob + ")"
			}
			return s
		}
	case "skill":
		if name := oneLine(str("name")); name != "" {
			return name
		}
	}
	if strings.TrimSpace(v.Args) == "" || strings.TrimSpace(v.Args) == "{}" {
		return ""
	}
	return oneLine(strings.ReplaceAll(compactJSON(v.Args), "\n", " "))
}

// partialArray counts the elements of a complete JSON array.
func partialArray(raw string) []string {
	p := &jsonScan{s: raw}
	p.space()
	if !p.eat('[') {
		return nil
	}
	var out []string
	for {
		p.space()
		if p.done() || p.eat(']') {
			return out
		}
		start := p.i
		if c := p.s[p.i]; c == '{' || c == '[' {
			p.nested()
		} else if c == '"' {
			p.str()
		} else {
			for !p.done() && strings.IndexByte(",] \t\r\n", p.s[p.i]) < 0 {
				p.i++
			}
		}
		if p.i == start {
			return out
		}
		out = append(out, p.s[start:p.i])
		p.space()
		p.eat(',')
	}
}

// body is the result preview, the diff, or nothing yet.
func (v ToolView) body(fields []jsonField, width int, t *ansi.Theme) [][]ansi.Span {
	width = max(width, 1)
	limit := v.PreviewLines
	if limit <= 0 {
		limit = 5
	}
	if v.Expanded {
		limit = 0
	}
	if v.HasDiff && v.Status == ToolDone {
		// A collapsed diff keeps one line of context and gets twice the
		// room of a text preview, so that the changes themselves show.
		context := 3
		if limit > 0 {
			context, limit = 1, max(2*limit, 10)
		}
		hs := Diff(v.OldText, v.NewText, context)
		if len(hs) == 0 {
			return [][]ansi.Span{{{Text: "(no changes)", Style: t.Style(ansi.RoleMuted)}}}
		}
		return collapseLines(diffSpans(hs, width, t), limit, expandHint, t)
	}
	if v.Status == ToolStreaming {
		return nil
	}
	text := strings.TrimRight(v.Result, "\n")
	if text == "" {
		if v.Status == ToolRunning {
			return nil
		}
		return [][]ansi.Span{{{Text: "(no output)", Style: t.Style(ansi.RoleMuted)}}}
	}
	st := t.Style(ansi.RoleToolOutput)
	if v.Status == ToolFailed {
		st = t.Style(ansi.RoleError)
	}
	src := strings.Split(text, "\n")
	// A running command is where its latest lines are, and a failure's
	// cause is usually at the end: show the last lines.
	tail := v.Status == ToolRunning || v.Status == ToolFailed && v.Name == "bash"
	var lines [][]ansi.Span
	if limit == 0 {
		for _, l := range src {
			l = ansi.ExpandTabs(ansi.Printable(strings.TrimSuffix(l, "\r")))
			lines = append(lines, ansi.HardWrap(spansOf(l, st), width)...)
		}
		return lines
	}
	shown := src
	if len(src) > limit {
		if tail {
			shown = src[len(src)-(limit-1):]
		} else {
			shown = src[:limit-1]
		}
	}
	for _, l := range shown {
		l = ansi.ExpandTabs(ansi.Printable(strings.TrimSuffix(l, "\r")))
		lines = append(lines, ansi.TruncateSpans(spansOf(l, st), width))
	}
	if len(shown) < len(src) {
		more := []ansi.Span{{Text: fmt.Sprintf("… +%d lines %s", len(src)-len(shown), expandHint), Style: t.Style(ansi.RoleMuted)}}
		if tail {
			more[0].Text = fmt.Sprintf("… %d earlier lines %s", len(src)-len(shown), expandHint)
			lines = append([][]ansi.Span{more}, lines...)
		} else {
			lines = append(lines, more)
		}
	}
	return lines
}

func spansOf(text string, st ansi.Style) []ansi.Span {
	if text == "" {
		return nil
	}
	return []ansi.Span{{Text: text, Style: st}}
}

// formatElapsed shows a duration compactly: 850ms, 3.2s, 1m05s.
func formatElapsed(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d.Milliseconds())) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	m := int(d / time.Minute)
	s := int((d % time.Minute) / time.Second)
	return fmt.Sprintf("%dm%02ds", m, s)
}
