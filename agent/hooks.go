package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// Hooks is the optional part of Extensions that runs the interceptions
// added beyond protocol v2 (capability intercepts2). The agent finds it
// with a type assertion on Config.Extensions and asks only when
// Extensions.Intercepting reports an interceptor for the event, so an
// Extensions without it works as before.
type Hooks interface {
	// InterceptInput runs the input chain on a prompt before it runs;
	// source is where it came from (interactive, cli, rpc, extension,
	// queue).
	InterceptInput(ctx context.Context, text, source string) InputDecision
	// InterceptBeforeAgentStart runs before a prompt's first model
	// request.
	InterceptBeforeAgentStart(ctx context.Context, prompt string) BeforeAgentStartDecision
	// InterceptToolResult runs after a tool ran, before its result is
	// recorded.
	InterceptToolResult(ctx context.Context, r ToolResultInfo) ToolResultDecision
	// InterceptContextPrepare may replace the context window of one model
	// request; ok reports a replacement.
	InterceptContextPrepare(ctx context.Context, msgs []ContextMessage) (out []ContextMessage, ok bool)
	// InterceptBeforeCompact may cancel a compaction.
	InterceptBeforeCompact(ctx context.Context, c ContextStats) CancelDecision
}

// InputDecision is the outcome of the input chain.
type InputDecision struct {
	Handled bool   // an extension consumed the input: no prompt runs
	Text    string // the input to run (original or transformed)
	By      string
	// Reason, when set with Handled, says why the input was stopped
	// (a hook blocked it); it is shown instead of the usual notice.
	Reason string
}

// StopHooks is the optional part of Extensions that may keep the model
// going when it would stop (Claude Code's Stop and SubagentStop hooks).
// The agent finds it with a type assertion on Config.Extensions.
type StopHooks interface {
	// InterceptStop runs when a prompt's model turn ends without tool
	// calls; answer is the last answer, active says the model already
	// went on because of a stop hook in this prompt.
	InterceptStop(ctx context.Context, answer string, active bool) StopDecision
}

// SubagentStopHooks is what a subagent's agent asks of its parent's
// Extensions when it would stop (SubagentStop hooks); the subagent
// package finds it with a type assertion.
type SubagentStopHooks interface {
	InterceptSubagentStop(ctx context.Context, answer string, active bool) StopDecision
}

// StopDecision is the outcome of InterceptStop: Continue sends Reason to
// the model as the next user message, so it goes on.
type StopDecision struct {
	Continue bool
	Reason   string
}

// maxStopContinues bounds how often stop hooks may keep one prompt going.
const maxStopContinues = 8

// BeforeAgentStartDecision is the outcome of the before_agent_start chain.
type BeforeAgentStartDecision struct {
	// SystemPrompt is appended to the system prompt for this prompt's
	// requests only; it is never stored.
	SystemPrompt string
	// InjectText is stored before the prompt's text in its user message.
	InjectText string
}

// ToolResultInfo is a finished tool call as the tool_result chain sees it.
type ToolResultInfo struct {
	ToolID   string
	ToolName string
	Args     json.RawMessage
	Content  string // the result's text blocks, joined
	IsError  bool
}

// ToolResultDecision is the outcome of the tool_result chain.
type ToolResultDecision struct {
	ContentSet bool   // Content replaces the result's text blocks
	Content    string //
	IsError    bool   // the result's error flag from now on
	By         string
}

// ContextMessage is one message of a context window for context_prepare:
// Index is its position in the window (-1 for an injected message), Role
// user, assistant or system (an injected system message joins the
// request's system prompt), Content its text.
type ContextMessage struct {
	Index   int
	Role    string
	Content string
}

// CancelDecision is the outcome of a chain that may cancel an operation.
type CancelDecision struct {
	Cancel bool
	Reason string
	By     string
}

// ContextStats describes the context the next request would send.
type ContextStats struct {
	EstimatedTokens int
	ContextLimit    int // the model's window, 0 when unknown
	UsagePercent    float64
	MessageCount    int
	IsAutomatic     bool // for before_compact: an automatic compaction
}

// hooks returns the Hooks of the extensions when some extension
// intercepts event.
func (a *Agent) hooks(event string) Hooks {
	x := a.cfg.Extensions
	if x == nil {
		return nil
	}
	h, ok := x.(Hooks)
	if !ok || !x.Intercepting(event) {
		return nil
	}
	return h
}

// ContextStats estimates the context of the next request on the current
// branch. Safe to call while a prompt runs.
func (a *Agent) ContextStats() ContextStats {
	msgs := a.Store().Messages()
	est := 0
	for _, m := range msgs {
		est += session.EstimateTokens(m)
	}
	limit := a.Model().ContextWindow
	st := ContextStats{EstimatedTokens: est, ContextLimit: limit, MessageCount: len(msgs)}
	if limit > 0 {
		st.UsagePercent = float64(int(float64(est)*1000/float64(limit))) / 10
	}
	return st
}

