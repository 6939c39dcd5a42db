package telegramtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/tools"
)

// Agent is a scripted stand-in for zut's app behind bot.Agent: each prompt
// runs Script, which emits the events a real agent emits (see Stream and
// Tool). It records what it was asked. Safe for concurrent use.
type Agent struct {
	// Script answers one prompt; nil answers "You said: <text>".
	Script func(ctx context.Context, a *Agent, in agent.Input) error

	mu        sync.Mutex
	changed   chan struct{}
	subs      map[int]func(agent.Event)
	nextSub   int
	confirmer agent.Confirmer
	tools     []tools.Tool
	prompts   []agent.Input
	cancel    context.CancelFunc
	running   bool
	closed    bool
	status    bot.Status
	commands  []bot.Command
	ran       []string // commands run, "name args"
	compacts  int
	news      int
}

// NewAgent returns an agent with a model and a session set.
func NewAgent(script func(ctx context.Context, a *Agent, in agent.Input) error) *Agent {
	return &Agent{Script: script, changed: make(chan struct{}), subs: map[int]func(agent.Event){},
		status: bot.Status{Model: "fake/model-1", Session: "s-1", CWD: "/work", ContextWindow: 1000}}
}

func (a *Agent) notify() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// Emit sends ev to the subscribers, as the agent's Emit does.
func (a *Agent) Emit(ev agent.Event) {
	a.mu.Lock()
	fns := make([]func(agent.Event), 0, len(a.subs))
	for _, f := range a.subs {
		fns = append(fns, f)
	}
	a.mu.Unlock()
	for _, f := range fns {
		f(ev)
	}
}

// Stream emits an answer the way a model streams it: AssistantStart,
// text deltas of chunk bytes (with pause between them), the usage and
// the AssistantMessage. It stops early when ctx ends.
func (a *Agent) Stream(ctx context.Context, text string, chunk int, pause time.Duration) error {
	a.Emit(agent.AssistantStart{})
	for i := 0; i < len(text); i += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		a.Emit(agent.TextDelta{Delta: text[i:min(i+chunk, len(text))]})
		if pause > 0 {
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	a.Emit(agent.Usage{Input: 10, Output: len(text) / 4})
	a.Emit(agent.AssistantMessage{Content: []agent.Block{{Type: "text", Text: text}}, Time: time.Now()})
	return nil
}

// Tool runs a tool call as the agent does: ToolCall, the confirmation
// when mutating (through the connected confirmer), then a connected tool
// with that name or a canned result.
func (a *Agent) Tool(ctx context.Context, id, name string, args any, mutating bool) (tools.Result, error) {
	raw, _ := json.Marshal(args)
	a.Emit(agent.ToolUseStart{ID: id, Name: name})
	a.Emit(agent.ToolUseEnd{ID: id})
	a.Emit(agent.ToolCall{ID: id, Name: name, Args: raw})
	a.mu.Lock()
	c, ts := a.confirmer, a.tools
	a.mu.Unlock()
	if mutating && c != nil {
		ans, err := c.Confirm(ctx, agent.ConfirmRequest{ToolID: id, Name: name, Args: raw, Preview: name + " " + string(raw)})
		if err != nil || !ans.Allow {
			reason := ans.Reason
			if err != nil {
				reason = err.Error()
			}
			r := tools.ErrorResult("tool %q was denied: %s", name, reason)
			a.Emit(agent.ToolResult{ID: id, Name: name, IsError: true, Content: agent.Blocks(r.Content)})
			return r, fmt.Errorf("denied: %s (always=%v)", reason, ans.Always)
		}
		if ans.Always {
			a.mu.Lock()
			a.status.Title = "always:" + name
			a.mu.Unlock()
		}
	}
	a.Emit(agent.ToolExecutionStarted{ID: id, Name: name})
	r := tools.TextResult("ok")
	for _, t := range ts {
		if t.Definition().Name == name {
			r = t.Run(ctx, raw, func(string) {})
		}
	}
	a.Emit(agent.ToolResult{ID: id, Name: name, IsError: r.IsError, Content: agent.Blocks(r.Content)})
	if r.IsError {
		return r, errors.New(r.Text())
	}
	return r, nil
}

// Subscribe implements bot.Agent.
func (a *Agent) Subscribe(fn func(agent.Event)) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := a.nextSub
	a.nextSub++
	a.subs[id] = fn
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.subs, id)
	}
}

