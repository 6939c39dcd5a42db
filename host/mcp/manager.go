package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"time"
)

// State of a configured server in a Manager.
type State string

const (
	StateDisabled  State = "disabled"  // "enabled": false in its configuration
	StateInvalid   State = "invalid"   // its configuration entry is unusable (Status.Err)
	StateUntrusted State = "untrusted" // a project server the user has not trusted
	StateStarting  State = "starting"
	StateReady     State = "ready"
	StateStopped   State = "stopped" // it went away after starting; the next use restarts it
	StateFailed    State = "failed"  // it could not be started (Status.Err)
)

// maxRestarts is how often a server that went away is restarted, on its
// next use, in one run.
const maxRestarts = 3

// Options configure a Manager.
type Options struct {
	Home   string   // $ZUT_HOME: logs/mcp-<name>.log, mcp-auth/
	CWD    string   // the project directory: a stdio server's default working directory
	Config *Config  // from LoadConfig; nil means no servers
	Env    []string // the environment of stdio servers (ConnectOptions.Env)
	// WrapCommand rewrites stdio servers' commands (ConnectOptions.WrapCommand).
	WrapCommand func(*exec.Cmd) error

	// Trusted decides whether a project server (OriginProject) may run;
	// nil trusts none. Servers from the global file or --mcp-config always
	// run. See Trust for trusting one later.
	Trusted func(ServerConfig) bool

	Client Implementation // zut's clientInfo

	StartTimeout time.Duration // start to initialized, for a server without "startup_timeout_sec": 30s
	CallTimeout  time.Duration // a request without the server's "tool_timeout_sec": 10m
	WaitTimeout  time.Duration // a call waiting for a server still starting: its start timeout

	Sampling    SamplingFunc // nil: sampling is not offered
	Elicitation ElicitFunc   // nil: elicitation is not offered
	AuthPrompt  AuthPrompt
	OpenBrowser func(ctx context.Context, url string)

	Callbacks Callbacks

	// Trace sees every message of every server (for tests and debugging).
	Trace func(server string, out bool, method string, data []byte)
}

// Callbacks tell zut what changed. Every field may be nil. They are
// called from the Manager's goroutines, never while a Manager lock is
// held; they must return promptly (hand the work to the UI loop) and may
// call the Manager's methods except Close.
type Callbacks struct {
	ToolsChanged     func() // Tools() changed: rebuild the model's tool list
	PromptsChanged   func() // Prompts() changed: rebuild the slash commands
	ResourcesChanged func() // Resources() or Templates() changed
	ServersChanged   func() // a server's State changed (Servers())
	// Note reports something the user should see about a server: it
	// failed to start, stopped, a tool was skipped, a request was refused.
	Note func(server, msg string)
	// Waiting is called when a request must wait for server to finish
	// starting; the request then waits up to Options.WaitTimeout.
	Waiting func(server string)
}

// Manager runs the configured MCP servers. Its methods are safe for
// concurrent use. Close stops every server and joins every goroutine.
type Manager struct {
	opts    Options
	ctx     context.Context // ends at Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup // start, monitor and refresh goroutines
	mu      sync.Mutex
	closing bool
	servers []*server // sorted by name
	byName  map[string]*server
	byPart  map[string]*server
}

// server is the Manager's record of one configured server; its fields
// are guarded by Manager.mu.
type server struct {
	cfg      ServerConfig
	part     string // its part of tool names
	state    State
	err      error
	client   *Client
	ready    chan struct{} // closed when the current start attempt ended
	restarts int
	began    time.Time     // when the current start attempt began
	took     time.Duration // spawn to initialized

	tools     []Tool
	omitted   []string // the server's names of its tools past MaxToolsPerServer
	prompts   []Prompt
	resources []ResourceInfo
	templates []TemplateInfo

	refreshing bool
	dirty      map[string]bool // lists to fetch again
}

