package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"time"
)

// ThinkingMode says how the model's reasoning shows in the transcript.
type ThinkingMode uint8

const (
	// ThinkingCollapsed shows the last lines while the model thinks, then
	// one summary line (the expand key shows all of it).
	ThinkingCollapsed ThinkingMode = iota
	// ThinkingFull shows all of the reasoning, dimmed.
	ThinkingFull
	// ThinkingHidden shows nothing of it.
	ThinkingHidden
)

// ParseThinkingMode reads "collapsed", "full" or "hidden".
func ParseThinkingMode(s string) (ThinkingMode, bool) {
	switch s {
	case "collapsed", "":
		return ThinkingCollapsed, true
	case "full":
		return ThinkingFull, true
	case "hidden":
		return ThinkingHidden, true
	}
	return ThinkingCollapsed, false
}

// String returns the name ParseThinkingMode reads.
func (m ThinkingMode) String() string {
	switch m {
	case ThinkingFull:
		return "full"
	case ThinkingHidden:
		return "hidden"
	}
	return "collapsed"
}

// ChatOptions say how a Chat draws.
type ChatOptions struct {
	Theme      *ansi.Theme
	Profile    ansi.Profile
	Hyperlinks bool
	Thinking   ThinkingMode
}

// Chat is the view model of an interactive session: the transcript that is
// not yet in the terminal's scrollback, and the chrome around the editor
// (notes, status items, widgets, the panel, the activity line, the
// footer). The UI loop feeds it what happens, through its methods, and
// asks for a Frame: the lines to commit to scrollback and the live region
// to draw. It never touches a terminal, so every screen can be produced by
// a test.
//
// Transcript items are committed in order as soon as their lines are
// final: a user message at once, streamed text line by line as the
// markdown renderer makes lines stable, a tool call once it finished. What
// is committed is never drawn again; everything else is redrawn each
// frame at the current width.
//
// A Chat is owned by one goroutine and is not safe for concurrent use.
type Chat struct {
	opts          ChatOptions
	width, height int

	items []chatItem // transcript items not yet committed entirely
	tools map[string]*toolItem
	text  *streamItem // the answer being streamed
	think *streamItem // the reasoning being streamed
	// msgStart is the index in items where the current assistant
	// message begins, so that text shown only at its end (an extension
	// rewrote it) goes before its tool calls; -1 outside a message.
	msgStart int
	msgText  bool // the current message streamed visible text

	expand        bool
	lastCollapsed chatItem // the newest committed item that hid lines
	lastKind      string   // of the newest item: "text", "tool" or ""

	// Editor is drawn at the bottom of the live region unless an Overlay
	// or a Panel takes its place. It may be nil.
	Editor *Editor

	chrome chrome
}

// NewChat returns an empty Chat for a terminal of width x height cells.
func NewChat(width, height int, o ChatOptions) *Chat {
	c := &Chat{width: max(width, 1), height: max(height, 1), tools: map[string]*toolItem{}, msgStart: -1}
	c.SetOptions(o)
	return c
}

// SetOptions changes the theme, profile, links or thinking mode. Items
// still live are drawn again with them; committed lines stay as they are.
func (c *Chat) SetOptions(o ChatOptions) {
	if o.Theme == nil {
		o.Theme = ansi.DarkTheme()
	}
	c.opts = o
	for _, it := range c.items {
		if m, ok := it.(*streamItem); ok {
			m.restyle(c)
		}
	}
}

// Options returns the current options.
func (c *Chat) Options() ChatOptions { return c.opts }

// Resize records a new terminal size. Live items re-lay out at the new
// width; a streamed answer whose current block is partly in scrollback
// keeps its old width until that block ends.
func (c *Chat) Resize(width, height int) {
	c.width, c.height = max(width, 1), max(height, 1)
}

// Size returns the size the Chat lays out for.
func (c *Chat) Size() (width, height int) { return c.width, c.height }

// Expanded reports whether tool output and reasoning show in full.
func (c *Chat) Expanded() bool { return c.expand }

// ToggleExpand switches between previews and full tool output and
// reasoning for the live items. Turning it on also shows the newest
// committed item that hid lines again, in full, since scrollback cannot
// change.
func (c *Chat) ToggleExpand() {
	c.expand = !c.expand
	if c.expand && c.lastCollapsed != nil {
		it := c.lastCollapsed
		c.lastCollapsed = nil
		lines, _ := it.render(c, time.Time{})
		title := []ansi.Span{{Text: "▸ expanded", Style: c.opts.Theme.Style(ansi.RoleMuted)}}
		c.push(&blockItem{lines: append([]string{ansi.RenderSpans(title, c.opts.Profile, false)}, lines...)})
	}
}

// Busy reports whether transcript items are still live.
func (c *Chat) Busy() bool { return len(c.items) > 0 }

