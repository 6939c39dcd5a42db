package subagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/plan"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/worktree"
	"github.com/zut-go/zut/provider"
)

// preamble opens a child's part of the system prompt.
const preamble = `# You are a subagent
Another agent gave you the task in the first message and reads your final answer; the user does not see your work as it happens.
Work on your own with your tools: you cannot ask the user questions. Keep to the task.
End with a concise report: what you found or changed (files, commands and their results), and anything left undone.`

// excluded are the parent's tools a child never has: the subagent tools
// (children do not spawn children) and the tools that act on the
// parent's session (its goal and schedule). plan is replaced by one that
// keeps the child's own plan.
func excluded() map[string]bool {
	return excludedLazy.get(func() map[string]bool {
		return map[string]bool{
			"subagent_spawn": true, "subagent_status": true, "subagent_stop": true, "subagent_resume": true,
			"update_goal": true, "schedule": true, "plan": true,
		}
	})
}

var excludedLazy lazy[map[string]bool]

// childKey marks the context of a subagent's run.
type childKey struct{}

func withChild(ctx context.Context) context.Context { return context.WithValue(ctx, childKey{}, true) }

// InChild reports whether ctx belongs to a subagent's run: its tool calls
// cannot ask the user anything (an MCP server's elicitation is refused).
func InChild(ctx context.Context) bool { return ctx.Value(childKey{}) != nil }

// child is one subagent.
type child struct {
	m          *Manager
	id, task   string
	isolation  string
	profile    *Profile
	model      string
	parentSess *session.Session
	sess       *session.Session
	ag         *agent.Agent
	repo       *worktree.Repo
	wt         *worktree.Worktree

	mu       sync.Mutex
	state    string // queued, running, done, failed, stopped
	activity string
	steps    int // of the current run
	total    provider.Usage
	result   Result
	cancel   context.CancelFunc
	done     chan struct{} // closed when the current run ends
	waiting  bool          // someone waits for the current run's result
	finished bool          // the current run ended
	text     string        // the latest answer of the current run
	lastStop string
	lastErr  string
	started  time.Time
}

func (c *child) agentName() string {
	if c.profile != nil {
		return c.profile.Name
	}
	return ""
}

// assemble builds the child's tools, model, session and agent.
func (c *child) assemble(ctx context.Context, modelSpec string) error {
	m := c.m
	parent := m.c.Parent()
	if c.id == "" {
		c.id = m.newID(c.parentSess)
	}
	base := parent.Tools()
	if c.isolation == "worktree" {
		if m.c.ToolsFor == nil {
			return errors.New("isolation worktree is not available here; use shared")
		}
		repo, err := worktree.Open(ctx, m.c.CWD, m.c.Worktree)
		if err != nil {
			return fmt.Errorf("isolation worktree: %w", err)
		}
		prefix := c.parentSess.ID()
		if len(prefix) > 8 {
			prefix = prefix[:8]
		}
		w, err := repo.Create(ctx, worktree.CreateOptions{Branch: "zut/subagent-" + prefix + "-" + c.id, Dir: "subagent-" + prefix + "-" + c.id})
		if err != nil {
			return fmt.Errorf("isolation worktree: %w", err)
		}
		c.repo, c.wt = repo, &w
		base = m.c.ToolsFor(w.Path)
	}
	var own []tools.Tool
	for _, t := range base {
		if !excluded()[t.Definition().Name] {
			own = append(own, t)
		}
	}
	ext := parent.Extensions()
	allow, err := c.allowed(own, ext)
	if err != nil {
		return err
	}
	if allow != nil {
		own = slicesFilter(own, func(t tools.Tool) bool { return allow[t.Definition().Name] })
	}
	if c.sess == nil {
		sess, err := openChildSession(c.parentSess, c.id, c.dir())
		if err != nil {
			return err
		}
		c.sess = sess
	}
	sess := c.sess
	if allow == nil || allow["plan"] {
		own = append(own, plan.New(plan.Config{Save: sess.AppendChecklist}))
	}

	client, model := parent.Client(), parent.Model()
	spec := modelSpec
	if spec == "" && c.profile != nil {
		spec = c.profile.Model
	}
	if spec != "" {
		if m.c.Resolve == nil {
			return fmt.Errorf("model %q: this zut cannot switch models for subagents; leave model out", spec)
		}
		cl, md, err := m.c.Resolve(ctx, spec)
		switch {
		case err == nil:
			client, model = cl, md
		case modelSpec == "" && isFamilyAlias(spec):
			// Profiles written for other agents name a model family:
			// the parent's model stands in when zut knows no such model.
		default:
			return fmt.Errorf("model %q: %v", spec, err)
		}
	}
	if client == nil {
		return errors.New("no model is configured for the subagent; set one for zut first")
	}
	c.model = model.Provider + "/" + model.ID
	reasoning := parent.Reasoning()
	if c.profile != nil && c.profile.Reasoning != "" {
		r, err := provider.ParseReasoning(c.profile.Reasoning)
		if err != nil {
			return fmt.Errorf("agent profile %s: reasoning: %v", c.profile.Path, err)
		}
		reasoning = r
	}
	system := parent.System() + "\n\n" + preamble
	if c.profile != nil && c.profile.Prompt != "" {
		system += "\n\n# Your role: " + c.profile.Name + "\n\n" + c.profile.Prompt
	}
	if c.wt != nil {
		system += "\n\nYou work in your own git worktree at " + c.wt.Path + " (branch " + c.wt.Branch + "): change files only there. Your changes are returned to the other agent as a diff."
	}
	pol := parent.Policy()
	pol.Interactive = false
	var confirm agent.Confirmer
	if pc := parent.Confirmer(); pc != nil {
		confirm = labelled{id: c.id, c: pc, stop: parent.Abort}
	}
	var x agent.Extensions
	if ext != nil {
		x = &filtered{x: ext, allow: allow}
	}
	c.ag = agent.New(agent.Config{
		Client: client, Model: model, System: system, Tools: own, Extensions: x,
		Store: agent.SessionStore{S: sess}, Confirm: confirm, Policy: pol,
		MaxSteps: m.c.MaxSteps, Reasoning: reasoning, Emit: c.onEvent,
	})
	c.state = "queued"
	return nil
}

