package proto

import "encoding/json"

// Frames the host sends to an extension. PanelClose, shared by both
// directions, is declared in frame_ext.go.

// HelloAck answers a matching Hello (C7). Session is nil when no session
// is active. Capabilities lists additive host features; extensions ignore
// what they do not know.
type HelloAck struct {
	ProtocolVersion int      `json:"protocol_version"`
	ZutVersion      string   `json:"zut_version"`
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	CWD             string   `json:"cwd"`
	ExtensionDir    string   `json:"extension_dir"`
	DataDir         string   `json:"data_dir"`
	Session         *Session `json:"session,omitempty"`
	Capabilities    []string `json:"capabilities,omitempty"`
}

// CommandInvoked runs the registered command Name (its registered
// spelling) with Args, the trimmed text after the command name.
type CommandInvoked struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
}

// ToolCall runs the registered tool Name. Args is the JSON object the
// model produced; a nil Args is sent as {}.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolCancel tells an extension that advertised CapToolCancel that the
// delivered tool call ID was abandoned.
type ToolCancel struct {
	ID string `json:"id"`
}

// Event is a one-way lifecycle notification; Name is the event name and
// only the fields of that event are encoded (see the Event constants).
// State is the receiving extension's own state, set on session events
// only.
//
// The members after Error belong to the events of capability events2 (see
// Events2): Prompt (agent_start), Response and Stop (agent_end), IsError
// (tool_execution_end, tool_result), Content (tool_result, message_end),
// Text and Source (input), Chunk (message_update), Model, PreviousModel
// and Source (model_change), CustomName, Data and From (custom).
type Event struct {
	Name          string          `json:"event"`
	Session       *Session        `json:"session,omitempty"`
	State         json.RawMessage `json:"state,omitempty"`
	Step          int             `json:"step,omitempty"`
	ToolID        string          `json:"tool_id,omitempty"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolArgs      json.RawMessage `json:"tool_args,omitempty"`
	ToolPreview   string          `json:"tool_preview,omitempty"`
	Text          string          `json:"text,omitempty"`
	Stop          string          `json:"stop,omitempty"`
	Error         string          `json:"error,omitempty"`
	Prompt        string          `json:"prompt,omitempty"`
	Response      string          `json:"response,omitempty"`
	IsError       bool            `json:"is_error,omitempty"`
	Content       string          `json:"content,omitempty"`
	Source        string          `json:"source,omitempty"`
	Chunk         string          `json:"chunk,omitempty"`
	Model         string          `json:"model,omitempty"`
	PreviousModel string          `json:"previous_model,omitempty"`
	CustomName    string          `json:"name,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
	From          string          `json:"from,omitempty"`
}

// EventIntercept asks an extension to allow, block or rewrite an event
// before it happens; it answers with an EventInterceptResponse of the same
// ID. Name is tool_call, turn_start or assistant_message, or with
// capability intercepts2 one of Intercepts2, whose members follow Text:
// Text and Source (input), Prompt (before_agent_start), ToolID, ToolName,
// ToolArgs, Content and IsError (tool_result), Messages
// (context_prepare), TargetID, IsUserMessage and UserText (before_fork),
// Reason (before_session_switch), and the context figures and IsAutomatic
// (before_compact).
type EventIntercept struct {
	ID              string           `json:"id"`
	Name            string           `json:"event"`
	ToolID          string           `json:"tool_id,omitempty"`
	ToolName        string           `json:"tool_name,omitempty"`
	ToolArgs        json.RawMessage  `json:"tool_args,omitempty"`
	Step            int              `json:"step,omitempty"`
	Text            string           `json:"text,omitempty"`
	Source          string           `json:"source,omitempty"`
	Prompt          string           `json:"prompt,omitempty"`
	Content         string           `json:"content,omitempty"`
	IsError         bool             `json:"is_error,omitempty"`
	Messages        []ContextMessage `json:"messages,omitempty"`
	TargetID        string           `json:"target_id,omitempty"`
	IsUserMessage   bool             `json:"is_user_message,omitempty"`
	UserText        string           `json:"user_text,omitempty"`
	Reason          string           `json:"reason,omitempty"`
	EstimatedTokens int              `json:"estimated_tokens,omitempty"`
	ContextLimit    int              `json:"context_limit,omitempty"`
	UsagePercent    float64          `json:"usage_percent,omitempty"`
	MessageCount    int              `json:"message_count,omitempty"`
	IsAutomatic     bool             `json:"is_automatic,omitempty"`
}

// PanelKey is a key pressed while the panel PanelID is focused. Key is a
// normalised name (up, down, enter, esc, rune, ...); Text carries the
// character when Key is "rune".
type PanelKey struct {
	PanelID string `json:"panel_id"`
	Key     string `json:"key"`
	Text    string `json:"text,omitempty"`
}

// Shutdown asks the extension to send ShutdownAck and exit (C21).
type Shutdown struct{}

// Type returns "hello_ack".
func (HelloAck) Type() string { return "hello_ack" }

// Type returns "command_invoked".
func (CommandInvoked) Type() string { return "command_invoked" }