// push appends an item to the transcript. A blank line separates text
// from tool calls.
func (c *Chat) push(it chatItem) {
	kind := ""
	switch x := it.(type) {
	case *streamItem:
		kind = "text"
	case *toolItem:
		kind = "tool"
	case *blockItem:
		kind = x.kind
	}
	if (c.lastKind == "text" && kind == "tool") || (c.lastKind == "tool" && kind == "text") {
		c.items = append(c.items, &blockItem{lines: []string{""}})
	}
	c.lastKind = kind
	c.items = append(c.items, it)
}

// AddBlock adds finished lines to the transcript, rendered at the width
// they are committed at by render (called once).
func (c *Chat) AddBlock(render func(width int) []string) {
	c.push(&blockItem{build: render})
}

// AddLines adds finished, already rendered lines to the transcript.
func (c *Chat) AddLines(lines ...string) {
	c.push(&blockItem{lines: append([]string(nil), lines...)})
}

// AddUser adds a user message. Messages over 30 lines show their first
// 20 and a count of the rest.
func (c *Chat) AddUser(text string) {
	c.endMessage()
	c.push(&blockItem{build: func(width int) []string { return c.userLines(text, width) }})
}

// AddNotice adds a line from zut itself: level is info, success, warn or
// error; source, when set, is shown in brackets. Multi-line text keeps its
// lines.
func (c *Chat) AddNotice(level, source, text string) {
	c.push(&blockItem{build: func(width int) []string { return c.noticeLines(level, source, text, width) }})
}

// AddMarkdown adds a finished markdown text (a display note, a replayed
// answer, a command's output).
func (c *Chat) AddMarkdown(text string, role ansi.Role) {
	m := c.newMD(role, false)
	m.md.WriteString(text)
	m.md.Finish()
	m.finish()
	c.push(m)
}

// BeginMessage starts an assistant message (AssistantStart).
func (c *Chat) BeginMessage() {
	c.endMessage()
	c.msgStart = len(c.items)
	c.msgText = false
}

// AppendText adds streamed answer text.
func (c *Chat) AppendText(delta string) {
	if delta == "" {
		return
	}
	c.finishThinking()
	if c.text == nil {
		if c.msgStart < 0 {
			c.msgStart = len(c.items)
		}
		c.text = c.newMD(ansi.RoleAssistantText, false)
		c.push(c.text)
	}
	c.msgText = true
	c.text.pending.WriteString(delta)
}

// AppendThinking adds streamed reasoning text.
func (c *Chat) AppendThinking(delta string) {
	if delta == "" || c.opts.Thinking == ThinkingHidden {
		return
	}
	if c.think == nil {
		if c.msgStart < 0 {
			c.msgStart = len(c.items)
		}
		c.think = c.newMD(ansi.RoleThinking, true)
		c.push(c.think)
	}
	c.think.pending.WriteString(delta)
}

// EndMessage ends the assistant message: text is its visible text as the
// agent reports it at the end (AssistantMessage). When nothing was
// streamed, because an extension may rewrite answers, text is shown now,
// before the message's tool calls.
func (c *Chat) EndMessage(text string) {
	c.finishThinking()
	if !c.msgText && strings.TrimSpace(text) != "" {
		m := c.newMD(ansi.RoleAssistantText, false)
		m.md.WriteString(text)
		m.md.Finish()
		m.finish()
		at := c.msgStart
		if at < 0 || at > len(c.items) {
			at = len(c.items)
		}
		c.items = append(c.items[:at], append([]chatItem{m}, c.items[at:]...)...)
	}
	c.endMessage()
}

// endMessage closes the streamed text and reasoning.
func (c *Chat) endMessage() {
	c.finishThinking()
	if c.text != nil {
		c.text.finish()
		c.text = nil
	}
	c.msgStart = -1
	c.msgText = false
}

func (c *Chat) finishThinking() {
	if c.think != nil {
		c.think.finish()
		c.think = nil
	}
}

// Clear drops the live transcript and the chrome that belongs to a
// conversation (notes, the side answer, the activity line, queued
// prompts). Status items, widgets and the panel stay: extensions own them.
func (c *Chat) Clear() {
	c.items = nil
	c.tools = map[string]*toolItem{}
	c.text, c.think = nil, nil
	c.msgStart, c.msgText = -1, false
	c.lastCollapsed = nil
	c.chrome.notes = nil
	c.chrome.side = nil
	c.chrome.activity = nil
	c.chrome.queue = nil
}

// transcript renders the items: the lines that became final since the
// last frame (to commit) and the live ones.
func (c *Chat) transcript(now time.Time) (commit, live []string) {
	for len(c.items) > 0 {
		it := c.items[0]
		lines, stable := it.render(c, now)
		b := it.base()
		if stable > b.done {
			commit = append(commit, lines[b.done:stable]...)
			b.done = stable
		}
		if it.final() && b.done >= len(lines) {
			c.items = c.items[1:]
			if it.collapsed(c) {
				c.lastCollapsed = it
			}
			continue
		}
		if b.done < len(lines) {
			live = append(live, lines[b.done:]...)
		}
		break
	}
	for i := 1; i < len(c.items); i++ {
		lines, _ := c.items[i].render(c, now)
		live = append(live, lines...)
	}
	return commit, live
}
