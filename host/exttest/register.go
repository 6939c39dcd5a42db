package exttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// validToolName is what model APIs accept: 1 to 64 letters, digits, '_'
// or '-'.
func validToolName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validCommandName is what zut's host accepts: one word without spaces or
// slashes.
func validCommandName(name string) bool {
	n := strings.TrimSpace(name)
	return n != "" && !strings.ContainsAny(n, " \t\r\n/")
}

// usableCommands are the commands zut would accept, each name once.
func (w *world) usableCommands() []proto.RegisterCommand {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []proto.RegisterCommand
	for _, c := range w.commands {
		name := strings.TrimSpace(c.f.Name)
		if validCommandName(name) && !slices.ContainsFunc(out, func(o proto.RegisterCommand) bool { return strings.EqualFold(o.Name, name) }) {
			f := c.f
			f.Name = name
			out = append(out, f)
		}
	}
	return out
}

// usableTools are the tools zut would offer, each name once, reserved
// names left out.
func (w *world) usableTools(builtins []string) []proto.RegisterTool {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []proto.RegisterTool
	for _, t := range w.tools {
		n := t.f.Name
		if validToolName(n) && !host.Reserved(n) && !slices.Contains(builtins, n) &&
			!slices.ContainsFunc(out, func(o proto.RegisterTool) bool { return o.Name == n }) && schemaUsable(t.f.Schema) {
			out = append(out, t.f)
		}
	}
	return out
}

// schemaUsable reports whether zut keeps a tool with this schema: absent,
// or a JSON object.
func schemaUsable(raw json.RawMessage) bool {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return len(raw) == 0
	}
	_, ok := v.(map[string]any)
	return ok || v == nil
}

func lateNote(late bool) string {
	if late {
		return " (after ready)"
	}
	return ""
}

// checkRegistrations reports the registration checks over every
// registration of the run, the late ones included.
func (r *run) checkRegistrations() {
	w := r.w
	w.mu.Lock()
	commands, tools, subs := slices.Clone(w.commands), slices.Clone(w.tools), slices.Clone(w.subs)
	caps := w.caps
	opened := len(w.opened)
	w.mu.Unlock()

	if len(commands) == 0 {
		r.rs.add("registration.commands", "", Skip, "no commands registered")
	}
	var seen []string
	for _, c := range commands {
		name := strings.TrimSpace(c.f.Name)
		subject := "/" + c.f.Name + lateNote(c.late)
		switch {
		case !validCommandName(name):
			r.rs.add("registration.commands", subject, Fail, fmt.Sprintf("%q is not one word without spaces or slashes; zut ignores the registration", c.f.Name), c.rec)
		case slices.ContainsFunc(seen, func(s string) bool { return strings.EqualFold(s, name) }):
			r.rs.add("registration.commands", subject, Warn, "registered again (names compare without case); zut keeps the first (C8)", c.rec)
		case slices.ContainsFunc(r.opts.BuiltinCommands, func(s string) bool { return strings.EqualFold(s, name) }):
			r.rs.add("registration.commands", subject, Warn, "zut has a built-in /"+name+", which shadows it (C8)", c.rec)
		default:
			msg := "valid"
			if strings.TrimSpace(c.f.Description) == "" {
				r.rs.add("registration.commands", subject, Warn, "no description; /help and completion show nothing for it", c.rec)
				break
			}
			r.rs.add("registration.commands", subject, Pass, msg)
		}
		seen = append(seen, name)
	}

	if len(tools) == 0 {
		r.rs.add("registration.tools", "", Skip, "no tools registered")
		r.rs.add("registration.schema", "", Skip, "no tools registered")
	}
	var names []string
	for _, t := range tools {
		n := t.f.Name
		subject := n + lateNote(t.late)
		switch {
		case !validToolName(n):
			r.rs.add("registration.tools", subject, Fail, fmt.Sprintf("%q is not 1 to 64 letters, digits, '_' or '-'; zut ignores the registration", n), t.rec)
		case host.Reserved(n):
			r.rs.add("registration.tools", subject, Fail, fmt.Sprintf("%q is a reserved tool name (C9); zut never calls this tool, rename it", n), t.rec)
		case slices.Contains(r.opts.builtinTools(), n):
			r.rs.add("registration.tools", subject, Fail, fmt.Sprintf("zut's built-in tool %q shadows it while active, so zut never calls this tool unless the user switches %s off (--no-tools %s); rename it (spec: register_tool)", n, n, n), t.rec)
		case slices.Contains(names, n):
			r.rs.add("registration.tools", subject, Warn, "registered again; zut keeps the first registration (C8)", t.rec)
		case strings.TrimSpace(t.f.Description) == "":
			r.rs.add("registration.tools", subject, Warn, "no description; the model has only the name to go by", t.rec)
		default:
			msg := "valid"
			switch {
			case t.f.Interactive:
				msg += ", interactive (no reply deadline)"
			case t.f.Deferred:
				msg += ", deferred"
			}
			r.rs.add("registration.tools", subject, Pass, msg)
		}
		names = append(names, n)
		r.checkSchema(t)
	}

	r.checkSubscriptions(subs, caps)
	r.checkLate(commands, tools, subs)

	var missing []string
	if len(commands) > 0 && !caps[proto.CapCommands] {
		missing = append(missing, "registers commands without listing commands")
	}
	if len(tools) > 0 && !caps[proto.CapTools] {
		missing = append(missing, "registers tools without listing tools")
	}
	if opened > 0 && !caps[proto.CapPanels] {
		missing = append(missing, "opens a panel without listing panels")
	}
	if r.sentAlert() && !caps[proto.CapAlerts] {
		missing = append(missing, "sends alert frames without listing alerts")
	}
	if len(missing) > 0 {
		r.rs.add("registration.declared", "", Warn, strings.Join(missing, "; ")+" in hello.capabilities (C6)", w.helloRec)
	} else {
		r.rs.add("registration.declared", "", Pass, "the capabilities in hello cover what it registers")
	}
}

