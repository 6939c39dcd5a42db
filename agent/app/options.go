package app

import "github.com/zut-go/zut/agent/zutfile"

// Options are what the command line chose for one run of zut. main parses
// them with the flag package and passes them by value to the mode that
// runs; the app reads what concerns the model, the session, the prompt,
// the tools and the extensions.
type Options struct {
	Print              bool
	Mode               string // "", "print", "json", "rpc", "interactive"
	Provider           string
	Demo               bool // --demo: Provider is provider.DemoProvider
	Model              string
	BaseURL            string
	APIKey             string
	Reasoning          string
	Exts               []string
	NoExtensions       bool
	Continue           bool
	Resume             string
	ResumeSet          bool
	SessionPath        string
	NoSession          bool
	Fork               string
	SystemPrompt       string
	AppendSystemPrompt string
	NoContextFiles     bool
	NoSkills           bool
	NoTools            []string // built-in tools not offered (--no-tools)
	Tools              []string // when set, the only built-in tools offered (--tools)
	Trust              bool     // run the project's own code this once (--trust)
	MCPConfigs         []string // more MCP server files for this run (--mcp-config)
	Yolo               bool
	NoYolo             bool
	Sandbox            string // --sandbox: read-only, workspace-write or danger-full-access
	MaxSteps           int
	Goal               string   // --goal: the session's goal, set at start
	Temperature        *float64 // --temperature: the sampling temperature, nil for the model's default
	CWD                string   // --cwd: the directory to work in (main changes to it first)
	NoLSP              bool     // --no-lsp: no lsp tool and no diagnostics after edits
	Stream             bool     // --stream: print mode writes the assistant's text as it arrives
	Stats              string   // --stats PATH: print and JSON modes write the run's statistics there
	Orchestrate        bool     // --orchestrate: delegate independent parts to subagents, then synthesise
	ListModels         bool
	Version            bool
	Help               bool
	Prompt             []string

	// Agent is the packaged agent zut run runs (nil for zut itself): its
	// manifest's ceiling bounds everything the run may do. AgentYes is
	// zut run --yes (consent to its permissions, remembered) and
	// AgentKeep zut run --keep (keep a fetched agent's copy).
	Agent     *zutfile.Agent
	AgentYes  bool
	AgentKeep bool

	// Allow and Deny are permission rules for this run (--allow, --deny):
	// "bash(go test *)", "edit(docs/**)", "read".
	Allow, Deny []string

	// --json and --rpc, the original zut's spellings of --mode json and
	// --mode rpc.
	jsonAlias, rpcAlias bool
}
