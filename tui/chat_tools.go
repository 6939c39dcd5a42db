package tui

import "github.com/zut-go/zut/tui/ansi"

import "time"

// StartTool adds a tool call whose arguments start streaming.
func (c *Chat) StartTool(id, name string) {
	c.finishThinking()
	if c.text != nil {
		c.text.finish()
		c.text = nil
	}
	if t, ok := c.tools[id]; ok && id != "" {
		t.view.Name = name
		return
	}
	t := &toolItem{id: id, view: ToolView{Name: name, Status: ToolStreaming}}
	c.tools[id] = t
	c.push(t)
}

// tool returns the tool call id, adding it when an event arrives for a
// call that was never started (a replayed or intercepted one).
func (c *Chat) tool(id, name string) *toolItem {
	if t, ok := c.tools[id]; ok {
		return t
	}
	c.StartTool(id, name)
	return c.tools[id]
}

// ToolArgs adds a fragment of a tool call's streaming arguments.
func (c *Chat) ToolArgs(id, delta string) {
	t := c.tool(id, "")
	t.view.Args += delta
	t.dirty()
}

// SetToolArgs sets a tool call's complete arguments.
func (c *Chat) SetToolArgs(id, name, args string) {
	t := c.tool(id, name)
	if name != "" {
		t.view.Name = name
	}
	t.view.Args = args
	t.dirty()
}

// ToolRunning marks a tool call as running since start.
func (c *Chat) ToolRunning(id string, start time.Time) {
	t := c.tool(id, "")
	t.view.Status = ToolRunning
	t.start = start
	t.dirty()
}

// ToolProgress shows the progress of a running tool: text replaces the
// progress shown before (a status line, or the last lines of output).
func (c *Chat) ToolProgress(id, text string) {
	t := c.tool(id, "")
	t.view.Result = text
	t.dirty()
}

// ToolWaiting marks the live tool call id as waiting for the user's
// confirmation (or no longer).
func (c *Chat) ToolWaiting(id string, waiting bool) {
	if t, ok := c.tools[id]; ok && t.view.Waiting != waiting {
		t.view.Waiting = waiting
		t.dirty()
	}
}

// ToolDiff is the file change of an edit or write call, for its diff.
type ToolDiff struct{ Old, New string }

// ToolDone records a tool call's result at time end; diff, when not nil,
// replaces the result text by the diff of the file.
func (c *Chat) ToolDone(id, name, result string, isError bool, diff *ToolDiff, end time.Time) {
	t := c.tool(id, name)
	if name != "" {
		t.view.Name = name
	}
	t.view.Result = result
	t.view.Status = ToolDone
	if isError {
		t.view.Status = ToolFailed
	}
	if diff != nil {
		t.view.HasDiff, t.view.OldText, t.view.NewText = true, diff.Old, diff.New
	}
	if !t.start.IsZero() && !end.IsZero() && end.Sub(t.start) >= 100*time.Millisecond {
		// Quick calls need no timing.
		t.view.Elapsed = end.Sub(t.start)
	}
	t.dirty()
	delete(c.tools, id)
}

// ToolLook is how an extension's tool renderer changes a tool call's view
// (see ToolView); empty fields change nothing.
type ToolLook struct {
	DisplayName  string
	TitleColor   ansi.Color
	Header       string
	Body         string
	BodyMarkdown bool
}

// SetToolLook applies an extension's rendering to the live tool call id.
// It reports false when the call is no longer live (it is in scrollback).
func (c *Chat) SetToolLook(id string, l ToolLook) bool {
	var t *toolItem
	if x, ok := c.tools[id]; ok {
		t = x
	} else {
		for _, it := range c.items {
			if x, ok := it.(*toolItem); ok && x.id == id {
				t = x
			}
		}
	}
	if t == nil || t.done > 0 {
		return false
	}
	v := &t.view
	if l.DisplayName != "" {
		v.DisplayName = l.DisplayName
	}
	if l.TitleColor.Kind != ansi.ColorDefault {
		v.TitleColor = l.TitleColor
	}
	if l.Header != "" {
		v.Header = l.Header
	}
	if l.Body != "" {
		v.Body, v.BodyMarkdown = l.Body, l.BodyMarkdown
	}
	t.dirty()
	return true
}

// HoldTool keeps the tool call id live even once it finished (hold
// true), until HoldTool(id, false): an extension's renderer is asked how
// to show it first.
func (c *Chat) HoldTool(id string, hold bool) {
	for _, it := range c.items {
		if x, ok := it.(*toolItem); ok && x.id == id {
			x.hold = hold
		}
	}
}

// EndTurn closes what a turn left open: streamed text is finished and
// tool calls that never got a result are marked as not run with reason.
func (c *Chat) EndTurn(reason string) {
	c.endMessage()
	for id, t := range c.tools {
		t.view.Status = ToolFailed
		if t.view.Result == "" {
			t.view.Result = reason
		}
		t.dirty()
		delete(c.tools, id)
	}
}
