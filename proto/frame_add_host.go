package proto

import "encoding/json"

// Additive frames the host sends to an extension, only to one that listed
// the capability AddedFrameCapability names.

// HostResponse answers the extension's HostRequest of the same ID: Result
// on success (at least {}), Error otherwise, a message for a person that
// says what failed and what to do.
type HostResponse struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// HostStream carries a chunk of a streamed result (llm.complete with
// stream) for the HostRequest ID; the HostResponse comes last.
type HostStream struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Shortcut tells the extension that the user pressed the key it
// registered with RegisterShortcut.
type Shortcut struct {
	Key string `json:"key"`
}

// CommandComplete asks for completions of the argument Prefix of the
// extension's command Name (registered with complete: true); the answer
// is a CommandCompletions with the same ID.
type CommandComplete struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// EditorKey reports a key the extension asked for with SetEditor; Text is
// the editor's current text. The host waits briefly (200 ms by default)
// for an EditorKeyResponse with the same ID, then lets the editor handle
// the key.
type EditorKey struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Text string `json:"text"`
}

// RenderTool asks how to show a call of a tool the extension registered a
// renderer for. Args are the call's arguments; Result (absent while the
// call runs) is its result text and IsError marks a failed call. Width is
// the number of columns available. The answer is a RenderToolResponse.
type RenderTool struct {
	ID       string          `json:"id"`
	ToolName string          `json:"tool_name"`
	Args     json.RawMessage `json:"args"`
	Result   *string         `json:"result,omitempty"`
	IsError  bool            `json:"is_error,omitempty"`
	Width    int             `json:"width"`
}

// RenderMessage asks the extension's message renderer Name to draw
// Content in Width columns; the answer is a RenderMessageResponse.
type RenderMessage struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	Width   int    `json:"width"`
}

// Type returns "host_response".
func (HostResponse) Type() string { return "host_response" }

// Type returns "host_stream".
func (HostStream) Type() string { return "host_stream" }

// Type returns "shortcut".
func (Shortcut) Type() string { return "shortcut" }

// Type returns "command_complete".
func (CommandComplete) Type() string { return "command_complete" }

// Type returns "editor_key".
func (EditorKey) Type() string { return "editor_key" }

// Type returns "render_tool".
func (RenderTool) Type() string { return "render_tool" }

// Type returns "render_message".
func (RenderMessage) Type() string { return "render_message" }

// MarshalJSON encodes a host response; a success without a result carries
// the result {}.
func (f HostResponse) MarshalJSON() ([]byte, error) {
	type plain HostResponse
	if f.Error == "" && len(f.Result) == 0 {
		f.Result = rawEmpty
	}
	return marshalNoEscape(plain(f))
}

// MarshalJSON encodes a render_tool request, defaulting a nil Args to {}.
func (f RenderTool) MarshalJSON() ([]byte, error) {
	type plain RenderTool
	if len(f.Args) == 0 {
		f.Args = rawObject
	}
	return marshalNoEscape(plain(f))
}

// addedTypes lists the additive frame types newAddedFrame knows.
var addedTypes = []string{
	"host_request", "register_option", "tool_progress", "print", "header", "footer",
	"header_clear", "footer_clear", "ui_visibility", "register_shortcut",
	"command_completions", "set_editor", "reset_editor", "editor_key_response",
	"register_tool_renderer", "render_tool_response", "register_message_renderer",
	"render_message_response", "host_response", "host_stream", "shortcut",
	"command_complete", "editor_key", "render_tool", "render_message",
}

// newAddedFrame is newExtensionFrame for the additive frame types.
func newAddedFrame(b []byte) Frame {
	switch string(b) {
	case "host_request":
		return new(HostRequest)
	case "register_option":
		return new(RegisterOption)
	case "tool_progress":
		return new(ToolProgress)
	case "print":
		return new(Print)
	case "header":
		return new(Header)
	case "footer":
		return new(Footer)
	case "header_clear":
		return new(HeaderClear)
	case "footer_clear":
		return new(FooterClear)
	case "ui_visibility":
		return new(UIVisibility)
	case "register_shortcut":
		return new(RegisterShortcut)
	case "command_completions":
		return new(CommandCompletions)
	case "set_editor":
		return new(SetEditor)
	case "reset_editor":
		return new(ResetEditor)
	case "editor_key_response":
		return new(EditorKeyResponse)
	case "register_tool_renderer":
		return new(RegisterToolRenderer)
	case "render_tool_response":
		return new(RenderToolResponse)
	case "register_message_renderer":
		return new(RegisterMessageRenderer)
	case "render_message_response":
		return new(RenderMessageResponse)
	case "host_response":
		return new(HostResponse)
	case "host_stream":
		return new(HostStream)
	case "shortcut":
		return new(Shortcut)
	case "command_complete":
		return new(CommandComplete)
	case "editor_key":
		return new(EditorKey)
	case "render_tool":
		return new(RenderTool)
	case "render_message":
		return new(RenderMessage)
	}
	return nil
}
