package proto

import "encoding/json"

// ProtocolVersion is the extension protocol major version this package
// speaks. hello and hello_ack must both carry it (C3).
const ProtocolVersion = 2

// MaxLine is the longest line, in bytes and without its newline, that a
// Reader accepts by default (C12). A longer line is reported as a
// *LineTooLongError.
const MaxLine = 16 << 20

// A Frame is one protocol message: a JSON object on its own line whose
// "type" member is the value returned by Type. Frame structs carry no type
// field; Marshal, AppendFrame and Writer add it, and the Reader uses it to
// pick the struct. Frames decoded by a Reader are pointers (*Hello,
// *ToolResult, ...); frames passed to a Writer may be values or pointers.
type Frame interface {
	Type() string
}

// Capabilities an extension may list in Hello.Capabilities. The host reads
// the list (C6) and sends opt-in frames such as tool_cancel only to
// extensions that name them.
const (
	CapCommands   = "commands"
	CapTools      = "tools"
	CapAlerts     = "alerts"
	CapPanels     = "panels"
	CapToolCancel = "tool_cancel"
)

// Lifecycle event names, used by Subscribe, Event and EventIntercept.
const (
	EventSessionStart              = "session_start"
	EventSessionOpened             = "session_opened"
	EventSessionSwitched           = "session_switched"
	EventSessionForked             = "session_forked"
	EventSessionCompacted          = "session_compacted"
	EventTurnStart                 = "turn_start"
	EventToolCall                  = "tool_call"
	EventToolConfirmationRequested = "tool_confirmation_requested"
	EventAssistantMessage          = "assistant_message"
	EventTurnEnd                   = "turn_end"
)

// IsSessionEvent reports whether name is one of the session events, the
// ones that carry Session and the receiving extension's own State.
func IsSessionEvent(name string) bool {
	switch name {
	case EventSessionStart, EventSessionOpened, EventSessionSwitched,
		EventSessionForked, EventSessionCompacted:
		return true
	}
	return false
}

// Stop reasons of a turn_end event (C16).
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
	StopAborted   = "aborted"
	StopError     = "error"
)

// Actions of a CommandResponse.
const (
	ActionPrompt    = "prompt"
	ActionInsert    = "insert"
	ActionDisplay   = "display"
	ActionOpenPanel = "open_panel"
	ActionNoop      = "noop"
)

// Levels of Notify and Status frames.
const (
	LevelInfo    = "info"
	LevelSuccess = "success"
	LevelWarn    = "warn"
	LevelError   = "error"
)

// WidgetAboveInput is the widget placement of protocol v2; an empty or
// unknown Widget.Position means the same (C18).
const WidgetAboveInput = "above_input"

// AlertBell is the alert kind asking the terminal for one bell.
const AlertBell = "bell"

// Content block types of ToolResult.Content.
const (
	BlockText  = "text"
	BlockImage = "image"
)

// Session identifies the active session branch in hello_ack and in session
// events.
type Session struct {
	ID        string `json:"id"`
	ParentID  string `json:"parent_id,omitempty"`
	Path      string `json:"path,omitempty"`
	CWD       string `json:"cwd,omitempty"`
	ForkPoint int    `json:"fork_point"`
}

// ContentBlock is one block of a tool result: text (Text) or a base64
// image (MIMEType and Data).
type ContentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	Data     string `json:"data,omitempty"`
}

// Panel is the content of an extension-owned panel: opened by a
// CommandResponse with action open_panel or by an OpenPanel frame.
type Panel struct {
	ID     string   `json:"id"`
	Title  string   `json:"title,omitempty"`
	Lines  []string `json:"lines,omitempty"`
	Footer string   `json:"footer,omitempty"`
}

// Widget sets or replaces one persistent widget of the sending extension.
// Priority, Markdown, BorderColor and NoBorder are additions of capability
// ui2 (C18); the host clears them for other extensions. The positions
// WidgetBelowInput and WidgetRightBar are open to every extension; an
// unknown one is above_input. Lower priorities are drawn first.
type Widget struct {
	ID          string   `json:"id"`
	Position    string   `json:"position,omitempty"`
	Title       string   `json:"title,omitempty"`
	Lines       []string `json:"lines,omitempty"`
	Priority    int      `json:"priority,omitempty"`
	Markdown    bool     `json:"markdown,omitempty"`
	BorderColor string   `json:"border_color,omitempty"`
	NoBorder    bool     `json:"no_border,omitempty"`
}

// Type returns "widget".
func (Widget) Type() string { return "widget" }

// rawObject is the tool_args value sent when none is known.
var rawObject = json.RawMessage(`{}`)
