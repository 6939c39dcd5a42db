package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/tools"
)

// sandboxSettings is the "sandbox" member of config.json, global or
// under "projects": a mode's name, or an object.
type sandboxSettings struct {
	Mode     string   `json:"mode"`
	Writable []string `json:"writable"`
	Hidden   []string `json:"hidden"`
	Network  *bool    `json:"network"`
	Children *bool    `json:"children"`
}

func (s *sandboxSettings) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		s.Mode = name
		return nil
	}
	type plain sandboxSettings
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("not a mode's name or an object of mode, writable, hidden, network and children")
	}
	*s = sandboxSettings(p)
	return nil
}

// over returns s with the members set in o replacing its own.
func (s sandboxSettings) over(o sandboxSettings) sandboxSettings {
	if o.Mode != "" {
		s.Mode = o.Mode
	}
	if o.Writable != nil {
		s.Writable = o.Writable
	}
	if o.Hidden != nil {
		s.Hidden = o.Hidden
	}
	if o.Network != nil {
		s.Network = o.Network
	}
	if o.Children != nil {
		s.Children = o.Children
	}
	return s
}

// readSandboxSettings reads "sandbox" of config.json and of this
// project's entry under "projects"; a bad member is a warning.
func (a *App) readSandboxSettings() sandboxSettings {
	var s sandboxSettings
	warn := func(where string, err error) {
		fmt.Fprintf(a.env.Stderr, "zut: warning: settings: %s: %v; it is ignored\n", where, err)
	}
	if raw := a.settings.Raw("sandbox"); raw != nil {
		if err := json.Unmarshal(raw, &s); err != nil {
			warn("sandbox", err)
			s = sandboxSettings{}
		}
	}
	if raw := a.settings.Raw("projects"); raw != nil {
		var projects map[string]struct {
			Sandbox *sandboxSettings `json:"sandbox"`
		}
		if err := json.Unmarshal(raw, &projects); err != nil {
			warn("projects", err)
		} else if p, ok := projects[a.cwd]; ok && p.Sandbox != nil {
			s = s.over(*p.Sandbox)
		}
	}
	return s
}

// appSandbox is the sandbox in force for this run's commands: the bash
// and python tools (subagents' too), "!cmd" in the UI and, with
// sandbox.children, extensions, MCP servers and language servers. It
// implements tools.Sandbox.
type appSandbox struct {
	a        *App
	sbOnce   sync.Once
	sbCfg    sandbox.Config
	sb       *sandbox.Sandbox // made by the first confined command (box)
	settings sandboxSettings
	gen      atomic.Uint64

	mu      sync.Mutex
	mode    sandbox.Mode
	project *sandbox.Project // made on the first confined command
	tmp     string           // the private temp dir, removed by Close

	// agent, with zut run, is the policy of every child of the packaged
	// agent (its bash, python and extensions), whatever the mode; nil
	// otherwise.
	agent *sandbox.Policy
	// started are the sandboxes of the extensions, MCP servers and
	// language servers (childWrap), which run until the app closes;
	// close closes them (their proxies, under a proxy network).
	started []*sandbox.Confined
}

// initSandbox chooses the mode: --sandbox, else config.json (the
// project's entry first), else workspace-write for a headless run with
// --no-yolo, else danger-full-access.
func (a *App) initSandbox() error {
	s := &appSandbox{a: a, settings: a.readSandboxSettings()}
	s.sbCfg = sandbox.Config{Exe: a.env.SandboxExe}
	name := a.opts.Sandbox
	switch {
	case name != "":
	case s.settings.Mode != "":
		name = s.settings.Mode
		if _, err := sandbox.ParseMode(name); err != nil {
			fmt.Fprintf(a.env.Stderr, "zut: warning: settings: sandbox: %v; danger-full-access is used\n", err)
			name = string(sandbox.DangerFullAccess)
		}
	case a.opts.NoYolo && !a.front.Interactive:
		name = string(sandbox.WorkspaceWrite)
	default:
		name = string(sandbox.DangerFullAccess)
	}
	m := sandbox.DangerFullAccess // the default asks package sandbox nothing
	if name != string(m) {
		var err error
		if m, err = sandbox.ParseMode(name); err != nil {
			return Usagef("--sandbox: %v", err)
		}
	}
	s.mode = m
	a.sandbox = s
	if p := a.packaged; p != nil {
		// The agent's ceiling is its sandbox: the user's mode may narrow
		// it (read-only: no writes), never widen it.
		p.readOnly = m == sandbox.ReadOnly
		if a.opts.Sandbox != "" && !p.readOnly {
			fmt.Fprintf(a.env.Stderr, "zut: note: --sandbox %s does not widen the agent %s: its commands run in the sandbox of its permissions (only read-only narrows it)\n", m, p.name)
		}
		tmp, err := os.MkdirTemp("", "zut-agent-")
		if err != nil {
			return fmt.Errorf("run agent %s: make its private temp dir: %v", p.name, err)
		}
		s.tmp = tmp
		pol, err := p.sandboxPolicy(s, tmp)
		if err != nil {
			os.RemoveAll(tmp)
			s.tmp = ""
			return err
		}
		s.agent = &pol
	}
	return nil
}

