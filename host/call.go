package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/zut-go/zut/proto"
)

// ToolResult is an extension tool's reply as the agent needs it.
type ToolResult struct {
	Extension string
	Content   []proto.ContentBlock
	IsError   bool
	// Details is the details value as sent, nil when absent. It never
	// goes to the model.
	Details json.RawMessage
	// StateSet reports that the reply carries a new state for Extension
	// to persist on the active branch (C19); State is nil when the reply
	// cleared it with null. The host already uses it for later session
	// events; the caller persists it.
	StateSet bool
	State    json.RawMessage
	// Warning is for the user when details were not kept (over 256 KiB).
	Warning string
	// Activated lists the deferred tools this reply activated.
	Activated []string
}

// CallTool runs the extension tool name with args (a JSON object; nil
// means {}) and waits for its result: at most the tool timeout, without
// limit for an interactive tool, and never past ctx or the extension's
// exit (C14). Transport failures are errors (*TimeoutError,
// *StoppedError, ctx's error); a tool that reports failure returns
// IsError. Safe for concurrent use.
func (h *Host) CallTool(ctx context.Context, name string, args json.RawMessage) (ToolResult, error) {
	return h.callTool(ctx, name, args, nil)
}

func (h *Host) callTool(ctx context.Context, name string, args json.RawMessage, progress func(string)) (ToolResult, error) {
	e, def, ok := h.lookupTool(name)
	if !ok {
		return ToolResult{}, fmt.Errorf("call tool %q: no extension offers this tool (it may have been unloaded or not activated yet)", name)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	timeout := h.t.Tool
	if def.Interactive {
		timeout = 0
	}
	f, err := e.requestCall(ctx, &call{want: "tool_result", progress: progress}, func(id string) proto.Frame {
		return proto.ToolCall{ID: id, Name: def.Name, Args: args}
	}, timeout)
	if err != nil {
		return ToolResult{Extension: e.name}, fmt.Errorf("call tool %q: %w", name, err)
	}
	res := f.(*proto.ToolResult)
	out := ToolResult{Extension: e.name, Content: res.Content, IsError: res.IsError, Details: res.Details}
	if res.Details != nil {
		if len(res.Details) > MaxDetails {
			out.Warning = fmt.Sprintf("extension %q returned %d KiB of details from tool %q; over the %d KiB limit, so its state was not saved (C19)",
				e.name, len(res.Details)>>10, name, MaxDetails>>10)
			e.p.logf("%s", out.Warning)
		} else {
			out.StateSet = true
			if !isNull(res.Details) {
				out.State = res.Details
			}
			h.setState(e.name, out.State)
		}
	}
	if len(res.ActivateTools) > 0 {
		out.Activated = e.activate(res.ActivateTools)
		if len(out.Activated) > 0 {
			h.reindex()
		}
	}
	return out, nil
}

// InvokeCommand runs the extension command name (any case, with or
// without the slash) with args and waits for its response, at most the
// command timeout (C14). For action open_panel the host has already
// opened the panel through Callbacks.OpenPanel. Safe for concurrent use.
func (h *Host) InvokeCommand(ctx context.Context, name, args string) (proto.CommandResponse, error) {
	e, canonical, ok := h.lookupCommand(name)
	if !ok {
		return proto.CommandResponse{}, fmt.Errorf("run command /%s: no extension offers this command", strings.TrimPrefix(name, "/"))
	}
	f, err := e.request(ctx, func(id string) proto.Frame {
		return proto.CommandInvoked{ID: id, Name: canonical, Args: strings.TrimSpace(args)}
	}, "command_response", h.t.Command)
	if err != nil {
		return proto.CommandResponse{}, fmt.Errorf("run command /%s: %w", canonical, err)
	}
	resp := *f.(*proto.CommandResponse)
	if resp.Action == proto.ActionOpenPanel {
		if resp.OpenPanel == nil {
			resp.Error = strings.TrimSpace(resp.Error + "\nextension " + quote(e.name) + " answered open_panel without a panel")
		} else {
			h.openPanel(e, *resp.OpenPanel)
		}
	}
	return resp, nil
}

// Subscribed reports whether an extension has subscribed to an event
// since the host started (once true, it stays true). While it is false
// Emit sends nothing, and a caller may skip building the event. Safe for
// concurrent use; it takes no lock.
func (h *Host) Subscribed() bool { return h.subscribed.Load() }

// Emit sends ev to the extensions subscribed to ev.Name, in load order,
// without waiting (C11 keeps each extension's events in order). A session
// event carries the active session when ev.Session is nil, and each
// extension gets only its own state; other events carry no state. Safe
// for concurrent use.
func (h *Host) Emit(ev proto.Event) {
	if !h.subscribed.Load() {
		return
	}
	session := proto.IsSessionEvent(ev.Name)
	h.mu.Lock()
	exts := h.liveLocked()
	if session && ev.Session == nil {
		ev.Session = h.session
	}
	states := h.states
	h.mu.Unlock()
	for _, e := range exts {
		e.mu.Lock()
		sub := e.events[ev.Name]
		e.mu.Unlock()
		if !sub {
			continue
		}
		f := ev
		f.State = nil
		if session {
			f.State = states[e.name]
		}
		if f.Name == proto.EventToolCall {
			f.Source = e.toolCallSource(f.Source)
		}
		e.send(f)
	}
}

// SetSession sets the active session, sent in later hello_ack frames and
// session events, and the extensions' saved states on it (by extension
// name), which replace the previous ones. The map is copied.
func (h *Host) SetSession(s *proto.Session, states map[string]json.RawMessage) {
	var sc *proto.Session
	if s != nil {
		c := *s
		sc = &c
	}
	h.mu.Lock()
	h.session = sc
	h.states = maps.Clone(states)
	if h.states == nil {
		h.states = map[string]json.RawMessage{}
	}
	h.mu.Unlock()
}

// States returns a copy of the extensions' current states, by name: what
// SetSession gave, updated by tool results (C19).
func (h *Host) States() map[string]json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.states)
}

func (h *Host) setState(ext string, state json.RawMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// Copy-on-write: Emit reads the map without the lock.
	next := maps.Clone(h.states)
	if next == nil {
		next = map[string]json.RawMessage{}
	}
	if state == nil {
		delete(next, ext)
	} else {
		next[ext] = state
	}
	h.states = next
}