func (r *run) sentAlert() bool {
	for _, rec := range r.s.since(0) {
		if _, ok := rec.frame.(*proto.Alert); ok && !rec.fromHost {
			return true
		}
	}
	return false
}

// checkSchema reports registration.schema for one tool.
func (r *run) checkSchema(t *reg[proto.RegisterTool]) {
	subject := t.f.Name + lateNote(t.late)
	issues := checkSchema(t.f.Schema)
	worst := Pass
	var msgs []string
	for _, i := range issues {
		if i.status == Fail || worst == Pass {
			worst = i.status
		}
		msgs = append(msgs, i.String())
	}
	if len(msgs) > 0 {
		if len(msgs) > 4 {
			msgs = append(msgs[:4], fmt.Sprintf("and %d more", len(msgs)-4))
		}
		r.rs.add("registration.schema", subject, worst, strings.Join(msgs, "; "), t.rec)
		return
	}
	if len(t.f.Schema) == 0 {
		r.rs.add("registration.schema", subject, Pass, `no schema; zut sends {"type":"object"}`)
		return
	}
	s := parseSchema(t.f.Schema)
	args := synth(s, s, "", 0)
	if errs := validate(s, s, args, "", 0); len(errs) > 0 {
		r.rs.add("registration.schema", subject, Warn, "the tester could not build arguments that satisfy it: "+strings.Join(errs, "; "), t.rec)
		return
	}
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	r.rs.add("registration.schema", subject, Pass, fmt.Sprintf("object schema, %s, %d required", plural(len(props), "property", "properties"), len(req)))
}

// checkSubscriptions reports registration.subscribe and the additive
// subscriptions made without their capability.
func (r *run) checkSubscriptions(subs []*reg[proto.Subscribe], caps map[string]bool) {
	if len(subs) == 0 {
		r.rs.add("registration.subscribe", "", Skip, "no subscribe frame")
		return
	}
	var events, intercepts []string
	problems := 0
	for _, s := range subs {
		for _, pass := range []struct {
			names     []string
			intercept bool
		}{{s.f.Events, false}, {s.f.Intercept, true}} {
			for _, n := range pass.names {
				c := proto.EventCapability(n, pass.intercept)
				what := "subscribes to"
				if pass.intercept {
					what = "intercepts"
				}
				switch {
				case c == "-" && pass.intercept && proto.EventCapability(n, false) != "-":
					problems++
					r.rs.add("registration.subscribe", n, Warn, fmt.Sprintf("%q cannot be intercepted; zut never sends event_intercept for it (subscribe to it in events instead)", n), s.rec)
				case c == "-":
					problems++
					r.rs.add("registration.subscribe", n, Warn, fmt.Sprintf("%s %q, which zut never sends; it keeps the name and notes it", what, n), s.rec)
				case c != "" && !caps[c]:
					problems++
					r.rs.add("additions.capabilities", n, Fail, fmt.Sprintf("%s %q without the capability %q in hello; zut drops it with a warning (C6)", what, n, c), s.rec)
				case pass.intercept:
					intercepts = append(intercepts, n)
				default:
					events = append(events, n)
				}
			}
		}
	}
	if problems == 0 || len(events)+len(intercepts) > 0 {
		msg := "events: " + orNone(events) + "; intercepts: " + orNone(intercepts)
		r.rs.add("registration.subscribe", "", Pass, msg)
	}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// checkLate reports registration.late.
func (r *run) checkLate(commands []*reg[proto.RegisterCommand], tools []*reg[proto.RegisterTool], subs []*reg[proto.Subscribe]) {
	n := 0
	for _, c := range commands {
		if c.late {
			n++
		}
	}
	for _, t := range tools {
		if t.late {
			n++
		}
	}
	lateSub := false
	for _, s := range subs {
		if s.late {
			lateSub = true
			r.rs.add("registration.late", "subscribe", Fail, "subscribe after ready; the spec says to send it once after hello and before ready, and zut builds its event routes when the window closes: send it before ready", s.rec)
		}
	}
	switch {
	case n > 0:
		r.rs.add("registration.late", "", Pass, fmt.Sprintf("%s after ready; zut takes them and rebuilds its lists (C5); the checks above cover them", plural(n, "registration", "registrations")))
	case !lateSub:
		r.rs.add("registration.late", "", Pass, "every registration came before the window closed")
	}
}
