package markdown

import (
	"errors"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"unicode/utf8"
)

// Options say how markdown is rendered.
type Options struct {
	// Width is the number of cells per line (at least 1 is used).
	Width int
	// Theme colours the output; nil means the built-in dark theme.
	Theme *ansi.Theme
	// Profile is the terminal's colour capability.
	Profile ansi.Profile
	// Hyperlinks makes links OSC 8 hyperlinks showing only their text;
	// without it a link shows its text followed by the URL.
	Hyperlinks bool
	// Role is the colour role of plain text: RoleAssistantText for
	// answers, RoleThinking for reasoning. The zero value is RoleText.
	Role ansi.Role
}

// Stream renders markdown that arrives in pieces, as a model streams
// its answer, into lines of at most Width cells with escape sequences for
// the profile.
//
// The output is stable as text arrives: the first Stable() lines are
// final and never change again (the screen can commit them to scrollback),
// however the text continues. Lines of a block become final when a later
// block starts or the block ends, and streaming code blocks, lists and
// quotes make their finished lines final early. Only the unfinished end of
// the text is re-rendered on each write, and it renders without flicker:
// unclosed emphasis, code spans and link targets show as if closed, a
// half-typed closing fence and half a table row are held back.
//
// After the stream ends, call Finish: the output then equals what
// RenderMarkdown gives for the whole text. Changing options starts the
// rendering over (Stable falls to 0 and grows again).
//
// A Stream is not safe for concurrent use.
type Stream struct {
	opts Options
	src  strings.Builder
	done bool

	lines  []string // stable lines, then the live lines
	stable int
	// blocks counts the top-level blocks committed; openStart is where the
	// first uncommitted block starts in the source, and openLines how many
	// of its lines are committed already.
	blocks    int
	openStart int
	openLines int
	// resume is set while the first open block is a long top-level code
	// fence: parsing restarts inside it at openStart instead of at its
	// start.
	resume *mdBlock
	r      mdRenderer
}

// NewStream returns an empty renderer.
func NewStream(o Options) *Stream {
	m := &Stream{}
	m.SetOptions(o)
	return m
}

// Render renders a complete markdown text.
func Render(text string, o Options) []string {
	m := NewStream(o)
	m.WriteString(text)
	m.Finish()
	return m.Lines()
}

// errFinished is returned by writes after Finish.
var errFinished = errors.New("markdown: write after Finish; call Reset or Set to start a new text")

// Write appends streamed text. It fails only after Finish.
func (m *Stream) Write(p []byte) (int, error) {
	return m.WriteString(string(p))
}

// WriteString appends streamed text. It fails only after Finish.
func (m *Stream) WriteString(s string) (int, error) {
	if m.done {
		return 0, errFinished
	}
	if s == "" {
		return 0, nil
	}
	m.src.WriteString(s)
	m.update()
	return len(s), nil
}

// Set replaces the text. When text continues the current text this is a
// write of the difference; otherwise rendering starts over.
func (m *Stream) Set(text string) {
	cur := m.src.String()
	if !m.done && strings.HasPrefix(text, cur) {
		m.WriteString(text[len(cur):])
		return
	}
	if m.done && text == cur {
		return
	}
	m.Reset()
	m.WriteString(text)
}

// Finish marks the end of the text: the last block closes, unclosed
// markers show as typed, and every line becomes stable.
func (m *Stream) Finish() {
	if m.done {
		return
	}
	m.done = true
	m.update()
}

// Reset empties the renderer, keeping its options.
func (m *Stream) Reset() {
	m.src.Reset()
	m.done = false
	m.restart()
}

// SetOptions changes width, theme, profile or links and renders the text
// again from the start.
func (m *Stream) SetOptions(o Options) {
	if o.Theme == nil {
		o.Theme = ansi.DarkTheme()
	}
	o.Width = max(o.Width, 1)
	m.opts = o
	m.restart()
	if m.src.Len() > 0 {
		m.update()
	}
}

// Options returns the current options.
func (m *Stream) Options() Options { return m.opts }

// Text returns the text written so far.
func (m *Stream) Text() string { return m.src.String() }

// Done reports whether Finish was called.
func (m *Stream) Done() bool { return m.done }

// Lines returns the rendered lines. The slice is owned by m and valid
// until the next call that changes m; the caller must not modify it.
func (m *Stream) Lines() []string { return m.lines }

// Stable returns how many leading lines of Lines are final.
func (m *Stream) Stable() int { return m.stable }

// Boundary reports whether the Stable lines end where a top-level block
// begins, and at which byte offset of Text that block starts. When ok, a
// new renderer given Text()[offset:] produces the lines that follow the
// stable ones, except for the blank line that separates blocks. The chat
// view uses it to switch a streamed answer to a new width without
// touching the lines already in scrollback.
func (m *Stream) Boundary() (offset int, ok bool) {
	return m.openStart, m.openLines == 0 && m.resume == nil
}