// dir is the child's working directory.
func (c *child) dir() string {
	if c.wt != nil {
		return c.wt.Path
	}
	return c.m.c.CWD
}

func isFamilyAlias(s string) bool {
	switch strings.ToLower(s) {
	case "sonnet", "opus", "haiku":
		return true
	}
	return false
}

func slicesFilter(ts []tools.Tool, keep func(tools.Tool) bool) []tools.Tool {
	var out []tools.Tool
	for _, t := range ts {
		if keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// allowed maps the profile's tool names to the tools the child may use
// (nil: all of them). A name that is no tool, or names an interactive
// extension tool, is an error.
func (c *child) allowed(own []tools.Tool, ext agent.Extensions) (map[string]bool, error) {
	if c.profile == nil || c.profile.Tools == nil {
		return nil, nil
	}
	builtin := map[string]bool{"plan": true}
	var names []string
	for _, t := range own {
		builtin[t.Definition().Name] = true
		names = append(names, t.Definition().Name)
	}
	var extTools []agent.ExtensionTool
	if ext != nil {
		extTools = ext.Tools()
	}
	allow := map[string]bool{}
	for _, want := range c.profile.Tools {
		name := want
		if a, ok := toolAliases()[strings.ToLower(want)]; ok {
			if a == "" {
				continue // Task: children do not spawn children
			}
			name = a
		}
		if builtin[name] {
			allow[name] = true
			continue
		}
		found := false
		for _, et := range extTools {
			if et.Def.Name == want || strings.EqualFold(et.Def.Name, want) {
				if et.Interactive {
					return nil, fmt.Errorf("agent profile %s names tool %q of extension %q, which needs a person at the interactive terminal; subagents cannot run interactive tools: remove it from tools", c.profile.Path, want, et.Extension)
				}
				allow[et.Def.Name] = true
				found = true
				break
			}
		}
		if !found && excluded()[name] {
			return nil, fmt.Errorf("agent profile %s names tool %q, which subagents never have (they do not spawn subagents nor change the parent's goal or schedule): remove it from tools", c.profile.Path, want)
		}
		if !found {
			for _, et := range extTools {
				if !et.Interactive {
					names = append(names, et.Def.Name)
				}
			}
			return nil, fmt.Errorf("agent profile %s names tool %q, which zut does not have; the tools are %s", c.profile.Path, want, strings.Join(names, ", "))
		}
	}
	return allow, nil
}

// start runs prompt on a new goroutine the Manager joins; the returned
// channel is closed when the run ends.
func (c *child) start(ctx context.Context, prompt string, waiting bool) chan struct{} {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	// Take a free slot now, so that a child that can run says running.
	slot := false
	select {
	case c.m.slots <- struct{}{}:
		slot = true
	default:
	}
	state := "queued"
	if slot {
		state = "running"
	}
	c.mu.Lock()
	c.state, c.activity, c.steps, c.text, c.lastStop, c.lastErr = state, "", 0, "", "", ""
	c.cancel, c.done, c.waiting, c.finished = cancel, done, waiting, false
	c.started = time.Now()
	c.mu.Unlock()
	c.m.wg.Add(1)
	go func() {
		defer c.m.wg.Done()
		defer cancel()
		r := c.run(ctx, prompt, slot)
		c.finish(r, done)
	}()
	return done
}

// run waits for a slot (unless it has one) and runs prompt; a panic
// becomes a failed result.
func (c *child) run(ctx context.Context, prompt string, slot bool) (r Result) {
	if !slot {
		select {
		case c.m.slots <- struct{}{}:
		case <-ctx.Done():
			return c.resultOf("stopped", "stopped before it started"+c.m.closing())
		}
	}
	defer func() { <-c.m.slots }()
	c.setState("running", "starting")
	defer func() {
		if p := recover(); p != nil {
			r = c.resultOf("failed", fmt.Sprintf("the subagent crashed: %v\n%s", p, firstLines(string(debug.Stack()), 8)))
		}
	}()
	err := c.ag.Prompt(withChild(ctx), agent.Input{Text: prompt, Source: "subagent"})
	c.mu.Lock()
	steps, stop, lastErr := c.steps, c.lastStop, c.lastErr
	c.mu.Unlock()
	switch {
	case errors.Is(err, agent.ErrAborted) || ctx.Err() != nil:
		return c.resultOf("stopped", "stopped before it finished"+c.m.closing())
	case errors.Is(err, agent.ErrMaxSteps) || err == nil && steps >= c.m.c.MaxSteps && stop == "tool_use":
		return c.resultOf("failed", fmt.Sprintf("stopped after %d steps, its step budget (subagents.max_steps), before finishing; resume it with subagent_resume to let it go on", steps))
	case err != nil:
		msg := err.Error()
		if lastErr != "" && !strings.Contains(msg, lastErr) {
			msg = lastErr + ": " + msg
		}
		return c.resultOf("failed", msg)
	}
	return c.resultOf("done", "")
}

// resultOf is the current run's result with status and err.
func (c *child) resultOf(status, err string) Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Result{ID: c.id, Task: c.task, Agent: c.agentName(), Status: status, Text: c.text, Error: err,
		Session: c.sess.Path(), Steps: c.steps, Usage: c.total, Duration: time.Since(c.started), completed: true}
}

// finish adds the worktree's diff, records the end, and hands the result
// to whoever waits or to Deliver.
func (c *child) finish(r Result, done chan struct{}) {
	if c.wt != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		diff, err := c.repo.Diff(ctx, c.wt.Path, "")
		cancel()
		r.Worktree = c.wt.Path
		switch {
		case err != nil:
			r.Error = strings.TrimSpace(r.Error + "; the diff of its worktree could not be taken: " + err.Error())
		case diff != "":
			r.Diff = diff
			if c.sess.Path() != "" {
				p := strings.TrimSuffix(c.sess.Path(), ".jsonl") + ".diff"
				if os.WriteFile(p, []byte(diff), 0o600) == nil {
					r.DiffPath = p
				}
			}
		}
	}
	c.link(r.Status, r)
	c.m.c.Emit(agent.SubagentEnd{ID: r.ID, Status: r.Status, Result: tools.Clip(r.Text, 4000), Error: r.Error, Diff: r.DiffPath,
		Steps: r.Steps, Session: r.Session, Usage: agent.UsageTotal{Input: r.Usage.Input, Output: r.Usage.Output,
			CacheRead: r.Usage.CacheRead, CacheWrite: r.Usage.CacheWrite, CostUSD: r.Usage.CostUSD}})
	c.mu.Lock()
	c.state, c.activity, c.result, c.finished = r.Status, "", r, true
	// A stopped child's end is no news to whoever stopped it: nothing is
	// delivered (a new turn would start by itself).
	deliver := !c.waiting && r.Status != "stopped"
	c.mu.Unlock()
	close(done)
	c.m.mu.Lock()
	closed := c.m.closed
	c.m.mu.Unlock()
	if deliver && !closed && c.m.c.Deliver != nil {
		c.m.c.Deliver(r)
	}
}

