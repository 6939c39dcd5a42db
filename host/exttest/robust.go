package exttest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// rawFrame names the type of a line the tester builds by hand.
type rawFrame string

func (f rawFrame) Type() string { return string(f) }

// unknownFrame sends a frame of a type no zut sends yet. The extension
// passes when it is still there after settling and answers the next
// request (an extension busy exiting can look calm for a moment).
func (r *run) unknownFrame(ctx context.Context) {
	const id = "robustness.unknown_frame"
	line := []byte(`{"type":"zut_test_unknown","id":"unknown-1","payload":{"note":"a frame from a newer zut; ignore it"}}`)
	sent, err := r.s.sendLine(line, rawFrame("zut_test_unknown"), 1)
	if err != nil {
		r.sendFailed(id, "", err)
		return
	}
	if !r.settled(ctx, id, "", "after a frame of an unknown type", sent) {
		return
	}
	if f, reqID, reply, d, ok := r.probeRequest(); ok {
		line, err := proto.Marshal(f)
		if err != nil {
			r.rs.add(id, "", Fail, err.Error())
			return
		}
		r.w.expect(reqID, reply)
		from := r.s.mark()
		next, err := r.s.sendLine(line, f, 1)
		if err != nil {
			r.sendFailed(id, f.Type(), err)
			return
		}
		if _, err := r.s.reply(ctx, from, reply, reqID, d); err != nil {
			st, msg := r.waitErr(err, "to "+article(f.Type())+" after a frame of an unknown type", d)
			r.rs.add(id, f.Type(), st, msg, sent, next)
			if !r.alive() {
				r.died = true
			}
			return
		}
	}
	r.rs.add(id, "", Pass, `ignored a "zut_test_unknown" frame and kept running`)
}

// slowHost writes one request in four pieces, 20 ms apart, as a busy host
// or a pipe might deliver it.
func (r *run) slowHost(ctx context.Context) {
	const id = "robustness.slow_host"
	f, reqID, reply, d, ok := r.probeRequest()
	if !ok {
		r.rs.add(id, "", Skip, "nothing to request: no commands, tools or interceptions")
		return
	}
	line, err := proto.Marshal(f)
	if err != nil {
		r.rs.add(id, "", Fail, err.Error())
		return
	}
	r.w.expect(reqID, reply)
	from := r.s.mark()
	sent, err := r.s.sendLine(line, f, 4)
	if err != nil {
		r.sendFailed(id, f.Type(), err)
		return
	}
	rec, err := r.s.reply(ctx, from, reply, reqID, d)
	if err != nil {
		st, msg := r.waitErr(err, "to "+article(f.Type())+" written in 4 pieces", d)
		r.rs.add(id, f.Type(), st, msg, sent)
		if !r.alive() {
			r.died = true
		}
		return
	}
	if r.settled(ctx, id, f.Type(), "after a request written in pieces", sent, rec) {
		r.rs.add(id, f.Type(), Pass, "answered "+article(f.Type())+" written in 4 pieces, 20 ms apart")
	}
}

// probeRequest is a request the extension answers, for the checks that
// need one: an interception it subscribed to, its tool, or its first
// command. ok is false when it offers none of them.
func (r *run) probeRequest() (f proto.Frame, reqID, reply string, d time.Duration, ok bool) {
	reqID = r.s.nextID()
	cmds := r.w.usableCommands()
	switch {
	case r.w.subscribed(proto.EventTurnStart, true):
		return proto.EventIntercept{ID: reqID, Name: proto.EventTurnStart, Step: 2}, reqID, "event_intercept_response", r.t.Intercept, true
	case r.w.subscribed(proto.EventToolCall, true):
		return proto.EventIntercept{ID: reqID, Name: proto.EventToolCall, ToolID: "toolu_test_3", ToolName: "read",
			ToolArgs: []byte(`{"path":"go.mod"}`)}, reqID, "event_intercept_response", r.t.Intercept, true
	case r.good != nil && !r.good.tool.Interactive:
		return proto.ToolCall{ID: reqID, Name: r.good.tool.Name, Args: r.good.args}, reqID, "tool_result", r.t.Tool, true
	case len(cmds) > 0:
		args := ""
		if list := r.opts.Args[cmds[0].Name]; len(list) > 0 {
			args = list[0]
		}
		return proto.CommandInvoked{ID: reqID, Name: cmds[0].Name, Args: args}, reqID, "command_response", r.t.Command, true
	}
	return nil, "", "", 0, false
}

