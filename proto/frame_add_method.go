package proto

import (
	"encoding/json"
	"time"
)

// Params and results of the host request methods (see the Method
// constants). The JSON names are the wire names.

// UIRequest is a dialog an extension asks the user to answer: the params
// of ui.select, ui.confirm, ui.input and ui.overlay, and what the host
// hands to the UI. The host sets ID (unique within the host process) and
// Kind; the other members are the extension's params. Default is a string
// (the preselected option of a select, the prefilled text of an input) or
// a boolean (confirm). TimeoutMS is how long the host waits for an answer
// before it answers with the default, cancelled.
type UIRequest struct {
	ID          string          `json:"id,omitempty"`
	Kind        string          `json:"kind,omitempty"` // UISelect, UIConfirm, UIInput or UIOverlay
	Title       string          `json:"title,omitempty"`
	Message     string          `json:"message,omitempty"`
	Options     []string        `json:"options,omitempty"`     // select
	Default     json.RawMessage `json:"default,omitempty"`     // select, input: string; confirm: bool
	Placeholder string          `json:"placeholder,omitempty"` // input
	Text        string          `json:"text,omitempty"`        // overlay body
	Markdown    bool            `json:"markdown,omitempty"`    // overlay body is markdown
	Actions     []string        `json:"actions,omitempty"`     // overlay buttons
	Width       int             `json:"width,omitempty"`       // overlay columns, 0: 60% of the terminal
	MaxHeight   int             `json:"max_height,omitempty"`  // overlay rows, 0: 80% of the terminal
	Anchor      string          `json:"anchor,omitempty"`      // overlay: AnchorCenter, AnchorTop, AnchorBottom
	BorderColor string          `json:"border_color,omitempty"`
	TimeoutMS   int64           `json:"timeout_ms,omitempty"`
}

// DefaultString returns Default as a string ("" when absent or not a
// string).
func (r UIRequest) DefaultString() string {
	var s string
	_ = json.Unmarshal(r.Default, &s)
	return s
}

// DefaultBool returns Default as a boolean (false when absent or not a
// boolean).
func (r UIRequest) DefaultBool() bool {
	var b bool
	_ = json.Unmarshal(r.Default, &b)
	return b
}

// Timeout returns TimeoutMS as a duration.
func (r UIRequest) Timeout() time.Duration { return time.Duration(r.TimeoutMS) * time.Millisecond }

