package exttest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// additionProbes sends what zut sends to an extension that registered
// additive UI: shortcut presses, completion requests, editor keys and
// render requests.
func (r *run) additionProbes(ctx context.Context) {
	r.w.mu.Lock()
	shortcuts := slices.Clone(r.w.shortcuts)
	editor := r.w.editor
	toolRend, msgRend := slices.Clone(r.w.toolRend), slices.Clone(r.w.msgRend)
	r.w.mu.Unlock()

	for _, sc := range shortcuts {
		if strings.TrimSpace(sc.f.Key) == "" {
			r.rs.add("additions.shortcut", "", Fail, "register_shortcut without a key; zut ignores it", sc.rec)
			continue
		}
		key, err := proto.CanonicalKey(sc.f.Key)
		if err != nil {
			r.rs.add("additions.shortcut", sc.f.Key, Fail, fmt.Sprintf("register_shortcut %v; zut ignores it", err), sc.rec)
			continue
		}
		sent, err := r.s.send(proto.Shortcut{Key: key})
		if err != nil {
			r.sendFailed("additions.shortcut", sc.f.Key, err)
			return
		}
		if !r.settled(ctx, "additions.shortcut", sc.f.Key, "after the shortcut "+sc.f.Key, sent) {
			return
		}
		r.rs.add("additions.shortcut", sc.f.Key, Pass, "took the key press")
	}

	for _, c := range r.w.usableCommands() {
		if !c.Complete || !r.hasCap(proto.CapUI2) {
			continue
		}
		rec, sent, took, ok := r.ask(ctx, "additions.complete", "/"+c.Name, "command_completions", r.t.Complete,
			func(id string) proto.Frame { return proto.CommandComplete{ID: id, Name: c.Name, Prefix: ""} })
		if !ok {
			return
		}
		if rec == nil {
			continue
		}
		cc := rec.frame.(*proto.CommandCompletions)
		st, msg := Pass, fmt.Sprintf("%s in %s", plural(len(cc.Items), "completion", "completions"), round(took))
		if cc.Items == nil {
			st, msg = Warn, "command_completions without items; send an empty list for none"
		}
		r.rs.add("additions.complete", "/"+c.Name, st, msg, sent, rec)
	}

	var editorKeys []string
	if editor != nil {
		for _, k := range editor.f.Keys {
			if c, err := proto.CanonicalKey(k); err != nil {
				r.rs.add("additions.editor_key", k, Fail, fmt.Sprintf("set_editor %v; zut ignores that key", err), editor.rec)
			} else {
				editorKeys = append(editorKeys, c)
			}
		}
	}
	if len(editorKeys) > 0 {
		key := editorKeys[0]
		rec, sent, took, ok := r.ask(ctx, "additions.editor_key", key, "editor_key_response", r.t.EditorKey,
			func(id string) proto.Frame { return proto.EditorKey{ID: id, Key: key, Text: "draft of a prompt"} })
		if !ok {
			return
		}
		if rec != nil {
			ek := rec.frame.(*proto.EditorKeyResponse)
			st, msg := Pass, fmt.Sprintf("answered %s in %s", ek.Action, round(took))
			switch ek.Action {
			case proto.EditorPassthrough, proto.EditorConsumed, proto.EditorSubmit:
			case proto.EditorRemap:
				if ek.Key == "" {
					st, msg = Fail, "remap without a key; zut passes the key through"
				} else if _, err := proto.CanonicalKey(ek.Key); err != nil {
					st, msg = Fail, fmt.Sprintf("remap %v; zut passes the key through", err)
				}
			default:
				st, msg = Fail, fmt.Sprintf("action %q is not passthrough, consumed, remap or submit; zut passes the key through", ek.Action)
			}
			r.rs.add("additions.editor_key", key, st, msg, sent, rec)
		}
	}

	for _, tr := range toolRend {
		if strings.TrimSpace(tr.f.ToolName) == "" {
			r.rs.add("additions.render", "", Fail, "register_tool_renderer without a tool_name; zut ignores it", tr.rec)
			continue
		}
		if !tr.f.RenderHeader && !tr.f.RenderBody {
			r.rs.add("additions.render", tr.f.ToolName, Pass, "a static renderer (no render_tool requests)")
			continue
		}
		args := r.sampleArgs(tr.f.ToolName)
		result := "ok: 3 files changed"
		for _, res := range []*string{nil, &result} {
			subject := "render_tool " + tr.f.ToolName + " (running)"
			if res != nil {
				subject = "render_tool " + tr.f.ToolName + " (done)"
			}
			rec, sent, took, ok := r.ask(ctx, "additions.render", subject, "render_tool_response", r.t.Render,
				func(id string) proto.Frame {
					return proto.RenderTool{ID: id, ToolName: tr.f.ToolName, Args: args, Result: res, Width: 80}
				})
			if !ok {
				return
			}
			if rec != nil {
				r.rs.add("additions.render", subject, Pass, "answered in "+round(took), sent, rec).Frames = nil
			}
		}
	}
	for _, mr := range msgRend {
		if strings.TrimSpace(mr.f.Name) == "" {
			r.rs.add("additions.render", "", Fail, "register_message_renderer without a name; zut ignores it", mr.rec)
			continue
		}
		rec, sent, took, ok := r.ask(ctx, "additions.render", "render_message "+mr.f.Name, "render_message_response", r.t.Render,
			func(id string) proto.Frame {
				return proto.RenderMessage{ID: id, Name: mr.f.Name, Content: "**Build fixed**: main.go now defines `run`.", Width: 80}
			})
		if !ok {
			return
		}
		if rec != nil {
			rm := rec.frame.(*proto.RenderMessageResponse)
			st, msg := Pass, fmt.Sprintf("%s in %s", plural(len(rm.Lines), "line", "lines"), round(took))
			for _, l := range rm.Lines {
				if strings.ContainsAny(l, "\n\r") {
					st, msg = Warn, "a line holds a line break; send one string per line"
				}
			}
			r.rs.add("additions.render", "render_message "+mr.f.Name, st, msg, sent, rec)
		}
	}
}

