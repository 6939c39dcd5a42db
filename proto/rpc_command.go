package proto

import "encoding/json"

// Commands of headless RPC mode (zut --mode rpc): what a client writes to
// zut's stdin, one JSON object per line. Every command may carry an "id",
// a string or a number, which zut echoes in the one RPCResponse it sends
// back. The command and event sets are documented in docs/rpc.md.

// RPCProtocolVersion is the RPC protocol version reported by hello.
const RPCProtocolVersion = 1

// RPCCommand is a decoded RPC command.
type RPCCommand interface {
	Frame
	// CommandID returns the command's "id" member as sent (a JSON string
	// or number), or nil when it had none.
	CommandID() json.RawMessage
}

// RPCHead holds the member every command shares. Command structs embed it.
type RPCHead struct {
	ID json.RawMessage `json:"id,omitempty"`
}

// CommandID returns the raw "id" member, nil when absent.
func (h RPCHead) CommandID() json.RawMessage { return h.ID }

// RPCImage is an image attached to a prompt: base64 Data of type MIMEType.
type RPCImage struct {
	MIMEType string `json:"mime_type"`
	Data     string `json:"data"`
}

// RPCHello identifies the client. When ZUTCORE_RPC_TOKEN is set it must be
// the first command and carry that Token.
type RPCHello struct {
	RPCHead
	Token string `json:"token,omitempty"`
}

// RPCPrompt sends Message, with optional images, as a user prompt.
type RPCPrompt struct {
	RPCHead
	Message string     `json:"message"`
	Images  []RPCImage `json:"images,omitempty"`
}

// RPCAbort stops the running prompt or compaction and drops queued ones.
type RPCAbort struct{ RPCHead }

// RPCCompact summarises the conversation; Instructions optionally say what
// to focus on.
type RPCCompact struct {
	RPCHead
	Instructions string `json:"instructions,omitempty"`
}

// RPCGetState asks for the model, usage and busy state.
type RPCGetState struct{ RPCHead }

// RPCGetMessages asks for the conversation as sent to the model.
type RPCGetMessages struct{ RPCHead }

// RPCClear starts a new, empty conversation.
type RPCClear struct{ RPCHead }

// RPCSetModel switches to Model ("id" or "provider/id").
type RPCSetModel struct {
	RPCHead
	Model string `json:"model"`
}

// RPCSetReasoning sets the reasoning level (off, low, medium, high, a
// token budget ...).
type RPCSetReasoning struct {
	RPCHead
	Reasoning string `json:"reasoning"`
}

// RPCGetModels lists the models zut knows.
type RPCGetModels struct{ RPCHead }

// RPCPing asks for {pong:true}.
type RPCPing struct{ RPCHead }

// RPCGetCommands lists the slash commands run_command can run.
type RPCGetCommands struct{ RPCHead }

// RPCRunCommand runs the slash command Name (without the slash) with
// Args, the text after the name.
type RPCRunCommand struct {
	RPCHead
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
}

// RPCPanelKey sends a key to the open extension panel PanelID. Key is a
// normalised key name; Text is the character when Key is "rune".
type RPCPanelKey struct {
	RPCHead
	PanelID string `json:"panel_id"`
	Key     string `json:"key"`
	Text    string `json:"text,omitempty"`
}

// RPCPanelClose closes the open extension panel PanelID, as Esc would.
type RPCPanelClose struct {
	RPCHead
	PanelID string `json:"panel_id"`
}

// RPCSteer adds Message to the running prompt at its next safe point.
type RPCSteer struct {
	RPCHead
	Message string `json:"message"`
}

// RPCFollowUp queues Message as a prompt to run after the current one.
type RPCFollowUp struct {
	RPCHead
	Message string `json:"message"`
}

// RPCNewSession starts a new conversation (a new session file when
// sessions are on).
type RPCNewSession struct{ RPCHead }

// RPCFork starts a new branch after the session entry EntryID.
type RPCFork struct {
	RPCHead
	EntryID string `json:"entry_id"`
}

// RPCSwitchSession resumes the saved session SessionID (or a unique
// prefix of it). The member is not called "id": that is the command's
// correlation id.
type RPCSwitchSession struct {
	RPCHead
	SessionID string `json:"session_id"`
}

// RPCSwitchBranch makes the leaf entry LeafID the current branch.
type RPCSwitchBranch struct {
	RPCHead
	LeafID string `json:"leaf_id"`
}

// RPCGetTree lists the entries of the session tree.
type RPCGetTree struct{ RPCHead }

// RPCGetSessions lists the saved sessions of the working directory.
type RPCGetSessions struct{ RPCHead }

// RPCGetExtensions asks for the extension reports (zut ext doctor's data).
type RPCGetExtensions struct{ RPCHead }

// RPCReloadExtensions restarts every extension.
type RPCReloadExtensions struct{ RPCHead }

