package bot

import (
	"context"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
)

// Agent is one zut conversation as the bot drives it: the app the lead
// assembles for a chat. Methods other than Prompt, Compact and RunCommand
// return quickly. All methods are called from the runner's goroutines and
// must be safe for concurrent use.
//
// The app built for a standalone bot must run with agent.Policy.Interactive
// false, so that interactive extension tools answer with a tool error
// instead of waiting on a panel nobody sees, and with the user's
// permission rules, so that only the calls those rules leave open reach the
// Confirmer passed to Connect.
type Agent interface {
	// Subscribe calls fn with every event of the agent (also those outside
	// a prompt: model changes, compaction, extension notices) until cancel
	// is called. fn does not block.
	Subscribe(fn func(agent.Event)) (cancel func())
	// Prompt runs one prompt to the end (the agent emits Done last). It
	// returns agent.ErrAborted after Abort or when ctx is cancelled.
	Prompt(ctx context.Context, in agent.Input) error
	// Abort cancels the running prompt or compaction, if any.
	Abort()
	// Status describes the conversation for /status.
	Status() Status
	// NewSession starts a new, empty session.
	NewSession(ctx context.Context) error
	// Compact summarises the conversation (instructions may be empty); the
	// agent emits agent.CompactDone.
	Compact(ctx context.Context, instructions string) error
	// Models lists the models the user can switch to, as "provider/id".
	Models(ctx context.Context) ([]string, error)
	// SetModel switches to the model spec names ("provider/id", an id or
	// an alias) and returns the model's "provider/id".
	SetModel(ctx context.Context, spec string) (string, error)
	// Sessions lists the recent sessions of this project, newest first.
	Sessions(ctx context.Context) ([]SessionInfo, error)
	// Resume switches to the session with the id (or an unambiguous
	// prefix of it).
	Resume(ctx context.Context, id string) error
	// Commands lists the extension commands that work without a panel.
	Commands() []Command
	// RunCommand runs an extension command; what it shows arrives as
	// events (agent.Notice) and prompts it sends run as usual.
	RunCommand(ctx context.Context, name, args string) error
	// Connect makes c the confirmer of mutating tool calls and adds ts to
	// the tools offered to the model, until disconnect is called. An
	// "always" answer is remembered by the agent (agent.ConfirmAnswer).
	Connect(c agent.Confirmer, ts []tools.Tool) (disconnect func())
	// Close ends the conversation's app (extensions, session files).
	Close() error
}

// Status is what /status shows. Zero fields are left out.
type Status struct {
	Model         string // "provider/id"
	Reasoning     string
	Session       string // the session id
	Title         string
	CWD           string
	Messages      int
	ContextTokens int // tokens of the last request's context
	ContextWindow int
	CostUSD       float64
}

// SessionInfo is one entry of /sessions.
type SessionInfo struct {
	ID       string
	Title    string // the first prompt or the session's name
	Updated  time.Time
	Messages int
}

// Command is a command the bot offers besides its own.
type Command struct {
	Name        string // without "/"
	Description string
}
