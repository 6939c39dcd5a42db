package proto

import "encoding/json"

// Additions beyond protocol v2. Each addition is opt-in by capability
// (C6): the extension lists the capability in Hello.Capabilities, the host
// lists the ones it offers in HelloAck.Capabilities, and the host never
// sends an additive frame, event or interception to an extension that did
// not ask for its capability. docs/protocol.md ("Additions beyond v2")
// describes every frame.

// Additive capabilities.
const (
	// CapHostRequests: the extension may send HostRequest frames and gets
	// HostResponse and HostStream frames back; RegisterOption.
	CapHostRequests = "host_requests"
	// CapEvents2: the extension may subscribe to the events of Events2.
	CapEvents2 = "events2"
	// CapIntercepts2: the extension may intercept the events of
	// Intercepts2 and answer with the additive EventInterceptResponse
	// members.
	CapIntercepts2 = "intercepts2"
	// CapUI2: the additive UI frames (tool_progress, print, header,
	// footer, ui_visibility, shortcuts, command completion, editor keys,
	// renderers) and the additive members of status, widget and
	// register_command.
	CapUI2 = "ui2"
)

// HostCapabilities lists every additive capability this package defines,
// in the order a host advertises them.
var HostCapabilities = []string{CapHostRequests, CapEvents2, CapIntercepts2, CapUI2}

// IsAdditiveCapability reports whether name is one of HostCapabilities.
func IsAdditiveCapability(name string) bool {
	switch name {
	case CapHostRequests, CapEvents2, CapIntercepts2, CapUI2:
		return true
	}
	return false
}

// Events of capability events2, subscribable by name like the v2 events.
const (
	EventSessionShutdown    = "session_shutdown"     // zut is shutting down
	EventAgentStart         = "agent_start"          // Prompt
	EventAgentEnd           = "agent_end"            // Response, Stop: completed|cancelled|error
	EventToolExecutionStart = "tool_execution_start" // ToolID, ToolName
	EventToolExecutionEnd   = "tool_execution_end"   // ToolID, ToolName, IsError
	EventToolResult         = "tool_result"          // ToolID, ToolName, ToolArgs, Content, IsError
	EventInput              = "input"                // Text, Source
	EventMessageStart       = "message_start"        // no members
	EventMessageUpdate      = "message_update"       // Chunk
	EventMessageEnd         = "message_end"          // Content
	EventModelChange        = "model_change"         // Model, PreviousModel, Source
	EventCustom             = "custom"               // CustomName, Data, From
	// The events of zut's subagents (docs/tools.md): Data is the event as
	// RPC mode sends it. Extensions see the parent's events only, and
	// these only when they subscribe to them.
	EventSubagentStart  = "subagent_start"  // Data: id, task, agent, model, isolation, queued
	EventSubagentUpdate = "subagent_update" // Data: id, state, activity, steps, cost_usd
	EventSubagentEnd    = "subagent_end"    // Data: id, status, result, error, diff, steps, usage, session
)

// Events2 lists the events of capability events2.
var Events2 = []string{
	EventSessionShutdown, EventAgentStart, EventAgentEnd, EventToolExecutionStart,
	EventToolExecutionEnd, EventToolResult, EventInput, EventMessageStart,
	EventMessageUpdate, EventMessageEnd, EventModelChange, EventCustom,
	EventSubagentStart, EventSubagentUpdate, EventSubagentEnd,
}

// Interceptable events of capability intercepts2. tool_result is also an
// event of events2 (EventToolResult).
const (
	EventBeforeAgentStart    = "before_agent_start"    // Prompt
	EventContextPrepare      = "context_prepare"       // Messages
	EventBeforeFork          = "before_fork"           // TargetID, IsUserMessage, UserText
	EventBeforeSessionSwitch = "before_session_switch" // Reason
	EventBeforeCompact       = "before_compact"        // EstimatedTokens, ContextLimit, UsagePercent, MessageCount, IsAutomatic
)

// Intercepts2 lists the events an extension with capability intercepts2
// may intercept.
var Intercepts2 = []string{
	EventInput, EventBeforeAgentStart, EventToolResult, EventContextPrepare,
	EventBeforeFork, EventBeforeSessionSwitch, EventBeforeCompact,
}

// Stop values of the agent_end event.
const (
	AgentCompleted = "completed"
	AgentCancelled = "cancelled"
	AgentError     = "error"
)

// Input intercept actions (EventInterceptResponse.Action).
const (
	InputHandled   = "handled"   // consume the input: no prompt runs
	InputTransform = "transform" // replace the input with Text
)

// EventCapability returns the capability an extension needs to subscribe
// to (intercept false) or intercept (intercept true) the event name: ""
// for the events of protocol v2, CapEvents2 or CapIntercepts2 for the
// additions, and "-" for names that are neither.
func EventCapability(name string, intercept bool) string {
	if intercept {
		switch name {
		case EventToolCall, EventTurnStart, EventAssistantMessage:
			return ""
		}
		for _, n := range Intercepts2 {
			if n == name {
				return CapIntercepts2
			}
		}
		return "-"
	}
	switch name {
	case EventSessionStart, EventSessionOpened, EventSessionSwitched, EventSessionForked,
		EventSessionCompacted, EventTurnStart, EventToolCall, EventToolConfirmationRequested,
		EventAssistantMessage, EventTurnEnd:
		return ""
	}
	for _, n := range Events2 {
		if n == name {
			return CapEvents2
		}
	}
	return "-"
}

