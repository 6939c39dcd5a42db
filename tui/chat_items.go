package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/markdown"
	"strconv"
	"strings"
	"time"
)

// chatItem is one entry of the transcript.
type chatItem interface {
	// render lays the item out at the Chat's width; the first stable
	// lines are final.
	render(c *Chat, now time.Time) (lines []string, stable int)
	// final reports whether the item will not change any more.
	final() bool
	// collapsed reports whether the finished item hid lines that the
	// expand key can show.
	collapsed(c *Chat) bool
	base() *itemBase
}

// itemBase counts the lines of an item already committed.
type itemBase struct{ done int }

func (b *itemBase) base() *itemBase { return b }

// blockItem is finished text: given lines, or lines rendered once for the
// width they are committed at.
type blockItem struct {
	itemBase
	lines []string
	build func(width int) []string
	width int
	kind  string // "text" when it reads as answer text
}

func (b *blockItem) renderLines(c *Chat) []string {
	if b.build != nil && (b.lines == nil || b.width != c.width) {
		b.lines = b.build(c.width)
		b.width = c.width
		if b.lines == nil {
			b.lines = []string{}
		}
	}
	return b.lines
}

func (b *blockItem) final() bool          { return true }
func (b *blockItem) collapsed(*Chat) bool { return false }

// streamItem is streamed markdown: an answer or reasoning.
type streamItem struct {
	itemBase
	role     ansi.Role
	thinking bool
	md       *markdown.Stream
	pending  strings.Builder // text not yet given to md
	finished bool
	// sep says md continues lines an earlier renderer committed (the
	// width changed in between), so a blank line separates its blocks.
	sep bool
	// full is set once reasoning was committed line by line; it then stays
	// shown in full.
	full bool
}

func (c *Chat) newMD(role ansi.Role, thinking bool) *streamItem {
	m := &streamItem{role: role, thinking: thinking}
	m.md = markdown.NewStream(c.mdOptions(role))
	return m
}

func (c *Chat) mdOptions(role ansi.Role) markdown.Options {
	return markdown.Options{Width: c.width, Theme: c.opts.Theme, Profile: c.opts.Profile, Hyperlinks: c.opts.Hyperlinks, Role: role}
}

// restyle renders the item again with the Chat's theme and profile when
// none of it is committed yet.
func (m *streamItem) restyle(c *Chat) {
	if m.done == 0 && !m.sep {
		m.md.SetOptions(c.mdOptions(m.role))
	}
}

func (m *streamItem) finish() { m.finished = true }

func (m *streamItem) final() bool { return m.finished }

func (m *streamItem) showFull(c *Chat) bool {
	return !m.thinking || m.full || c.expand || c.opts.Thinking == ThinkingFull
}

func (m *streamItem) collapsed(c *Chat) bool {
	return m.thinking && !m.full && (len(m.md.Lines()) > 1 || strings.Contains(strings.TrimSpace(m.md.Text()), "\n"))
}

func (m *streamItem) render(c *Chat, now time.Time) ([]string, int) {
	m.rewidth(c)
	if m.pending.Len() > 0 {
		m.md.WriteString(m.pending.String())
		m.pending.Reset()
	}
	if m.finished && !m.md.Done() {
		m.md.Finish()
	}
	if !m.showFull(c) {
		lines := m.collapsedLines(c, now)
		if m.finished {
			return lines, len(lines)
		}
		return lines, 0
	}
	lines := m.md.Lines()
	stable := m.md.Stable()
	if m.sep && len(lines) > 0 {
		lines = append([]string{""}, lines...)
		stable++
	}
	if m.thinking && stable > 0 {
		m.full = true
	}
	return lines, stable
}

