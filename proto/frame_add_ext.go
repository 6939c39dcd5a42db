package proto

import "encoding/json"

// Additive frames an extension sends to the host. Each needs the
// capability AddedFrameCapability names; the host ignores (and logs) it
// from an extension that did not list that capability in its hello.

// HostRequest asks the host to do something for the extension (capability
// host_requests). ID is the extension's own and comes back in the
// HostResponse; Method is one of the Method constants and Params its
// params object (absent means {}).
type HostRequest struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// RegisterOption declares a configurable option (capability
// host_requests). Its value resolves as: a value set with options.set,
// then the environment variable ZUT_OPT_<NAME> (upper case, '-' and '.'
// as '_'), then options.<name> in $ZUT_HOME/config.json, then Default.
type RegisterOption struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Default     string `json:"default,omitempty"`
}

// ToolProgress reports progress of the running tool call ID (the
// tool_call frame's id) as one line of Text (capability ui2).
type ToolProgress struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Print adds a note to the transcript (capability ui2). It is shown to the
// user, never sent to the model, and not saved. Style is PrintPlain,
// PrintInfo, PrintError or PrintBlock; Renderer names a message renderer
// registered with RegisterMessageRenderer that draws Text instead.
type Print struct {
	Text        string `json:"text"`
	Style       string `json:"style,omitempty"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
	Subtitle    string `json:"subtitle,omitempty"`
	Renderer    string `json:"renderer,omitempty"`
}

// Header sets the extension's header above the transcript (capability
// ui2). An empty Text clears it, as HeaderClear does.
type Header struct {
	Text        string `json:"text"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
}

// Footer sets the extension's footer below the editor (capability ui2).
// An empty Text clears it, as FooterClear does.
type Footer struct {
	Text        string `json:"text"`
	Markdown    bool   `json:"markdown,omitempty"`
	BorderColor string `json:"border_color,omitempty"`
}

// HeaderClear removes the extension's header.
type HeaderClear struct{}

// FooterClear removes the extension's footer.
type FooterClear struct{}

// UIVisibility hides parts of the interactive UI (capability ui2). Each
// frame replaces the extension's previous request; the UI hides a part
// when any extension asks for it.
type UIVisibility struct {
	HideStartupMessage bool `json:"hide_startup_message,omitempty"`
	HideStatusBar      bool `json:"hide_status_bar,omitempty"`
	HideSeparator      bool `json:"hide_separator,omitempty"`
	HideInputHint      bool `json:"hide_input_hint,omitempty"`
}

// RegisterShortcut claims a key of the interactive editor, such as
// "ctrl+alt+p" (capability ui2). When the user presses it the host sends
// Shortcut. Keys compare case-insensitively; the first registration in
// load order wins, and built-in keys always win.
type RegisterShortcut struct {
	Key         string `json:"key"`
	Description string `json:"description,omitempty"`
}

// CommandCompletions answers a CommandComplete with the same ID: the
// completions of the argument prefix, best first.
type CommandCompletions struct {
	ID    string   `json:"id"`
	Items []string `json:"items"`
}

// SetEditor asks the host to send EditorKey for each of Keys pressed in
// the editor, and to wait briefly for an EditorKeyResponse before it
// handles the key (capability ui2). It replaces the extension's previous
// set; ResetEditor removes it.
type SetEditor struct {
	Keys []string `json:"keys"`
}

// ResetEditor stops the extension's editor key handling.
type ResetEditor struct{}

// EditorKeyResponse answers an EditorKey with the same ID. Action is one
// of the Editor constants: Key is the key to handle instead for
// EditorRemap, Text the prompt to submit for EditorSubmit.
type EditorKeyResponse struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Key    string `json:"key,omitempty"`
	Text   string `json:"text,omitempty"`
}

// RegisterToolRenderer changes how the interactive UI shows calls of the
// tool ToolName (capability ui2): DisplayName replaces its name,
// BorderColor its frame colour, BodyMarkdown renders the body as
// markdown. With RenderHeader or RenderBody the host asks the extension
// with RenderTool for that part. The first registration per tool wins.
type RegisterToolRenderer struct {
	ToolName     string `json:"tool_name"`
	DisplayName  string `json:"display_name,omitempty"`
	BorderColor  string `json:"border_color,omitempty"`
	BodyMarkdown bool   `json:"body_markdown,omitempty"`
	RenderHeader bool   `json:"render_header,omitempty"`
	RenderBody   bool   `json:"render_body,omitempty"`
}

// RenderToolResponse answers a RenderTool with the same ID. An empty
// Header or Body keeps the default rendering of that part.
type RenderToolResponse struct {
	ID     string `json:"id"`
	Header string `json:"header,omitempty"`
	Body   string `json:"body,omitempty"`
}

// RegisterMessageRenderer declares a named renderer for Print frames that
// name it (capability ui2). Names are shared by all extensions; the first
// registration wins.
type RegisterMessageRenderer struct {
	Name string `json:"name"`
}

// RenderMessageResponse answers a RenderMessage with the same ID: the
// lines to show, already fitted to the width.
type RenderMessageResponse struct {
	ID    string   `json:"id"`
	Lines []string `json:"lines"`
}

// Type returns "host_request".
func (HostRequest) Type() string { return "host_request" }

// Type returns "register_option".
func (RegisterOption) Type() string { return "register_option" }

// Type returns "tool_progress".
func (ToolProgress) Type() string { return "tool_progress" }

// Type returns "print".
func (Print) Type() string { return "print" }

// Type returns "header".
func (Header) Type() string { return "header" }

// Type returns "footer".
func (Footer) Type() string { return "footer" }

// Type returns "header_clear".
func (HeaderClear) Type() string { return "header_clear" }

// Type returns "footer_clear".
func (FooterClear) Type() string { return "footer_clear" }

// Type returns "ui_visibility".
func (UIVisibility) Type() string { return "ui_visibility" }

// Type returns "register_shortcut".
func (RegisterShortcut) Type() string { return "register_shortcut" }

// Type returns "command_completions".
func (CommandCompletions) Type() string { return "command_completions" }

// Type returns "set_editor".
func (SetEditor) Type() string { return "set_editor" }

// Type returns "reset_editor".
func (ResetEditor) Type() string { return "reset_editor" }

// Type returns "editor_key_response".
func (EditorKeyResponse) Type() string { return "editor_key_response" }

// Type returns "register_tool_renderer".
func (RegisterToolRenderer) Type() string { return "register_tool_renderer" }

// Type returns "render_tool_response".
func (RenderToolResponse) Type() string { return "render_tool_response" }

// Type returns "register_message_renderer".
func (RegisterMessageRenderer) Type() string { return "register_message_renderer" }

// Type returns "render_message_response".
func (RenderMessageResponse) Type() string { return "render_message_response" }