// sampleArgs are arguments for a call of tool name: from its schema when
// the extension registered it, else a bash-like call.
func (r *run) sampleArgs(name string) json.RawMessage {
	for _, t := range r.w.usableTools(nil) {
		if t.Name == name {
			s := parseSchema(t.Schema)
			b, _ := json.Marshal(synth(s, s, "", 0))
			return b
		}
	}
	return json.RawMessage(`{"command":"go test ./...","timeout":120}`)
}

// ask sends the request build makes and waits d for its reply of type
// reply. It records a failure itself; rec is nil then. ok is false when
// the extension went away.
func (r *run) ask(ctx context.Context, id, subject, reply string, d time.Duration, build func(id string) proto.Frame) (rec, sent *record, took time.Duration, ok bool) {
	reqID := r.s.nextID()
	r.w.expect(reqID, reply)
	from := r.s.mark()
	f := build(reqID)
	sent, err := r.s.send(f)
	if err != nil {
		r.sendFailed(id, subject, err)
		return nil, nil, 0, false
	}
	began := time.Now()
	rec, err = r.s.reply(ctx, from, reply, reqID, d)
	took = time.Since(began)
	if err != nil {
		st, msg := r.waitErr(err, "to "+f.Type(), d)
		r.rs.add(id, subject, st, msg, sent).Duration = took
		if !r.alive() {
			r.died = true
			return nil, sent, took, false
		}
		return nil, sent, took, true
	}
	if rec.err != nil {
		r.rs.add(id, subject, Fail, fmt.Sprintf("the %s does not decode: %v", reply, rec.err), sent, rec)
		return nil, sent, took, r.settled(ctx, id, subject, "after its "+reply)
	}
	return rec, sent, took, r.settled(ctx, id, subject, "after its "+reply, sent, rec)
}

