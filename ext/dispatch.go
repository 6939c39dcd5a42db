package ext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/zut-go/zut/proto"
)

// dispatch acts on one frame from the host. It reports done when the
// connection is over (shutdown).
func (c *conn) dispatch(f proto.Frame) (done bool, err error) {
	if _, ok := f.(*proto.Shutdown); ok {
		// Acknowledge first and write nothing after: what handlers do
		// once their contexts are cancelled no longer reaches the host.
		if err := c.write(proto.ShutdownAck{}); err != nil && !errors.Is(err, ErrClosed) {
			c.e.Logf("%v", err)
		}
		c.close()
		c.cancel()
		return true, nil
	}
	if !c.isAcked() {
		ack, ok := f.(*proto.HelloAck)
		if !ok {
			c.e.Logf("ignored a %s frame that came before hello_ack", f.Type())
			return false, nil
		}
		return false, c.helloAck(ack)
	}
	switch f := f.(type) {
	case *proto.ToolCall:
		c.toolCall(f)
	case *proto.ToolCancel:
		c.cmu.Lock()
		cancel := c.calls[f.ID]
		delete(c.calls, f.ID)
		c.cmu.Unlock()
		if cancel != nil {
			cancel()
		}
	case *proto.CommandInvoked:
		c.afterEvents(func() {
			resp := c.e.runCommand(f.Name, f.Args)
			c.reply(resp.frame(f.ID))
		})
	case *proto.EventIntercept:
		c.afterEvents(func() { c.reply(c.e.intercept(f)) })
	case *proto.Event:
		if f.Name == proto.EventCustom {
			ce := CustomEvent{Name: f.CustomName, Data: f.Data, From: f.From}
			c.enqueue(func() { c.e.runCustom(ce) })
			break
		}
		ev := eventFrom(f)
		c.enqueue(func() { c.e.runEvent(ev) })
	case *proto.PanelKey:
		k := PanelKey{PanelID: f.PanelID, Key: f.Key, Text: f.Text}
		c.enqueue(func() { c.e.runPanelKey(k) })
	case *proto.PanelClose:
		id := f.PanelID
		c.enqueue(func() { c.e.runPanelClose(id) })
	case *proto.HelloAck:
		c.e.Logf("ignored a second hello_ack")
	default:
		if !c.dispatchAdded(f) {
			c.e.Logf("ignored a %s frame; hosts do not send it", f.Type())
		}
	}
	return false, nil
}

// helloAck checks the host's protocol version, runs the OnHello functions
// and announces the registrations: register frames in order, one
// subscribe, ready, then the one-way frames asked for so far.
func (c *conn) helloAck(ack *proto.HelloAck) error {
	e := c.e
	if ack.ProtocolVersion != proto.ProtocolVersion {
		return fmt.Errorf("run extension %q: the host speaks protocol_version %d, this SDK speaks %d; use a zut and an SDK of the same protocol",
			e.name, ack.ProtocolVersion, proto.ProtocolVersion)
	}
	info := hostInfoFrom(ack)
	e.mu.Lock()
	c.acked = true
	e.info = info
	hooks := slices.Clone(e.onHello)
	e.mu.Unlock()
	for _, fn := range hooks {
		e.guard("OnHello function", func() { fn(info) })
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.regs {
		e.writeLocked(c, f)
	}
	if s, ok := e.subscriptionLocked(); ok {
		for _, ev := range s.Events {
			c.subscribed[ev] = true
		}
		for _, ev := range s.Intercept {
			c.intercepted[ev] = true
		}
		e.writeLocked(c, s)
	}
	e.writeLocked(c, proto.Ready{})
	c.ready = true
	for _, f := range e.early {
		e.writeLocked(c, f)
	}
	e.early = nil
	return nil
}

// toolCall runs a tool on its own goroutine. The call's cancel function is
// recorded before the goroutine starts, so a tool_cancel read next finds
// it. A result that comes after cancellation is discarded.
func (c *conn) toolCall(f *proto.ToolCall) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.cmu.Lock()
	c.calls[f.ID] = cancel
	c.cmu.Unlock()
	c.afterEvents(func() {
		defer cancel()
		res := c.e.runTool(ctx, f.ID, f.Name, f.Args)
		c.cmu.Lock()
		live := c.calls[f.ID] != nil
		delete(c.calls, f.ID)
		c.cmu.Unlock()
		if !live || ctx.Err() != nil {
			return
		}
		frame, problem := res.frame(f.ID)
		if problem != "" {
			c.e.Logf("tool %q: %s", f.Name, problem)
		}
		c.reply(frame)
	})
}

// reply writes a reply frame, logging a failure other than a closed
// connection.
func (c *conn) reply(f proto.Frame) {
	if err := c.write(f); err != nil && !errors.Is(err, ErrClosed) {
		c.e.Logf("%v", err)
	}
}