// SandboxMode is the sandbox mode in force.
func (a *App) SandboxMode() string {
	if a.sandbox == nil {
		return string(sandbox.DangerFullAccess)
	}
	if a.packaged != nil {
		return a.packaged.mode()
	}
	a.sandbox.mu.Lock()
	defer a.sandbox.mu.Unlock()
	return string(a.sandbox.mode)
}

// SetSandboxMode puts mode in force for the commands started from now on
// (the python interpreter restarts at its next call). It fails on a name
// that is no mode, and on a mode this machine cannot enforce.
func (a *App) SetSandboxMode(mode string) error {
	m, err := sandbox.ParseMode(mode)
	if err != nil {
		return err
	}
	s := a.sandbox
	if s == nil {
		return fmt.Errorf("sandbox: not available in this run")
	}
	if a.packaged != nil {
		return fmt.Errorf("sandbox: the agent %s runs in the sandbox of its own permissions, which no mode changes", a.packaged.name)
	}
	if p, confined := m.Policy(sandbox.Project{Dir: a.cwd}); confined {
		c, err := s.box().Confine(exec.Command("true"), string(m), p)
		if err != nil {
			return err
		}
		c.Close() // a check only: the command is not started
	}
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	s.gen.Add(1)
	return nil
}

// ConfineCommand confines cmd, not yet started, in the sandbox in force,
// as the bash tool does; "!cmd" in the UI uses it. A nil Confined means
// no sandbox is in force; an error refuses the command.
func (a *App) ConfineCommand(cmd *exec.Cmd) (*sandbox.Confined, error) {
	if a.sandbox == nil {
		return nil, nil
	}
	if p := a.packaged; p != nil && p.ceiling.Bash.Mode == "none" {
		return nil, fmt.Errorf("the agent %s may run no commands (its bash permission is \"none\")", p.name)
	}
	return a.sandbox.Confine(cmd)
}

// UnconfinedAgain asks the user whether a command the sandbox blocked
// may run once more without it (see tools.Sandbox).
func (a *App) UnconfinedAgain(ctx context.Context, command string, blocked []string) bool {
	return a.sandbox != nil && a.sandbox.Unconfined(ctx, "bash", command, blocked)
}

// Confine confines cmd, not yet started, in the sandbox in force
// (tools.Sandbox); "!cmd" in the UI uses it too.
func (s *appSandbox) Confine(cmd *exec.Cmd) (*sandbox.Confined, error) {
	if p := s.a.packaged; p != nil {
		s.mu.Lock()
		pol := s.agent
		s.mu.Unlock()
		if pol == nil {
			return nil, fmt.Errorf("sandbox %s: closed with the run; the command was not run", p.mode())
		}
		return s.box().Confine(cmd, p.mode(), *pol)
	}
	s.mu.Lock()
	mode := s.mode
	if mode == sandbox.DangerFullAccess {
		s.mu.Unlock()
		return nil, nil
	}
	if s.project == nil {
		tmp, err := os.MkdirTemp("", "zut-sandbox-")
		if err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("sandbox %s: make the private temp dir: %v; the command was not run", mode, err)
		}
		s.tmp = tmp
		s.project = &sandbox.Project{
			Dir: s.a.cwd, Git: sandbox.GitDirs(context.Background(), s.a.cwd), TempDir: tmp,
			Writable: s.paths(s.settings.Writable), Hidden: append(s.paths(s.settings.Hidden), s.defaultHidden()...),
			ReadOnly: []string{s.a.home},
			Network:  s.settings.Network != nil && *s.settings.Network,
		}
	}
	pr := *s.project
	s.mu.Unlock()
	p, _ := mode.Policy(pr)
	return s.box().Confine(cmd, string(mode), p)
}

// box is the sandbox that confines commands, made on the first call (a
// run without a sandbox mode never needs it) unless one was set.
func (s *appSandbox) box() *sandbox.Sandbox {
	s.sbOnce.Do(func() {
		if s.sb == nil {
			s.sb = sandbox.New(s.sbCfg)
		}
	})
	return s.sb
}

