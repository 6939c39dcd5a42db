package host

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/zut-go/zut/proto"
)

// Registration states, as Report shows them.
const (
	StateActive   = "active"
	StateShadowed = "shadowed"
)

// reservedTools are the tool names the spec reserves even when zut does
// not offer the tool (spec: register_tool; C9): the native public-web
// names (every web_* name), grep, ast, python, schedule, update_goal and
// plan. The other built-in tools (read, bash, ...) shadow an extension's
// tool only while they are active, that is listed in Config.Builtins.
var reservedTools = []string{
	"web_search", "web_open", "web_find", "web_click",
	"grep", "ast", "python", "schedule", "update_goal", "plan",
}

// Reserved reports whether name is a reserved tool name (C9): one of the
// spec's list or any web_* name. Whether an active built-in shadows a
// name is Config.Builtins' business.
func Reserved(name string) bool {
	return strings.HasPrefix(name, "web_") || slices.Contains(reservedTools, name)
}

// Command is a slash command an extension registered and holds.
type Command struct {
	Name        string // the registered spelling
	Description string
	Extension   string
	// Complete: the extension completes the command's arguments (ui2);
	// ask with CompleteCommand.
	Complete bool
}

// Tool is an extension tool offered to the model.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage // a JSON Schema object
	Interactive bool            // waits for a person: no reply deadline
	Deferred    bool            // registered deferred, since activated
	Extension   string
}

type commandReg struct {
	name, desc string
	complete   bool   // completes its arguments (ui2)
	state      string // StateActive or StateShadowed, set by rebuild
	logged     bool   // the shadowing was logged (C8)
}

type toolReg struct {
	def       proto.RegisterTool
	activated bool
	state     string
	logged    bool
}

// index is the host's view of who holds which name.
type index struct {
	commands map[string]*commandEntry // by lower-case name
	tools    map[string]*toolEntry
}

type commandEntry struct {
	e   *extension
	reg *commandReg
}

type toolEntry struct {
	e   *extension
	reg *toolReg
}

func (e *extension) registerCommand(f *proto.RegisterCommand) {
	name := strings.TrimSpace(f.Name)
	if name == "" || strings.ContainsAny(name, " \t\r\n/") {
		e.warn("ignored register_command %q: a command name is one word without spaces or slashes", f.Name)
		return
	}
	e.mu.Lock()
	for _, c := range e.commands {
		if strings.EqualFold(c.name, name) {
			e.mu.Unlock()
			e.warn("ignored a second register_command of %q; the first registration stays (C8)", name)
			return
		}
	}
	e.commands = append(e.commands, &commandReg{name: name, desc: f.Description, complete: f.Complete && e.has(proto.CapUI2)})
	loaded := e.loaded
	e.mu.Unlock()
	if loaded {
		e.h.reindex()
	}
}

func (e *extension) registerTool(f *proto.RegisterTool) {
	if !validToolName(f.Name) {
		e.warn("ignored register_tool %q: a tool name has 1 to 64 letters, digits, '_' or '-'", f.Name)
		return
	}
	def := *f
	schema := bytes.TrimSpace(def.Schema)
	switch {
	case len(schema) == 0 || string(schema) == "null":
		def.Schema = json.RawMessage(`{"type":"object"}`)
	case schema[0] != '{':
		e.warn("ignored register_tool %q: schema must be a JSON object", f.Name)
		return
	}
	e.mu.Lock()
	for _, t := range e.tools {
		if t.def.Name == def.Name {
			e.mu.Unlock()
			e.warn("ignored a second register_tool of %q; the first registration stays (C8)", def.Name)
			return
		}
	}
	e.tools = append(e.tools, &toolReg{def: def})
	loaded := e.loaded
	e.mu.Unlock()
	if loaded {
		e.h.reindex()
	}
}

func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (e *extension) subscribe(f *proto.Subscribe) {
	events := e.subscribable(f.Events, false)
	intercept := e.subscribable(f.Intercept, true)
	if len(events) > 0 {
		e.h.subscribed.Store(true) // before the events, which Emit reads after it
	}
	e.mu.Lock()
	for _, ev := range events {
		e.events[ev] = true
	}
	for _, ev := range intercept {
		e.intercept[ev] = true
	}
	e.mu.Unlock()
}

// subscribable returns the names of a subscribe frame to record. Unknown
// names are kept but noted; names of an addition whose capability the
// extension did not ask for are dropped, so that it never gets a frame it
// does not know (C6).
func (e *extension) subscribable(names []string, intercept bool) []string {
	var out []string
	for _, ev := range names {
		switch c := proto.EventCapability(ev, intercept); {
		case c == "-" && intercept:
			e.warn("subscribe: event %q cannot be intercepted; only tool_call, turn_start and assistant_message can", ev)
		case c == "-":
			e.warn("subscribe: unknown event %q will never be sent", ev)
		case c != "" && !e.has(c):
			e.warn("subscribe: event %q needs the capability %q, which the hello did not list; ignored (C6)", ev, c)
			continue
		}
		out = append(out, ev)
	}
	return out
}

// reindex rebuilds the index and tells the callbacks what changed.
func (h *Host) reindex() {
	tools, cmds := h.rebuild()
	if tools && h.cb.ToolsChanged != nil {
		h.cb.ToolsChanged()
	}
	if cmds && h.cb.CommandsChanged != nil {
		h.cb.CommandsChanged()
	}
}

