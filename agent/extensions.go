package agent

import (
	"context"
	"encoding/json"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Extensions is what the agent needs from the extension host. The main
// package implements it over package host; a nil Extensions means none are
// loaded. Methods are called from the goroutine running a prompt and must
// be safe for concurrent use with the host's own goroutines.
type Extensions interface {
	// Tools returns the extension tools to offer the model now (active,
	// deferred ones only once activated). Built-in tools win name clashes;
	// the agent drops extension tools whose names a built-in uses.
	Tools() []ExtensionTool

	// CallTool runs an extension tool. The error is for transport failures
	// (the extension crashed, timed out, or was unloaded); a tool that
	// reports failure returns a Result with IsError.
	CallTool(ctx context.Context, call ToolInvocation) (ToolOutcome, error)

	// Notify delivers a lifecycle event to subscribed extensions. It does
	// not block on them.
	Notify(ev LifecycleEvent)

	// Intercepting reports whether any extension intercepts event ("tool_call",
	// "turn_start" or "assistant_message").
	Intercepting(event string) bool

	// InterceptToolCall runs the tool_call interceptor chain (C15).
	InterceptToolCall(ctx context.Context, id, name string, args json.RawMessage) ToolCallDecision

	// InterceptTurnStart runs the turn_start chain; Context is the joined,
	// bounded hidden context for the upcoming request.
	InterceptTurnStart(ctx context.Context, step int) TurnStartDecision

	// InterceptAssistantMessage runs the assistant_message chain.
	InterceptAssistantMessage(ctx context.Context, text string) AssistantMessageDecision
}

// ExtensionTool is an extension tool as the agent sees it.
type ExtensionTool struct {
	Extension   string
	Def         provider.Tool
	Interactive bool
}

// ToolInvocation is one call of an extension tool.
type ToolInvocation struct {
	ToolID string // the model's tool call id
	Name   string
	Args   json.RawMessage
	// Progress receives the progress lines the extension reports while
	// the call runs; it emits ToolProgress events and does not block.
	Progress func(text string)
}

// ToolOutcome is the reply of an extension tool.
type ToolOutcome struct {
	Extension string
	Result    tools.Result
	// State is the extension's new opaque state when the reply carried a
	// valid details value (C19); StateSet distinguishes "no details" from a
	// JSON null, which clears the state.
	State    json.RawMessage
	StateSet bool
	// Warning is shown to the user (for example: details over 256 KiB were
	// not persisted).
	Warning string
}

// ToolCallDecision is the outcome of the tool_call interceptor chain.
type ToolCallDecision struct {
	Block  bool
	Reason string
	// Args are the (possibly rewritten) arguments the tool will see.
	Args json.RawMessage
	// By names the extension that blocked or last rewrote the call.
	By string
	// Permission is a hook's say in the confirmation (Claude Code's
	// permissionDecision): "allow" runs the call without asking unless a
	// deny or ask rule holds, "ask" asks as an ask rule does, "" leaves
	// it to the policy. A hook that denies sets Block.
	Permission string
}

// TurnStartDecision is the outcome of the turn_start interceptor chain.
type TurnStartDecision struct {
	Block   bool
	Reason  string
	By      string
	Context string
}

// AssistantMessageDecision is the outcome of the assistant_message chain.
type AssistantMessageDecision struct {
	Block  bool
	Reason string
	By     string
	// Text is the user-visible text (replaced or original).
	Text string
}

// LifecycleEvent is an event of the extension protocol's subscription set.
// Name is the protocol's event name; the other fields are set as that
// event defines them.
//
// The events added beyond v2 (capability events2) are agent_start
// (Prompt), agent_end (Response, Stop: completed, cancelled or error,
// Error), tool_execution_start (ToolID, ToolName), tool_execution_end
// (ToolID, ToolName, IsError), tool_result (ToolID, ToolName, ToolArgs,
// Content, IsError), input (Text, Source), message_start, message_update
// (Chunk), message_end (Content) and model_change (Model, PreviousModel,
// Source).
type LifecycleEvent struct {
	Name        string // session_start, session_opened, session_switched, session_forked, session_compacted, turn_start, tool_call, tool_confirmation_requested, assistant_message, turn_end, and the events2 names
	Session     *SessionIdentity
	Step        int
	ToolID      string
	ToolName    string
	ToolArgs    json.RawMessage
	ToolPreview string
	Text        string
	Stop        string
	Error       string
	// States holds each extension's own state for session events; the host
	// gives every extension only its own entry.
	States map[string]json.RawMessage

	Prompt        string
	Response      string
	IsError       bool
	Content       string
	Source        string
	Chunk         string
	Model         string
	PreviousModel string
}

// SessionIdentity is the session/branch identity the protocol carries.
type SessionIdentity struct {
	ID        string `json:"id"`
	ParentID  string `json:"parent_id,omitempty"`
	Path      string `json:"path,omitempty"`
	CWD       string `json:"cwd,omitempty"`
	ForkPoint int    `json:"fork_point"`
}