// rewidth follows a width change. Before anything is committed the text
// is simply rendered again. Afterwards a new renderer takes the text that
// follows the committed lines, once those end on a block boundary; until
// then the old width stays (the screen cuts wider lines).
func (m *streamItem) rewidth(c *Chat) {
	o := m.md.Options()
	if o.Width == c.width {
		return
	}
	if m.done == 0 && !m.sep {
		m.md.SetOptions(c.mdOptions(m.role))
		return
	}
	sepN := 0
	if m.sep && len(m.md.Lines()) > 0 {
		sepN = 1
	}
	if m.done != sepN+m.md.Stable() {
		return
	}
	off, ok := m.md.Boundary()
	if !ok {
		return
	}
	rest := m.md.Text()[off:]
	done := m.md.Done()
	m.md = markdown.NewStream(c.mdOptions(m.role))
	m.md.WriteString(rest)
	if done {
		m.md.Finish()
	}
	m.sep = m.done > 0 || m.sep
	m.done = 0
}

// collapsedLines is reasoning in short: its last three lines while it
// streams, one summary line after.
func (m *streamItem) collapsedLines(c *Chat, now time.Time) []string {
	t := c.opts.Theme
	st := t.Style(ansi.RoleThinking)
	text := strings.TrimSpace(m.md.Text())
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSpace(strings.TrimLeft(ansi.Printable(first), "#*_> "))
	n := strings.Count(text, "\n") + 1
	if m.finished {
		spans := []ansi.Span{{Text: "✻ ", Style: st}, {Text: first, Style: st}}
		if n > 1 {
			tail := []ansi.Span{{Text: "  +" + strconv.Itoa(n-1) + " lines", Style: t.Style(ansi.RoleMuted)}}
			spans = append(ansi.TruncateSpans(spans, max(c.width-ansi.SpansWidth(tail), 4)), tail...)
		}
		return []string{ansi.ClampLine(ansi.RenderSpans(spans, c.opts.Profile, false), c.width)}
	}
	head := []ansi.Span{{Text: "✻ Thinking…", Style: st}}
	out := []string{ansi.ClampLine(ansi.RenderSpans(head, c.opts.Profile, false), c.width)}
	lines := m.md.Lines()
	if k := len(lines) - 3; k > 0 {
		lines = lines[k:]
	}
	return append(out, lines...)
}

// toolItem is one tool call.
type toolItem struct {
	itemBase
	id    string
	hold  bool // finished, but waiting for an extension's rendering
	view  ToolView
	start time.Time
	gen   int // bumped on every change, for the render cache
	hid   bool

	cache    []string
	cacheKey toolKey
}

type toolKey struct {
	gen, width, frame int
	elapsed           time.Duration
	expand            bool
	theme             *ansi.Theme
	profile           ansi.Profile
}

func (t *toolItem) dirty() { t.gen++ }

func (t *toolItem) final() bool {
	return !t.hold && t.finished()
}

func (t *toolItem) finished() bool {
	return t.view.Status == ToolDone || t.view.Status == ToolFailed
}

func (t *toolItem) collapsed(*Chat) bool { return t.hid }

func (t *toolItem) render(c *Chat, now time.Time) ([]string, int) {
	v := t.view
	v.Expanded = c.expand
	if !t.finished() && !t.start.IsZero() && !now.IsZero() {
		v.Elapsed = now.Sub(t.start).Truncate(100 * time.Millisecond)
	}
	if !t.finished() {
		v.Frame = spinnerTick(c.opts.Theme, t.start, now)
	}
	key := toolKey{t.gen, c.width, v.Frame, v.Elapsed, v.Expanded, c.opts.Theme, c.opts.Profile}
	if t.cache == nil || key != t.cacheKey {
		t.cache = v.Render(c.width, c.opts.Theme, c.opts.Profile)
		t.cacheKey = key
		if !v.Expanded {
			t.hid = false
			for _, l := range t.cache {
				if strings.Contains(l, expandHint) {
					t.hid = true
					break
				}
			}
		}
	}
	if t.final() {
		return t.cache, len(t.cache)
	}
	return t.cache, 0
}

// spinnerTick is the spinner frame for something running since start.
func spinnerTick(t *ansi.Theme, start, now time.Time) int {
	iv := t.Spinner.Interval
	if iv <= 0 {
		iv = 80 * time.Millisecond
	}
	if start.IsZero() || now.IsZero() || now.Before(start) {
		return 0
	}
	return int(now.Sub(start) / iv)
}

