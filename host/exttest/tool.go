package exttest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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

// callTools calls every tool with the arguments of --tool-args, or else
// with arguments built from its schema, then with arguments that break
// it. A tool that lets a call pass its deadline is not called again, so
// that it costs the run one deadline.
func (r *run) callTools(ctx context.Context) {
	tools := r.w.usableTools(r.opts.builtinTools())
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
		given := r.opts.ToolArgs[t.Name]
		if len(given) == 0 {
			args, _ := json.Marshal(synth(s, s, "", 0))
			given = []json.RawMessage{args}
		}
		for _, args := range given {
			res, ok := r.callTool(ctx, "calls.tool", t, args, t.Name+" "+string(args))
			if !ok {
				return
			}
			if res != nil && !res.IsError && r.good == nil {
				r.good = &toolCall{tool: t, args: args}
			}
			if r.unanswered[t.Name] {
				break
			}
		}
		if r.unanswered[t.Name] {
			r.rs.add("calls.tool_invalid", t.Name, Skip, "not called: the tool did not answer in time (see calls.tool)")
			continue
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

// toolArgs are the arguments the tester calls tool t with outside
// calls.tool: the first of --tool-args, or built from its schema.
func (r *run) toolArgs(t proto.RegisterTool) json.RawMessage {
	if given := r.opts.ToolArgs[t.Name]; len(given) > 0 {
		return given[0]
	}
	s := parseSchema(t.Schema)
	args, _ := json.Marshal(synth(s, s, "", 0))
	return args
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
		if errors.Is(err, errTimeout) {
			r.unanswered[t.Name] = true
			msg += "; the tester calls it no more"
		}
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

// toolCancel checks tool_cancel (spec: tool_cancel): a cancel for an id
// the extension never saw is ignored; a call still running when its cancel
// arrives is stopped, which the tester observes by reading on for
// Timeouts.Grace and failing on a tool_result or a panel left open; a call
// that finished before it could be cancelled takes a cancel for its id as
// a no-op. Each case ends with a call that must be answered.
func (r *run) toolCancel(ctx context.Context) {
	const id = "cancel.tool_cancel"
	if !r.hasCap(proto.CapToolCancel) {
		r.rs.add(id, "", Skip, "tool_cancel is not in hello.capabilities, so zut never sends it (C6)")
		return
	}
	tools := r.w.usableTools(r.opts.builtinTools())
	var t *proto.RegisterTool
	for i := range tools {
		if tools[i].Deferred && !r.activated(tools[i].Name) || r.unanswered[tools[i].Name] {
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
	unknown, err := r.s.send(proto.ToolCancel{ID: "zut-test-never-called"})
	if err != nil {
		r.sendFailed(id, t.Name, err)
		return
	}
	if !r.settled(ctx, id, "unknown id", "after a tool_cancel for an id it never got", unknown) {
		return
	}
	args := r.toolArgs(*t)
	callID := r.s.nextID()
	r.w.expect(callID, "tool_result")
	from := r.s.mark()
	sent, err := r.s.send(proto.ToolCall{ID: callID, Name: t.Name, Args: args})
	if err != nil {
		r.sendFailed(id, t.Name, err)
		return
	}
	// Let the call reach the extension and either finish or go idle
	// waiting: only then is a cancel one it can act on.
	if !r.settled(ctx, id, t.Name, "after its tool_call", sent) {
		return
	}
	idle := r.s.idle
	isResult := func(rec *record) bool { return isReplyTo(rec, "tool_result", callID) }
	finished := r.found(from, isResult)
	cancelAt := r.s.mark()
	cancel, err := r.s.send(proto.ToolCancel{ID: callID})
	if err != nil {
		r.sendFailed(id, t.Name, err)
		return
	}
	var how string
	switch {
	case finished != nil:
		if !r.settled(ctx, id, t.Name, "after a tool_cancel for a call it had answered", sent, finished, cancel) {
			return
		}
		how = fmt.Sprintf("the call finished in %s, before a cancel could reach it; a tool_cancel for the answered id was ignored, as it should be",
			round(finished.at-sent.at))
	default:
		st, msg, late := r.watchCancel(ctx, cancelAt, isResult, idle)
		switch {
		case st == Fail && late != nil:
			r.rs.add(id, t.Name, Fail, msg, sent, cancel, late)
			return
		case st == Fail:
			r.rs.add(id, t.Name, Fail, msg, sent, cancel)
			r.died = true
			return
		case ctx.Err() != nil:
			return
		case st == Warn:
			r.rs.add(id, t.Name, Warn, msg, sent, cancel)
			r.settled(ctx, id, t.Name, "after tool_cancel", sent, cancel)
			return
		}
		how = msg
		if !r.settled(ctx, id, t.Name, "after tool_cancel", sent, cancel) {
			return
		}
	}
	var open string
	r.w.mu.Lock()
	if p := r.w.panel; p != nil && p.rec.seq >= from {
		open = p.p.ID
	}
	r.w.mu.Unlock()
	if open != "" {
		r.rs.add(id, t.Name, Fail, fmt.Sprintf("left the panel %q it opened for the call open %v after tool_cancel; close it when the call is cancelled (spec: tool_cancel)", open, r.t.Grace), sent, cancel)
		return
	}
	again, ok := r.callTool(ctx, id, *t, args, t.Name+" (the call after a cancelled one)")
	if !ok || again == nil {
		return
	}
	// callTool recorded the follow-up call; say what the cancel did.
	last := &r.rs.checks[len(r.rs.checks)-1]
	if last.Status == Pass {
		last.Subject = t.Name
		last.Message = how + "; the next call was " + last.Message
	}
}

// watchCancel keeps reading for Timeouts.Grace after a tool_cancel was
// sent for a call in progress (from is the index before the cancel) and
// judges what follows. It watches the extension's stdin pipe meanwhile:
// a tool_result written before the extension read the cancel is a race
// zut allows (it ignores the result); one written after the extension
// read it is a call that went on, and fails. Where the pipe cannot be
// watched, an extension that was idle with the call running is taken to
// have read the cancel. It returns Pass with what happened, Warn for a
// cancel still unread at the end of the grace period, or Fail (late is
// the result then; nil when the extension went away).
func (r *run) watchCancel(ctx context.Context, from int, isResult func(*record) bool, idle bool) (st Status, msg string, late *record) {
	began := time.Now()
	deadline := began.Add(r.t.Grace)
	var consumed time.Duration = -1 // when the cancel was seen read, since it was sent
	outFirst := false               // output was waiting before the cancel was read
	watchable := unread(r.s.p.stdin) >= 0
	for {
		if rec := r.found(from, isResult); rec != nil {
			switch {
			case !watchable && idle, watchable && consumed >= 0 && !outFirst:
				return Fail, fmt.Sprintf("answered the cancelled call %s after tool_cancel, which it had read; on tool_cancel stop the work and send no tool_result for it (spec: tool_cancel)",
					round(time.Since(began))), rec
			}
			return Pass, "the call finished as the cancel arrived, before the extension read it (a race zut allows: it ignores that result)", nil
		}
		if !r.alive() {
			return Fail, r.goneMsg("after tool_cancel"), nil
		}
		if ctx.Err() != nil {
			return Skip, "", nil
		}
		if watchable && consumed < 0 {
			if unread(r.s.p.stdout) > 0 {
				outFirst = true
			}
			if unread(r.s.p.stdin) == 0 {
				consumed = time.Since(began)
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if watchable && consumed < 0 {
		return Warn, fmt.Sprintf("had not read the tool_cancel %v after it was sent (busy with the call?); read stdin while a tool runs, so that a cancel stops it (spec: tool_cancel)", r.t.Grace), nil
	}
	return Pass, fmt.Sprintf("stopped the call: no tool_result in the %v after tool_cancel", r.t.Grace), nil
}