// RPCExtUIResponse answers the ext_ui_request RequestID. Value, Index and
// Action carry the answer for the request's kind; Cancelled declines it.
type RPCExtUIResponse struct {
	RPCHead
	RequestID string          `json:"request_id"`
	Value     json.RawMessage `json:"value,omitempty"`
	Index     *int            `json:"index,omitempty"`
	Action    string          `json:"action,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
}

// RPCSetGoal changes the session's goal (docs/tools.md, "update_goal and
// /goal"): Objective with Status "active" (or none) sets it and starts
// work on it; Status "active" alone resumes it, "paused" pauses it,
// "cleared" drops it.
type RPCSetGoal struct {
	RPCHead
	Objective string `json:"objective,omitempty"`
	Status    string `json:"status,omitempty"`
}

// RPCGetSubagents lists the subagents of this run with their state.
type RPCGetSubagents struct{ RPCHead }

// RPCGetMCPServers lists the configured MCP servers with their state.
// With Restart set it first starts that server again (all of them for
// "*").
type RPCGetMCPServers struct {
	RPCHead
	Restart string `json:"restart,omitempty"`
}

// Type returns "get_mcp_servers".
func (RPCGetMCPServers) Type() string { return "get_mcp_servers" }

// Type returns "set_goal".
func (RPCSetGoal) Type() string { return "set_goal" }

// Type returns "get_subagents".
func (RPCGetSubagents) Type() string { return "get_subagents" }

// Type returns "hello".
func (RPCHello) Type() string { return "hello" }

// Type returns "prompt".
func (RPCPrompt) Type() string { return "prompt" }

// Type returns "abort".
func (RPCAbort) Type() string { return "abort" }

// Type returns "compact".
func (RPCCompact) Type() string { return "compact" }

// Type returns "get_state".
func (RPCGetState) Type() string { return "get_state" }

// Type returns "get_messages".
func (RPCGetMessages) Type() string { return "get_messages" }

// Type returns "clear".
func (RPCClear) Type() string { return "clear" }

// Type returns "set_model".
func (RPCSetModel) Type() string { return "set_model" }

// Type returns "set_reasoning".
func (RPCSetReasoning) Type() string { return "set_reasoning" }

// Type returns "get_models".
func (RPCGetModels) Type() string { return "get_models" }

// Type returns "ping".
func (RPCPing) Type() string { return "ping" }

// Type returns "get_commands".
func (RPCGetCommands) Type() string { return "get_commands" }

// Type returns "run_command".
func (RPCRunCommand) Type() string { return "run_command" }

// Type returns "panel_key".
func (RPCPanelKey) Type() string { return "panel_key" }

// Type returns "panel_close".
func (RPCPanelClose) Type() string { return "panel_close" }

// Type returns "steer".
func (RPCSteer) Type() string { return "steer" }

// Type returns "follow_up".
func (RPCFollowUp) Type() string { return "follow_up" }

// Type returns "new_session".
func (RPCNewSession) Type() string { return "new_session" }

// Type returns "fork".
func (RPCFork) Type() string { return "fork" }

// Type returns "switch_session".
func (RPCSwitchSession) Type() string { return "switch_session" }

// Type returns "switch_branch".
func (RPCSwitchBranch) Type() string { return "switch_branch" }

// Type returns "get_tree".
func (RPCGetTree) Type() string { return "get_tree" }

// Type returns "get_sessions".
func (RPCGetSessions) Type() string { return "get_sessions" }

// Type returns "get_extensions".
func (RPCGetExtensions) Type() string { return "get_extensions" }

// Type returns "reload_extensions".
func (RPCReloadExtensions) Type() string { return "reload_extensions" }

// Type returns "ext_ui_response".
func (RPCExtUIResponse) Type() string { return "ext_ui_response" }

// RPCCommandTypes lists the command type names NewRPCCommand knows, in
// the order docs/rpc.md presents them.
var RPCCommandTypes = []string{
	"hello", "prompt", "abort", "compact", "get_state", "get_messages", "clear",
	"set_model", "set_reasoning", "get_models", "ping",
	"get_commands", "run_command", "panel_key", "panel_close", "steer", "follow_up",
	"new_session", "fork", "switch_session", "switch_branch", "get_tree", "get_sessions",
	"get_extensions", "reload_extensions", "ext_ui_response",
	"set_goal", "get_subagents", "get_mcp_servers",
}

// NewRPCCommand returns a pointer to a new zero command for the type name
// typ, or nil when typ names no RPC command. It is the catalog to set as
// Reader.New for RPC input.
func NewRPCCommand(typ string) Frame {
	switch typ {
	case "hello":
		return new(RPCHello)
	case "prompt":
		return new(RPCPrompt)
	case "abort":
		return new(RPCAbort)
	case "compact":
		return new(RPCCompact)
	case "get_state":
		return new(RPCGetState)
	case "get_messages":
		return new(RPCGetMessages)
	case "clear":
		return new(RPCClear)
	case "set_model":
		return new(RPCSetModel)
	case "set_reasoning":
		return new(RPCSetReasoning)
	case "get_models":
		return new(RPCGetModels)
	case "ping":
		return new(RPCPing)
	case "get_commands":
		return new(RPCGetCommands)
	case "run_command":
		return new(RPCRunCommand)
	case "panel_key":
		return new(RPCPanelKey)
	case "panel_close":
		return new(RPCPanelClose)
	case "steer":
		return new(RPCSteer)
	case "follow_up":
		return new(RPCFollowUp)
	case "new_session":
		return new(RPCNewSession)
	case "fork":
		return new(RPCFork)
	case "switch_session":
		return new(RPCSwitchSession)
	case "switch_branch":
		return new(RPCSwitchBranch)
	case "get_tree":
		return new(RPCGetTree)
	case "get_sessions":
		return new(RPCGetSessions)
	case "get_extensions":
		return new(RPCGetExtensions)
	case "reload_extensions":
		return new(RPCReloadExtensions)
	case "ext_ui_response":
		return new(RPCExtUIResponse)
	case "set_goal":
		return new(RPCSetGoal)
	case "get_subagents":
		return new(RPCGetSubagents)
	case "get_mcp_servers":
		return new(RPCGetMCPServers)
	}
	return nil
}
