package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zut-go/zut/proto"
)

// The interceptions of capability intercepts2. Each chain follows C15:
// the interceptors run serially in load order (C10), the first that
// handles or cancels ends the chain, rewrites chain (each interceptor
// sees the previous one's output), and an interceptor that does not
// answer within the intercept timeout allows the event.

// InputDecision is the outcome of the input chain.
type InputDecision struct {
	// Handled: an extension consumed the input; no prompt runs.
	Handled bool
	// Text is the input to run: the original or the last transform.
	Text string
	By   string // the extension that handled, or last transformed, it
}

// BeforeAgentStartDecision is the outcome of the before_agent_start chain.
type BeforeAgentStartDecision struct {
	// SystemPrompt is appended to the system prompt for this prompt only:
	// each extension's trimmed text, joined by blank lines.
	SystemPrompt string
	// InjectText goes before the prompt's text in the user message: each
	// extension's trimmed text, joined by blank lines.
	InjectText string
}

// ToolResultInfo describes a finished tool call for the tool_result chain.
type ToolResultInfo struct {
	ToolID   string
	ToolName string
	Args     json.RawMessage
	Content  string // the text of the result
	IsError  bool
}

// ToolResultDecision is the outcome of the tool_result chain.
type ToolResultDecision struct {
	// ContentSet reports that Content replaces the result's text.
	ContentSet bool
	Content    string
	IsError    bool // the (possibly changed) error flag
	By         string
}

// CancelDecision is the outcome of the before_fork, before_session_switch
// and before_compact chains.
type CancelDecision struct {
	Cancel bool
	Reason string // for the user when Cancel
	By     string
}

// CompactInfo describes a compaction about to run.
type CompactInfo struct {
	EstimatedTokens int
	ContextLimit    int
	UsagePercent    float64
	MessageCount    int
	IsAutomatic     bool
}

// InterceptInput runs the input chain on text typed or sent by source
// (interactive, cli, rpc, extension, queue).
func (h *Host) InterceptInput(ctx context.Context, text, source string) InputDecision {
	d := InputDecision{Text: text}
	for _, e := range h.interceptors(proto.EventInput) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventInput, Text: d.Text, Source: source})
		if err != nil {
			return d
		}
		if !ok {
			continue
		}
		switch r.Action {
		case proto.InputHandled:
			d.Handled, d.By = true, e.name
			return d
		case proto.InputTransform:
			d.Text, d.By = r.Text, e.name
		case "":
		default:
			e.warn("input interception: unknown action %q ignored; use %q or %q", r.Action, proto.InputHandled, proto.InputTransform)
		}
	}
	return d
}

// InterceptBeforeAgentStart runs the before_agent_start chain on the
// prompt about to run.
func (h *Host) InterceptBeforeAgentStart(ctx context.Context, prompt string) BeforeAgentStartDecision {
	var sys, inject []string
	for _, e := range h.interceptors(proto.EventBeforeAgentStart) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventBeforeAgentStart, Prompt: prompt})
		if err != nil {
			break
		}
		if !ok {
			continue
		}
		if s := strings.TrimSpace(r.SystemPrompt); s != "" {
			sys = append(sys, s)
		}
		if s := strings.TrimSpace(r.InjectText); s != "" {
			inject = append(inject, s)
		}
	}
	return BeforeAgentStartDecision{
		SystemPrompt: truncate(strings.Join(sys, "\n\n"), MaxContext),
		InjectText:   truncate(strings.Join(inject, "\n\n"), MaxContext),
	}
}

// InterceptToolResult runs the tool_result chain: each content
// replacement and error flag is what the next interceptor sees.
func (h *Host) InterceptToolResult(ctx context.Context, info ToolResultInfo) ToolResultDecision {
	d := ToolResultDecision{Content: info.Content, IsError: info.IsError}
	for _, e := range h.interceptors(proto.EventToolResult) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventToolResult, ToolID: info.ToolID,
			ToolName: info.ToolName, ToolArgs: info.Args, Content: d.Content, IsError: d.IsError})
		if err != nil {
			return d
		}
		if !ok {
			continue
		}
		if r.Content != nil {
			d.ContentSet, d.Content, d.By = true, *r.Content, e.name
		}
		if r.IsError != nil {
			d.IsError, d.By = *r.IsError, e.name
		}
	}
	return d
}

