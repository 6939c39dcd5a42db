package exttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/host"
)

// Phases in the order the tester runs them. Options.Only names one.
var Phases = []string{
	"handshake", "registration", "calls", "events", "cancel", "panels", "state", "robustness", "additions",
}

// Options configure Test. The zero value tests everything with the
// protocol's deadlines.
type Options struct {
	// Only limits the report to one phase (see Phases); "" is all. The
	// handshake and registration always run, and the phases a phase
	// depends on run too (panels and state need the calls that open
	// panels and return state); checks outside the phase are reported
	// only when they fail.
	Only string
	// Args are the argument strings of each command, by name without the
	// slash: one invocation per string. A command without an entry is
	// invoked once with "".
	Args map[string][]string
	// ToolArgs are the arguments of each tool, by name: one call per
	// JSON object, in place of the call with arguments built from the
	// schema. A tool without an entry is called with built arguments.
	ToolArgs map[string][]json.RawMessage
	// Parallel runs the three processes of the test (the main run, the
	// one given a hello_ack of another version, the one whose stdin is
	// closed) at once; by default they run one after another, so that a
	// loaded machine starts one copy at a time.
	Parallel bool
	// Quick shortens the tool, command and interception deadlines to those
	// of QuickTimeouts, for CI; the report says so. A Timeouts field set
	// explicitly wins.
	Quick bool
	// NoBuild skips building a Go extension's source (see Test); the
	// manifest's exec must then exist.
	NoBuild bool
	// CWD is the project directory sent in hello_ack; "" is a fresh
	// temporary directory, removed afterwards. data_dir is always a fresh
	// temporary directory, so that the test leaves the extension's own
	// directory as it was.
	CWD string
	// Env is the extension's environment; nil is os.Environ().
	Env []string
	// BuiltinTools and BuiltinCommands are the host's own names; an
	// extension registration of one of them is reported as shadowed. A nil
	// BuiltinTools is DefaultBuiltinTools, the tools of a plain zut run;
	// NoTools takes names out of it, as zut's --no-tools does. The reserved
	// tool names of C9 are checked whether listed or not.
	BuiltinTools    []string
	NoTools         []string
	BuiltinCommands []string
	// MaxStderr is the stderr volume above which robustness.stderr warns;
	// 0 is 64 KiB.
	MaxStderr int
	Timeouts  Timeouts
}

// DefaultBuiltinTools are the built-in tools a plain zut run offers (zut's
// --no-tools names); while active, each shadows an extension tool of its
// name. host/exttest's TestDefaultBuiltinTools keeps the list in step with
// the app's.
var DefaultBuiltinTools = []string{
	"read", "write", "edit", "bash", "grep", "skill",
	"python", "ast", "worktree", "lsp",
	"web_search", "web_open", "web_find", "web_click",
	"plan", "update_goal", "schedule", "subagent_spawn", "subagent_status", "subagent_stop", "subagent_resume",
}

// builtinTools are the active built-in tools of the run under test.
func (o Options) builtinTools() []string {
	list := o.BuiltinTools
	if list == nil {
		list = DefaultBuiltinTools
	}
	var out []string
	for _, n := range list {
		if !slices.Contains(o.NoTools, n) {
			out = append(out, n)
		}
	}
	return out
}

