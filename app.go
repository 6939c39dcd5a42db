package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/provider"
)

// app is one running zut: the model client, the session, the extension
// host, the tools and the agent, assembled from the options for one mode.
// Close releases everything it started.
type app struct {
	env      *env
	opts     options
	mode     string
	home     string
	cwd      string
	resolved *provider.Resolved
	modelErr error // why no model is configured (interactive mode keeps going)

	sess   *session.Session
	host   *host.Host
	bridge *extBridge
	skills *skills.Index
	tools  []tools.Tool
	agent  *agent.Agent
	ui     *uiSwitch // where extension chrome goes; the mode sets the target

	mu        sync.Mutex // guards skills and tools, which a reload replaces
	closeOnce sync.Once
}

// builtinCommands are the interactive slash commands; extension commands
// of the same names are shadowed.
var builtinCommands = []string{
	"help", "model", "reasoning", "settings", "clear", "compact", "fork", "tree",
	"sessions", "reload-ext", "skills", "skill", "btw", "exit", "quit", "new", "resume",
	"copy", "theme", "hotkeys", "session", "name",
}

// newApp builds everything the agent needs. emit receives agent events.
func newApp(ctx context.Context, e *env, o options, mode string, ui extUI, emit func(agent.Event)) (*app, error) {
	a := &app{env: e, opts: o, mode: mode, home: e.zutHome(), ui: &uiSwitch{}}
	a.ui.set(ui)
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the working directory: %w", err)
	}
	a.cwd = cwd

	res, err := provider.Resolve(ctx, a.providerOptions())
	if err != nil {
		if mode != "interactive" && mode != "rpc" {
			return nil, err
		}
		a.modelErr = err
	} else {
		a.resolved = res
	}

	if err := a.openSession(); err != nil {
		return nil, err
	}

	if !o.noExtensions {
		cfg := a.hostConfig()
		h, err := host.Start(ctx, cfg)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("start extensions: %w", err)
		}
		a.host = h
		a.bridge = &extBridge{h: h}
	}

	var extSkillDirs []string
	if a.host != nil {
		extSkillDirs = a.host.Skills()
	}
	if !o.noSkills {
		a.skills = skills.Discover(skills.Options{CWD: cwd, ZutHome: a.home, Home: e.getenv("HOME"), ExtensionDirs: extSkillDirs})
	}
	a.tools = tools.Builtins(tools.Config{CWD: cwd, Home: e.getenv("HOME"), Skills: a.skills})

	system, err := a.systemPrompt()
	if err != nil {
		a.Close()
		return nil, err
	}

	cfg := agent.Config{
		System:    system,
		Tools:     a.tools,
		Store:     agent.SessionStore{S: a.sess},
		Policy:    agent.Policy{Yolo: o.yolo, DenyMutating: o.noYolo, Interactive: mode == "interactive"},
		MaxSteps:  o.maxSteps,
		Emit:      emit,
		Reasoning: provider.Reasoning{},
	}
	if a.bridge != nil {
		cfg.Extensions = a.bridge
	}
	if a.resolved != nil {
		cfg.Client = a.resolved.Client
		cfg.Model = agentModel(a.resolved)
		cfg.Reasoning = a.resolved.Reasoning
	}
	a.agent = agent.New(cfg)
	a.enableHostAPI()
	return a, nil
}

// skillIndex returns the current skills (nil with --no-skills).
func (a *app) skillIndex() *skills.Index {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.skills
}

// agentModel converts a resolved provider model to the agent's view.
func agentModel(r *provider.Resolved) agent.Model {
	m := r.Model
	return agent.Model{
		ID:            m.ID,
		Provider:      r.Provider.Name,
		ContextWindow: m.ContextWindow,
		MaxOutput:     m.MaxOutput,
		Cost:          m.Cost,
	}
}

func (a *app) providerOptions() provider.Options {
	return provider.Options{
		Provider:  a.opts.provider,
		Model:     a.opts.model,
		BaseURL:   a.opts.baseURL,
		APIKey:    a.opts.apiKey,
		Reasoning: a.opts.reasoning,
		Getenv:    a.env.getenv,
		Home:      a.home,
	}
}

// sessionsDir is where session files live.
func (a *app) sessionsDir() string { return filepath.Join(a.home, "sessions") }

