package proto

import (
	"encoding/json"
	"time"
)

// The "data" member of RPC responses, for the commands whose data shape
// package proto can state without the agent's types (get_messages'
// messages are agent.MessageJSON).

// RPCHelloResult is hello's data. Commands lists the command types this
// zut accepts, so that a client can detect additions.
type RPCHelloResult struct {
	ProtocolVersion int      `json:"protocol_version"`
	Version         string   `json:"version"`
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	Commands        []string `json:"commands"`
}

// RPCUsage is token counts and cost in US dollars.
type RPCUsage struct {
	Input      int     `json:"input"`
	Output     int     `json:"output"`
	Reasoning  *int    `json:"reasoning"` // null when no request counted it
	CacheRead  int     `json:"cache_read"`
	CacheWrite int     `json:"cache_write"`
	CostUSD    float64 `json:"cost_usd"`
}

// RPCState is get_state's data. The members after Usage are additions:
// the session and branch, what runs and how many prompts wait, the open
// extension panel, and why no model is configured.
type RPCState struct {
	Provider     string   `json:"provider"`
	Model        string   `json:"model"`
	Reasoning    string   `json:"reasoning"`
	CWD          string   `json:"cwd"`
	MessageCount int      `json:"message_count"`
	Busy         bool     `json:"busy"`
	Usage        RPCUsage `json:"usage"`

	SessionID   string       `json:"session_id"`
	SessionFile string       `json:"session_file,omitempty"`
	BranchID    string       `json:"branch_id"`
	LeafID      string       `json:"leaf_id,omitempty"`
	Title       string       `json:"title,omitempty"`
	Running     string       `json:"running,omitempty"` // "prompt" or "compact"
	Queued      int          `json:"queued"`
	Panel       *RPCPanelRef `json:"panel,omitempty"`
	ModelError  string       `json:"model_error,omitempty"`
	// Goal is the session's goal, as the goal event carries it, when one
	// is set.
	Goal json.RawMessage `json:"goal,omitempty"`
}

// RPCPanelRef names the open extension panel.
type RPCPanelRef struct {
	Extension string `json:"extension"`
	PanelID   string `json:"panel_id"`
}

// RPCModelInfo is one model of get_models. Reasoning says whether the
// model can reason (ReasoningStyle says how); Ready is "key" when a key is
// set, "local" for a local server that answered; Current marks the model
// in use.
type RPCModelInfo struct {
	ID             string `json:"id"`
	Provider       string `json:"provider"`
	ContextWindow  int    `json:"context_window"`
	MaxOutput      int    `json:"max_output"`
	Reasoning      bool   `json:"reasoning"`
	ReasoningStyle string `json:"reasoning_style,omitempty"`
	Images         bool   `json:"images,omitempty"`
	Ready          string `json:"ready,omitempty"`
	Default        bool   `json:"default,omitempty"`
	Current        bool   `json:"current,omitempty"`
}

// RPCCommandInfo is one slash command of get_commands. Source is
// "builtin", "skill" or "extension".
type RPCCommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Extension   string `json:"extension,omitempty"`
}

// RPCCommandResult is run_command's data. Action is what happened:
// "prompt" and "compact" (started, events follow), "display", "insert"
// and "open_panel" (an extension's answer, also sent as an event),
// "noop", "result" (Result holds the data of the equivalent command) or
// "exit" (zut finishes like at the end of stdin).
type RPCCommandResult struct {
	Action    string          `json:"action"`
	Extension string          `json:"extension,omitempty"`
	Started   bool            `json:"started,omitempty"`
	Text      string          `json:"text,omitempty"`
	Panel     *RPCExtPanel    `json:"panel,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// RPCTreeEntry is one entry of get_tree: ParentID is empty for entries at
// the top (children of the session itself); OnBranch marks the current
// branch and Current its leaf.
type RPCTreeEntry struct {
	ID       string    `json:"id"`
	ParentID string    `json:"parent_id,omitempty"`
	Type     string    `json:"type"`
	Preview  string    `json:"preview"`
	Time     time.Time `json:"time"`
	OnBranch bool      `json:"on_branch,omitempty"`
	Current  bool      `json:"current,omitempty"`
}

// RPCSessionInfo is one saved session of get_sessions.
type RPCSessionInfo struct {
	ID       string    `json:"id"`
	Title    string    `json:"title,omitempty"`
	CWD      string    `json:"cwd"`
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	Messages int       `json:"messages"`
	Preview  string    `json:"preview,omitempty"`
	Path     string    `json:"path"`
	Current  bool      `json:"current,omitempty"`
}