// checkAdditions reports the additions checks from what the run saw.
func (r *run) checkAdditions() {
	w := r.w
	w.mu.Lock()
	var additive []string
	for c := range w.caps {
		if proto.IsAdditiveCapability(c) {
			additive = append(additive, c)
		}
	}
	slices.Sort(additive)
	hostReq := slices.Clone(w.hostReq)
	shown := slices.Clone(w.shown)
	options := slices.Clone(w.options)
	added := maps.Clone(w.added)
	w.mu.Unlock()

	if !r.rs.has("additions.capabilities") {
		if len(additive) == 0 {
			r.rs.add("additions.capabilities", "", Skip, "asks for no addition beyond v2")
		} else {
			var used []string
			for _, c := range additive {
				n := added[c]
				switch c {
				case proto.CapEvents2, proto.CapIntercepts2:
					used = append(used, c)
				default:
					used = append(used, fmt.Sprintf("%s (%s)", c, plural(n, "frame", "frames")))
				}
			}
			r.rs.add("additions.capabilities", "", Pass, "asks for "+strings.Join(used, ", ")+"; additive frames come with their capability")
		}
	}

	if len(hostReq) == 0 {
		st := Skip
		msg := "no host_request sent"
		if slices.Contains(additive, proto.CapHostRequests) {
			msg += " (it lists host_requests, but none of the probes led to a request)"
		}
		r.rs.add("additions.host_request", "", st, msg)
	}
	byMethod := map[string]int{}
	var methods []string
	for _, hr := range hostReq {
		if hr.status != Pass {
			r.rs.add("additions.host_request", hr.method, hr.status, hr.msg, hr.rec)
			continue
		}
		if byMethod[hr.method] == 0 {
			methods = append(methods, hr.method)
		}
		byMethod[hr.method]++
	}
	for _, m := range methods {
		r.rs.add("additions.host_request", m, Pass, fmt.Sprintf("answered %s with realistic data", plural(byMethod[m], "request", "requests")))
	}

	if len(shown) == 0 && !r.rs.has("additions.ui") {
		r.rs.add("additions.ui", "", Skip, "no ui2 frame sent")
	}
	good := map[string]int{}
	var kinds []string
	for _, f := range shown {
		if f.status != Pass {
			r.rs.add(f.id, f.subject, f.status, f.msg, f.rec)
			continue
		}
		if good[f.subject] == 0 {
			kinds = append(kinds, f.subject)
		}
		good[f.subject]++
	}
	for _, k := range kinds {
		r.rs.add("additions.ui", k, Pass, plural(good[k], "well-formed frame", "well-formed frames"))
	}

	if !r.rs.has("additions.shortcut") {
		r.rs.add("additions.shortcut", "", Skip, "no shortcut registered")
	}
	if !r.rs.has("additions.complete") {
		r.rs.add("additions.complete", "", Skip, "no command registered with complete: true")
	}
	if !r.rs.has("additions.editor_key") {
		r.rs.add("additions.editor_key", "", Skip, "no set_editor keys")
	}
	if !r.rs.has("additions.render") {
		r.rs.add("additions.render", "", Skip, "no renderer registered")
	}
	if len(options) == 0 {
		r.rs.add("additions.option", "", Skip, "no option registered")
	}
	var names []string
	for _, o := range options {
		switch {
		case strings.TrimSpace(o.f.Name) == "":
			r.rs.add("additions.option", "", Fail, "register_option without a name; zut ignores it", o.rec)
		case slices.Contains(names, o.f.Name):
			r.rs.add("additions.option", o.f.Name, Warn, "registered twice; the first registration keeps its default", o.rec)
		default:
			r.rs.add("additions.option", o.f.Name, Pass, fmt.Sprintf("default %q; options.get resolves it", o.f.Default))
		}
		names = append(names, o.f.Name)
	}
}