// InterceptContextPrepare runs the context_prepare chain on the context
// window of the next request. It returns the messages to send and whether
// an extension replaced them. A replacement that is not usable (an index
// out of range, an unknown role) is ignored and logged.
func (h *Host) InterceptContextPrepare(ctx context.Context, msgs []proto.ContextMessage) ([]proto.ContextMessage, bool) {
	cur, changed := msgs, false
	for _, e := range h.interceptors(proto.EventContextPrepare) {
		r, ok, err := h.ask(ctx, e, proto.EventIntercept{Name: proto.EventContextPrepare, Messages: cur})
		if err != nil {
			break
		}
		if !ok || r.Messages == nil {
			continue
		}
		if err := CheckContext(r.Messages, len(msgs)); err != nil {
			msg := fmt.Sprintf("sent context_prepare messages that cannot be used, ignored them: %v", err)
			e.warn("%s", msg)
			h.logChat(e.name, msg)
			continue
		}
		cur, changed = r.Messages, true
	}
	return cur, changed
}

// CheckContext validates a context_prepare replacement against a window
// of n messages (zut ext test holds answers to it too).
func CheckContext(msgs []proto.ContextMessage, n int) error {
	if len(msgs) == 0 {
		return fmt.Errorf("the list is empty; answer null to keep the context")
	}
	for i, m := range msgs {
		switch m.Role {
		case proto.RoleUser, proto.RoleAssistant, proto.RoleSystem:
		default:
			return fmt.Errorf("message %d has role %q; use user, assistant or system", i, m.Role)
		}
		if m.Index < -1 || m.Index >= n {
			return fmt.Errorf("message %d has index %d; use -1 for a new message or 0..%d", i, m.Index, n-1)
		}
	}
	return nil
}

// InterceptBeforeFork runs the before_fork chain for a fork at entry
// targetID (isUser: the entry is a user message, whose text is userText).
func (h *Host) InterceptBeforeFork(ctx context.Context, targetID string, isUser bool, userText string) CancelDecision {
	return h.cancelChain(ctx, proto.EventIntercept{Name: proto.EventBeforeFork, TargetID: targetID, IsUserMessage: isUser, UserText: userText})
}

// InterceptBeforeSessionSwitch runs the before_session_switch chain;
// reason is "new", "clear" or "resume".
func (h *Host) InterceptBeforeSessionSwitch(ctx context.Context, reason string) CancelDecision {
	return h.cancelChain(ctx, proto.EventIntercept{Name: proto.EventBeforeSessionSwitch, Reason: reason})
}

// InterceptBeforeCompact runs the before_compact chain.
func (h *Host) InterceptBeforeCompact(ctx context.Context, c CompactInfo) CancelDecision {
	return h.cancelChain(ctx, proto.EventIntercept{Name: proto.EventBeforeCompact, EstimatedTokens: c.EstimatedTokens,
		ContextLimit: c.ContextLimit, UsagePercent: c.UsagePercent, MessageCount: c.MessageCount, IsAutomatic: c.IsAutomatic})
}

// cancelChain runs a chain whose only outcome is to cancel: the first
// cancel wins.
func (h *Host) cancelChain(ctx context.Context, f proto.EventIntercept) CancelDecision {
	for _, e := range h.interceptors(f.Name) {
		r, ok, err := h.ask(ctx, e, f)
		if err != nil {
			return CancelDecision{}
		}
		if ok && (r.Cancel || r.Block) {
			reason := r.Reason
			if reason == "" {
				reason = fmt.Sprintf("cancelled by extension %q", e.name)
			}
			return CancelDecision{Cancel: true, Reason: reason, By: e.name}
		}
	}
	return CancelDecision{}
}
