package exttest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// panels checks the panels the extension opened, presses keys on the
// open one and closes it as Esc does.
func (r *run) panels(ctx context.Context) {
	r.w.mu.Lock()
	opened := append([]*panel(nil), r.w.opened...)
	cur := r.w.panel
	caps := r.w.caps[proto.CapPanels]
	r.w.mu.Unlock()
	if len(opened) == 0 {
		r.rs.add("panels.open", "", Skip, "no command opened a panel")
		return
	}
	for _, p := range opened {
		switch {
		case p.p.ID == "":
			r.rs.add("panels.open", "", Fail, "a panel without an id; zut cannot open it", p.rec)
		case !caps:
			r.rs.add("panels.open", p.p.ID, Warn, "opened without panels in hello.capabilities (C6)", p.rec)
		case len(p.p.Lines) == 0 && p.p.Title == "":
			r.rs.add("panels.open", p.p.ID, Warn, "the panel has neither a title nor lines; the user sees an empty box", p.rec)
		default:
			r.rs.add("panels.open", p.p.ID, Pass, fmt.Sprintf("title %q, %s", p.p.Title, plural(len(p.p.Lines), "line", "lines")))
		}
	}
	if cur == nil {
		r.rs.add("panels.keys", "", Skip, "no panel is open any more (the extension closed it)")
		return
	}
	id := cur.p.ID
	r.w.mu.Lock()
	before := len(cur.renders)
	r.w.mu.Unlock()
	keys := []proto.PanelKey{{Key: "down"}, {Key: "up"}, {Key: "tab"}, {Key: "rune", Text: "x"}}
	var names []string
	for _, k := range keys {
		k.PanelID = id
		sent, err := r.s.send(k)
		if err != nil {
			r.sendFailed("panels.keys", id, err)
			return
		}
		if !r.settled(ctx, "panels.keys", id, "after the key "+k.Key, sent) {
			return
		}
		n := k.Key
		if k.Key == "rune" {
			n = k.Text
		}
		names = append(names, n)
	}
	r.w.mu.Lock()
	redraws := len(cur.renders) - before
	still := r.w.panel == cur
	if still {
		r.w.closeLocked(cur)
	}
	r.w.mu.Unlock()
	r.rs.add("panels.keys", id, Pass, fmt.Sprintf("took %s; %s", strings.Join(names, ", "), plural(redraws, "redraw", "redraws")))
	if !still {
		r.rs.add("panels.close", id, Skip, "the extension closed the panel itself")
		return
	}
	if !r.settled(ctx, "panels.close", id, "after panel_close") {
		return
	}
	// Keep reading for the grace period: a redraw that comes late is as
	// wrong as one at once.
	r.w.mu.Lock()
	closedAt := cur.closedAt
	r.w.mu.Unlock()
	late, err := r.s.await(ctx, closedAt, r.t.Grace, func(rec *record) bool {
		pr, ok := rec.frame.(*proto.PanelRender)
		return ok && pr.PanelID == id
	})
	var g *goneError
	switch {
	case err == nil:
		r.w.mu.Lock()
		n := len(cur.after)
		r.w.mu.Unlock()
		when := ""
		for _, rec := range r.s.since(closedAt) {
			if rec.fromHost && rec.typ() == "panel_close" {
				when = fmt.Sprintf(" (the first %s after panel_close)", round(late.at-rec.at))
				break
			}
		}
		r.rs.add("panels.close", id, Fail, fmt.Sprintf("redrew the panel %s after the host closed it%s; once panel_close arrives the panel's lifetime has ended: send no panel_render for it (spec: panel_close, C17)",
			plural(max(n, 1), "time", "times"), when), late)
	case errors.As(err, &g):
		r.rs.add("panels.close", id, r.goneStatus(), r.goneMsg("after panel_close"))
		r.died = true
	case ctx.Err() != nil:
	default:
		r.rs.add("panels.close", id, Pass, fmt.Sprintf("no redraw in the %v after panel_close", r.t.Grace))
	}
}

// state checks the details the tools returned and hands the latest back
// in the session events the extension subscribed to.
func (r *run) state(ctx context.Context) {
	if len(r.details) == 0 {
		r.rs.add("state.details", "", Skip, "no tool_result carried details")
		r.rs.add("state.restore", "", Skip, "no state to hand back")
		return
	}
	var last *proto.ToolResult
	bad := false
	largest := 0
	for _, rec := range r.details {
		res := rec.frame.(*proto.ToolResult)
		n := len(res.Details)
		largest = max(largest, n)
		if n > host.MaxDetails {
			bad = true
			r.rs.add("state.details", "", Fail, fmt.Sprintf("details of %d bytes, over 256 KiB; zut does not save them and warns the user (C19)", n), rec)
			continue
		}
		if string(res.Details) != "null" {
			last = res
		}
	}
	if !bad {
		r.rs.add("state.details", "", Pass, fmt.Sprintf("%s with details, the largest %d bytes", plural(len(r.details), "result", "results"), largest))
	}
	if last == nil {
		r.rs.add("state.restore", "", Skip, "every saved state was null (cleared)")
		return
	}
	var subscribed []string
	for _, n := range []string{proto.EventSessionForked, proto.EventSessionCompacted, proto.EventSessionSwitched, proto.EventSessionOpened} {
		if r.w.subscribed(n, false) {
			subscribed = append(subscribed, n)
		}
	}
	if len(subscribed) == 0 {
		r.rs.add("state.restore", "", Warn, "returns details but subscribes to no session event, so zut can never hand the state back (subscribe to session_opened and session_switched)")
		return
	}
	sess := r.w.testSession()
	steps := []struct {
		ic *proto.EventIntercept
		ev string
	}{
		{&proto.EventIntercept{Name: proto.EventBeforeFork, TargetID: "entry-3", IsUserMessage: true, UserText: "Why does the build fail?"}, proto.EventSessionForked},
		{&proto.EventIntercept{Name: proto.EventBeforeCompact, EstimatedTokens: 170000, ContextLimit: 200000, UsagePercent: 85, MessageCount: 42, IsAutomatic: true}, proto.EventSessionCompacted},
		{&proto.EventIntercept{Name: proto.EventBeforeSessionSwitch, Reason: "resume"}, proto.EventSessionSwitched},
	}
	var took []string
	for _, st := range steps {
		if _, ok := r.intercept(ctx, *st.ic, st.ic.Name); !ok {
			return
		}
		if !r.w.subscribed(st.ev, false) {
			continue
		}
		sent, err := r.s.send(proto.Event{Name: st.ev, Session: sess, State: last.Details})
		if err != nil {
			r.sendFailed("state.restore", st.ev, err)
			return
		}
		if !r.settled(ctx, "state.restore", st.ev, "after its state came back in "+st.ev, sent) {
			return
		}
		took = append(took, st.ev)
	}
	if len(took) == 0 {
		r.rs.add("state.restore", "", Skip, "subscribes only to session_opened, which came before any state")
		return
	}
	msg := "took its state back in " + strings.Join(took, ", ")
	if c := r.stateful; c != nil {
		res, ok := r.callTool(ctx, "state.restore", c.tool, c.args, c.tool.Name)
		if !ok || res == nil {
			return
		}
		last := &r.rs.checks[len(r.rs.checks)-1]
		if last.Status == Pass {
			last.Message = msg + "; the next call was " + last.Message
		}
		return
	}
	r.rs.add("state.restore", "", Pass, msg)
}
