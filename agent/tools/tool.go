// Package tools holds zut's built-in tools (read, write, edit, bash, grep
// and skill), the Tool interface the agent calls them through, and the list
// of tool names reserved for built-ins.
//
// Tools are stateless values built from a Config; every tool is safe for
// concurrent use. A tool never panics on bad arguments: it returns a Result
// with IsError set and a message the model can act on.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/provider"
)

// Tool is one tool the model can call.
type Tool interface {
	// Definition is what the model is told: name, description and the JSON
	// Schema of the arguments.
	Definition() provider.Tool

	// Run executes one call. args is the JSON object the model sent; it is
	// validated strictly and a bad argument yields an error Result. progress
	// (which may be nil) receives short status texts while the call runs,
	// each replacing the previous one; it is only called from the goroutine
	// running Run and never after Run returns. Run returns when ctx is done,
	// with an error Result saying the call was aborted.
	Run(ctx context.Context, args json.RawMessage, progress func(text string)) Result
}

// Previewer is implemented by tools that can describe a call in one short
// line for the confirmation dialog and the UI.
type Previewer interface {
	Preview(args json.RawMessage) string
}

// Describer is implemented by tools whose call holds more than its
// one-line preview can show: the whole command line or code. The
// confirmation dialog shows it in full, so that nothing the call would run
// is hidden.
type Describer interface {
	Describe(args json.RawMessage) string
}

// Validator is implemented by tools that can check a call's arguments
// without running it. Validate returns the error Run would report for
// them (nil: Run gets past its argument checks). The agent sends that
// error to the model as the call's result, without asking the user about
// a call that could not run.
type Validator interface {
	Validate(args json.RawMessage) error
}

// Mutator is implemented by tools that can change the machine. Mutates
// reports whether the call changes files or runs commands; the agent denies
// such calls when the user asked for no mutation (--no-yolo).
type Mutator interface {
	Mutates(args json.RawMessage) bool
}

// Concurrent is implemented by tools whose calls may run at the same time
// as one another. When a reply holds several calls, the agent asks about
// them one after another as always, and starts each call that Concurrent
// reports true for without waiting for the one before; a call of any
// other tool waits until those running have ended, and runs alone. The
// results go back to the model in the order of the calls. A tool that
// says true must be safe to run beside any other call of the same kind
// (subagent_spawn, whose children wait for their own free slot).
type Concurrent interface {
	Concurrent(args json.RawMessage) bool
}

// Result is the outcome of one tool call.
type Result struct {
	// Content is sent to the model: text and image blocks.
	Content []provider.Block
	// IsError marks a failed call.
	IsError bool
	// Details is optional structured data for the UI (for example the old
	// and new text of an edit, see FileChange); it is never sent to the
	// model.
	Details json.RawMessage
}

// Text returns the concatenated text blocks of r, one per line.
func (r Result) Text() string {
	var s string
	for i, b := range r.Content {
		if b.Type != provider.BlockText {
			continue
		}
		if i > 0 && s != "" {
			s += "\n"
		}
		s += b.Text
	}
	return s
}

// Config is what the built-in tools need from their host.
type Config struct {
	// CWD is the working directory: relative paths resolve against it and
	// bash runs in it. Empty means the process's working directory.
	CWD string
	// Home is the user's home directory, used to expand "~". Empty means
	// os.UserHomeDir.
	Home string
	// Skills is the discovered skill index; the skill tool is offered only
	// when it is not nil.
	Skills *skills.Index
	// TempDir receives the full output of bash commands whose output was
	// cut (see MaxSavedOutput and CleanOutput); it is created 0700 when
	// missing. The app passes a directory of its own, such as the
	// session's directory; empty means os.TempDir.
	TempDir string
	// SessionID names the saved outputs of this session, so that
	// CleanOutput can delete them when it ends.
	SessionID string
	// Env is the environment of the commands bash runs (and of other
	// tools' child processes), in the form of os.Environ. Nil means
	// provider.ChildEnv(os.Environ()): this process's environment
	// without model credentials unless ZUT_PASS_KEYS=1. To pass keys on
	// a setting, the app sets Env to os.Environ().
	Env []string
	// Shell is the shell bash runs commands with ("<shell> -c command").
	// Empty means bash from PATH, else sh.
	Shell string
	// Ripgrep is the path of rg for the grep tool. Empty means "rg" looked
	// up on PATH; when rg is missing the Go backend is used.
	Ripgrep string
	// NoRipgrep forces grep's Go backend even when rg is available.
	NoRipgrep bool
	// Sandbox confines the commands bash and python start (nil: none).
	Sandbox Sandbox
	// Scope, when not nil, limits the paths the file tools touch and the
	// commands bash runs (a packaged agent's ceiling, see Scope).
	Scope *Scope
}

