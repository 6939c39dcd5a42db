package proto

import "encoding/json"

// Frames an extension sends to the host. Widget is declared in frame.go
// because its shape is shared with the host's callbacks.

// Hello is the extension's first frame. Name must equal the manifest name
// (C2) and ProtocolVersion must be 2 (C3).
type Hello struct {
	ProtocolVersion int      `json:"protocol_version"`
	Name            string   `json:"name"`
	Version         string   `json:"version,omitempty"`
	Capabilities    []string `json:"capabilities,omitempty"`
}

// RegisterCommand registers a slash command. Names compare
// case-insensitively (C8). Complete (capability ui2) asks the host to
// request argument completions with CommandComplete.
type RegisterCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Complete    bool   `json:"complete,omitempty"`
}

// RegisterTool registers a tool the model can call. Schema is a JSON
// Schema object for the arguments. A Deferred tool is hidden until a
// ToolResult names it in ActivateTools; an Interactive tool has no reply
// deadline.
type RegisterTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Deferred    bool            `json:"deferred,omitempty"`
	Interactive bool            `json:"interactive,omitempty"`
}

// Subscribe lists the lifecycle events the extension observes (Events)
// and the ones it intercepts (Intercept).
type Subscribe struct {
	Events    []string `json:"events,omitempty"`
	Intercept []string `json:"intercept,omitempty"`
}

// Ready closes the registration window (C5).
type Ready struct{}

// ToolResult replies to a ToolCall with the same ID. Details is opaque
// extension state: absent (nil) leaves the saved state alone, JSON null
// clears it (C19).
type ToolResult struct {
	ID            string          `json:"id"`
	Content       []ContentBlock  `json:"content,omitempty"`
	IsError       bool            `json:"is_error,omitempty"`
	Details       json.RawMessage `json:"details,omitempty"`
	ActivateTools []string        `json:"activate_tools,omitempty"`
}

// EventInterceptResponse replies to an EventIntercept with the same ID.
// The zero value allows the event unchanged. The members after Context
// answer the interceptions of capability intercepts2: Action and Text for
// input (InputHandled, InputTransform), SystemPrompt and InjectText for
// before_agent_start, Content and IsError for tool_result, Messages for
// context_prepare, and Cancel (with Reason) for before_fork,
// before_session_switch and before_compact.
type EventInterceptResponse struct {
	ID           string           `json:"id"`
	Block        bool             `json:"block,omitempty"`
	Reason       string           `json:"reason,omitempty"`
	ModifiedArgs json.RawMessage  `json:"modified_args,omitempty"`
	ReplaceText  string           `json:"replace_text,omitempty"`
	Context      string           `json:"context,omitempty"`
	Action       string           `json:"action,omitempty"`
	Text         string           `json:"text,omitempty"`
	SystemPrompt string           `json:"system_prompt,omitempty"`
	InjectText   string           `json:"inject_text,omitempty"`
	Content      *string          `json:"content,omitempty"`
	IsError      *bool            `json:"is_error,omitempty"`
	Messages     []ContextMessage `json:"messages,omitempty"`
	Cancel       bool             `json:"cancel,omitempty"`
}

// CommandResponse replies to a CommandInvoked with the same ID. Action is
// one of the Action constants; the field of the same name carries its
// payload. A non-empty Error is shown whatever the action.
type CommandResponse struct {
	ID        string `json:"id"`
	Action    string `json:"action,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Insert    string `json:"insert,omitempty"`
	Display   string `json:"display,omitempty"`
	OpenPanel *Panel `json:"open_panel,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Submit submits Text as a user prompt in the interactive host.
type Submit struct {
	Text string `json:"text"`
}

// SubmitSlash runs Text ("/name args") as if the user typed it. It is a
// compatibility frame (C17).
type SubmitSlash struct {
	Text string `json:"text"`
}

// OpenPanel opens a panel without a command reply. It is a compatibility
// frame (C17).
type OpenPanel struct {
	Panel Panel `json:"panel"`
}

// PanelRender redraws the open panel PanelID.
type PanelRender struct {
	PanelID string   `json:"panel_id"`
	Title   string   `json:"title,omitempty"`
	Lines   []string `json:"lines,omitempty"`
	Footer  string   `json:"footer,omitempty"`
}

// PanelClose closes the panel PanelID. Both sides send it: the extension
// to close its panel, the host when the user closed it or another panel
// took the slot (C17).
type PanelClose struct {
	PanelID string `json:"panel_id"`
}

// Status sets or replaces the status item Key of the extension; an empty
// Text clears it. Priority (capability ui2) orders the items: lower is
// further left.
type Status struct {
	Key      string `json:"key"`
	Level    string `json:"level,omitempty"`
	Text     string `json:"text"`
	Priority int    `json:"priority,omitempty"`
}

// WidgetClear removes the widget ID of the extension.
type WidgetClear struct {
	ID string `json:"id"`
}

// Notify shows a one-shot note with the extension's name.
type Notify struct {
	Level   string `json:"level,omitempty"`
	Message string `json:"message"`
}

// Alert asks the host for a structured alert such as AlertBell. Reason is
// metadata, never rendered as terminal text.
type Alert struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// ClearNotes removes every note this extension pushed.
type ClearNotes struct{}

// ShutdownAck acknowledges Shutdown; the extension exits right after.
type ShutdownAck struct{}

// Type returns "hello".
func (Hello) Type() string { return "hello" }

// Type returns "register_command".
func (RegisterCommand) Type() string { return "register_command" }

// Type returns "register_tool".
func (RegisterTool) Type() string { return "register_tool" }

// Type returns "subscribe".
func (Subscribe) Type() string { return "subscribe" }

// Type returns "ready".
func (Ready) Type() string { return "ready" }

// Type returns "tool_result".
func (ToolResult) Type() string { return "tool_result" }

// Type returns "event_intercept_response".
func (EventInterceptResponse) Type() string { return "event_intercept_response" }

// Type returns "command_response".
func (CommandResponse) Type() string { return "command_response" }

// Type returns "submit".
func (Submit) Type() string { return "submit" }

// Type returns "submit_slash".
func (SubmitSlash) Type() string { return "submit_slash" }

// Type returns "open_panel".
func (OpenPanel) Type() string { return "open_panel" }

// Type returns "panel_render".
func (PanelRender) Type() string { return "panel_render" }

// Type returns "panel_close".
func (PanelClose) Type() string { return "panel_close" }

// Type returns "status".
func (Status) Type() string { return "status" }

// Type returns "widget_clear".
func (WidgetClear) Type() string { return "widget_clear" }

// Type returns "notify".
func (Notify) Type() string { return "notify" }

// Type returns "alert".
func (Alert) Type() string { return "alert" }

// Type returns "clear_notes".
func (ClearNotes) Type() string { return "clear_notes" }

// Type returns "shutdown_ack".
func (ShutdownAck) Type() string { return "shutdown_ack" }