// Type returns "tool_call".
func (ToolCall) Type() string { return "tool_call" }

// Type returns "tool_cancel".
func (ToolCancel) Type() string { return "tool_cancel" }

// Type returns "event".
func (Event) Type() string { return "event" }

// Type returns "event_intercept".
func (EventIntercept) Type() string { return "event_intercept" }

// Type returns "panel_key".
func (PanelKey) Type() string { return "panel_key" }

// Type returns "shutdown".
func (Shutdown) Type() string { return "shutdown" }

// MarshalJSON encodes a tool call, defaulting a nil Args to {}.
func (f ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	if len(f.Args) == 0 {
		f.Args = rawObject
	}
	return marshalNoEscape(plain(f))
}

// eventWire is the encoded shape of Event and EventIntercept: pointer
// fields so that the members an event defines are always present, even
// when zero (a turn_start step, an empty assistant text), and the others
// never are.
type eventWire struct {
	ID          *string          `json:"id,omitempty"`
	Name        string           `json:"event"`
	Session     *Session         `json:"session,omitempty"`
	State       json.RawMessage  `json:"state,omitempty"`
	Step        *int             `json:"step,omitempty"`
	ToolID      *string          `json:"tool_id,omitempty"`
	ToolName    *string          `json:"tool_name,omitempty"`
	ToolArgs    *json.RawMessage `json:"tool_args,omitempty"`
	ToolPreview *string          `json:"tool_preview,omitempty"`
	Text        *string          `json:"text,omitempty"`
	Stop        *string          `json:"stop,omitempty"`
	Error       *string          `json:"error,omitempty"`
	addedWire
}

// MarshalJSON encodes the members of the event named by Name: session and
// state for session events, step for turn_start, tool_id, tool_name and
// tool_args for tool_call, tool_id, tool_name and tool_preview for
// tool_confirmation_requested, text for assistant_message, stop (and error
// when set) for turn_end. An unknown event encodes every non-zero member.
func (f Event) MarshalJSON() ([]byte, error) {
	w := eventWire{Name: f.Name, Session: f.Session, State: f.State}
	switch f.Name {
	case EventSessionStart, EventSessionOpened, EventSessionSwitched,
		EventSessionForked, EventSessionCompacted:
	case EventTurnStart:
		w.Step = &f.Step
	case EventToolCall:
		w.ToolID, w.ToolName, w.ToolArgs = &f.ToolID, &f.ToolName, argsOrObject(&f.ToolArgs)
		w.Source = nonEmpty(&f.Source)
	case EventToolConfirmationRequested:
		w.ToolID, w.ToolName, w.ToolPreview = &f.ToolID, &f.ToolName, &f.ToolPreview
	case EventAssistantMessage:
		w.Text = &f.Text
	case EventTurnEnd:
		w.Stop = &f.Stop
		w.Error = nonEmpty(&f.Error)
	default:
		w.Step = nonZero(&f.Step)
		w.ToolID, w.ToolName = nonEmpty(&f.ToolID), nonEmpty(&f.ToolName)
		if len(f.ToolArgs) > 0 {
			w.ToolArgs = &f.ToolArgs
		}
		w.ToolPreview, w.Text = nonEmpty(&f.ToolPreview), nonEmpty(&f.Text)
		w.Stop, w.Error = nonEmpty(&f.Stop), nonEmpty(&f.Error)
		if !addedEventMembers(&w, &f) {
			nonZeroEventMembers(&w, &f)
		}
	}
	return marshalNoEscape(w)
}

// MarshalJSON encodes id, event and the members of the event named by
// Name: tool_id, tool_name and tool_args for tool_call, step for
// turn_start, text for assistant_message. An unknown event encodes every
// non-zero member.
func (f EventIntercept) MarshalJSON() ([]byte, error) {
	w := eventWire{ID: &f.ID, Name: f.Name}
	switch f.Name {
	case EventToolCall:
		w.ToolID, w.ToolName, w.ToolArgs = &f.ToolID, &f.ToolName, argsOrObject(&f.ToolArgs)
		w.Source = nonEmpty(&f.Source)
	case EventTurnStart:
		w.Step = &f.Step
	case EventAssistantMessage:
		w.Text = &f.Text
	default:
		w.Step = nonZero(&f.Step)
		w.ToolID, w.ToolName = nonEmpty(&f.ToolID), nonEmpty(&f.ToolName)
		if len(f.ToolArgs) > 0 {
			w.ToolArgs = &f.ToolArgs
		}
		w.Text = nonEmpty(&f.Text)
		if !addedInterceptMembers(&w, &f) {
			nonZeroInterceptMembers(&w, &f)
		}
	}
	return marshalNoEscape(w)
}

func argsOrObject(p *json.RawMessage) *json.RawMessage {
	if len(*p) == 0 {
		return &rawObject
	}
	return p
}

func nonEmpty(p *string) *string {
	if *p == "" {
		return nil
	}
	return p
}

func nonZero(p *int) *int {
	if *p == 0 {
		return nil
	}
	return p
}
