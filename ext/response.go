package ext

import "github.com/zut-go/zut/proto"

// Actions of a command Response.
const (
	ActionPrompt    = proto.ActionPrompt    // submit Text as a user prompt
	ActionInsert    = proto.ActionInsert    // insert Text into the editor
	ActionDisplay   = proto.ActionDisplay   // show Text as a note, no model call
	ActionOpenPanel = proto.ActionOpenPanel // open Panel
	ActionNoop      = proto.ActionNoop      // the extension handled it itself
)

// Response is a command's answer. Build it with Prompt, Insert, Display,
// OpenPanelResponse, Noop or ErrorResponse. The zero value is a noop.
type Response struct {
	Action string // one of the Action constants; "" means noop
	Text   string // the prompt, insert or display text
	Panel  *Panel // the panel to open, for ActionOpenPanel
	// Error, when not empty, is shown to the user as an error line
	// whatever the action.
	Error string
}

// Prompt submits text as a fresh user message; the agent runs a turn.
func Prompt(text string) Response { return Response{Action: ActionPrompt, Text: text} }

// Insert puts text into the editor at the cursor without submitting it.
func Insert(text string) Response { return Response{Action: ActionInsert, Text: text} }

// Display appends text to the chat as a one-shot note; nothing reaches the
// model or the transcript.
func Display(text string) Response { return Response{Action: ActionDisplay, Text: text} }

// OpenPanelResponse opens p, an interactive panel owned by the extension.
// Keys pressed in it reach OnPanelKey functions; redraw it with
// RenderPanel.
func OpenPanelResponse(p Panel) Response { return Response{Action: ActionOpenPanel, Panel: &p} }

// Noop tells the host the command is handled and nothing changes in the UI.
func Noop() Response { return Response{Action: ActionNoop} }

// ErrorResponse reports that the command failed; msg is shown as an error
// line. Say what went wrong and what to do.
func ErrorResponse(msg string) Response { return Response{Action: ActionNoop, Error: msg} }

// frame turns r into the command_response for the invocation id.
func (r Response) frame(id string) proto.CommandResponse {
	f := proto.CommandResponse{ID: id, Action: r.Action, Error: r.Error}
	switch r.Action {
	case ActionPrompt:
		f.Prompt = r.Text
	case ActionInsert:
		f.Insert = r.Text
	case ActionDisplay:
		f.Display = r.Text
	case ActionOpenPanel:
		if r.Panel != nil {
			p := r.Panel.proto()
			f.OpenPanel = &p
		}
	case "":
		f.Action = ActionNoop
	}
	return f
}

// Panel is the content of an extension-owned panel. ID names it in later
// RenderPanel and ClosePanel calls and in PanelKey events; use an ID unique
// to what the panel shows. The host has one panel slot: opening a panel
// replaces any other.
type Panel struct {
	ID     string
	Title  string
	Lines  []string
	Footer string
}

func (p Panel) proto() proto.Panel {
	return proto.Panel{ID: p.ID, Title: p.Title, Lines: p.Lines, Footer: p.Footer}
}
