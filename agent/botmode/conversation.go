// Package botmode runs zut behind a chat bot: a Conversation is one
// chat's zut (the app of package app, as bot.Agent wants it) for the
// standalone bot of zut telegram run, and a Mirror shows the terminal's
// conversation in the paired Telegram chat (/telegram connect).
package botmode

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Conversation is one chat's zut. Its app runs as print mode's does —
// nobody sees a panel, so interactive extension tools answer with a tool
// error — but the chat's buttons confirm the calls the permission rules
// leave open (Connect).
type Conversation struct {
	app *app.App

	mu     sync.Mutex
	subs   map[int]func(agent.Event)
	nextID int
	cancel context.CancelFunc // of the running prompt or compaction
}

// NewAgent returns the function zut telegram run builds each chat's zut
// with: the app of opts in the current directory, with a saved session
// (the chat's /sessions and /resume list the project's sessions).
func NewAgent(env *app.Env, opts app.Options) func(ctx context.Context) (bot.Agent, error) {
	return func(ctx context.Context) (bot.Agent, error) { return New(ctx, env, opts) }
}

// New builds a conversation.
func New(ctx context.Context, env *app.Env, opts app.Options) (*Conversation, error) {
	c := &Conversation{subs: map[int]func(agent.Event){}}
	a, err := app.New(ctx, env, opts, app.Frontend{UI: chatUI{c: c}, Emit: c.emit})
	if err != nil {
		return nil, err
	}
	c.app = a
	a.Start()
	return c, nil
}

// emit fans an event out to the subscribers.
func (c *Conversation) emit(ev agent.Event) {
	c.mu.Lock()
	fns := make([]func(agent.Event), 0, len(c.subs))
	for _, fn := range c.subs {
		fns = append(fns, fn)
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

// Subscribe calls fn with every event until cancel is called.
func (c *Conversation) Subscribe(fn func(agent.Event)) (cancel func()) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.subs[id] = fn
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.subs, id)
		c.mu.Unlock()
	}
}

// run runs fn with a context Abort cancels.
func (c *Conversation) run(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel()
	}()
	return fn(ctx)
}

// Prompt runs one prompt to the end.
func (c *Conversation) Prompt(ctx context.Context, in agent.Input) error {
	if in.Source == "" {
		in.Source = "telegram"
	}
	return c.run(ctx, func(ctx context.Context) error { return c.app.Prompt(ctx, in) })
}

// Abort cancels the running prompt or compaction.
func (c *Conversation) Abort() {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	c.app.Agent().Abort()
	if cancel != nil {
		cancel()
	}
}

// Status describes the conversation for /status.
func (c *Conversation) Status() bot.Status {
	a := c.app
	ag := a.Agent()
	m := ag.Model()
	st := bot.Status{Reasoning: reasoningText(ag.Reasoning()), CWD: a.CWD(), CostUSD: ag.Usage().CostUSD}
	if m.ID != "" {
		st.Model = m.Provider + "/" + m.ID
	}
	if s := a.Session(); s != nil {
		st.Session, st.Title, st.Messages = s.ID(), s.Title(), len(s.Messages())
	}
	cs := ag.ContextStats()
	st.ContextTokens, st.ContextWindow = cs.EstimatedTokens, cs.ContextLimit
	return st
}

// reasoningText is a reasoning level as /reasoning takes it.
func reasoningText(r provider.Reasoning) string {
	switch {
	case r.BudgetTokens > 0:
		return strconv.Itoa(r.BudgetTokens)
	case r.Effort != "":
		return r.Effort
	}
	return "default"
}

// NewSession starts a new, empty session.
func (c *Conversation) NewSession(ctx context.Context) error {
	if err := c.app.AllowSessionSwitch(ctx, "new"); err != nil {
		return err
	}
	return c.app.NewSession()
}

// Compact summarises the conversation; the agent emits CompactDone.
func (c *Conversation) Compact(ctx context.Context, instructions string) error {
	return c.run(ctx, func(ctx context.Context) error {
		_, err := c.app.Compact(ctx, instructions)
		return err
	})
}

// Models lists the models with a key (or a local server that answered),
// as "provider/id", the current one first.
func (c *Conversation) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	o := c.app.ProviderOptions()
	o.Provider = ""
	rows, err := provider.Listings(ctx, o)
	if err != nil {
		return nil, err
	}
	cur := c.app.Agent().Model()
	var out []string
	for _, r := range rows {
		if r.Ready == "" {
			continue
		}
		spec := r.Provider + "/" + r.ID
		if r.Provider == cur.Provider && r.ID == cur.ID {
			out = append([]string{spec}, out...)
			continue
		}
		out = append(out, spec)
	}
	return out, nil
}

// SetModel switches the model and returns its "provider/id".
func (c *Conversation) SetModel(ctx context.Context, spec string) (string, error) {
	r, err := c.app.SetModel(ctx, spec)
	if err != nil {
		return "", err
	}
	return r.Provider.Name + "/" + r.Model.ID, nil
}

