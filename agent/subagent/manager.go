// Package subagent runs resident subagents: in-process child agents that
// work on a task with their own context and session file (beside the
// parent's, linked from it), the parent's tools minus interactive tools
// and minus the subagent tools (children do not spawn children), and,
// when asked, a git worktree of their own whose diff comes back with the
// result. Agent profiles (Profile) choose a child's tools and model.
//
// A Manager owns every child's goroutine: at most MaxConcurrent run at
// once and the others queue; Close stops them all and waits for them, so
// that no child outlives zut. The cost and tokens of children are added
// to the parent's totals. All methods are safe for concurrent use.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/worktree"
	"github.com/zut-go/zut/provider"
)

// Defaults of Config.
const (
	DefaultMaxConcurrent = 4
	DefaultMaxSteps      = 50
)

// Config is what a Manager needs from its host.
type Config struct {
	// Parent returns the parent agent: its tools, extensions, model,
	// system prompt, confirmer and policy are the children's defaults.
	Parent func() *agent.Agent
	// Session returns the parent's current session, where children are
	// linked and beside which their session files go.
	Session func() *session.Session
	// Emit receives the subagent_* events, for the parent's frontend.
	Emit func(agent.Event)
	// Deliver hands the result of a child nobody waits for to the parent
	// (as a message at its next safe point); a stopped child delivers
	// nothing. It is called on the child's goroutine and must not block.
	Deliver func(Result)
	// Resolve finds the model a profile or a spawn names.
	Resolve func(ctx context.Context, spec string) (provider.Client, agent.Model, error)
	// ToolsFor returns the built-in tools of a child working in dir (a
	// worktree); nil disables worktree isolation.
	ToolsFor func(dir string) []tools.Tool
	// CWD is the project directory (the repository of worktrees).
	CWD string
	// ProfileDirs are searched for agent profiles (ProfileDirs).
	ProfileDirs []string
	// MaxConcurrent children run at once (0: 4); MaxSteps bounds each
	// run of a child (0: 50).
	MaxConcurrent int
	MaxSteps      int
	// Worktree configures the worktrees of isolated children.
	Worktree worktree.Config
}

// Manager runs the children of one parent.
type Manager struct {
	c     Config
	slots chan struct{}
	wg    sync.WaitGroup // a goroutine per running or queued child

	mu       sync.Mutex
	children []*child
	nextID   int
	closed   bool
	profiles []Profile
	warnings []string
	loaded   bool
}

// New returns a Manager. It starts nothing.
func New(c Config) *Manager {
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.Emit == nil {
		c.Emit = func(agent.Event) {}
	}
	return &Manager{c: c, slots: make(chan struct{}, c.MaxConcurrent)}
}

// Profiles returns the agent profiles (read once, again after
// ReloadProfiles) and the warnings about files that could not be used.
func (m *Manager) Profiles() ([]Profile, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded {
		m.profiles, m.warnings = LoadProfiles(m.c.ProfileDirs)
		m.loaded = true
	}
	return m.profiles, m.warnings
}

// ReloadProfiles reads the profile directories again.
func (m *Manager) ReloadProfiles() {
	m.mu.Lock()
	m.loaded = false
	m.mu.Unlock()
	m.Profiles()
}