// wait waits up to d for the run that closes done; past d the child is
// left to deliver its result later.
func (c *child) wait(ctx context.Context, done chan struct{}, d time.Duration) (Result, bool) {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return c.result, true
	}
	c.waiting = false
	return Result{}, false
}

// link records the child's state in the parent's session.
func (c *child) link(status string, r Result) {
	l := session.SubagentLink{ID: c.id, Task: c.task, Agent: c.agentName(), Model: c.model, Isolation: c.isolation,
		Session: c.sess.Path(), Status: status, Result: r.Text, Error: r.Error, Diff: r.DiffPath, Steps: r.Steps, CostUSD: r.Usage.CostUSD}
	if err := c.parentSess.AppendSubagent(l); err != nil && !errors.Is(err, session.ErrClosed) {
		c.m.c.Emit(agent.Notice{Level: "warn", Message: "subagent " + c.id + ": record it in the session: " + err.Error()})
	}
}

func (c *child) setState(state, activity string) {
	c.mu.Lock()
	c.state, c.activity = state, activity
	c.mu.Unlock()
	c.update()
}

// update emits the child's state. It is called when the state changes,
// at each model step and each tool call, never for streamed text, so
// that a streaming child costs its parent's frontend nothing.
func (c *child) update() {
	c.mu.Lock()
	ev := agent.SubagentUpdate{ID: c.id, State: c.state, Activity: c.activity, Steps: c.steps, CostUSD: c.total.CostUSD}
	c.mu.Unlock()
	c.m.c.Emit(ev)
}

