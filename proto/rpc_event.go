package proto

import "encoding/json"

// What zut writes to stdout in RPC mode: exactly one RPCResponse per
// command, and events, which carry no command id. The agent's own events
// (turn_start, text_delta, tool_call, done ...) are encoded by package
// agent; the frames below are the rest: the response envelope and what
// extensions cause.

// RPCResponse answers one command. ID echoes the command's id (absent when
// the command had none or it was unreadable); Command is the command's
// type. Data is set on success when the command returns something; Error
// says what went wrong and what to do.
type RPCResponse struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// RPCExtNotify is an extension's notify frame.
type RPCExtNotify struct {
	Extension string `json:"extension"`
	Level     string `json:"level"`
	Message   string `json:"message"`
}

// RPCExtDisplay is a one-shot note from an extension command's display
// action.
type RPCExtDisplay struct {
	Extension string `json:"extension"`
	Text      string `json:"text"`
}

// RPCExtClearNotes removes the notes and displays of Extension.
type RPCExtClearNotes struct {
	Extension string `json:"extension"`
}

// RPCExtAlert is an extension's alert frame (Kind "bell", ...); the client
// decides how to alert.
type RPCExtAlert struct {
	Extension string `json:"extension"`
	Kind      string `json:"kind"`
	Reason    string `json:"reason,omitempty"`
}

// RPCExtStatus sets status item Key of Extension; an empty Text clears it.
type RPCExtStatus struct {
	Extension string `json:"extension"`
	Key       string `json:"key"`
	Level     string `json:"level"`
	Text      string `json:"text"`
	// Priority orders status items, lower further left (an addition;
	// absent means 0).
	Priority int `json:"priority,omitempty"`
}

// RPCExtWidget sets or replaces widget ID of Extension. Position is
// always set ("above_input" unless a richer placement was asked for).
type RPCExtWidget struct {
	Extension string   `json:"extension"`
	ID        string   `json:"id"`
	Position  string   `json:"position"` // above_input, below_input or right_bar
	Title     string   `json:"title"`
	Lines     []string `json:"lines"`
	// The members of capability ui2, passed on as the extension sent them.
	Priority    int    `json:"priority,omitempty"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
	NoBorder    bool   `json:"no_border,omitempty"`
}

// RPCExtWidgetClear removes widget ID of Extension.
type RPCExtWidgetClear struct {
	Extension string `json:"extension"`
	ID        string `json:"id"`
}

// RPCExtChromeClear removes everything Extension showed: notes, status
// items, widgets and its panel. Sent when it stops or is reloaded.
type RPCExtChromeClear struct {
	Extension string `json:"extension"`
}

// RPCExtExited reports an extension that stopped while zut ran (a crash
// or a broken pipe); Error says why and Log is its stderr log.
type RPCExtExited struct {
	Extension string `json:"extension"`
	Error     string `json:"error"`
	Log       string `json:"log,omitempty"`
}

// RPCExtInsert is an extension command's insert action: Text for the
// client's input box, not sent anywhere.
type RPCExtInsert struct {
	Extension string `json:"extension"`
	Text      string `json:"text"`
}

// RPCExtPanel is the content of an extension panel in ext_panel_open and
// ext_panel_render events.
type RPCExtPanel struct {
	Extension string   `json:"extension"`
	PanelID   string   `json:"panel_id"`
	Title     string   `json:"title"`
	Lines     []string `json:"lines"`
	Footer    string   `json:"footer"`
}

// RPCExtPanelOpen opens the single panel slot with Panel's content; a
// panel already open is replaced (and its extension told).
type RPCExtPanelOpen struct{ RPCExtPanel }

// RPCExtPanelRender redraws the open panel.
type RPCExtPanelRender struct{ RPCExtPanel }

// RPCExtPanelClose reports that the extension closed its panel.
type RPCExtPanelClose struct {
	Extension string `json:"extension"`
	PanelID   string `json:"panel_id"`
}

// RPCCommandsChanged says the slash command list changed (an extension
// registered or lost a command); get_commands has the new list.
type RPCCommandsChanged struct{}

// RPCCompactDone ends every compact command: Summary on success, Error
// (and an empty Summary) on failure.
type RPCCompactDone struct {
	Summary string `json:"summary"`
	Error   string `json:"error,omitempty"`
}

// RPCExtUIRequest forwards a dialog an extension asks the user to answer
// (ui.select, ui.confirm, ui.input, ui.overlay). The client answers with
// an ext_ui_response command naming RequestID; without an answer within
// the request's timeout the extension gets the default answer and an
// ext_ui_request_closed event follows. The members after Kind are the
// extension's parameters (see proto.UIRequest).
type RPCExtUIRequest struct {
	RequestID   string          `json:"request_id"`
	Extension   string          `json:"extension"`
	Kind        string          `json:"kind"` // UISelect, UIConfirm, UIInput or UIOverlay
	Title       string          `json:"title,omitempty"`
	Message     string          `json:"message,omitempty"`
	Options     []string        `json:"options,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
	Text        string          `json:"text,omitempty"`
	Markdown    bool            `json:"markdown,omitempty"`
	Actions     []string        `json:"actions,omitempty"`
	Width       int             `json:"width,omitempty"`
	MaxHeight   int             `json:"max_height,omitempty"`
	Anchor      string          `json:"anchor,omitempty"`
	BorderColor string          `json:"border_color,omitempty"`
	TimeoutMS   int64           `json:"timeout_ms,omitempty"`
}