// ContextMessage is one message of the context window in a context_prepare
// interception: Index is its position in the window sent to the model, or
// -1 for a message an extension injects. Role is user, assistant or
// system (an injected system message is added to the system prompt of
// that request). Content is the message's text.
type ContextMessage struct {
	Index   int    `json:"index"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Roles of a ContextMessage.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
)

// Host request methods (HostRequest.Method). The params and result of
// each are the structs named in its comment; "{}" means an empty object.
const (
	MethodUISelect  = "ui.select"  // UIRequest -> SelectResult
	MethodUIConfirm = "ui.confirm" // UIRequest -> ConfirmResult
	MethodUIInput   = "ui.input"   // UIRequest -> InputResult
	MethodUIOverlay = "ui.overlay" // UIRequest -> OverlayResult

	MethodSessionMessages     = "session.messages"      // {} -> MessagesResult
	MethodSessionInfo         = "session.info"          // {} -> SessionInfo
	MethodSessionContextStats = "session.context_stats" // {} -> ContextStats
	MethodSessionAppendEntry  = "session.append_entry"  // AppendEntryParams -> IDResult
	MethodSessionEntries      = "session.entries"       // EntriesParams -> EntriesResult

	MethodModelGet  = "model.get"  // {} -> ModelInfo
	MethodModelSet  = "model.set"  // ModelParams -> ModelInfo
	MethodModelList = "model.list" // {} -> ModelsResult

	MethodToolsList      = "tools.list"       // {} -> ToolsResult
	MethodToolsSetActive = "tools.set_active" // SetActiveToolsParams -> {}

	MethodLLMComplete = "llm.complete" // CompleteParams -> CompleteResult (HostStream chunks when Stream)

	MethodOptionsGet = "options.get" // OptionParams -> OptionResult
	MethodOptionsSet = "options.set" // OptionParams -> OptionResult

	MethodAppSend             = "app.send"              // SendParams -> {}
	MethodAppExit             = "app.exit"              // {} -> {}
	MethodAppReloadExtensions = "app.reload_extensions" // {} -> {}
	MethodAppNotifyCustom     = "app.notify_custom"     // CustomParams -> {}

	MethodEditorSetText = "editor.set_text" // TextParams -> {}
	MethodTUISuspend    = "tui.suspend"     // {} -> SuspendResult
	MethodTUIResume     = "tui.resume"      // {} -> {}
)

// Kinds of UIRequest, one per ui.* method.
const (
	UISelect  = "select"
	UIConfirm = "confirm"
	UIInput   = "input"
	UIOverlay = "overlay"
)

// UIKind returns the UIRequest kind of a ui.* method, or "".
func UIKind(method string) string {
	switch method {
	case MethodUISelect:
		return UISelect
	case MethodUIConfirm:
		return UIConfirm
	case MethodUIInput:
		return UIInput
	case MethodUIOverlay:
		return UIOverlay
	}
	return ""
}

// Send modes of app.send.
const (
	SendQueue     = "queue"     // after the running prompt, or now when idle
	SendSteer     = "steer"     // into the running prompt at its next safe point
	SendInterrupt = "interrupt" // abort the running prompt, then send
)

// Print styles.
const (
	PrintPlain = "plain"
	PrintInfo  = "info"
	PrintError = "error"
	PrintBlock = "block"
)

// Overlay anchors.
const (
	AnchorCenter = "center"
	AnchorTop    = "top"
	AnchorBottom = "bottom"
)

// Editor key actions (EditorKeyResponse.Action).
const (
	EditorPassthrough = "passthrough" // the editor handles the key as usual
	EditorConsumed    = "consumed"    // the key is swallowed
	EditorRemap       = "remap"       // the editor handles Key instead
	EditorSubmit      = "submit"      // Text is submitted as the prompt
)

// WidgetBelowInput is the additive widget placement below the editor
// (capability ui2, C18).
const WidgetBelowInput = "below_input"

// WidgetRightBar is the additive placement in a side rail at the right of
// the editor (capability ui2); a terminal too narrow for a rail draws the
// widget above the editor.
const WidgetRightBar = "right_bar"

// AddedFrameCapability returns the capability an additive frame type needs,
// or "" for a frame of protocol v2.
func AddedFrameCapability(typ string) string {
	switch typ {
	case "host_request", "host_response", "host_stream", "register_option":
		return CapHostRequests
	case "tool_progress", "print", "header", "footer", "header_clear", "footer_clear",
		"ui_visibility", "register_shortcut", "shortcut", "command_complete",
		"command_completions", "set_editor", "reset_editor", "editor_key",
		"editor_key_response", "register_tool_renderer", "render_tool",
		"render_tool_response", "register_message_renderer", "render_message",
		"render_message_response":
		return CapUI2
	}
	return ""
}

// rawEmpty is the result of methods that return nothing.
var rawEmpty = json.RawMessage(`{}`)