// paths makes the settings' paths absolute: ~ is the home directory, a
// relative path is relative to the project.
func (s *appSandbox) paths(in []string) []string {
	var out []string
	for _, p := range in {
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(s.a.env.Getenv("HOME"), p[1:])
		case !filepath.IsAbs(p):
			p = filepath.Join(s.a.cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// defaultHidden are the paths every confined command sees empty: zut's
// saved API keys, and the sockets of agents and daemons that would run
// commands or sign for it outside the sandbox (Landlock does not check
// connections to a socket by its path before its RESOLVE_UNIX right).
func (s *appSandbox) defaultHidden() []string {
	out := []string{filepath.Join(s.a.home, "auth.json"), "/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock",
		fmt.Sprintf("/run/user/%d/bus", os.Getuid()), fmt.Sprintf("/run/user/%d/docker.sock", os.Getuid()),
		fmt.Sprintf("/run/user/%d/podman/podman.sock", os.Getuid()), fmt.Sprintf("/run/user/%d/systemd/private", os.Getuid())}
	if v := s.a.env.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(v) {
		out = append(out, v)
	}
	if v := s.a.env.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(v) {
		out = append(out, filepath.Join(v, "bus"), filepath.Join(v, "docker.sock"), filepath.Join(v, "podman", "podman.sock"), filepath.Join(v, "systemd", "private"))
	}
	if v := s.a.env.Getenv("DOCKER_HOST"); strings.HasPrefix(v, "unix://") {
		out = append(out, strings.TrimPrefix(v, "unix://"))
	}
	return out
}

// Generation implements tools.Sandbox.
func (s *appSandbox) Generation() uint64 { return s.gen.Load() }

// Unconfined asks the person behind the frontend, with a dialog that
// remembers nothing, whether a blocked command may run once without the
// sandbox. Without a confirmer (print and JSON modes) the answer is no.
func (s *appSandbox) Unconfined(ctx context.Context, tool, command string, blocked []string) bool {
	if s.a.agent == nil || s.a.packaged != nil { // an agent's command never runs unconfined
		return false
	}
	c := s.a.agent.Confirmer()
	if c == nil {
		return false
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	ans, err := c.Confirm(ctx, agent.ConfirmRequest{
		ToolID: "sandbox-rerun", Name: tool, Args: args, Once: true,
		Preview: "Run again WITHOUT the sandbox?\n$ " + command + "\n" + strings.Join(blocked, "\n"),
	})
	return err == nil && ans.Allow
}

// children reports whether extensions, MCP servers and language servers
// run in the sandbox too (sandbox.children).
func (s *appSandbox) children() bool {
	return s.a.packaged != nil || s.settings.Children != nil && *s.settings.Children
}

// childWrap is the command wrapper of the extension host, the MCP
// manager and the language servers: the sandbox in force when each
// starts, with sandbox.children; nil otherwise.
func (s *appSandbox) childWrap() func(*exec.Cmd) error {
	if s == nil || !s.children() {
		return nil
	}
	return func(cmd *exec.Cmd) error {
		c, err := s.Confine(cmd)
		if c != nil {
			s.mu.Lock()
			s.started = append(s.started, c)
			s.mu.Unlock()
		}
		return err
	}
}

// close closes the children's sandboxes and removes the private temp
// dir.
func (s *appSandbox) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.started {
		c.Close()
	}
	s.started = nil
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
		s.tmp = ""
		s.project = nil
		s.agent = nil
	}
}

var _ tools.Sandbox = (*appSandbox)(nil)

// SandboxHelp is the text of zut help sandbox (the machine's report
// follows it).
const SandboxHelp = `zut help sandbox — the OS sandbox of the commands the model runs

The bash and python tools (subagents' too) and !cmd in the UI run in the
sandbox mode in force; with "children": true, extensions, MCP stdio
servers and language servers do as well.

  read-only            read everything (but sandbox.hidden); write only a private
                       temp dir ($TMPDIR); no network unless sandbox.network
  workspace-write      also write the project, its git worktrees and sandbox.writable;
                       .git/hooks, .git/config and .zut/ stay read-only
  danger-full-access   no sandbox: commands do what you can (the default)

Choose with --sandbox MODE, with /sandbox MODE in the UI (shown in the footer),
or in $ZUT_HOME/config.json, for every project or for one:
  "sandbox": "workspace-write"
  "sandbox": {"mode": "workspace-write", "writable": ["~/.cache"], "network": false,
              "hidden": ["~/.ssh"], "children": false}
  "projects": {"/home/me/proj": {"sandbox": {"mode": "read-only"}}}
zut -p --no-yolo runs in workspace-write unless one of these says otherwise.

Without network a command has a loopback interface of its own: servers it starts
on 127.0.0.1 work, nothing outside does (not the host's 127.0.0.1 either).

On Linux the sandbox is Landlock, user, mount and network namespaces and a
seccomp filter. Where one is missing the mode refuses every command, saying
which; choose danger-full-access to run them unconfined knowingly. A command
the sandbox blocked says "blocked by the sandbox: ..."; the UI then offers
to run it once more without the sandbox, if you confirm. Guarantees and
limits: docs/security.md#sandbox.
`