// Sessions lists the project's saved sessions that hold messages, newest
// first.
func (c *Conversation) Sessions(ctx context.Context) ([]bot.SessionInfo, error) {
	list, err := session.List(c.app.SessionsDir(), c.app.CWD(), false)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Modified.After(list[j].Modified) })
	out := make([]bot.SessionInfo, 0, len(list))
	for _, in := range list {
		if in.Messages == 0 {
			continue // a session nothing was said in yet (the current new one)
		}
		title := in.Title
		if title == "" {
			title = in.Preview
		}
		out = append(out, bot.SessionInfo{ID: in.ID, Title: title, Updated: in.Modified, Messages: in.Messages})
	}
	return out, nil
}

// Resume switches to a saved session (an id or a unique prefix).
func (c *Conversation) Resume(ctx context.Context, id string) error {
	if err := c.app.AllowSessionSwitch(ctx, "resume"); err != nil {
		return err
	}
	return c.app.ResumeSession(id)
}

// Commands lists the commands of the extensions, skills and MCP servers,
// and /plan, /goal, /schedule and /subagents; the bot has its own
// built-ins (/new, /stop, /status, ...).
func (c *Conversation) Commands() []bot.Command {
	var out []bot.Command
	for _, cmd := range c.app.Commands() {
		if cmd.Source == "builtin" && !app.IsWorkCommand(cmd.Name) {
			continue // the bot has its own (/new, /stop, /status, ...)
		}
		name := cmd.Name
		if cmd.Source == "skill" {
			// Telegram's command names take letters, digits and _.
			name = "skill_" + strings.TrimPrefix(name, "skill:")
		}
		out = append(out, bot.Command{Name: name, Description: cmd.Description})
	}
	return out
}

// RunCommand runs an extension command, a skill, an MCP prompt or a
// work command (/goal ...): a prompt it answers with runs as a prompt;
// text it shows arrives as a notice.
func (c *Conversation) RunCommand(ctx context.Context, name, args string) error {
	if skill, ok := strings.CutPrefix(name, "skill_"); ok {
		p, err := c.app.SkillPrompt(strings.ReplaceAll(skill, "_", "-"), args)
		if err != nil {
			if p, err = c.app.SkillPrompt(skill, args); err != nil {
				return err
			}
		}
		return c.Prompt(ctx, agent.Input{Text: p})
	}
	if app.IsWorkCommand(name) {
		w, err := c.app.WorkCommand(ctx, name, args)
		if err != nil {
			return err
		}
		if w.Text != "" {
			c.emit(agent.Notice{Level: "info", Message: w.Text})
		}
		if w.Prompt != "" {
			return c.Prompt(ctx, agent.Input{Text: w.Prompt, Source: "goal"})
		}
		return nil
	}
	r, err := c.app.InvokeExtension(ctx, name, args)
	if errors.Is(err, app.ErrNoSuchCommand) {
		return fmt.Errorf("no command /%s; /help lists the commands", name)
	}
	if err != nil {
		return err
	}
	if r.Error != "" && (r.Action == "" || r.Action == "noop") {
		return errors.New(r.Error)
	}
	note := func(text string) {
		c.emit(agent.Notice{Level: "info", Source: r.Extension, Message: text})
	}
	switch r.Action {
	case "prompt":
		return c.Prompt(ctx, agent.Input{Text: strings.TrimSpace(r.Prompt)})
	case "display":
		note(r.Display)
	case "insert":
		note(r.Insert)
	case "open_panel":
		return fmt.Errorf("/%s opens a panel, which needs zut's terminal UI", name)
	}
	if r.Error != "" {
		c.emit(agent.Notice{Level: "error", Source: r.Extension, Message: r.Error})
	}
	return nil
}

// Connect makes cf the confirmer and lends ts to the model.
func (c *Conversation) Connect(cf agent.Confirmer, ts []tools.Tool) (disconnect func()) {
	ag := c.app.Agent()
	ag.SetConfirmer(cf)
	remove := c.app.AddTools(ts)
	return func() {
		ag.SetConfirmer(nil)
		remove()
	}
}

// Close ends the conversation's app.
func (c *Conversation) Close() error {
	c.Abort()
	c.app.Close()
	return nil
}

// chatUI shows extension chrome in the chat: notes and notifications as
// notices; panels, widgets and dialogs have nowhere to go.
type chatUI struct {
	app.NopUI
	c *Conversation
}

func (u chatUI) Notify(ext, level, message string) {
	if level == "warning" {
		level = "warn"
	}
	u.c.emit(agent.Notice{Level: level, Source: ext, Message: message})
}

func (u chatUI) Display(ext, text string) {
	u.c.emit(agent.Notice{Level: "info", Source: ext, Message: text})
}

func (u chatUI) Exited(ext string, err error, logPath string) {
	if err != nil {
		u.c.emit(agent.Notice{Level: "warn", Source: ext, Message: fmt.Sprintf("the extension stopped: %v (log: %s)", err, logPath)})
	}
}
