package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/proto"
)

// Extension is one extension program: its name, its registrations and
// handlers, and, while Run or RunIO serves, its connection to the host.
// Create it with New, register, then call Run. Every method is safe for
// concurrent use.
type Extension struct {
	name    string
	version string

	mu         sync.Mutex
	regs       []proto.Frame // register_command and register_tool frames, in order
	commands   []*command
	tools      []*tool
	onHello    []func(HostInfo)
	events     map[string][]func(Event)
	toolICs    []func(tool string, args json.RawMessage) ToolCallDecision
	turnICs    []func(step int) TurnStartDecision
	messageICs []func(text string) AssistantMessageDecision
	panelKeys  []func(PanelKey)
	panelClose []func(panelID string)
	info       HostInfo
	c          *conn         // the connection while RunIO serves, else nil
	ended      bool          // a connection has ended and no other serves
	early      []proto.Frame // one-way frames asked for before ready

	add addState // the additions beyond v2 (added.go)

	logMu sync.Mutex
	logW  io.Writer // nil means os.Stderr
}

type command struct {
	name string
	fn   func(args string) Response
}

type tool struct {
	name   string
	fn     func(args json.RawMessage) ToolResult
	ctxFn  func(ctx context.Context, args json.RawMessage) ToolResult
	specFn func(ctx context.Context, tc ToolContext, args json.RawMessage) ToolResult
}

// maxEarly bounds the one-way frames kept while no connection is ready.
const maxEarly = 256

// New returns an extension named name; the name must equal the "name" of
// its extension.json. version is informational.
func New(name, version string) *Extension {
	return &Extension{name: name, version: version, events: map[string][]func(Event){}}
}

// Name returns the extension's name.
func (e *Extension) Name() string { return e.name }

// Host returns what the host sent in hello_ack, or the zero HostInfo before
// the handshake.
func (e *Extension) Host() HostInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.info
}

// Command registers the slash command /name. handler runs on its own
// goroutine with the text the user typed after the name, trimmed. Names
// compare case-insensitively on the host; registering a name again
// replaces the handler only.
func (e *Extension) Command(name, description string, handler func(args string) Response) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.commands {
		if strings.EqualFold(c.name, name) {
			c.fn = handler
			return
		}
	}
	e.commands = append(e.commands, &command{name: name, fn: handler})
	e.registerLocked(proto.RegisterCommand{Name: name, Description: description})
}

// Tool registers a tool the model can call. schema is the JSON Schema
// object of its arguments. handler runs on its own goroutine with the
// arguments the model produced, which it must validate. The host waits up
// to 60 seconds for it.
func (e *Extension) Tool(name, description string, schema json.RawMessage, handler func(args json.RawMessage) ToolResult) {
	e.addTool(proto.RegisterTool{Name: name, Description: description, Schema: schema}, &tool{name: name, fn: handler})
}

// DeferredTool registers a tool that the model does not see until a result
// of another tool names it in ToolResult.ActivateTools.
func (e *Extension) DeferredTool(name, description string, schema json.RawMessage, handler func(args json.RawMessage) ToolResult) {
	e.addTool(proto.RegisterTool{Name: name, Description: description, Schema: schema, Deferred: true}, &tool{name: name, fn: handler})
}

// InteractiveTool registers a tool that waits for a person, for example on
// a panel, so the host sets no reply deadline. ctx is cancelled when the
// host abandons the call (tool_cancel), on shutdown, and when the
// connection ends; the handler must then return promptly, closing any panel
// it opened. A result returned after cancellation is discarded.
func (e *Extension) InteractiveTool(name, description string, schema json.RawMessage, handler func(ctx context.Context, args json.RawMessage) ToolResult) {
	e.addTool(proto.RegisterTool{Name: name, Description: description, Schema: schema, Interactive: true}, &tool{name: name, ctxFn: handler})
}