// UIResponse is the UI's answer to a UIRequest. Value is a JSON string
// (select: the chosen option; input: the text) or boolean (confirm);
// Index is the chosen option or overlay action; Action is the overlay
// action. Cancelled declines the dialog. Build it with SelectAnswer,
// ConfirmAnswer, InputAnswer, OverlayAnswer or CancelledAnswer.
type UIResponse struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Index     *int            `json:"index,omitempty"`
	Action    string          `json:"action,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
}

// SelectAnswer answers a select with the option value at index.
func SelectAnswer(value string, index int) UIResponse {
	return UIResponse{Value: jsonString(value), Index: &index}
}

// ConfirmAnswer answers a confirm.
func ConfirmAnswer(yes bool) UIResponse {
	if yes {
		return UIResponse{Value: json.RawMessage("true")}
	}
	return UIResponse{Value: json.RawMessage("false")}
}

// InputAnswer answers an input with text.
func InputAnswer(text string) UIResponse { return UIResponse{Value: jsonString(text)} }

// OverlayAnswer answers an overlay with the action at index.
func OverlayAnswer(action string, index int) UIResponse {
	return UIResponse{Action: action, Index: &index}
}

// CancelledAnswer declines any dialog.
func CancelledAnswer() UIResponse { return UIResponse{Cancelled: true} }

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// SelectResult is the result of ui.select. Index is -1 when cancelled
// without a default.
type SelectResult struct {
	Value     string `json:"value"`
	Index     int    `json:"index"`
	Cancelled bool   `json:"cancelled"`
}

// ConfirmResult is the result of ui.confirm.
type ConfirmResult struct {
	Value     bool `json:"value"`
	Cancelled bool `json:"cancelled"`
}

// InputResult is the result of ui.input.
type InputResult struct {
	Value     string `json:"value"`
	Cancelled bool   `json:"cancelled"`
}

// OverlayResult is the result of ui.overlay. Index is -1 when cancelled.
type OverlayResult struct {
	Action    string `json:"action"`
	Index     int    `json:"index"`
	Cancelled bool   `json:"cancelled"`
}

// MessageBlock is a block of a conversation message in the RPC shape:
// text and thinking (Text), image (MIMEType, Data), tool_call (ID, Name,
// Args) and tool_result (CallID, IsError, Content).
type MessageBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	MIMEType string          `json:"mime_type,omitempty"`
	Data     string          `json:"data,omitempty"`
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	CallID   string          `json:"call_id,omitempty"`
	IsError  *bool           `json:"is_error,omitempty"`
	Content  []MessageBlock  `json:"content,omitempty"`
}

// Message is one conversation message in the RPC shape.
type Message struct {
	Role    string         `json:"role"`
	Content []MessageBlock `json:"content"`
}

// MessagesResult is the result of session.messages: the messages of the
// current branch, as sent to the model (compaction applied).
type MessagesResult struct {
	Messages []Message `json:"messages"`
}

// SessionInfo is the result of session.info. ID is the session file's id
// and Branch the identity of the current branch.
type SessionInfo struct {
	ID     string   `json:"id"`
	Path   string   `json:"path,omitempty"` // "" for a session kept in memory
	CWD    string   `json:"cwd"`
	Title  string   `json:"title,omitempty"`
	Branch *Session `json:"branch,omitempty"`
}

// ContextStats is the result of session.context_stats. EstimatedTokens is
// an estimate of the context the next request sends; ContextLimit is the
// model's window (0 when unknown).
type ContextStats struct {
	EstimatedTokens int     `json:"estimated_tokens"`
	ContextLimit    int     `json:"context_limit"`
	UsagePercent    float64 `json:"usage_percent"`
	MessageCount    int     `json:"message_count"`
}

// AppendEntryParams are the params of session.append_entry: Data (any
// JSON value) is stored on the current branch as a custom entry of
// EntryType owned by the extension. It never reaches the model.
type AppendEntryParams struct {
	EntryType string          `json:"entry_type"`
	Data      json.RawMessage `json:"data"`
}

// IDResult is the result of session.append_entry: the new entry's id.
type IDResult struct {
	ID string `json:"id"`
}

// EntriesParams are the params of session.entries: the extension's own
// custom entries of EntryType on the current branch ("" for all of them).
type EntriesParams struct {
	EntryType string `json:"entry_type,omitempty"`
}

// Entry is one custom entry of an extension.
type Entry struct {
	ID        string          `json:"id"`
	EntryType string          `json:"entry_type"`
	Data      json.RawMessage `json:"data"`
	Time      time.Time       `json:"time"`
}

// EntriesResult is the result of session.entries, oldest first.
type EntriesResult struct {
	Entries []Entry `json:"entries"`
}

// ModelParams are the params of model.set: Model is "provider/id" or an
// id the catalog knows.
type ModelParams struct {
	Model string `json:"model"`
}

// ModelInfo describes a model: the result of model.get and model.set, and
// a row of model.list. Model is "provider/id". Ready says whether zut can
// use it now ("key", "local" or "").
type ModelInfo struct {
	Model         string `json:"model"`
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ContextWindow int    `json:"context_window,omitempty"`
	MaxOutput     int    `json:"max_output,omitempty"`
	Reasoning     string `json:"reasoning,omitempty"`
	Ready         string `json:"ready,omitempty"`
}

// ModelsResult is the result of model.list.
type ModelsResult struct {
	Models []ModelInfo `json:"models"`
}

// Tool sources of ToolInfo.
const (
	ToolBuiltin   = "builtin"
	ToolExtension = "extension"
)

// ToolInfo is a row of tools.list. Enabled is false for a tool that
// tools.set_active left out.
type ToolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"` // ToolBuiltin or ToolExtension
	Extension   string `json:"extension,omitempty"`
	Enabled     bool   `json:"enabled"`
}

// ToolsResult is the result of tools.list.
type ToolsResult struct {
	Tools []ToolInfo `json:"tools"`
}

// SetActiveToolsParams are the params of tools.set_active. Names nil (JSON
// null or absent) offers every tool to the model again; a list restricts
// the model to those tools.
type SetActiveToolsParams struct {
	Names []string `json:"names"`
}

// CompleteParams are the params of llm.complete: one standalone model
// call without tools. Model "" is the current model. With Stream the
// text also arrives in HostStream frames as it is generated.
type CompleteParams struct {
	Model     string `json:"model,omitempty"`
	System    string `json:"system,omitempty"`
	Prompt    string `json:"prompt"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	Stream    bool   `json:"stream,omitempty"`
}

// CompleteResult is the result of llm.complete.
type CompleteResult struct {
	Text         string `json:"text"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	Model        string `json:"model"`
}

// OptionParams are the params of options.get (Name) and options.set
// (Name, Value).
type OptionParams struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// OptionResult is the result of options.get and options.set: the value
// now in effect and where it came from ("set", "env", "config" or
// "default").
type OptionResult struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// SendParams are the params of app.send. Mode is SendQueue (default),
// SendSteer or SendInterrupt.
type SendParams struct {
	Text string `json:"text"`
	Mode string `json:"mode,omitempty"`
}

// CustomParams are the params of app.notify_custom: a custom event Name
// with any JSON Data, delivered to the other extensions subscribed to the
// custom event.
type CustomParams struct {
	Name string          `json:"name"`
	Data json.RawMessage `json:"data,omitempty"`
}

// TextParams are the params of editor.set_text.
type TextParams struct {
	Text string `json:"text"`
}

// SuspendResult is the result of tui.suspend: Suspended is false when no
// terminal UI runs (print, JSON and RPC modes), so there was nothing to
// release.
type SuspendResult struct {
	Suspended bool `json:"suspended"`
}

// EditorTextResult answers editor.set_text: Applied is false when no
// editor runs (print and JSON modes), so the text went nowhere.
type EditorTextResult struct {
	Applied bool `json:"applied"`
}
