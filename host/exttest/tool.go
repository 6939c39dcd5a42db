package exttest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// toolCall remembers a successful call, for the state and slow-host
// probes.
type toolCall struct {
	tool proto.RegisterTool
	args json.RawMessage
}

// callTools calls every tool with arguments built from its schema, then
// with arguments that break it.
func (r *run) callTools(ctx context.Context) {
	tools := r.w.usableTools(r.opts.BuiltinTools)
	if len(tools) == 0 {
		r.rs.add("calls.tool", "", Skip, "no tools registered")
		r.rs.add("calls.tool_invalid", "", Skip, "no tools registered")
		return
	}
	for _, t := range tools {
		if !r.alive() {
			return
		}
		if t.Deferred && !r.activated(t.Name) {
			r.rs.add("calls.tool", t.Name, Skip, "deferred and never named in activate_tools, so zut does not offer it to the model")
			continue
		}
		s := parseSchema(t.Schema)
		args, _ := json.Marshal(synth(s, s, "", 0))
		res, ok := r.callTool(ctx, "calls.tool", t, args, t.Name+" "+string(args))
		if !ok {
			return
		}
		if res != nil && !res.IsError && r.good == nil {
			r.good = &toolCall{tool: t, args: args}
		}
		bad, how, can := invalidArgs(s)
		if !can {
			r.rs.add("calls.tool_invalid", t.Name, Skip, "the schema accepts any object")
			continue
		}
		if _, ok := r.callTool(ctx, "calls.tool_invalid", t, bad, t.Name+" "+how); !ok {
			return
		}
	}
}

func (r *run) activated(name string) bool {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.w.activated[name]
}

// callTool sends one tool_call, waits for its result and records check id.
// It returns the result (nil when none came) and whether the extension is
// still there.
func (r *run) callTool(ctx context.Context, id string, t proto.RegisterTool, args json.RawMessage, subject string) (*proto.ToolResult, bool) {
	callID := r.s.nextID()
	r.w.expect(callID, "tool_result")
	from := r.s.mark()
	sent, err := r.s.send(proto.ToolCall{ID: callID, Name: t.Name, Args: args})
	if err != nil {
		r.sendFailed(id, subject, err)
		return nil, false
	}
	began := time.Now()
	rec, err := r.awaitResult(ctx, from, callID, t.Interactive)
	took := time.Since(began)
	if err != nil {
		if t.Interactive && err == errTimeout {
			c := r.rs.add(id, subject, Warn, fmt.Sprintf("no result within %v; interactive tools have no deadline in zut, but nothing the tester answered (dialogs, the panel) ended the wait", r.t.Interactive), sent)
			c.Duration = took
			if r.hasCap(proto.CapToolCancel) {
				r.s.send(proto.ToolCancel{ID: callID})
			}
			return nil, r.settled(ctx, id, subject, "after its call was abandoned")
		}
		st, msg := r.waitErr(err, "to tool_call (C14)", r.t.Tool)
		r.rs.add(id, subject, st, msg, sent).Duration = took
		if !r.alive() {
			r.died = true
		}
		return nil, r.alive()
	}
	c := r.rs.add(id, subject, Pass, "", sent, rec)
	c.Duration = took
	if rec.err != nil {
		c.Status, c.Message = Fail, fmt.Sprintf("the tool_result does not decode: %v; zut gives the model an error at once", rec.err)
		return nil, r.settled(ctx, id, subject, "after its tool_result")
	}
	res := rec.frame.(*proto.ToolResult)
	if id == "calls.tool" || id == "calls.tool_invalid" {
		c.Status, c.Message = r.judgeResult(res)
	} else {
		c.Message = "answered" // the content is calls.tool's business
	}
	if res.Details != nil {
		r.details = append(r.details, rec)
		if id == "calls.tool" {
			r.stateful = &toolCall{tool: t, args: args}
		}
	}
	if id == "calls.tool_invalid" && c.Status == Pass {
		if res.IsError {
			c.Message = "answered is_error: " + resultText(res)
		} else {
			c.Status, c.Message = Warn, "accepted arguments that break its schema (is_error false); check them and answer is_error: true with what is wrong"
		}
	}
	if c.Status == Pass {
		c.Frames = nil
		c.Message += " in " + round(took)
	}
	return res, r.settled(ctx, id, subject, "after its tool_result", sent, rec)
}

// awaitResult waits for the tool_result of callID. For an interactive tool
// it acts as the user once the extension is idle: Enter on a panel it
// opened, then Esc.
func (r *run) awaitResult(ctx context.Context, from int, callID string, interactive bool) (*record, error) {
	if !interactive {
		return r.s.reply(ctx, from, "tool_result", callID, r.t.Tool)
	}
	deadline := time.Now().Add(r.t.Interactive)
	match := func(rec *record) bool { return isReplyTo(rec, "tool_result", callID) }
	for _, act := range []string{"enter", "close"} {
		r.s.settle(ctx)
		if rec := r.found(from, match); rec != nil {
			return rec, nil
		}
		r.w.mu.Lock()
		p := r.w.panel
		if p != nil && act == "close" {
			r.w.closeLocked(p)
		}
		r.w.mu.Unlock()
		if p != nil && act == "enter" {
			r.s.send(proto.PanelKey{PanelID: p.p.ID, Key: "enter"})
		}
	}
	return r.s.reply(ctx, from, "tool_result", callID, time.Until(deadline))
}