// RPCExtUIRequestClosed says the request RequestID no longer waits for an
// answer: it timed out or its extension stopped, and the extension got
// the default answer. The client should close its dialog.
type RPCExtUIRequestClosed struct {
	RequestID string `json:"request_id"`
	Extension string `json:"extension"`
}

// RPCExtPrint is a note an extension adds to the transcript: shown, never
// sent to the model, not saved. Style is plain, info, error or block;
// Markdown says how to render Text; Renderer names the extension's message
// renderer, which only the terminal UI uses.
type RPCExtPrint struct {
	Extension   string `json:"extension"`
	Text        string `json:"text"`
	Style       string `json:"style"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
	Subtitle    string `json:"subtitle,omitempty"`
	Renderer    string `json:"renderer,omitempty"`
}

// RPCExtHeader sets the extension's header (ext_header) or footer
// (ext_footer); an empty Text clears it.
type RPCExtHeader struct {
	Extension   string `json:"extension"`
	Text        string `json:"text"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
}

// RPCExtFooter is RPCExtHeader for the footer.
type RPCExtFooter RPCExtHeader

// RPCExtUIVisibility says which parts of its UI the extension asks the
// client to hide; it replaces the extension's previous request.
type RPCExtUIVisibility struct {
	Extension string `json:"extension"`
	UIVisibility
}

// RPCExtEditorText asks the client to replace the text of its input box
// with Text (editor.set_text).
type RPCExtEditorText struct {
	Extension string `json:"extension"`
	Text      string `json:"text"`
}

// RPCExtExitRequested says an extension asked zut to quit (app.exit).
// The client decides: closing zut's stdin ends it gracefully.
type RPCExtExitRequested struct {
	Extension string `json:"extension"`
}

// Type returns "response".
func (RPCResponse) Type() string { return "response" }

// Type returns "ext_notify".
func (RPCExtNotify) Type() string { return "ext_notify" }

// Type returns "ext_display".
func (RPCExtDisplay) Type() string { return "ext_display" }

// Type returns "ext_clear_notes".
func (RPCExtClearNotes) Type() string { return "ext_clear_notes" }

// Type returns "ext_alert".
func (RPCExtAlert) Type() string { return "ext_alert" }