// textOf joins the text blocks of m.
func textOf(m provider.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == provider.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// prepareContext runs context_prepare on msgs (the window of one
// request) and returns the messages to send and the extra system text of
// injected system messages. A replacement never reaches the store.
func (a *Agent) prepareContext(ctx context.Context, msgs []provider.Message) ([]provider.Message, string) {
	h := a.hooks("context_prepare")
	if h == nil || len(msgs) == 0 {
		return msgs, ""
	}
	in := make([]ContextMessage, len(msgs))
	for i, m := range msgs {
		in[i] = ContextMessage{Index: i, Role: string(m.Role), Content: contextText(m)}
	}
	out, ok := h.InterceptContextPrepare(ctx, in)
	if !ok {
		return msgs, ""
	}
	var system []string
	var res []provider.Message
	for _, cm := range out {
		switch {
		case cm.Index < 0 && cm.Role == "system":
			if s := strings.TrimSpace(cm.Content); s != "" {
				system = append(system, s)
			}
		case cm.Index < 0:
			role := provider.RoleUser
			if cm.Role == "assistant" {
				role = provider.RoleAssistant
			}
			if cm.Content != "" {
				res = append(res, provider.Message{Role: role, Content: []provider.Block{provider.TextBlock(cm.Content)}})
			}
		case cm.Index < len(msgs):
			m := msgs[cm.Index]
			if cm.Content != in[cm.Index].Content {
				m = withContextText(m, cm.Content)
			}
			if len(m.Content) > 0 {
				res = append(res, m)
			}
		}
	}
	res = pairToolCalls(res)
	if len(res) == 0 {
		a.cfg.Emit(Notice{Level: "warn", Message: "an extension's context_prepare left no message to send; sent the unchanged context"})
		return msgs, ""
	}
	return res, strings.Join(system, "\n\n")
}

// contextText is a message's text for context_prepare: its text blocks,
// or for a message of tool results (which has none), the results' text.
func contextText(m provider.Message) string {
	if t := textOf(m); t != "" {
		return t
	}
	var parts []string
	for _, b := range m.Content {
		if b.Type == provider.BlockToolResult {
			if t := textOfBlocks(b.Content); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// withContextText applies a context_prepare rewrite of m's text. A
// message of tool results (no text blocks of its own) gets the new text in
// its results: one result takes it; of several, the first takes it and the
// others keep only their images and say where their text went, since the
// joined text cannot be split back. Text after the results would not do:
// the Anthropic API wants a message's tool results before its text.
func withContextText(m provider.Message, text string) provider.Message {
	results := 0
	for _, b := range m.Content {
		if b.Type == provider.BlockToolResult {
			results++
		}
	}
	if textOf(m) != "" || results == 0 {
		return withText(m, text)
	}
	out := provider.Message{Role: m.Role}
	first := ""
	for _, b := range m.Content {
		if b.Type != provider.BlockToolResult {
			out.Content = append(out.Content, b)
			continue
		}
		r := b
		if first == "" {
			first = b.ToolUseID
			r.Content = withText(provider.Message{Content: b.Content}, text).Content
		} else {
			r.Content = withText(provider.Message{Content: b.Content}, "").Content
			if len(r.Content) == 0 {
				r.Content = []provider.Block{provider.TextBlock("(this result's text is in the result of " + first + ")")}
			}
		}
		out.Content = append(out.Content, r)
	}
	return out
}

// withText replaces the text blocks of m with text (at the first one),
// keeping its other blocks; empty text drops them.
func withText(m provider.Message, text string) provider.Message {
	var out []provider.Block
	done := false
	for _, b := range m.Content {
		if b.Type != provider.BlockText {
			out = append(out, b)
			continue
		}
		if !done && text != "" {
			out = append(out, provider.TextBlock(text))
		}
		done = true
	}
	if !done && text != "" {
		out = append([]provider.Block{provider.TextBlock(text)}, out...)
	}
	return provider.Message{Role: m.Role, Content: out}
}

// pairToolCalls keeps a rearranged window valid for every API: tool
// results without their call are dropped, calls without a result get an
// error result, and messages left empty are dropped.
func pairToolCalls(msgs []provider.Message) []provider.Message {
	called := map[string]bool{}
	var out []provider.Message
	for _, m := range msgs {
		var kept []provider.Block
		for _, b := range m.Content {
			switch b.Type {
			case provider.BlockToolUse:
				called[b.ID] = true
			case provider.BlockToolResult:
				if !called[b.ToolUseID] {
					continue
				}
			}
			kept = append(kept, b)
		}
		if len(kept) > 0 {
			out = append(out, provider.Message{Role: m.Role, Content: kept})
		}
	}
	return closeDanglingToolUses(out)
}