func (e *Extension) addTool(reg proto.RegisterTool, t *tool) {
	if reg.Schema != nil && !json.Valid(reg.Schema) {
		e.Logf("tool %q: schema is not valid JSON; registered it with {\"type\":\"object\"}", reg.Name)
		reg.Schema = nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, old := range e.tools {
		if old.name == t.name {
			e.tools[i] = t
			return
		}
	}
	e.tools = append(e.tools, t)
	e.registerLocked(reg)
}

// registerLocked records a registration frame and, once the connection is
// ready, sends it at once (C5: it still becomes callable). e.mu held.
func (e *Extension) registerLocked(f proto.Frame) {
	e.regs = append(e.regs, f)
	if c := e.c; c != nil && c.ready {
		e.writeLocked(c, f)
	}
}

// OnHello adds fn to the functions run after hello_ack, before the
// registrations are announced; registrations made in fn are sent before
// ready. Use it when registrations depend on the host, its model or the
// project directory.
func (e *Extension) OnHello(fn func(HostInfo)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.onHello = append(e.onHello, fn)
}

// On subscribes fn to the lifecycle event named event (see the Event
// constants). Events reach their functions one at a time, in the order the
// host sent them, on one goroutine shared with the panel callbacks.
func (e *Extension) On(event string, fn func(Event)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if proto.EventCapability(event, false) == CapEvents2 {
		e.declareLocked(CapEvents2)
	}
	e.events[event] = append(e.events[event], fn)
	e.subscribeLocked(event, false)
}

// InterceptToolCall adds an interceptor of tool calls, run before each
// call: return false and a reason to refuse it (the model sees the reason).
func (e *Extension) InterceptToolCall(fn func(tool string, args json.RawMessage) (allow bool, reason string)) {
	e.InterceptToolCallX(func(tool string, args json.RawMessage) ToolCallDecision {
		allow, reason := fn(tool, args)
		return ToolCallDecision{Block: !allow, Reason: reason}
	})
}

// InterceptToolCallX adds an interceptor of tool calls that may also
// rewrite the arguments. Several interceptors of one extension run in the
// order added: the first block wins and each rewrite is what the next one
// sees.
func (e *Extension) InterceptToolCallX(fn func(tool string, args json.RawMessage) ToolCallDecision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.toolICs = append(e.toolICs, fn)
	e.subscribeLocked(EventToolCall, true)
}

// InterceptTurnStart adds an interceptor run before each model turn; it
// may block the turn or add hidden context to the upcoming request.
// Contexts of several interceptors are joined by blank lines.
func (e *Extension) InterceptTurnStart(fn func(step int) TurnStartDecision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.turnICs = append(e.turnICs, fn)
	e.subscribeLocked(EventTurnStart, true)
}

// InterceptAssistantMessage adds an interceptor of the assistant's final
// text; it may hide it or replace what the user sees.
func (e *Extension) InterceptAssistantMessage(fn func(text string) AssistantMessageDecision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messageICs = append(e.messageICs, fn)
	e.subscribeLocked(EventAssistantMessage, true)
}

// subscribeLocked sends a subscribe frame for an event first asked for
// after ready; before ready, flush sends one subscribe frame for all.
// e.mu held.
func (e *Extension) subscribeLocked(event string, intercept bool) {
	c := e.c
	if c == nil || !c.ready {
		return
	}
	if intercept && !c.intercepted[event] {
		c.intercepted[event] = true
		e.writeLocked(c, proto.Subscribe{Intercept: []string{event}})
	}
	if !intercept && !c.subscribed[event] {
		c.subscribed[event] = true
		e.writeLocked(c, proto.Subscribe{Events: []string{event}})
	}
}

// OnPanelKey adds fn to the functions told of keys pressed in the
// extension's focused panel.
func (e *Extension) OnPanelKey(fn func(PanelKey)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.panelKeys = append(e.panelKeys, fn)
}

// OnPanelClose adds fn to the functions told that the user closed the
// panel panelID, or that another panel took its place. Stop rendering it.
func (e *Extension) OnPanelClose(fn func(panelID string)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.panelClose = append(e.panelClose, fn)
}

// SetLogOutput sets where Logf and the SDK's diagnostics go; the default
// is os.Stderr, which the host appends to the extension's log file.
func (e *Extension) SetLogOutput(w io.Writer) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	e.logW = w
}

// Logf writes one line to the extension's log (stderr). Never print to
// stdout: it carries the protocol.
func (e *Extension) Logf(format string, args ...any) {
	line := time.Now().UTC().Format(time.RFC3339) + " " + e.name + ": " + fmt.Sprintf(format, args...)
	line = strings.TrimRight(line, "\n") + "\n"
	e.logMu.Lock()
	defer e.logMu.Unlock()
	w := e.logW
	if w == nil {
		w = os.Stderr
	}
	_, _ = io.WriteString(w, line)
}

// lookupTool returns the tool name, or nil.
func (e *Extension) lookupTool(name string) *tool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

// lookupCommand returns the command name, compared exactly first and then
// case-insensitively, or nil.
func (e *Extension) lookupCommand(name string) *command {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.commands {
		if c.name == name {
			return c
		}
	}
	for _, c := range e.commands {
		if strings.EqualFold(c.name, name) {
			return c
		}
	}
	return nil
}

// subscription returns the subscribe frame of everything registered so
// far, and whether there is anything to subscribe to. e.mu held.
func (e *Extension) subscriptionLocked() (proto.Subscribe, bool) {
	var s proto.Subscribe
	for ev := range e.events {
		s.Events = append(s.Events, ev)
	}
	slices.Sort(s.Events)
	if len(e.toolICs) > 0 {
		s.Intercept = append(s.Intercept, EventToolCall)
	}
	if len(e.turnICs) > 0 {
		s.Intercept = append(s.Intercept, EventTurnStart)
	}
	if len(e.messageICs) > 0 {
		s.Intercept = append(s.Intercept, EventAssistantMessage)
	}
	for _, ev := range proto.Intercepts2 {
		if len(e.add.intercepts[ev]) > 0 {
			s.Intercept = append(s.Intercept, ev)
		}
	}
	return s, len(s.Events)+len(s.Intercept) > 0
}