func (b *blockItem) render(c *Chat, _ time.Time) ([]string, int) {
	l := b.renderLines(c)
	return l, len(l)
}

// userLines renders a user message: a marker, then the text on the user
// message background across the width.
func (c *Chat) userLines(text string, width int) []string {
	t := c.opts.Theme
	st := t.Style(ansi.RoleUserMessage).With(t.Style(ansi.RoleUserMessageBG))
	mark := st.With(t.Style(ansi.RoleAccent))
	mark.Bold = true
	src := strings.Split(strings.TrimRight(ansi.Printable(text), "\n"), "\n")
	hidden := 0
	if len(src) > 30 {
		hidden = len(src) - 20
		src = src[:20]
	}
	out := []string{""}
	for i, l := range src {
		prefix := "  "
		if i == 0 {
			prefix = "› "
		}
		wrapped := ansi.WrapSpans([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: st}}, max(width-2, 1))
		for j, w := range wrapped {
			p := ansi.Span{Text: "  ", Style: st}
			if j == 0 {
				p = ansi.Span{Text: prefix, Style: mark}
			}
			// The background covers the text and one space, not the
			// rest of the row: padding to the width would become rows of
			// blank background when a narrower terminal rewraps the
			// scrollback.
			line := append(append([]ansi.Span{p}, w...), ansi.Span{Text: " ", Style: st})
			out = append(out, ansi.ClampLine(ansi.RenderSpans(line, c.opts.Profile, false), width))
		}
	}
	if hidden > 0 {
		more := []ansi.Span{{Text: "  … +" + strconv.Itoa(hidden) + " lines ", Style: st.With(t.Style(ansi.RoleMuted))}}
		out = append(out, ansi.ClampLine(ansi.RenderSpans(more, c.opts.Profile, false), width))
	}
	return append(out, "")
}

// noticeLines renders a message from zut or an extension: a coloured
// bullet, the source in brackets, the text.
func (c *Chat) noticeLines(level, source, text string, width int) []string {
	t := c.opts.Theme
	st := levelStyle(t, level)
	head := []ansi.Span{{Text: levelMark(level) + " ", Style: st}}
	if source != "" {
		head = append(head, ansi.Span{Text: "[" + ansi.Printable(source) + "] ", Style: st.With(ansi.Style{Bold: true})})
	}
	body := t.Style(ansi.RoleText)
	if level == "error" || level == "warn" {
		body = st
	}
	return c.prefixed(head, text, body, width)
}

// prefixed wraps text after the spans head on the first line, indenting the
// following lines under it.
func (c *Chat) prefixed(head []ansi.Span, text string, st ansi.Style, width int) []string {
	indent := ansi.SpansWidth(head)
	if indent > width/2 {
		indent = 2
	}
	var out []string
	for i, l := range strings.Split(strings.TrimRight(ansi.Printable(text), "\n"), "\n") {
		avail := width - indent
		if i == 0 {
			avail = width - ansi.SpansWidth(head)
		}
		for j, w := range ansi.WrapSpans([]ansi.Span{{Text: ansi.ExpandTabs(l), Style: st}}, max(avail, 1)) {
			var line []ansi.Span
			if i == 0 && j == 0 {
				line = append(append([]ansi.Span{}, head...), w...)
			} else {
				line = append([]ansi.Span{{Text: strings.Repeat(" ", indent)}}, w...)
			}
			out = append(out, ansi.ClampLine(ansi.RenderSpans(line, c.opts.Profile, c.opts.Hyperlinks), width))
		}
	}
	return out
}

// levelStyle is the note colour of level.
func levelStyle(t *ansi.Theme, level string) ansi.Style {
	switch level {
	case "success":
		return t.Style(ansi.RoleNoteSuccess)
	case "warn", "warning":
		return t.Style(ansi.RoleNoteWarn)
	case "error":
		return t.Style(ansi.RoleNoteError)
	}
	return t.Style(ansi.RoleNoteInfo)
}

func levelMark(level string) string {
	switch level {
	case "success":
		return "✓"
	case "warn", "warning":
		return "!"
	case "error":
		return "✗"
	}
	return "●"
}