// restart drops all rendering state.
func (m *Stream) restart() {
	m.lines = m.lines[:0]
	m.stable, m.blocks, m.openStart, m.openLines = 0, 0, 0, 0
	m.resume = nil
	m.r = mdRenderer{theme: m.opts.Theme, hyperlinks: m.opts.Hyperlinks && m.opts.Profile != ansi.ProfileNone}
}

// update parses the text from the first uncommitted block on, commits the
// blocks that became final and re-renders the rest.
func (m *Stream) update() {
	s := m.src.String()
	end := len(s)
	if !m.done {
		end = completeUTF8(s)
	}
	region := s[m.openStart:end]
	root := parseBlocks(region, m.openStart, m.done, m.resume)
	m.r.done = m.done
	m.r.tip = nil
	if !m.done {
		m.r.tip = lastLeaf(root)
	}
	ctx := renderCtx{base: m.opts.Theme.Style(m.opts.Role)}
	width := m.opts.Width
	m.lines = m.lines[:m.stable]

	kids := root.children
	i := 0
	for ; i < len(kids) && kids[i].final; i++ {
		lines, _ := m.r.block(kids[i], width, ctx)
		b := blockLines{lines: lines, sep: m.blocks > 0 && len(lines) > 0}
		m.commit(b, min(m.openLines, b.len()), b.len())
		m.openLines = 0
		m.blocks++
	}
	if i > 0 {
		m.resume = nil // the resumed fence, kids[0], is committed
	}
	next := m.openStart + len(region)
	if i < len(kids) {
		next = kids[i].start
		if m.resume != nil {
			next = m.openStart
		}
	} else if !m.done {
		next = m.openStart + strings.LastIndexByte(region, '\n') + 1
	}
	if next != m.openStart {
		m.openStart = next
		clear(m.r.memo)
	}
	for j := i; j < len(kids); j++ {
		lines, st := m.r.block(kids[j], width, ctx)
		b := blockLines{lines: lines, sep: (m.blocks > 0 || j > i) && len(lines) > 0}
		if b.sep && st > 0 {
			st++
		}
		from := 0
		if j == i {
			if st > m.openLines {
				m.commit(b, m.openLines, st)
				m.openLines = st
			}
			from = min(m.openLines, b.len())
		}
		for k := from; k < b.len(); k++ {
			m.lines = append(m.lines, m.format(b.line(k)))
		}
		if j == i {
			m.resumeFence(kids[j])
		}
	}
}

// blockLines are a top-level block's lines, after a blank separator line
// when sep is set.
type blockLines struct {
	lines [][]ansi.Span
	sep   bool
}

func (b blockLines) len() int {
	if b.sep {
		return len(b.lines) + 1
	}
	return len(b.lines)
}

func (b blockLines) line(k int) []ansi.Span {
	if b.sep {
		if k == 0 {
			return nil
		}
		k--
	}
	return b.lines[k]
}

// commit appends lines [from, to) of b as final lines.
func (m *Stream) commit(b blockLines, from, to int) {
	for k := from; k < to; k++ {
		m.lines = append(m.lines, m.format(b.line(k)))
	}
	m.stable = len(m.lines)
}

// format turns a line of spans into text for the terminal.
func (m *Stream) format(l []ansi.Span) string {
	return ansi.ClampLine(ansi.RenderSpans(l, m.opts.Profile, m.r.hyperlinks), m.opts.Width)
}

// resumeFence arranges for the next parse to start inside b, a top-level
// code fence still streaming, after its complete lines (which the code
// cache holds).
func (m *Stream) resumeFence(b *mdBlock) {
	if b.kind != mdFence || b.depth != 1 || !b.open || !b.headComplete || b.complete == 0 {
		return
	}
	cc := &m.r.code
	base := b.lineBase + b.complete
	if !cc.valid || cc.key != (memoKey{b.start, b.kind, b.depth}) || cc.n != base {
		return
	}
	r := *b
	r.lines, r.children, r.parent = nil, nil, nil
	r.lineBase = base
	m.resume = &r
	m.openStart = b.completeEnd
}

// lastLeaf returns the last leaf block in document order, or nil.
func lastLeaf(b *mdBlock) *mdBlock {
	for len(b.children) > 0 {
		b = b.children[len(b.children)-1]
	}
	if b.kind == mdDocument || b.final {
		return nil
	}
	return b
}

// completeUTF8 returns the length of s without a trailing incomplete
// UTF-8 sequence, which the next write will complete.
func completeUTF8(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if utf8.FullRuneInString(s[i:]) {
			return len(s)
		}
		return i
	}
	return len(s)
}