// answerBroken replies to a request the host sent but that could not be
// decoded, so that the host does not wait for its timeout.
func (c *conn) answerBroken(bad *proto.InvalidFrameError) {
	if bad.ID == "" || !c.isAcked() {
		return
	}
	msg := fmt.Sprintf("extension %q could not decode the %s frame: %v", c.e.name, bad.Type, bad.Err)
	switch bad.Type {
	case "tool_call":
		f, _ := TextErrorResult(msg).frame(bad.ID)
		c.reply(f)
	case "command_invoked":
		c.reply(ErrorResponse(msg).frame(bad.ID))
	case "event_intercept":
		c.reply(proto.EventInterceptResponse{ID: bad.ID})
	}
}

// guard runs fn and turns a panic into a log line with the stack; it
// reports whether fn panicked.
func (e *Extension) guard(what string, fn func()) (panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			e.Logf("%s panicked: %v\n%s", what, r, debug.Stack())
			panicked = true
		}
	}()
	fn()
	return false
}

// runTool runs the tool name for the call id; a missing tool or a panic is
// an error result.
func (e *Extension) runTool(ctx context.Context, id, name string, args json.RawMessage) ToolResult {
	t := e.lookupTool(name)
	if t == nil {
		return TextErrorResult(fmt.Sprintf("extension %q has no tool %q", e.name, name))
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	var res ToolResult
	if e.guard(fmt.Sprintf("tool %q", name), func() {
		switch {
		case t.specFn != nil:
			res = t.specFn(ctx, ToolContext{CallID: id, e: e}, args)
		case t.ctxFn != nil:
			res = t.ctxFn(ctx, args)
		default:
			res = t.fn(args)
		}
	}) {
		return TextErrorResult(fmt.Sprintf("tool %q of extension %q failed with an internal error; its log has the details", name, e.name))
	}
	return res
}

// runCommand runs the command name; a missing command or a panic is an
// error response.
func (e *Extension) runCommand(name, args string) Response {
	cmd := e.lookupCommand(name)
	if cmd == nil {
		return ErrorResponse(fmt.Sprintf("extension %q has no command /%s", e.name, name))
	}
	var resp Response
	if e.guard(fmt.Sprintf("command /%s", name), func() { resp = cmd.fn(args) }) {
		return ErrorResponse(fmt.Sprintf("command /%s of extension %q failed with an internal error; its log has the details", name, e.name))
	}
	return resp
}

// intercept runs the interceptors of the event and returns the answer. A
// panicking interceptor allows the event.
func (e *Extension) intercept(f *proto.EventIntercept) proto.EventInterceptResponse {
	r := proto.EventInterceptResponse{ID: f.ID}
	e.mu.Lock()
	toolICs, turnICs, messageICs := e.toolICs, e.turnICs, e.messageICs
	e.mu.Unlock()
	switch f.Name {
	case EventToolCall:
		args := f.ToolArgs
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage(`{}`)
		}
		rewritten := false
		for _, fn := range toolICs {
			var d ToolCallDecision
			if e.guard("tool_call interceptor", func() { d = fn(f.ToolName, args) }) {
				continue
			}
			if d.Block {
				return proto.EventInterceptResponse{ID: f.ID, Block: true, Reason: d.Reason}
			}
			if len(d.ModifiedArgs) == 0 {
				continue
			}
			if !isObject(d.ModifiedArgs) {
				e.Logf("tool_call interceptor: ModifiedArgs for %q is not a JSON object; ignored", f.ToolName)
				continue
			}
			args, rewritten = d.ModifiedArgs, true
		}
		if rewritten {
			r.ModifiedArgs = args
		}
	case EventTurnStart:
		var parts []string
		for _, fn := range turnICs {
			var d TurnStartDecision
			if e.guard("turn_start interceptor", func() { d = fn(f.Step) }) {
				continue
			}
			if d.Block {
				return proto.EventInterceptResponse{ID: f.ID, Block: true, Reason: d.Reason}
			}
			if s := strings.TrimSpace(d.Context); s != "" {
				parts = append(parts, s)
			}
		}
		r.Context = strings.Join(parts, "\n\n")
	case EventAssistantMessage:
		text := f.Text
		for _, fn := range messageICs {
			var d AssistantMessageDecision
			if e.guard("assistant_message interceptor", func() { d = fn(text) }) {
				continue
			}
			if d.Block {
				return proto.EventInterceptResponse{ID: f.ID, Block: true, Reason: d.Reason}
			}
			if d.ReplaceText != "" {
				text, r.ReplaceText = d.ReplaceText, d.ReplaceText
			}
		}
	default:
		e.interceptAdded(f, &r)
	}
	return r
}

// isObject reports whether b is a valid JSON object.
func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func (e *Extension) runEvent(ev Event) {
	e.mu.Lock()
	fns := e.events[ev.Name]
	e.mu.Unlock()
	for _, fn := range fns {
		e.guard(fmt.Sprintf("%s event handler", ev.Name), func() { fn(ev) })
	}
}

func (e *Extension) runPanelKey(k PanelKey) {
	e.mu.Lock()
	fns := e.panelKeys
	e.mu.Unlock()
	for _, fn := range fns {
		e.guard("panel key handler", func() { fn(k) })
	}
}

func (e *Extension) runPanelClose(id string) {
	e.mu.Lock()
	fns := e.panelClose
	e.mu.Unlock()
	for _, fn := range fns {
		e.guard("panel close handler", func() { fn(id) })
	}
}