func (m *Manager) profile(name string) (*Profile, error) {
	ps, _ := m.Profiles()
	var names []string
	for i := range ps {
		if strings.EqualFold(ps[i].Name, name) {
			p := ps[i]
			return &p, nil
		}
		names = append(names, ps[i].Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no agent profile %q: there are none (put NAME.md profiles in .zut/agents, $ZUT_HOME/agents, .claude/agents or ~/.agents/agents), or leave agent out", name)
	}
	return nil, fmt.Errorf("no agent profile %q; the profiles are %s", name, strings.Join(names, ", "))
}

// SpawnOptions describe a child to start.
type SpawnOptions struct {
	Task  string
	Agent string // a profile name; "" is the default agent
	Model string // a model spec; "" is the profile's or the parent's
	// Isolation is "shared" (the default: the parent's directory) or
	// "worktree" (a git worktree of its own).
	Isolation string
	// Wait is how long Spawn waits for the result; 0 returns at once.
	Wait time.Duration
}

// Result is how a child's run ended.
type Result struct {
	ID        string         `json:"id"`
	Task      string         `json:"task"`
	Agent     string         `json:"agent,omitempty"`
	Status    string         `json:"status"` // done, failed, stopped
	Text      string         `json:"text,omitempty"`
	Error     string         `json:"error,omitempty"`
	Diff      string         `json:"diff,omitempty"`
	DiffPath  string         `json:"diff_path,omitempty"`
	Worktree  string         `json:"worktree,omitempty"`
	Session   string         `json:"session,omitempty"`
	Steps     int            `json:"steps"`
	Usage     provider.Usage `json:"usage"`
	Duration  time.Duration  `json:"-"`
	completed bool
}

// Info is a child's state for subagent_status, /subagents and
// get_subagents.
type Info struct {
	ID        string  `json:"id"`
	Task      string  `json:"task"`
	Agent     string  `json:"agent,omitempty"`
	Model     string  `json:"model,omitempty"`
	Isolation string  `json:"isolation,omitempty"`
	State     string  `json:"state"` // queued, running, done, failed, stopped
	Activity  string  `json:"activity,omitempty"`
	Steps     int     `json:"steps"`
	CostUSD   float64 `json:"cost_usd"`
	Result    string  `json:"result,omitempty"`
	Error     string  `json:"error,omitempty"`
	Session   string  `json:"session,omitempty"`
	Worktree  string  `json:"worktree,omitempty"`
}

// ErrClosed is returned once the Manager is closed.
var ErrClosed = errors.New("zut is shutting down: no new subagents")

// Spawn starts a child on opts.Task. When the child finishes within
// opts.Wait, its result is returned with done true; otherwise the child
// goes on and its result is handed to Config.Deliver when it ends.
func (m *Manager) Spawn(ctx context.Context, opts SpawnOptions) (Info, Result, bool, error) {
	task := strings.TrimSpace(opts.Task)
	if task == "" {
		return Info{}, Result{}, false, errors.New("task is empty: say what the subagent should do and what to report")
	}
	switch opts.Isolation {
	case "", "shared", "worktree":
	default:
		return Info{}, Result{}, false, fmt.Errorf("isolation %q is not shared or worktree", opts.Isolation)
	}
	var prof *Profile
	if opts.Agent != "" {
		p, err := m.profile(opts.Agent)
		if err != nil {
			return Info{}, Result{}, false, err
		}
		prof = p
	}
	parent := m.c.Parent()
	if parent == nil {
		return Info{}, Result{}, false, errors.New("no parent agent")
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Info{}, Result{}, false, ErrClosed
	}
	m.mu.Unlock()

	c := &child{m: m, task: task, isolation: opts.Isolation, profile: prof, parentSess: m.c.Session()}
	if c.isolation == "" {
		c.isolation = "shared"
	}
	if err := c.assemble(ctx, opts.Model); err != nil {
		c.cleanup()
		return Info{}, Result{}, false, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		c.cleanup()
		return Info{}, Result{}, false, ErrClosed
	}
	m.children = append(m.children, c)
	m.mu.Unlock()
	c.link("running", Result{})
	m.c.Emit(agent.SubagentStart{ID: c.id, Task: task, Agent: c.agentName(), Model: c.model, Isolation: c.isolation, Queued: len(m.slots) == cap(m.slots)})
	done := c.start(ctx, task, opts.Wait > 0)
	r, finished := c.wait(ctx, done, opts.Wait)
	return c.info(), r, finished, nil
}

// Resume continues the child id, which has finished, with prompt. A child
// of an earlier run of zut is reopened from its session file.
func (m *Manager) Resume(ctx context.Context, id, prompt string, wait time.Duration) (Info, Result, bool, error) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return Info{}, Result{}, false, errors.New("prompt is empty: say what the subagent should do next")
	}
	c, err := m.find(id)
	if err != nil {
		c, err = m.reopen(ctx, id)
		if err != nil {
			return Info{}, Result{}, false, err
		}
	}
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	if state == "running" || state == "queued" {
		return c.info(), Result{}, false, fmt.Errorf("subagent %s is still %s; wait for its result or stop it (subagent_stop) first", id, state)
	}
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return Info{}, Result{}, false, ErrClosed
	}
	c.link("running", Result{})
	m.c.Emit(agent.SubagentStart{ID: c.id, Task: prompt, Agent: c.agentName(), Model: c.model, Isolation: c.isolation, Queued: len(m.slots) == cap(m.slots)})
	done := c.start(ctx, prompt, wait > 0)
	r, finished := c.wait(ctx, done, wait)
	return c.info(), r, finished, nil
}

// Stop stops the child id and waits (up to 30 s) until it has.
func (m *Manager) Stop(id string) (Info, error) {
	c, err := m.find(id)
	if err != nil {
		return Info{}, err
	}
	c.mu.Lock()
	cancel, done, state := c.cancel, c.done, c.state
	c.mu.Unlock()
	if state != "running" && state != "queued" {
		return c.info(), fmt.Errorf("subagent %s is not running (it is %s)", id, state)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		return c.info(), fmt.Errorf("subagent %s did not stop within 30s", id)
	}
	return c.info(), nil
}