// Type returns "ext_status".
func (RPCExtStatus) Type() string { return "ext_status" }

// Type returns "ext_widget".
func (RPCExtWidget) Type() string { return "ext_widget" }

// Type returns "ext_widget_clear".
func (RPCExtWidgetClear) Type() string { return "ext_widget_clear" }

// Type returns "ext_chrome_clear".
func (RPCExtChromeClear) Type() string { return "ext_chrome_clear" }

// Type returns "ext_exited".
func (RPCExtExited) Type() string { return "ext_exited" }

// Type returns "ext_insert".
func (RPCExtInsert) Type() string { return "ext_insert" }

// Type returns "ext_panel_open".
func (RPCExtPanelOpen) Type() string { return "ext_panel_open" }

// Type returns "ext_panel_render".
func (RPCExtPanelRender) Type() string { return "ext_panel_render" }

// Type returns "ext_panel_close".
func (RPCExtPanelClose) Type() string { return "ext_panel_close" }

// Type returns "commands_changed".
func (RPCCommandsChanged) Type() string { return "commands_changed" }

// Type returns "ext_ui_request".
func (RPCExtUIRequest) Type() string { return "ext_ui_request" }

// Type returns "ext_ui_request_closed".
func (RPCExtUIRequestClosed) Type() string { return "ext_ui_request_closed" }

// Type returns "ext_print".
func (RPCExtPrint) Type() string { return "ext_print" }

// Type returns "ext_header".
func (RPCExtHeader) Type() string { return "ext_header" }

// Type returns "ext_footer".
func (RPCExtFooter) Type() string { return "ext_footer" }

// Type returns "ext_ui_visibility".
func (RPCExtUIVisibility) Type() string { return "ext_ui_visibility" }

// Type returns "ext_editor_text".
func (RPCExtEditorText) Type() string { return "ext_editor_text" }

// Type returns "ext_exit_requested".
func (RPCExtExitRequested) Type() string { return "ext_exit_requested" }

// Type returns "compact_done".
func (RPCCompactDone) Type() string { return "compact_done" }

// NewRPCOutput returns a pointer to a new zero frame for the type name of
// a frame this file declares (the response and the extension events), or
// nil. Clients written in Go can set it as Reader.New; agent events are
// not in it.
func NewRPCOutput(typ string) Frame {
	switch typ {
	case "response":
		return new(RPCResponse)
	case "ext_notify":
		return new(RPCExtNotify)
	case "ext_display":
		return new(RPCExtDisplay)
	case "ext_clear_notes":
		return new(RPCExtClearNotes)
	case "ext_alert":
		return new(RPCExtAlert)
	case "ext_status":
		return new(RPCExtStatus)
	case "ext_widget":
		return new(RPCExtWidget)
	case "ext_widget_clear":
		return new(RPCExtWidgetClear)
	case "ext_chrome_clear":
		return new(RPCExtChromeClear)
	case "ext_exited":
		return new(RPCExtExited)
	case "ext_insert":
		return new(RPCExtInsert)
	case "ext_panel_open":
		return new(RPCExtPanelOpen)
	case "ext_panel_render":
		return new(RPCExtPanelRender)
	case "ext_panel_close":
		return new(RPCExtPanelClose)
	case "commands_changed":
		return new(RPCCommandsChanged)
	case "compact_done":
		return new(RPCCompactDone)
	case "ext_ui_request":
		return new(RPCExtUIRequest)
	case "ext_ui_request_closed":
		return new(RPCExtUIRequestClosed)
	case "ext_print":
		return new(RPCExtPrint)
	case "ext_header":
		return new(RPCExtHeader)
	case "ext_footer":
		return new(RPCExtFooter)
	case "ext_ui_visibility":
		return new(RPCExtUIVisibility)
	case "ext_editor_text":
		return new(RPCExtEditorText)
	case "ext_exit_requested":
		return new(RPCExtExitRequested)
	}
	return nil
}
