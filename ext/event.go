package ext

import (
	"encoding/json"

	"github.com/zut-go/zut/proto"
)

// Lifecycle event names for On. Session events carry Event.Session and the
// extension's own saved state in Event.State.
const (
	EventSessionStart              = proto.EventSessionStart
	EventSessionOpened             = proto.EventSessionOpened
	EventSessionSwitched           = proto.EventSessionSwitched
	EventSessionForked             = proto.EventSessionForked
	EventSessionCompacted          = proto.EventSessionCompacted
	EventTurnStart                 = proto.EventTurnStart
	EventToolCall                  = proto.EventToolCall
	EventToolConfirmationRequested = proto.EventToolConfirmationRequested
	EventAssistantMessage          = proto.EventAssistantMessage
	EventTurnEnd                   = proto.EventTurnEnd
)

// Lifecycle events added beyond v2 (capability events2, declared by On).
// The Event fields each sets are named in its comment.
const (
	EventSessionShutdown    = proto.EventSessionShutdown    // zut is shutting down: clean up
	EventAgentStart         = proto.EventAgentStart         // Prompt
	EventAgentEnd           = proto.EventAgentEnd           // Response, Stop (completed, cancelled, error), Error
	EventToolExecutionStart = proto.EventToolExecutionStart // ToolID, ToolName
	EventToolExecutionEnd   = proto.EventToolExecutionEnd   // ToolID, ToolName, IsError
	EventToolResult         = proto.EventToolResult         // ToolID, ToolName, ToolArgs, Content, IsError
	EventInput              = proto.EventInput              // Text, Source
	EventMessageStart       = proto.EventMessageStart       // no fields
	EventMessageUpdate      = proto.EventMessageUpdate      // Chunk
	EventMessageEnd         = proto.EventMessageEnd         // Content
	EventModelChange        = proto.EventModelChange        // Model, PreviousModel, Source
	EventSubagentStart      = proto.EventSubagentStart      // Data: the subagent's id, task, agent, model, isolation
	EventSubagentUpdate     = proto.EventSubagentUpdate     // Data: id, state, activity, steps, cost_usd
	EventSubagentEnd        = proto.EventSubagentEnd        // Data: id, status, result, error, steps, usage, session
)

// Session identifies the active session branch.
type Session struct {
	ID        string
	ParentID  string
	Path      string
	CWD       string
	ForkPoint int
}

func sessionFrom(s *proto.Session) *Session {
	if s == nil {
		return nil
	}
	return &Session{ID: s.ID, ParentID: s.ParentID, Path: s.Path, CWD: s.CWD, ForkPoint: s.ForkPoint}
}

// HostInfo is what the host said about itself in hello_ack. CWD is the
// user's project directory: the extension process runs in its own
// directory, so use CWD rather than os.Getwd for the project. ExtensionDir
// and DataDir are where the extension keeps its files.
type HostInfo struct {
	ProtocolVersion int
	ZutVersion      string
	Provider        string
	Model           string
	CWD             string
	ExtensionDir    string
	DataDir         string
	Session         *Session // nil when no session is active
	// Capabilities lists additive features of the host, if it sent any.
	Capabilities []string
}

func hostInfoFrom(f *proto.HelloAck) HostInfo {
	return HostInfo{
		ProtocolVersion: f.ProtocolVersion, ZutVersion: f.ZutVersion,
		Provider: f.Provider, Model: f.Model, CWD: f.CWD,
		ExtensionDir: f.ExtensionDir, DataDir: f.DataDir,
		Session: sessionFrom(f.Session), Capabilities: f.Capabilities,
	}
}

// Event is one lifecycle notification. Name says which event it is, and
// only the fields of that event are set: Session and State for session
// events, Step for turn_start, ToolID, ToolName and ToolArgs for tool_call,
// ToolID, ToolName and ToolPreview for tool_confirmation_requested, Text for
// assistant_message, Stop (and Error) for turn_end.
type Event struct {
	Name    string
	Session *Session
	// State is this extension's latest saved state on the branch (what a
	// tool last returned in ToolResult.Details), or nil when there is none.
	State       json.RawMessage
	Step        int
	ToolID      string
	ToolName    string
	ToolArgs    json.RawMessage
	ToolPreview string
	Text        string
	Stop        string // end_turn, tool_use, max_tokens, aborted or error; agent_end: completed, cancelled or error
	Error       string

	// Fields of the events added beyond v2.
	Prompt        string
	Response      string
	IsError       bool
	Content       string
	Source        string // input: interactive, cli, rpc, extension, queue; model_change: user, extension
	Chunk         string
	Model         string // "provider/id"
	PreviousModel string
	// Data is the JSON of a subagent_* event, as RPC mode sends it.
	Data json.RawMessage
}

func eventFrom(f *proto.Event) Event {
	return Event{
		Name: f.Name, Session: sessionFrom(f.Session), State: f.State, Step: f.Step,
		ToolID: f.ToolID, ToolName: f.ToolName, ToolArgs: f.ToolArgs,
		ToolPreview: f.ToolPreview, Text: f.Text, Stop: f.Stop, Error: f.Error,
		Prompt: f.Prompt, Response: f.Response, IsError: f.IsError, Content: f.Content,
		Source: f.Source, Chunk: f.Chunk, Model: f.Model, PreviousModel: f.PreviousModel,
		Data: f.Data,
	}
}

// ToolCallDecision is a tool_call interceptor's answer. The zero value
// allows the call unchanged. Block refuses it and Reason is shown to the
// model. ModifiedArgs, when set, replaces the whole argument object (it must
// be a JSON object); for bash keep the required positive integer timeout
// when rewriting the command.
type ToolCallDecision struct {
	Block        bool
	Reason       string
	ModifiedArgs json.RawMessage
}

// TurnStartDecision is a turn_start interceptor's answer. Block stops the
// turn before the model is called and Reason is shown to the user. Context
// is hidden text sent with the upcoming model request only.
type TurnStartDecision struct {
	Block   bool
	Reason  string
	Context string
}

// AssistantMessageDecision is an assistant_message interceptor's answer.
// Block hides the message from the user; ReplaceText, when not empty,
// replaces what the user sees. The transcript keeps the original text.
type AssistantMessageDecision struct {
	Block       bool
	Reason      string
	ReplaceText string
}

// PanelKey is a key pressed while one of the extension's panels has the
// focus. Key is a normalised name (up, down, left, right, enter, esc, tab,
// pageup, pagedown, home, end, backspace, delete, rune); Text is the typed
// character when Key is "rune".
type PanelKey struct {
	PanelID string
	Key     string
	Text    string
}