// StopAll stops every running or queued child and returns how many.
func (m *Manager) StopAll() int {
	n := 0
	for _, in := range m.List() {
		if in.State == "running" || in.State == "queued" {
			if _, err := m.Stop(in.ID); err == nil {
				n++
			}
		}
	}
	return n
}

// Running counts the children running or queued.
func (m *Manager) Running() int {
	n := 0
	for _, in := range m.List() {
		if in.State == "running" || in.State == "queued" {
			n++
		}
	}
	return n
}

// List returns every child of this run of zut, in spawn order.
func (m *Manager) List() []Info {
	m.mu.Lock()
	cs := slices.Clone(m.children)
	m.mu.Unlock()
	out := make([]Info, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.info())
	}
	return out
}

// Status returns the child id, from this run or linked from the session.
func (m *Manager) Status(id string) (Info, error) {
	if c, err := m.find(id); err == nil {
		return c.info(), nil
	}
	for _, l := range m.c.Session().Subagents() {
		if l.ID == id {
			return Info{ID: l.ID, Task: l.Task, Agent: l.Agent, Model: l.Model, Isolation: l.Isolation, State: linkState(l.Status), Steps: l.Steps, CostUSD: l.CostUSD, Result: l.Result, Error: l.Error, Session: l.Session}, nil
		}
	}
	return Info{}, m.unknown(id)
}

// linkState is the state of a child recorded as running by an earlier
// run of zut, which ended with it: stopped.
func linkState(s string) string {
	if s == "running" || s == "queued" {
		return "stopped"
	}
	return s
}

// Transcript returns the messages of child id's session.
func (m *Manager) Transcript(id string) ([]provider.Message, error) {
	if c, err := m.find(id); err == nil {
		return c.sess.Messages(), nil
	}
	for _, l := range m.c.Session().Subagents() {
		if l.ID == id && l.Session != "" {
			s, _, err := session.Open(l.Session)
			if err != nil {
				return nil, fmt.Errorf("open the session of subagent %s: %w", id, err)
			}
			defer s.Close()
			return s.Messages(), nil
		}
	}
	return nil, m.unknown(id)
}

func (m *Manager) find(id string) (*child, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.children {
		if c.id == id {
			return c, nil
		}
	}
	return nil, m.unknownLocked(id)
}

func (m *Manager) unknown(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unknownLocked(id)
}

func (m *Manager) unknownLocked(id string) error {
	var ids []string
	for _, c := range m.children {
		ids = append(ids, c.id)
	}
	if len(ids) == 0 {
		return fmt.Errorf("no subagent %q: none was spawned in this session", id)
	}
	return fmt.Errorf("no subagent %q; the subagents are %s", id, strings.Join(ids, ", "))
}

// newID returns the next child id, after those the session links.
func (m *Manager) newID(sess *session.Session) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nextID
	for _, l := range sess.Subagents() {
		if v, err := strconv.Atoi(strings.TrimPrefix(l.ID, "sa-")); err == nil && v > n {
			n = v
		}
	}
	for _, c := range m.children {
		if v, err := strconv.Atoi(strings.TrimPrefix(c.id, "sa-")); err == nil && v > n {
			n = v
		}
	}
	m.nextID = n + 1
	return "sa-" + strconv.Itoa(m.nextID)
}

// Close stops every child, waits for their goroutines, removes their
// worktrees and closes their sessions. It is idempotent.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	cs := slices.Clone(m.children)
	m.mu.Unlock()
	for _, c := range cs {
		c.mu.Lock()
		if c.cancel != nil {
			c.cancel()
		}
		c.mu.Unlock()
	}
	m.wg.Wait()
	for _, c := range cs {
		c.cleanup()
	}
}

// closing is why a child stopped when the Manager is closed: zut is
// exiting (at the end of a run of zut -p or --mode json, with the
// children still running); "" otherwise.
func (m *Manager) closing() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ": zut was exiting"
	}
	return ""
}

// childDir is where the session files of children of the session at
// path go: a directory beside it, named after it.
func childDir(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".subagents"
}

// openChildSession creates child id's session beside the parent's, or
// in memory when the parent is.
func openChildSession(parent *session.Session, id, cwd string) (*session.Session, error) {
	if parent.Path() == "" {
		return session.NewMemory(cwd), nil
	}
	dir := childDir(parent.Path())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the session of subagent %s: %w", id, err)
	}
	path := filepath.Join(dir, id+".jsonl")
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); err != nil {
			break
		}
		path = filepath.Join(dir, id+"-"+strconv.Itoa(i)+".jsonl")
	}
	s, err := session.CreateFile(path, cwd, session.WithTitle("subagent "+id))
	if err != nil {
		return nil, fmt.Errorf("create the session of subagent %s: %w", id, err)
	}
	return s, nil
}