// Prompt implements bot.Agent: UserMessage, TurnStart, the script,
// TurnEnd and Done.
func (a *Agent) Prompt(ctx context.Context, in agent.Input) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return agent.ErrBusy
	}
	a.running, a.cancel = true, cancel
	a.prompts = append(a.prompts, in)
	a.status.Messages++
	a.notify()
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.running, a.cancel = false, nil
		a.notify()
		a.mu.Unlock()
	}()
	blocks := append([]agent.Block{}, agent.Blocks(in.Images)...)
	blocks = append(blocks, agent.Block{Type: "text", Text: in.Text})
	a.Emit(agent.UserMessage{Content: blocks, Time: time.Now()})
	a.Emit(agent.TurnStart{Step: 1})
	script := a.Script
	if script == nil {
		script = func(ctx context.Context, a *Agent, in agent.Input) error {
			return a.Stream(ctx, "You said: "+in.Text, 8, 0)
		}
	}
	err := script(ctx, a, in)
	stop := "end_turn"
	switch {
	case ctx.Err() != nil:
		stop, err = "aborted", agent.ErrAborted
	case err != nil:
		stop = "error"
		a.Emit(agent.Error{Message: err.Error()})
	}
	a.Emit(agent.TurnEnd{Stop: stop})
	a.Emit(agent.Done{})
	return err
}

// Abort implements bot.Agent.
func (a *Agent) Abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
}

// Status implements bot.Agent.
func (a *Agent) Status() bot.Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

// NewSession implements bot.Agent.
func (a *Agent) NewSession(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.news++
	a.status.Session, a.status.Messages = fmt.Sprintf("s-%d", a.news+1), 0
	a.notify()
	return nil
}

// Compact implements bot.Agent.
func (a *Agent) Compact(ctx context.Context, instructions string) error {
	a.mu.Lock()
	a.compacts++
	a.notify()
	a.mu.Unlock()
	a.Emit(agent.CompactDone{Summary: "summary " + instructions})
	return nil
}

// Models implements bot.Agent.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	return []string{"fake/model-1", "fake/model-2"}, nil
}

// SetModel implements bot.Agent.
func (a *Agent) SetModel(ctx context.Context, spec string) (string, error) {
	if !strings.HasPrefix(spec, "fake/") {
		return "", fmt.Errorf("unknown model %q: /model lists the models", spec)
	}
	a.mu.Lock()
	prev := a.status.Model
	a.status.Model = spec
	a.mu.Unlock()
	a.Emit(agent.ModelChange{Model: spec, PreviousModel: prev, Source: "user"})
	return spec, nil
}

// Sessions implements bot.Agent.
func (a *Agent) Sessions(ctx context.Context) ([]bot.SessionInfo, error) {
	return []bot.SessionInfo{{ID: "s-1", Title: "first", Updated: time.Now(), Messages: 4}, {ID: "s-0", Title: "older", Messages: 2}}, nil
}

// Resume implements bot.Agent.
func (a *Agent) Resume(ctx context.Context, id string) error {
	if id != "s-1" && id != "s-0" {
		return fmt.Errorf("no session %q: /sessions lists them", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.status.Session, a.status.Title = id, "resumed"
	a.notify()
	return nil
}

// SetCommands sets the extension commands.
func (a *Agent) SetCommands(cmds []bot.Command) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.commands = cmds
}

// Commands implements bot.Agent.
func (a *Agent) Commands() []bot.Command {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commands
}

// RunCommand implements bot.Agent: it emits a notice.
func (a *Agent) RunCommand(ctx context.Context, name, args string) error {
	a.mu.Lock()
	a.ran = append(a.ran, strings.TrimSpace(name+" "+args))
	a.notify()
	a.mu.Unlock()
	a.Emit(agent.Notice{Level: "info", Source: "ext", Message: "ran " + name})
	return nil
}

// Connect implements bot.Agent.
func (a *Agent) Connect(c agent.Confirmer, ts []tools.Tool) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.confirmer, a.tools = c, ts
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.confirmer, a.tools = nil, nil
	}
}

// Close implements bot.Agent.
func (a *Agent) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	a.notify()
	return nil
}

// Tools returns the connected tools.
func (a *Agent) Tools() []tools.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools
}

// Prompts returns the prompts so far.
func (a *Agent) Prompts() []agent.Input {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]agent.Input(nil), a.prompts...)
}

// Ran returns the extension commands run so far.
func (a *Agent) Ran() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.ran...)
}

// Counts returns how many times NewSession and Compact ran.
func (a *Agent) Counts() (news, compacts int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.news, a.compacts
}

// Closed reports whether Close was called.
func (a *Agent) Closed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// Busy reports whether a prompt runs.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// Wait blocks until cond is true, re-checking on every change of the
// agent; it fails the test after a minute.
func (a *Agent) Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		a.mu.Lock()
		ch := a.changed
		a.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("telegramtest: timed out waiting for the agent: %s", what)
		}
	}
}

var _ bot.Agent = (*Agent)(nil)