// shutdown ends the main run as zut does (C21) and reports
// robustness.shutdown. selfExit tells afterExit whether the extension
// left on its own, so that its process group can be checked.
func (r *run) shutdown(ctx context.Context) {
	const id = "robustness.shutdown"
	report := r.plan.runs("robustness")
	add := func(st Status, msg string, recs ...*record) {
		if report || st == Fail {
			r.rs.add(id, "", st, msg, recs...)
		}
	}
	if !r.alive() {
		if r.died {
			add(Skip, "the extension was gone before shutdown (see above)")
		} else {
			add(r.goneStatus(), r.goneMsg("before the host sent shutdown"))
		}
		r.selfExit = r.s.p.exited()
		return
	}
	if r.plan.runs("events") && r.w.subscribed(proto.EventSessionShutdown, false) {
		r.event(ctx, proto.Event{Name: proto.EventSessionShutdown})
	}
	from := r.s.mark()
	sent, err := r.s.send(proto.Shutdown{})
	if err != nil {
		add(r.goneStatus(), r.goneMsg("when the host sent shutdown"))
		r.selfExit = r.s.p.exited()
		return
	}
	began := time.Now()
	ack, aerr := r.s.await(ctx, from, r.t.Shutdown, func(rec *record) bool { return rec.typ() == "shutdown_ack" })
	exited := r.s.p.waitExit(ctx, r.t.Shutdown-time.Since(began))
	if ctx.Err() != nil {
		return
	}
	ackAfter, exitAfter := "", ""
	if aerr == nil {
		ackAfter = round(ack.at - sent.at)
	}
	if exited {
		exitAfter = round(r.s.p.exitAt.Sub(began))
	}
	switch {
	case aerr == nil && exited:
		add(Pass, fmt.Sprintf("shutdown_ack after %s, exit (%s) after %s", ackAfter, r.s.p.status(), exitAfter))
	case exited:
		add(Fail, fmt.Sprintf("exited (%s) without shutdown_ack; answer shutdown with shutdown_ack, then exit (spec: shutdown)", r.s.p.status()), sent)
	case aerr == nil:
		add(Fail, fmt.Sprintf("sent shutdown_ack after %s but was still running %v after shutdown; zut sends SIGTERM then (C21)", ackAfter, r.t.Shutdown), sent, ack)
	default:
		add(Fail, fmt.Sprintf("neither shutdown_ack nor an exit within %v of shutdown; zut sends SIGTERM then (C21)", r.t.Shutdown), sent)
	}
	r.selfExit = exited
}

// afterExit makes the checks that need the whole run: the process group,
// stdout, frames, stderr, ids, registrations and additions.
func (r *run) afterExit(ctx context.Context) {
	p := r.s.p
	if r.plan.runs("robustness") {
		switch {
		case !p.exited():
			r.rs.add("robustness.process_group", "", Skip, "not checked: the extension had to be stopped, and SIGTERM reaches its whole group")
		case !r.selfExit:
			r.rs.add("robustness.process_group", "", Skip, "not checked: the extension had to be stopped")
		default:
			if left := p.leftovers(r.t.Group); len(left) > 0 {
				var desc []string
				for _, m := range left {
					desc = append(desc, fmt.Sprintf("%d %s", m.PID, m.Command))
				}
				r.rs.add("robustness.process_group", "", Fail, fmt.Sprintf("%s of its process group still ran %v after it exited: %s; stop what you start before exiting (zut kills the group, C21)",
					plural(len(left), "process", "processes"), r.t.Group, strings.Join(desc, "; ")))
			} else if !r.s.ended(r.t.Group) {
				r.rs.add("robustness.process_group", "", Fail, fmt.Sprintf("its stdout or stderr was still open %v after it exited: a process it started outside its group (setsid?) holds them; stop what you start before exiting", r.t.Group))
			} else {
				r.rs.add("robustness.process_group", "", Pass, "nothing of its process group outlived it")
			}
		}
	}
	r.s.close() // kill what is left, take the last lines

	r.w.mu.Lock()
	found := append([]finding(nil), r.w.found...)
	r.w.mu.Unlock()
	lines := 0
	for _, rec := range r.s.since(0) {
		if !rec.fromHost {
			lines++
		}
	}
	counts := map[string]int{}
	for _, f := range found {
		r.rs.add(f.id, f.subject, f.status, f.msg, f.rec)
		counts[f.id]++
	}
	if counts["robustness.stdout"] == 0 {
		r.rs.add("robustness.stdout", "", Pass, fmt.Sprintf("%s, every one a frame", plural(lines, "line", "lines")))
	}
	if counts["robustness.frames"] == 0 {
		r.rs.add("robustness.frames", "", Pass, "every frame decoded and made sense")
	}
	if counts["calls.ids"] == 0 && (r.plan.runs("calls") || r.plan.runs("events")) {
		r.rs.add("calls.ids", "", Pass, "every reply echoed the id of a request, once")
	}
	n := p.stderr.total.Load()
	switch {
	case n > int64(r.opts.MaxStderr):
		r.rs.add("robustness.stderr", "", Warn, fmt.Sprintf("%d bytes on stderr during the test, over %d; zut appends stderr to the extension's log file, keep it to what helps", n, r.opts.MaxStderr))
	default:
		r.rs.add("robustness.stderr", "", Pass, fmt.Sprintf("%d bytes on stderr", n))
	}
	if r.w.hello == nil || !r.w.window {
		return
	}
	r.checkRegistrations()
	if r.plan.runs("events") {
		r.eventsSummary()
	}
	if r.plan.runs("additions") {
		r.checkAdditions()
	}
	_ = ctx
}