// onEvent follows the child's agent events on its goroutine.
func (c *child) onEvent(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.TurnStart:
		c.mu.Lock()
		c.steps++
		c.activity = "thinking"
		c.mu.Unlock()
		c.update()
	case agent.ToolCall:
		what := ev.Name + " " + tools.FirstLine(string(ev.Args), 60)
		for _, t := range c.ag.Tools() {
			if p, ok := t.(tools.Previewer); ok && t.Definition().Name == ev.Name {
				what = tools.FirstLine(p.Preview(ev.Args), 80)
			}
		}
		c.mu.Lock()
		c.activity = what
		c.mu.Unlock()
		c.update()
	case agent.AssistantMessage:
		var parts []string
		for _, b := range ev.Content {
			if b.Type == "text" && b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		if t := strings.TrimSpace(strings.Join(parts, "\n")); t != "" {
			c.mu.Lock()
			c.text = t
			c.mu.Unlock()
		}
	case agent.TurnEnd:
		c.mu.Lock()
		c.lastStop = ev.Stop
		c.mu.Unlock()
	case agent.Error:
		c.mu.Lock()
		c.lastErr = ev.Message
		c.mu.Unlock()
	case agent.Usage:
		u := provider.Usage{Input: ev.Input, Output: ev.Output, CacheRead: ev.CacheRead, CacheWrite: ev.CacheWrite, CostUSD: ev.CostUSD}
		c.mu.Lock()
		c.total = c.total.Add(u)
		c.mu.Unlock()
		if p := c.m.c.Parent(); p != nil {
			p.AddUsage(u)
		}
	}
}

// info is the child's state now.
func (c *child) info() Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := Info{ID: c.id, Task: c.task, Agent: c.agentName(), Model: c.model, Isolation: c.isolation, State: c.state,
		Activity: c.activity, Steps: c.steps, CostUSD: c.total.CostUSD, Session: c.sess.Path()}
	if c.finished {
		in.Result, in.Error, in.Steps = c.result.Text, c.result.Error, c.result.Steps
	}
	if c.wt != nil {
		in.Worktree = c.wt.Path
	}
	return in
}

// cleanup removes the child's worktree (its diff was kept) and closes
// its session.
func (c *child) cleanup() {
	if c.wt != nil && c.repo != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := c.repo.RemoveWorktree(ctx, *c.wt, true); err == nil {
			c.repo.DeleteBranch(ctx, c.wt.Branch, true)
		}
		cancel()
		c.wt = nil
	}
	if c.sess != nil {
		c.sess.Close()
	}
}

// reopen rebuilds a child of an earlier run of zut from the session link
// and the child's session file, to resume it. It works in the shared
// directory.
func (m *Manager) reopen(ctx context.Context, id string) (*child, error) {
	parentSess := m.c.Session()
	var link *session.SubagentLink
	for _, l := range parentSess.Subagents() {
		if l.ID == id {
			l := l
			link = &l
		}
	}
	if link == nil {
		return nil, m.unknown(id)
	}
	if link.Session == "" {
		return nil, fmt.Errorf("subagent %s kept no session file (sessions were off); it cannot be resumed: spawn a new one", id)
	}
	c := &child{m: m, id: id, task: link.Task, isolation: "shared", parentSess: parentSess}
	if link.Agent != "" {
		p, err := m.profile(link.Agent)
		if err != nil {
			return nil, fmt.Errorf("resume subagent %s: %w", id, err)
		}
		c.profile = p
	}
	old, _, err := session.Open(link.Session)
	if err != nil {
		return nil, fmt.Errorf("resume subagent %s: %w", id, err)
	}
	c.sess = old
	if err := c.assemble(ctx, ""); err != nil {
		old.Close()
		return nil, fmt.Errorf("resume subagent %s: %w", id, err)
	}
	c.state = linkState(link.Status)
	m.mu.Lock()
	m.children = append(m.children, c)
	m.mu.Unlock()
	return c, nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