// Timeouts are the deadlines the tester holds the extension to. A zero
// field takes the default shown, which is the protocol's.
type Timeouts struct {
	Hello     time.Duration // spawn to hello (C1): 5s
	Quiet     time.Duration // silence after hello_ack that counts as ready (C5): 250ms
	Ready     time.Duration // hello_ack to ready, then ready-timeout (C5): 3s
	Command   time.Duration // command_invoked to command_response (C14): 30s
	Tool      time.Duration // tool_call to tool_result (C14): 60s
	Intercept time.Duration // event_intercept to its response (C14): 5s
	Write     time.Duration // one frame written to the extension (C11): 5s
	Shutdown  time.Duration // shutdown to shutdown_ack and exit (C21): 2s
	Kill      time.Duration // SIGTERM to SIGKILL (C21): 1s

	// Interactive bounds the wait for an interactive tool, which has no
	// deadline in zut: 10s, then the tester gives up with a warning.
	Interactive time.Duration
	// EOF is how long an extension may take to exit once its stdin is
	// closed: 2s.
	EOF time.Duration
	// Mismatch is how long the tester watches an extension after a
	// hello_ack of another protocol version: 2s.
	Mismatch time.Duration
	// Group is how long the process group may take to empty after the
	// extension exited (C21): 500ms.
	Group time.Duration
	// Grace is how long the tester keeps reading after a frame that must
	// end a stream, to catch a late one: no tool_result after tool_cancel,
	// no panel_render after panel_close, nothing after a hello_ack of
	// another version. 1s.
	Grace time.Duration

	EditorKey time.Duration // editor_key to editor_key_response: 200ms
	Render    time.Duration // render_tool, render_message to the response: 1s
	Complete  time.Duration // command_complete to command_completions: 2s
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	// The protocol's deadlines come from the host, so that the tester and
	// zut never disagree; the rest are the tester's own.
	h := host.DefaultTimeouts()
	def(&t.Hello, h.Hello)
	def(&t.Quiet, h.Quiet)
	def(&t.Ready, h.Ready)
	def(&t.Command, h.Command)
	def(&t.Tool, h.Tool)
	def(&t.Intercept, h.Intercept)
	def(&t.Write, h.Write)
	def(&t.Shutdown, h.Shutdown)
	def(&t.Kill, h.Kill)
	def(&t.EditorKey, h.EditorKey)
	def(&t.Render, h.Render)
	def(&t.Complete, h.Complete)
	def(&t.Interactive, 10*time.Second)
	def(&t.EOF, 2*time.Second)
	def(&t.Mismatch, 2*time.Second)
	def(&t.Group, 500*time.Millisecond)
	def(&t.Grace, time.Second)
	return t
}

// QuickTimeouts are the deadlines of Options.Quick: short enough that an
// extension which never answers costs a CI job seconds, long enough for a
// tool that does real work on a loaded machine.
var QuickTimeouts = Timeouts{Tool: 10 * time.Second, Command: 10 * time.Second, Intercept: 2 * time.Second, Interactive: 5 * time.Second}

// quick fills the zero deadlines of t from QuickTimeouts.
func (t Timeouts) quick() Timeouts {
	for _, p := range []struct {
		d *time.Duration
		v time.Duration
	}{
		{&t.Tool, QuickTimeouts.Tool}, {&t.Command, QuickTimeouts.Command},
		{&t.Intercept, QuickTimeouts.Intercept}, {&t.Interactive, QuickTimeouts.Interactive},
	} {
		if *p.d <= 0 {
			*p.d = p.v
		}
	}
	return t
}

// plan says which phases run and which are reported.
type plan struct {
	run    map[string]bool
	report map[string]bool // nil: all
}

func newPlan(only string) (plan, error) {
	if only == "" {
		all := map[string]bool{}
		for _, p := range Phases {
			all[p] = true
		}
		return plan{run: all}, nil
	}
	if !slices.Contains(Phases, only) {
		return plan{}, fmt.Errorf("unknown phase %q; use one of %s", only, strings.Join(Phases, ", "))
	}
	run := map[string]bool{"handshake": true, "registration": true, only: true}
	switch only {
	case "panels", "state", "additions":
		run["calls"] = true
	}
	return plan{run: run, report: map[string]bool{only: true}}, nil
}

func (p plan) runs(phase string) bool { return p.run[phase] }

// reports says whether a check of phase with status st goes into the
// report.
func (p plan) reports(phase string, st Status) bool {
	return p.report == nil || p.report[phase] || st == Fail
}