// Sandbox is the OS sandbox in force, as the app keeps it (agent/sandbox
// does the confining). It is safe for concurrent use.
type Sandbox interface {
	// Confine rewrites cmd, not yet started, to run in the sandbox in
	// force and returns what explains its refusals, or nil when no
	// sandbox is in force (danger-full-access). An error refuses the
	// command: it must not be started, and the error says why.
	Confine(cmd *exec.Cmd) (*sandbox.Confined, error)
	// Generation changes whenever the sandbox in force changes, so that
	// a tool holding a process started under the old one restarts it.
	Generation() uint64
	// Unconfined asks the user whether command, which the sandbox
	// blocked as blocked says, may run once more without the sandbox. It
	// is false when nobody can be asked; it never answers by itself.
	Unconfined(ctx context.Context, tool, command string, blocked []string) bool
}

// Builtins returns the built-in tools in the order they are offered: read,
// write, edit, bash, grep, and skill when cfg.Skills is not nil.
func Builtins(cfg Config) []Tool {
	cfg = cfg.withDefaults()
	ts := []Tool{
		&readTool{cfg: cfg},
		&writeTool{cfg: cfg},
		&editTool{cfg: cfg},
		&bashTool{cfg: cfg},
		&grepTool{cfg: cfg},
	}
	if cfg.Skills != nil {
		ts = append(ts, &skillTool{index: cfg.Skills, cfg: cfg})
	}
	return ts
}

// withDefaults fills the empty fields of cfg that have a default.
func (cfg Config) withDefaults() Config {
	if cfg.CWD == "" {
		if wd, err := os.Getwd(); err == nil {
			cfg.CWD = wd
		}
	}
	if cfg.Home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			cfg.Home = h
		}
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	if cfg.Env == nil {
		cfg.Env, _ = provider.ChildEnv(os.Environ())
	}
	return cfg
}

// shell is the shell bash runs commands with: Shell, else bash from PATH,
// else sh.
func (cfg Config) shell() string {
	if cfg.Shell != "" {
		return cfg.Shell
	}
	return shellPath()
}

// ripgrep is the rg grep runs, "" for the Go backend.
func (cfg Config) ripgrep() string {
	if cfg.NoRipgrep {
		return ""
	}
	if cfg.Ripgrep != "" {
		return cfg.Ripgrep
	}
	return ripgrepPath()
}

// shellPath and ripgrepPath look bash and rg up on PATH when a command or
// a search first needs one of them (both at once, once for the process):
// a turn that runs neither stats no PATH entry for them, and every tool
// set of a run (built-ins, python, ast, worktree, the bot's files) shares
// the answer.
func shellPath() string {
	lookups.once.Do(lookups.find)
	return lookups.shell
}

func ripgrepPath() string {
	lookups.once.Do(lookups.find)
	return lookups.rg
}

// programs holds their answers. A package variable of it needs no
// initialiser at start-up, as a package-level sync.OnceValue would.
type programs struct {
	once      sync.Once
	shell, rg string
}

var lookups programs

func (p *programs) find() {
	p.shell = "sh"
	if path, err := exec.LookPath("bash"); err == nil {
		p.shell = path
	}
	p.rg, _ = exec.LookPath("rg")
}

// textResult is a successful result holding one text block.
func textResult(s string) Result {
	return Result{Content: []provider.Block{provider.TextBlock(s)}}
}

// errorResult is a failed result holding one text block.
func errorResult(format string, a ...any) Result {
	return Result{Content: []provider.Block{provider.TextBlock(fmt.Sprintf(format, a...))}, IsError: true}
}

// withDetails returns r with Details set to the JSON encoding of v.
func (r Result) withDetails(v any) Result {
	b, err := json.Marshal(v)
	if err == nil {
		r.Details = b
	}
	return r
}

// definition builds a provider.Tool from a schema written as Go values.
func definition(name, description string, schema map[string]any) provider.Tool {
	if b, ok := appendSchema(nil, schema); ok {
		return provider.Tool{Name: name, Description: description, Schema: b}
	}
	b, err := json.Marshal(schema)
	if err != nil {
		panic("tools: schema of " + name + " does not encode: " + err.Error())
	}
	return provider.Tool{Name: name, Description: description, Schema: b}
}