// openSession picks the session from the flags: --no-session (and RPC mode
// without --session or -c) keeps it in memory.
func (a *app) openSession() error {
	o := a.opts
	opts := []session.Option{session.WithVersion(version)}
	var (
		s        *session.Session
		warnings []session.Warning
		err      error
	)
	switch {
	case o.noSession || (a.mode == "rpc" && !o.cont && !o.resumeSet && o.sessionPath == ""):
		s = session.NewMemory(a.cwd, opts...)
	case o.sessionPath != "":
		s, warnings, err = session.Open(o.sessionPath, opts...)
		if errors.Is(err, os.ErrNotExist) {
			s, err = session.CreateFile(o.sessionPath, a.cwd, opts...)
		}
	case o.cont:
		s, warnings, err = session.Continue(a.sessionsDir(), a.cwd, opts...)
		if errors.Is(err, session.ErrNotFound) {
			s, err = session.Create(a.sessionsDir(), a.cwd, opts...)
		}
	case o.resumeSet:
		if o.resume == "" {
			if a.mode == "interactive" {
				// The interactive UI offers a picker; start from the latest.
				s, warnings, err = session.Continue(a.sessionsDir(), a.cwd, opts...)
				if errors.Is(err, session.ErrNotFound) {
					s, err = session.Create(a.sessionsDir(), a.cwd, opts...)
				}
				break
			}
			return usagef("--resume needs a session id here (zut sessions lists them)")
		}
		s, warnings, err = session.Resume(a.sessionsDir(), o.resume, opts...)
	default:
		s, err = session.Create(a.sessionsDir(), a.cwd, opts...)
	}
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	for _, w := range warnings {
		fmt.Fprintf(a.env.stderr, "zut: warning: %s\n", w)
	}
	if o.fork != "" {
		if err := s.Fork(o.fork); err != nil {
			s.Close()
			return fmt.Errorf("--fork: %w (zut sessions shows sessions; the entry ids are in the session file)", err)
		}
	}
	a.sess = s
	return nil
}

// sessionIdentity is the protocol's view of the current branch.
func (a *app) sessionIdentity() agent.SessionIdentity {
	return agent.SessionStore{S: a.sess}.Identity()
}

func (a *app) hostConfig() host.Config {
	id := a.sessionIdentity()
	cfg := host.Config{
		Home:            a.home,
		CWD:             a.cwd,
		ExtDirs:         a.opts.exts,
		ZutVersion:      version,
		Session:         protoSession(&id),
		Builtins:        tools.Reserved[:],
		BuiltinCommands: builtinCommands,
		Callbacks:       a.ui.callbacks(),
	}
	if a.resolved != nil {
		cfg.Provider = a.resolved.Provider.Name
		cfg.Model = a.resolved.Model.ID
	}
	return cfg
}

// systemPrompt assembles the system prompt from the flags, context files
// and skills.
func (a *app) systemPrompt() (string, error) {
	replace, err := textOrFile(a.opts.systemPrompt)
	if err != nil {
		return "", fmt.Errorf("--system-prompt: %w", err)
	}
	appendText, err := textOrFile(a.opts.appendSystem)
	if err != nil {
		return "", fmt.Errorf("--append-system-prompt: %w", err)
	}
	var manifest string
	if idx := a.skillIndex(); idx != nil {
		manifest = idx.Manifest()
	}
	s, _ := agent.SystemPrompt(agent.PromptOptions{
		CWD: a.cwd, Home: a.home, Replace: replace, Append: appendText,
		NoContextFiles: a.opts.noContext, Skills: manifest, Now: time.Now(),
	})
	return s, nil
}

// textOrFile returns s, or the contents of the file named after a leading @.
func textOrFile(s string) (string, error) {
	if !strings.HasPrefix(s, "@") {
		return s, nil
	}
	b, err := os.ReadFile(s[1:])
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// start announces the session to extensions (session_start, and
// session_opened for a resumed one).
func (a *app) start() {
	if a.bridge == nil {
		return
	}
	id := a.sessionIdentity()
	states := a.sess.States()
	a.host.SetSession(protoSession(&id), states)
	a.bridge.Notify(agent.LifecycleEvent{Name: "session_start", Session: &id})
	if a.sess.Len() > 0 {
		a.bridge.Notify(agent.LifecycleEvent{Name: "session_opened", Session: &id})
	}
}

// Close shuts extensions down and closes the session.
func (a *app) Close() {
	a.closeOnce.Do(func() {
		if a.host != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			a.host.Close(ctx)
			cancel()
		}
		if a.sess != nil {
			a.closeSession(a.sess)
		}
	})
}

// closeSession closes s and deletes its file when nothing was ever written
// to it (zut opened and quit without a prompt), so that empty sessions do
// not pile up in zut sessions. A file named with --session is kept.
func (a *app) closeSession(s *session.Session) {
	empty := s.Path() != "" && s.Len() == 0 && s.Path() != a.opts.sessionPath
	path := s.Path()
	if err := s.Close(); err != nil {
		fmt.Fprintf(a.env.stderr, "zut: warning: close session: %v\n", err)
		return
	}
	if empty {
		os.Remove(path)
	}
}