// rebuild computes the index from the live extensions in load order, so
// that the first registration in load order wins (C8, C10), built-ins and
// reserved names first of all (C9). A registration that loses is logged
// in its extension's log once and shown by doctor. It reports whether the
// visible tools or the commands changed.
func (h *Host) rebuild() (toolsChanged, commandsChanged bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	builtinCmd := map[string]bool{}
	for _, c := range h.cfg.BuiltinCommands {
		builtinCmd[strings.ToLower(strings.TrimPrefix(c, "/"))] = true
	}
	builtinTool := map[string]bool{}
	for _, t := range h.cfg.Builtins {
		builtinTool[t] = true
	}
	ix := index{commands: map[string]*commandEntry{}, tools: map[string]*toolEntry{}}
	for _, e := range h.exts {
		e.mu.Lock()
		if e.dying {
			e.mu.Unlock()
			continue
		}
		for _, c := range e.commands {
			key := strings.ToLower(c.name)
			switch {
			case builtinCmd[key]:
				e.shadowCommand(c, "a built-in command")
			case ix.commands[key] != nil:
				e.shadowCommand(c, "extension "+quote(ix.commands[key].e.name))
			default:
				c.state = StateActive
				ix.commands[key] = &commandEntry{e: e, reg: c}
			}
		}
		for _, t := range e.tools {
			name := t.def.Name
			switch {
			case Reserved(name):
				e.shadowTool(t, "a reserved tool name (C9)")
			case builtinTool[name]:
				e.shadowTool(t, "the active built-in tool of that name")
			case ix.tools[name] != nil:
				e.shadowTool(t, "extension "+quote(ix.tools[name].e.name))
			default:
				t.state = StateActive
				ix.tools[name] = &toolEntry{e: e, reg: t}
			}
		}
		e.mu.Unlock()
	}
	h.ix = ix
	toolSig, cmdSig := h.signatures()
	toolsChanged, commandsChanged = toolSig != h.toolSig, cmdSig != h.cmdSig
	h.toolSig, h.cmdSig = toolSig, cmdSig
	return toolsChanged, commandsChanged
}

// shadowCommand marks c shadowed by whom and logs it once. e.mu held.
func (e *extension) shadowCommand(c *commandReg, by string) {
	c.state = StateShadowed
	if !c.logged {
		c.logged = true
		msg := "command " + quote(c.name) + " is shadowed by " + by + " (C8)"
		e.p.logf("%s", msg)
		e.warnings = append(e.warnings, msg)
	}
}

// shadowTool marks t shadowed by whom and logs it once. e.mu held.
func (e *extension) shadowTool(t *toolReg, by string) {
	t.state = StateShadowed
	if !t.logged {
		t.logged = true
		msg := "tool " + quote(t.def.Name) + " is shadowed by " + by + " (C8)"
		e.p.logf("%s", msg)
		e.warnings = append(e.warnings, msg)
	}
}

// signatures summarise the visible tools and the commands. h.mu held;
// takes each extension's lock.
func (h *Host) signatures() (tools, commands string) {
	var ts, cs []string
	for name, te := range h.ix.tools {
		te.e.mu.Lock()
		if !te.reg.def.Deferred || te.reg.activated {
			ts = append(ts, name+"\x00"+te.e.name)
		}
		te.e.mu.Unlock()
	}
	for name, ce := range h.ix.commands {
		cs = append(cs, name+"\x00"+ce.e.name+"\x00"+ce.reg.name)
	}
	slices.Sort(ts)
	slices.Sort(cs)
	return strings.Join(ts, "\n"), strings.Join(cs, "\n")
}

// Commands returns the extension commands that are active, sorted by
// name. Safe for concurrent use.
func (h *Host) Commands() []Command {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Command, 0, len(h.ix.commands))
	for _, ce := range h.ix.commands {
		out = append(out, Command{Name: ce.reg.name, Description: ce.reg.desc, Extension: ce.e.name, Complete: ce.reg.complete})
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// Tools returns the extension tools to offer the model: active, and not
// deferred or since activated. Sorted by name. Safe for concurrent use.
func (h *Host) Tools() []Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Tool, 0, len(h.ix.tools))
	for _, te := range h.ix.tools {
		te.e.mu.Lock()
		def, activated := te.reg.def, te.reg.activated
		te.e.mu.Unlock()
		if def.Deferred && !activated {
			continue
		}
		out = append(out, Tool{Name: def.Name, Description: def.Description, Schema: def.Schema,
			Interactive: def.Interactive, Deferred: def.Deferred, Extension: te.e.name})
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// lookupTool finds the visible tool name.
func (h *Host) lookupTool(name string) (*extension, proto.RegisterTool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	te := h.ix.tools[name]
	if te == nil {
		return nil, proto.RegisterTool{}, false
	}
	te.e.mu.Lock()
	def, visible := te.reg.def, !te.reg.def.Deferred || te.reg.activated
	te.e.mu.Unlock()
	return te.e, def, visible
}

// lookupCommand finds the active command name, in any case.
func (h *Host) lookupCommand(name string) (*extension, string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ce := h.ix.commands[strings.ToLower(strings.TrimPrefix(name, "/"))]
	if ce == nil {
		return nil, "", false
	}
	return ce.e, ce.reg.name, true
}

// activate marks the named deferred tools of e activated and returns the
// names that changed. Names that are unknown, not deferred, or another
// extension's are ignored.
func (e *extension) activate(names []string) []string {
	var changed []string
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range names {
		for _, t := range e.tools {
			if t.def.Name == n && t.def.Deferred && !t.activated {
				t.activated = true
				changed = append(changed, n)
			}
		}
	}
	return changed
}

func quote(s string) string { return `"` + s + `"` }
