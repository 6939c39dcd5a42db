package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/proto"
)

// ToolCallDecision is the outcome of the tool_call interceptor chain.
type ToolCallDecision struct {
	Block  bool
	Reason string // shown to the model when Block
	// Args are the arguments the tool will see: the original ones or the
	// last valid rewrite.
	Args json.RawMessage
	By   string // the extension that blocked, or last rewrote the args
}

// TurnStartDecision is the outcome of the turn_start interceptor chain.
type TurnStartDecision struct {
	Block  bool
	Reason string // shown to the user as a status line when Block
	By     string
	// Context is the hidden context for the upcoming model request only:
	// each extension's trimmed text prefixed with its name, joined,
	// bounded to MaxContext bytes (C15). Never persisted.
	Context string
}

// AssistantMessageDecision is the outcome of the assistant_message chain.
// It changes only what the user sees (C15).
type AssistantMessageDecision struct {
	Block  bool
	Reason string // shown to the user as a status line when Block
	By     string // the extension that blocked, or last replaced the text
	Text   string // the text to show: the original or the last replacement
}

// Intercepts reports whether any live extension intercepts event.
func (h *Host) Intercepts(event string) bool {
	return len(h.interceptors(event)) > 0
}

// interceptors returns the live extensions intercepting event, in load
// order (C10, C15).
func (h *Host) interceptors(event string) []*extension {
	h.mu.Lock()
	exts := h.liveLocked()
	h.mu.Unlock()
	var out []*extension
	for _, e := range exts {
		e.mu.Lock()
		if e.intercept[event] {
			out = append(out, e)
		}
		e.mu.Unlock()
	}
	return out
}

// ask sends one event_intercept and waits for the answer. A timeout, a
// stopped extension or an unusable answer allow the event (C14); ok is
// false then. A cancelled ctx is returned as an error so that the chain
// stops.
func (h *Host) ask(ctx context.Context, e *extension, f proto.EventIntercept) (*proto.EventInterceptResponse, bool, error) {
	rf, err := e.request(ctx, func(id string) proto.Frame {
		f.ID = id
		return f
	}, "event_intercept_response", h.t.Intercept)
	if err == nil {
		return rf.(*proto.EventInterceptResponse), true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		msg := fmt.Sprintf("did not answer the %s interception within %v; allowed it", f.Name, te.After)
		e.p.logf("%s", msg)
		h.logChat(e.name, msg)
	}
	return nil, false, nil
}

// InterceptToolCall runs the tool_call chain (C15): serially in load
// order, the first block wins, and each valid modified_args (a JSON
// object) replaces the arguments the next interceptor sees. Invalid
// rewrites are ignored and logged. A cancelled ctx ends the chain early
// with the decision so far.
func (h *Host) InterceptToolCall(ctx context.Context, toolID, name string, args json.RawMessage) ToolCallDecision {
	return h.InterceptToolCallFrom(ctx, SourceLLM, toolID, name, args)
}

// Sources of a tool call: the model, or the user (a !cmd shell command).
const (
	SourceLLM  = "llm"
	SourceUser = "user"
)

// ToolCallSource is the source member of a tool_call event or
// interception for extension e: "user" always (the user's own commands
// are new to every extension), "llm" only to extensions that asked for
// the additions, so that a plain v2 extension sees the frames it always
// saw.
func (e *extension) toolCallSource(source string) string {
	if source == SourceLLM && !e.has(proto.CapEvents2) && !e.has(proto.CapIntercepts2) {
		return ""
	}
	return source
}

// InterceptToolCallFrom is InterceptToolCall for a call from source
// (SourceLLM or SourceUser).
func (h *Host) InterceptToolCallFrom(ctx context.Context, source, toolID, name string, args json.RawMessage) ToolCallDecision {
	d := ToolCallDecision{Args: args}
	for _, e := range h.interceptors(proto.EventToolCall) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventToolCall, ToolID: toolID, ToolName: name, ToolArgs: d.Args, Source: e.toolCallSource(source)})
		if err != nil {
			return d
		}
		if !ok {
			continue
		}
		if r.Block {
			d.Block, d.Reason, d.By = true, r.Reason, e.name
			if d.Reason == "" {
				d.Reason = fmt.Sprintf("blocked by extension %q", e.name)
			}
			return d
		}
		if len(r.ModifiedArgs) == 0 || isNull(r.ModifiedArgs) {
			continue
		}
		if a := bytes.TrimSpace(r.ModifiedArgs); len(a) == 0 || a[0] != '{' {
			msg := fmt.Sprintf("sent modified_args for %q that are not a JSON object; ignored them (C15)", name)
			e.warn("%s", msg)
			h.logChat(e.name, msg)
			continue
		}
		d.Args, d.By = r.ModifiedArgs, e.name
	}
	return d
}

// InterceptTurnStart runs the turn_start chain (C15): the first block
// wins; the context values of the extensions that allowed are trimmed,
// prefixed with each extension's name, joined and bounded to MaxContext.
func (h *Host) InterceptTurnStart(ctx context.Context, step int) TurnStartDecision {
	var d TurnStartDecision
	var parts []string
	for _, e := range h.interceptors(proto.EventTurnStart) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventTurnStart, Step: step})
		if err != nil {
			break
		}
		if !ok {
			continue
		}
		if r.Block {
			d.Block, d.Reason, d.By = true, r.Reason, e.name
			if d.Reason == "" {
				d.Reason = fmt.Sprintf("turn blocked by extension %q", e.name)
			}
			return d
		}
		if c := strings.TrimSpace(r.Context); c != "" {
			parts = append(parts, "["+e.name+"] "+c)
		}
	}
	d.Context = truncate(strings.Join(parts, "\n\n"), MaxContext)
	return d
}

// InterceptAssistantMessage runs the assistant_message chain (C15): the
// first block wins and each non-empty replace_text replaces the text the
// next interceptor sees.
func (h *Host) InterceptAssistantMessage(ctx context.Context, text string) AssistantMessageDecision {
	d := AssistantMessageDecision{Text: text}
	for _, e := range h.interceptors(proto.EventAssistantMessage) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventAssistantMessage, Text: d.Text})
		if err != nil {
			return d
		}
		if !ok {
			continue
		}
		if r.Block {
			d.Block, d.Reason, d.By = true, r.Reason, e.name
			if d.Reason == "" {
				d.Reason = fmt.Sprintf("message hidden by extension %q", e.name)
			}
			return d
		}
		if r.ReplaceText != "" {
			d.Text, d.By = r.ReplaceText, e.name
		}
	}
	return d
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (h *Host) logChat(ext, msg string) {
	if h.cb.Log != nil {
		h.cb.Log(ext, msg)
	}
}
