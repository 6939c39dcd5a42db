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

// settled waits for the extension to settle after a probe and reports a
// death as a failure of check id.
func (r *run) settled(ctx context.Context, id, subject, doing string, recs ...*record) bool {
	if r.s.settle(ctx) {
		return true
	}
	if ctx.Err() == nil {
		r.rs.add(id, subject, Fail, r.goneMsg(doing), recs...)
		r.died = true
	}
	return false
}

// sendFailed reports a frame the tester could not write: the extension
// exited or stopped reading its stdin.
func (r *run) sendFailed(id, subject string, _ error) {
	r.s.p.waitExit(context.Background(), 100*time.Millisecond)
	r.rs.add(id, subject, Fail, r.goneMsg("while the host wrote to it"))
	r.died = true
}

// commands invokes every command with its --args, or once with "".
func (r *run) commands(ctx context.Context) {
	cmds := r.w.usableCommands()
	if len(cmds) == 0 {
		r.rs.add("calls.command", "", Skip, "no commands registered")
		return
	}
	for _, c := range cmds {
		list, ok := r.opts.Args[c.Name]
		if !ok {
			for k, v := range r.opts.Args {
				if strings.EqualFold(k, c.Name) {
					list, ok = v, true
				}
			}
		}
		if !ok || len(list) == 0 {
			list = []string{""}
		}
		for _, a := range list {
			if !r.alive() {
				return
			}
			if !r.invoke(ctx, c.Name, a) {
				return
			}
		}
	}
}

// invoke runs one command and checks its response. It reports whether
// the extension is still there.
func (r *run) invoke(ctx context.Context, name, args string) bool {
	subject := "/" + name
	if args != "" {
		subject += " " + args
	}
	id := r.s.nextID()
	r.w.expect(id, "command_response")
	from := r.s.mark()
	sent, err := r.s.send(proto.CommandInvoked{ID: id, Name: name, Args: args})
	if err != nil {
		r.sendFailed("calls.command", subject, err)
		return false
	}
	began := time.Now()
	rec, err := r.s.reply(ctx, from, "command_response", id, r.t.Command)
	took := time.Since(began)
	if err != nil {
		st, msg := r.waitErr(err, "to command_invoked (C14)", r.t.Command)
		r.rs.add("calls.command", subject, st, msg, sent).Duration = took
		return r.alive()
	}
	c := r.rs.add("calls.command", subject, Pass, "", sent, rec)
	c.Duration = took
	if rec.err != nil {
		c.Status, c.Message = Fail, fmt.Sprintf("the command_response does not decode: %v; zut fails the command at once", rec.err)
		return r.settled(ctx, "calls.command", subject, "after answering "+subject)
	}
	resp := rec.frame.(*proto.CommandResponse)
	c.Status, c.Message = judgeResponse(resp)
	if c.Status == Pass {
		c.Frames = nil
		c.Message += " in " + round(took)
	}
	return r.settled(ctx, "calls.command", subject, "after answering "+subject, sent, rec)
}

// judgeResponse checks a command_response against its action.
func judgeResponse(resp *proto.CommandResponse) (Status, string) {
	payload := map[string]string{
		proto.ActionPrompt: resp.Prompt, proto.ActionInsert: resp.Insert, proto.ActionDisplay: resp.Display,
	}
	switch resp.Action {
	case proto.ActionPrompt, proto.ActionInsert, proto.ActionDisplay:
		if resp.Error == "" && strings.TrimSpace(payload[resp.Action]) == "" {
			return Warn, fmt.Sprintf("action %s with an empty %s; zut has nothing to %s", resp.Action, resp.Action, resp.Action)
		}
	case proto.ActionOpenPanel:
		if resp.OpenPanel == nil {
			return Fail, "action open_panel without open_panel; zut has no panel to open"
		}
	case proto.ActionNoop:
	case "":
		if resp.Error == "" {
			return Warn, "no action and no error; zut does nothing (send action noop to say so)"
		}
	default:
		return Fail, fmt.Sprintf("action %q is not prompt, insert, display, open_panel or noop", resp.Action)
	}
	if resp.Error != "" {
		return Pass, fmt.Sprintf("answered with an error: %q", resp.Error)
	}
	return Pass, fmt.Sprintf("answered %s", resp.Action)
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

// unknownFields repeats a request with a member the extension cannot
// know: an interception when it has one, else a tool call, else a
// command.
func (r *run) unknownFields(ctx context.Context) {
	const id = "calls.unknown_fields"
	const member, value = "zut_test_unknown", `{"note":"a member from a newer zut; ignore it"}`
	var (
		f       proto.Frame
		reply   string
		subject string
		d       time.Duration
	)
	reqID := r.s.nextID()
	switch {
	case r.w.subscribed(proto.EventTurnStart, true):
		f, reply, subject, d = proto.EventIntercept{ID: reqID, Name: proto.EventTurnStart, Step: 1}, "event_intercept_response", "event_intercept turn_start", r.t.Intercept
	case r.w.subscribed(proto.EventToolCall, true):
		f, reply, subject, d = proto.EventIntercept{ID: reqID, Name: proto.EventToolCall, ToolID: "toolu_test_0", ToolName: "read",
			ToolArgs: json.RawMessage(`{"path":"README.md"}`)}, "event_intercept_response", "event_intercept tool_call", r.t.Intercept
	case r.good != nil && !r.good.tool.Interactive:
		f, reply, subject, d = proto.ToolCall{ID: reqID, Name: r.good.tool.Name, Args: r.good.args}, "tool_result", "tool_call "+r.good.tool.Name, r.t.Tool
	default:
		cmds := r.w.usableCommands()
		if len(cmds) == 0 {
			r.rs.add(id, "", Skip, "nothing to request: no commands, tools or interceptions")
			return
		}
		args := ""
		if list := r.opts.Args[cmds[0].Name]; len(list) > 0 {
			args = list[0]
		}
		f, reply, subject, d = proto.CommandInvoked{ID: reqID, Name: cmds[0].Name, Args: args}, "command_response", "command_invoked /"+cmds[0].Name, r.t.Command
	}
	r.w.expect(reqID, reply)
	from := r.s.mark()
	sent, err := r.s.sendExtra(f, member, value)
	if err != nil {
		r.sendFailed(id, subject, err)
		return
	}
	rec, err := r.s.reply(ctx, from, reply, reqID, d)
	if err != nil {
		st, msg := r.waitErr(err, "to "+article(f.Type())+" carrying the member "+member, d)
		r.rs.add(id, subject, st, msg, sent)
		if !r.alive() {
			r.died = true
		}
		return
	}
	if rec.err != nil {
		r.rs.add(id, subject, Fail, fmt.Sprintf("the %s does not decode: %v", reply, rec.err), sent, rec)
		return
	}
	if r.settled(ctx, id, subject, "after a frame with an unknown member", sent, rec) {
		r.rs.add(id, subject, Pass, fmt.Sprintf("answered %s carrying the member %q", article(f.Type()), member))
	}
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