// Status is a server's state for `zut mcp list` and `zut mcp doctor`.
type Status struct {
	Name         string
	Origin       Origin
	File         string
	Transport    string
	Digest       string
	State        State
	Err          error // why it is invalid, failed or stopped
	Protocol     string
	Server       Implementation
	Capabilities ServerCapabilities
	Instructions string
	Tools        []string // zut's names of the tools offered to the model
	Omitted      []string // the server's own names of the tools left out past MaxToolsPerServer
	Prompts      int
	Resources    int
	Templates    int
	StartTime    time.Duration
	Log          string
}

// NewManager starts every configured server that may run, in parallel,
// and returns at once: tools appear as servers become ready
// (Callbacks.ToolsChanged). With no configured server it starts nothing
// and costs nothing.
func NewManager(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 10 * time.Minute
	}
	if opts.Client.Name == "" {
		opts.Client = Implementation{Name: "zut", Version: "dev"}
	}
	m := &Manager{opts: opts, byName: map[string]*server{}, byPart: map[string]*server{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	if opts.Config == nil || len(opts.Config.Servers) == 0 {
		return m
	}
	var names []string
	for _, c := range opts.Config.Servers {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	parts := serverParts(names)
	for _, c := range opts.Config.Servers {
		s := &server{cfg: c, part: parts[c.Name], ready: make(chan struct{})}
		switch {
		case c.Err != nil:
			s.state, s.err = StateInvalid, c.Err
		case !c.Enabled:
			s.state = StateDisabled
		case c.Origin == OriginProject && (opts.Trusted == nil || !opts.Trusted(c)):
			s.state = StateUntrusted
		default:
			s.state = StateStarting
		}
		if s.state != StateStarting {
			close(s.ready)
		}
		m.servers = append(m.servers, s)
		m.byName[c.Name] = s
		m.byPart[s.part] = s
	}
	sort.Slice(m.servers, func(i, j int) bool { return m.servers[i].cfg.Name < m.servers[j].cfg.Name })
	m.mu.Lock()
	for _, s := range m.servers {
		if s.state == StateStarting {
			m.goStart(s)
		}
	}
	m.mu.Unlock()
	return m
}

// goStart starts s on a goroutine of its own (m.mu held).
func (m *Manager) goStart(s *server) {
	if m.closing {
		return
	}
	s.began = time.Now()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.start(s)
	}()
}

// Untrusted lists the project servers waiting for the user's trust.
func (m *Manager) Untrusted() []ServerConfig {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ServerConfig
	for _, s := range m.servers {
		if s.state == StateUntrusted {
			out = append(out, s.cfg)
		}
	}
	return out
}

// Trust starts the project server name, which was not trusted when the
// Manager was made (the user said yes). It returns at once.
func (m *Manager) Trust(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byName[name]
	if s == nil {
		return fmt.Errorf("trust mcp server %q: no such server", name)
	}
	if s.state != StateUntrusted {
		return nil
	}
	s.state, s.ready = StateStarting, make(chan struct{})
	m.goStart(s)
	return nil
}

// Restart starts the server name again, the user asking: one that
// failed, stopped or gave up after its restarts starts afresh (its restart
// count is reset); a ready one is closed and started again. An untrusted,
// disabled or invalid server is not started.
func (m *Manager) Restart(name string) error {
	m.mu.Lock()
	s := m.byName[name]
	switch {
	case s == nil:
		m.mu.Unlock()
		return fmt.Errorf("restart mcp server %q: no such server", name)
	case m.closing:
		m.mu.Unlock()
		return fmt.Errorf("restart mcp server %q: zut is stopping", name)
	case s.state == StateStarting:
		m.mu.Unlock()
		return nil
	case s.state == StateUntrusted, s.state == StateDisabled, s.state == StateInvalid:
		st := s.state
		m.mu.Unlock()
		return fmt.Errorf("restart mcp server %q: it is %s", name, st)
	}
	old := s.client
	s.client, s.restarts = nil, 0
	s.state, s.err, s.ready = StateStarting, nil, make(chan struct{})
	m.goStart(s)
	m.mu.Unlock()
	if old != nil {
		old.Close() // its monitor sees that s.client changed and records nothing
	}
	m.changed(m.opts.Callbacks.ServersChanged)
	return nil
}

func (m *Manager) note(s *server, format string, v ...any) {
	if m.opts.Callbacks.Note != nil {
		m.opts.Callbacks.Note(s.cfg.Name, fmt.Sprintf(format, v...))
	}
}

func (m *Manager) changed(f func()) {
	if f != nil {
		f()
	}
}

// start connects s, fetches its lists and publishes them.
func (m *Manager) start(s *server) {
	begin := time.Now()
	name := s.cfg.Name
	copts := ConnectOptions{Home: m.opts.Home, Project: m.opts.CWD, Env: m.opts.Env, WrapCommand: m.opts.WrapCommand, AuthPrompt: m.opts.AuthPrompt, OpenBrowser: m.opts.OpenBrowser,
		ClientOptions: ClientOptions{Info: m.opts.Client, InitTimeout: m.startTimeout(s), Sampling: m.opts.Sampling,
			Elicitation: m.opts.Elicitation,
			Changed:     func(list string) { m.listChanged(s, list) },
			Note:        func(msg string) { m.note(s, "%s", msg) }}}
	if m.opts.Trace != nil {
		copts.Trace = func(out bool, method string, data []byte) { m.opts.Trace(name, out, method, data) }
	}
	c, err := Connect(m.ctx, s.cfg, copts)
	if err == nil {
		err = m.fetch(s, c, "tools", "prompts", "resources")
		if err != nil {
			c.Close()
		}
	}
	m.mu.Lock()
	if err == nil && m.closing {
		m.mu.Unlock()
		c.Close()
		return
	}
	if err != nil {
		s.state, s.err, s.client = StateFailed, err, nil
		s.tools, s.prompts, s.resources, s.templates = nil, nil, nil, nil
	} else {
		s.state, s.err, s.client, s.took = StateReady, nil, c, time.Since(begin)
	}
	close(s.ready)
	closing := m.closing
	if err == nil && !closing {
		m.wg.Add(1)
		go m.monitor(s, c)
	}
	m.mu.Unlock()
	if closing {
		return
	}
	if err != nil {
		m.note(s, "%v", err)
	}
	m.changed(m.opts.Callbacks.ServersChanged)
	m.changed(m.opts.Callbacks.ToolsChanged)
	m.changed(m.opts.Callbacks.PromptsChanged)
	m.changed(m.opts.Callbacks.ResourcesChanged)
}

// monitor waits for c to end while the Manager runs, and records it.
func (m *Manager) monitor(s *server, c *Client) {
	defer m.wg.Done()
	select {
	case <-m.ctx.Done():
		return
	case <-c.Done():
	}
	c.Close() // reaps the process and joins the connection's goroutines
	m.stopped(s, c)
}

// stopped records that the connection c of s ended, unless that was
// recorded already, and tells the user.
func (m *Manager) stopped(s *server, c *Client) {
	err := c.Err()
	m.mu.Lock()
	if m.closing || s.client != c {
		m.mu.Unlock()
		return
	}
	s.state, s.err, s.client = StateStopped, err, nil
	left := maxRestarts - s.restarts
	m.mu.Unlock()
	var stopped *StoppedError
	msg := (&StoppedError{Server: s.cfg.Name, Log: c.LogPath(), Err: err}).Error()
	if errors.As(err, &stopped) {
		msg = stopped.Error()
	}
	if left > 0 {
		m.note(s, "%s; zut starts it again when one of its tools is next used", msg)
	} else {
		m.note(s, "%s; it was restarted %d times already and stays stopped, so its tools are no longer offered (/mcp reconnect %s starts it again)", msg, maxRestarts, s.cfg.Name)
	}
	m.changed(m.opts.Callbacks.ServersChanged)
	if left <= 0 { // Tools and Prompts leave it out from now on
		m.changed(m.opts.Callbacks.ToolsChanged)
		m.changed(m.opts.Callbacks.PromptsChanged)
		m.changed(m.opts.Callbacks.ResourcesChanged)
	}
}

// startTimeout is how long s may take to start: its own
// "startup_timeout_sec", else Options.StartTimeout.
func (m *Manager) startTimeout(s *server) time.Duration {
	if s.cfg.StartTimeout > 0 {
		return s.cfg.StartTimeout
	}
	return m.opts.StartTimeout
}

// waitTimeout is how long a request waits for s to finish starting.
func (m *Manager) waitTimeout(s *server) time.Duration {
	if m.opts.WaitTimeout > 0 {
		return m.opts.WaitTimeout
	}
	return m.startTimeout(s)
}

// Late is a server still starting when WaitStart gave up on it.
type Late struct {
	Name  string
	After time.Duration // its start timeout
}

// WaitStart waits until no server is starting any more, giving each at
// most its start timeout from when its start began, or until ctx ends.
// It returns the servers still starting then; they go on starting in the
// background (and fail when their start timeout passes).
func (m *Manager) WaitStart(ctx context.Context) []Late {
	var late []Late
	skip := map[*server]bool{}
	for {
		m.mu.Lock()
		var s *server
		var ready chan struct{}
		var deadline time.Time
		for _, x := range m.servers {
			if x.state == StateStarting && !skip[x] {
				s, ready, deadline = x, x.ready, x.began.Add(m.startTimeout(x))
				break
			}
		}
		var limit time.Duration
		if s != nil {
			limit = m.startTimeout(s)
		}
		m.mu.Unlock()
		if s == nil {
			return late
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-ready:
		case <-t.C:
			skip[s] = true
			late = append(late, Late{Name: s.cfg.Name, After: limit})
		case <-ctx.Done():
			t.Stop()
			m.mu.Lock()
			for _, x := range m.servers {
				if x.state == StateStarting && !skip[x] {
					skip[x] = true
					late = append(late, Late{Name: x.cfg.Name, After: m.startTimeout(x)})
				}
			}
			m.mu.Unlock()
			return late
		}
		t.Stop()
	}
}

// Servers reports every configured server, sorted by name.
func (m *Manager) Servers() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for _, s := range m.servers {
		st := Status{Name: s.cfg.Name, Origin: s.cfg.Origin, File: s.cfg.File, Transport: s.cfg.Transport, Digest: s.cfg.Digest,
			State: s.state, Err: s.err, Prompts: len(s.prompts), Resources: len(s.resources), Templates: len(s.templates),
			StartTime: s.took, Log: LogPath(m.opts.Home, s.cfg.Name)}
		for _, t := range s.tools {
			st.Tools = append(st.Tools, t.Name)
		}
		st.Omitted = append([]string(nil), s.omitted...)
		if c := s.client; c != nil {
			st.Protocol, st.Server, st.Capabilities, st.Instructions = c.Version(), c.Server(), c.Capabilities(), c.Instructions()
			st.Transport = c.Transport()
		}
		out = append(out, st)
	}
	return out
}

// Wait blocks until no server is starting any more, or ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	for {
		m.mu.Lock()
		var pending chan struct{}
		for _, s := range m.servers {
			if s.state == StateStarting {
				pending = s.ready
				break
			}
		}
		m.mu.Unlock()
		if pending == nil {
			return nil
		}
		select {
		case <-pending:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close stops every server (a stdio server: stdin closed, then SIGTERM,
// then SIGKILL to its process group; an HTTP session: DELETE) and joins
// every goroutine the Manager started. Requests still running fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil
	}
	m.closing = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	var wg sync.WaitGroup
	m.mu.Lock()
	for _, s := range m.servers {
		if c := s.client; c != nil {
			s.client = nil
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Close()
			}()
		}
	}
	m.mu.Unlock()
	wg.Wait()
	return nil
}
