package exttest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// settled waits for the extension to settle after a probe and reports a
// death as a failure of check id.
func (r *run) settled(ctx context.Context, id, subject, doing string, recs ...*record) bool {
	if r.s.settle(ctx) {
		return true
	}
	if ctx.Err() == nil {
		r.rs.add(id, subject, r.goneStatus(), r.goneMsg(doing), recs...)
		r.died = true
	}
	return false
}

// sendFailed reports a frame the tester could not write: the extension
// exited or stopped reading its stdin (the error says which, and goneMsg
// repeats it).
func (r *run) sendFailed(id, subject string, _ error) {
	r.s.p.waitExit(context.Background(), 100*time.Millisecond)
	r.rs.add(id, subject, r.goneStatus(), r.goneMsg("while the host wrote to it"))
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
	case proto.ActionPrompt:
		if resp.Error == "" && strings.TrimSpace(resp.Prompt) == "" {
			return Fail, "action prompt without prompt text; zut has no message to submit (spec: command_response, prompt submits prompt as a user message)"
		}
	case proto.ActionInsert, proto.ActionDisplay:
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