// found returns the first record from index from that matches.
func (r *run) found(from int, match func(*record) bool) *record {
	for _, rec := range r.s.since(from) {
		if !rec.fromHost && match(rec) {
			return rec
		}
	}
	return nil
}

func (r *run) hasCap(c string) bool {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.w.caps[c]
}

// judgeResult checks the content blocks and activate_tools of a result.
func (r *run) judgeResult(res *proto.ToolResult) (Status, string) {
	for i, b := range res.Content {
		switch b.Type {
		case proto.BlockText:
		case proto.BlockImage:
			if b.MIMEType == "" || !strings.HasPrefix(b.MIMEType, "image/") {
				return Fail, fmt.Sprintf("content block %d is an image with mime_type %q; give the image's type, such as image/png", i, b.MIMEType)
			}
			if _, err := base64.StdEncoding.DecodeString(b.Data); err != nil || b.Data == "" {
				return Fail, fmt.Sprintf("content block %d is an image whose data is not base64", i)
			}
		default:
			return Fail, fmt.Sprintf("content block %d has type %q; a block is text or image", i, b.Type)
		}
	}
	if len(res.Content) == 0 && !res.IsError {
		return Warn, "answered with no content; the model sees an empty result"
	}
	r.w.mu.Lock()
	var deferred []string
	for _, t := range r.w.tools {
		if t.f.Deferred {
			deferred = append(deferred, t.f.Name)
		}
	}
	r.w.mu.Unlock()
	for _, n := range res.ActivateTools {
		if !slices.Contains(deferred, n) {
			return Warn, fmt.Sprintf("activate_tools names %q, which is not a deferred tool of this extension; zut ignores it", n)
		}
	}
	if res.IsError {
		return Pass, "answered is_error: " + resultText(res)
	}
	return Pass, "answered"
}

// resultText is the start of a result's text, quoted.
func resultText(res *proto.ToolResult) string {
	var parts []string
	for _, b := range res.Content {
		if b.Type == proto.BlockText {
			parts = append(parts, b.Text)
		}
	}
	t := strings.Join(parts, " ")
	if len(t) > 80 {
		t = t[:80] + "..."
	}
	return fmt.Sprintf("%q", t)
}

// toolCancel calls a tool, cancels the call at once and checks that the
// extension takes it and answers the next call.
func (r *run) toolCancel(ctx context.Context) {
	const id = "cancel.tool_cancel"
	if !r.hasCap(proto.CapToolCancel) {
		r.rs.add(id, "", Skip, "tool_cancel is not in hello.capabilities, so zut never sends it (C6)")
		return
	}
	tools := r.w.usableTools(r.opts.BuiltinTools)
	var t *proto.RegisterTool
	for i := range tools {
		if tools[i].Deferred && !r.activated(tools[i].Name) {
			continue
		}
		if t == nil || tools[i].Interactive && !t.Interactive {
			t = &tools[i]
		}
	}
	if t == nil {
		r.rs.add(id, "", Skip, "no tool to cancel")
		return
	}
	s := parseSchema(t.Schema)
	args, _ := json.Marshal(synth(s, s, "", 0))
	callID := r.s.nextID()
	r.w.expect(callID, "tool_result")
	from := r.s.mark()
	sent, err := r.s.send(proto.ToolCall{ID: callID, Name: t.Name, Args: args})
	if err != nil {
		r.sendFailed(id, t.Name, err)
		return
	}
	cancel, err := r.s.send(proto.ToolCancel{ID: callID})
	if err != nil {
		r.sendFailed(id, t.Name, err)
		return
	}
	if !r.settled(ctx, id, t.Name, "after tool_cancel", sent, cancel) {
		return
	}
	results := 0
	for _, rec := range r.s.since(from) {
		if !rec.fromHost && isReplyTo(rec, "tool_result", callID) {
			results++
		}
	}
	var open string
	r.w.mu.Lock()
	if p := r.w.panel; p != nil && p.rec.seq >= from {
		open = p.p.ID
	}
	r.w.mu.Unlock()
	if open != "" {
		r.rs.add(id, t.Name, Warn, fmt.Sprintf("left the panel %q it opened for the call open after tool_cancel; close it when the call is cancelled", open), sent, cancel)
		return
	}
	again, ok := r.callTool(ctx, id, *t, args, t.Name+" (the call after a cancelled one)")
	if !ok || again == nil {
		return
	}
	// callTool recorded the follow-up call; say what the cancel did.
	last := &r.rs.checks[len(r.rs.checks)-1]
	if last.Status == Pass {
		how := "stopped the call (no tool_result after tool_cancel)"
		if results > 0 {
			how = "the call had finished before the cancel was read (its tool_result is one zut ignores)"
		}
		last.Subject = t.Name
		last.Message = how + "; the next call was " + last.Message
	}
}
