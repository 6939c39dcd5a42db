package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/mcp"
	"github.com/zut-go/zut/provider"
)

// App is one running zut: the model client, the session, the extension
// host, the tools and the agent, assembled from the options for one mode.
// Close releases everything it started.
type App struct {
	env      *Env
	opts     Options
	front    Frontend
	home     string
	cwd      string
	resolved *provider.Resolved
	modelErr error // why no model is configured (interactive mode keeps going)

	sess   *session.Session
	host   *host.Host
	bridge *extBridge
	skills *skills.Index
	tools  []tools.Tool
	rules  *permissions.Set
	agent  *agent.Agent
	ui     *uiSwitch // where extension chrome goes; the mode sets the target

	settings    Settings
	settingsErr error // why config.json could not be read as a whole
	trust       Trust // what the project would run, and whether it may
	toolset     toolset
	mcp         *mcp.Manager      // the MCP servers; nil when none is configured
	live        atomic.Bool       // New has made the agent (MCP callbacks may use it)
	mcpWaited   atomic.Bool       // WaitMCP ran
	mcpCalls    *mcpCallCount     // MCP tool calls in flight, for elicitation
	mcpLate     sync.Map          // servers WaitMCP gave up on: name -> true
	mcpSaid     swapString        // the MCP instructions in the system prompt
	refreshMu   sync.Mutex        // one refreshTools at a time: tools and system prompt change together
	work        *work             // plan, goal, schedule, subagents (work.go)
	sandbox     *appSandbox       // the OS sandbox of commands (sandbox.go)
	packaged    *packaged         // zut run's agent and its ceiling (zutagent.go); nil otherwise
	emit        func(agent.Event) // the frontend's, with the work's tap

	contextFiles []agent.ContextFile // those of the last system prompt, for zut config show
	claude       []claudeFile        // Claude Code's settings files that exist
	hooks        *hookBridge         // Claude Code's hooks; nil when the files have none
	hookContext  string              // what SessionStart hooks said, for the system prompt
	templates    *skills.Templates   // the prompt templates
	noted        map[string]bool     // the notes noteOnce showed

	mu        sync.Mutex // guards skills, tools and contextFiles, which a reload replaces
	closeOnce sync.Once
}

// Frontend is what the mode running the app gives it and can do.
type Frontend struct {
	// UI receives extension chrome and dialogs; nil drops them (NopUI).
	UI UI
	// Emit receives every agent event, on the agent's goroutine.
	Emit func(agent.Event)
	// EmitText, when set, receives the agent's TextDelta events in place
	// of Emit (agent.Config.EmitText): for a mode that has a cheaper
	// use for a streamed answer's deltas than an Event each.
	EmitText func(agent.TextDelta)
	// Interactive says a person answers confirmations and interactive
	// tools as they come.
	Interactive bool
	// StartWithoutModel lets New succeed when no model can be resolved
	// (ModelError says why); the mode tells the user and lets them pick.
	StartWithoutModel bool
	// MemorySession keeps the session in memory unless the options name
	// one (-c, -r, --session).
	MemorySession bool
	// OneShot says the mode exits after its prompts (print and JSON):
	// the schedule tool is refused, and a prompt waits for the subagents
	// it started and goes on with their results.
	OneShot bool
}

// New builds everything the agent needs for one run.
func New(ctx context.Context, e *Env, o Options, f Frontend) (*App, error) {
	a := &App{env: e, opts: o, front: f, home: e.Home(), ui: &uiSwitch{}}
	a.ui.set(f.UI)
	emit := f.Emit
	if emit == nil {
		emit = func(agent.Event) {}
	}
	emit = a.tapWork(emit)
	a.emit = emit
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the working directory: %w", err)
	}
	a.cwd = cwd
	if err := checkToolNames("--no-tools", o.NoTools); err != nil {
		return nil, err
	}
	if err := checkToolNames("--tools", o.Tools); err != nil {
		return nil, err
	}
	if o.Agent != nil && len(o.Exts) > 0 {
		return nil, Usagef("zut run loads only the agent's own extensions (its manifest's \"extensions\"); drop --ext")
	}
	for _, d := range o.Exts {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			why := "it is not a directory"
			if err != nil {
				why = "it does not exist"
			}
			return nil, Usagef("--ext %s: %s; give the directory of an extension (the one with extension.json)", d, why)
		}
	}
	a.settings, a.settingsErr = LoadSettings(a.home)
	if err := a.initPackaged(); err != nil {
		return nil, err
	}
	if o.Orchestrate {
		off := append(append([]string(nil), a.settings.DisabledTools...), o.NoTools...)
		if slices.Contains(off, "subagent_spawn") || len(o.Tools) > 0 && !slices.Contains(o.Tools, "subagent_spawn") {
			return nil, Usagef("--orchestrate delegates with subagent_spawn, which --tools, --no-tools or disabled_tools switched off")
		}
	}
	// The agent's model comes before config.json's.
	a.packaged.preferModel(&o)
	// config.json's model and reasoning stand in for the flags in every
	// mode (the bot's too).
	if o.Model == "" && o.Provider == "" && a.settings.Model != "" {
		o.Model = a.settings.Model
	}
	if o.Reasoning == "" && a.settings.Reasoning != "" {
		o.Reasoning = a.settings.Reasoning
	}
	a.opts = o

	popts := a.ProviderOptions()
	if l, err := a.settings.Limits(); err != nil {
		fmt.Fprintf(e.Stderr, "zut: warning: %v\n", err)
	} else {
		popts.Limits = l
	}
	res, err := provider.Resolve(ctx, popts)
	if err != nil {
		if !f.StartWithoutModel {
			return nil, err
		}
		a.modelErr = err
	} else {
		a.resolved = res
		a.warm(res)
		if res.AuthErr != nil {
			fmt.Fprintf(e.Stderr, "zut: warning: %v\n", res.AuthErr)
		}
		if res.Keyless != "" {
			fmt.Fprintf(e.Stderr, "zut: warning: %s\n", res.Keyless)
		}
	}
	if err := a.checkRequirements(); err != nil {
		return nil, err
	}
	if err := a.initSandbox(); err != nil {
		return nil, err
	}
	if err := a.packaged.makeData(); err != nil {
		return nil, err
	}
	a.trust = projectTrust(a.home, cwd, o.Exts, o.Trust)
	if a.packaged != nil {
		// Nothing of the project runs with an agent, so there is nothing
		// to trust or ask about; its allow rules do not count either.
		a.trust = Trust{Root: a.trust.Root}
	}
	a.claude = loadClaude(e.Getenv("HOME"), cwd)
	if !a.trust.Trusted && !f.Interactive && a.packaged == nil {
		fmt.Fprintf(e.Stderr, "zut: %s\n", a.trust.untrustedNote())
	}

	if err := a.openSession(); err != nil {
		return nil, err
	}
	if a.packaged == nil {
		// An agent's run starts no MCP server: they would run outside
		// its ceiling.
		if err := a.startMCP(); err != nil {
			a.Close()
			return nil, err
		}
	}

	if !o.NoExtensions && (a.packaged == nil || len(a.packaged.extensionDirs()) > 0) {
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
	if !o.NoSkills {
		a.skills = skills.Discover(skills.Options{CWD: cwd, Root: a.trust.Root, ZutHome: a.home, Home: e.Getenv("HOME"), ExtensionDirs: extSkillDirs})
		if a.packaged != nil {
			a.skills = a.packaged.skills(a.skills)
		}
	}
	a.templates = a.loadTemplates()
	a.tools = a.buildTools(a.skills)
	a.cleanOutput("")

	system, err := a.systemPrompt()
	if err != nil {
		a.Close()
		return nil, err
	}
	for _, f := range a.contextFiles {
		if f.Skipped != "" {
			fmt.Fprintf(e.Stderr, "zut: note: context file %s left out: %s\n", f.Path, f.Skipped)
		}
	}

	a.rules = a.loadRules()
	cfg := agent.Config{
		System:      system,
		Tools:       a.tools,
		Store:       agent.SessionStore{S: a.sess},
		Policy:      a.policy(a.rules),
		MaxSteps:    o.MaxSteps,
		Emit:        emit,
		EmitText:    f.EmitText,
		Reasoning:   provider.Reasoning{},
		Temperature: o.Temperature,
	}
	if a.bridge != nil {
		cfg.Extensions = a.bridge
	}
	if a.packaged != nil {
		cfg.Policy.AlwaysAsk = a.packaged.alwaysAsk()
		cfg.Policy.Withheld = a.packaged.withheld()
		cfg.Policy.AlwaysAskWhy = "the agent " + a.packaged.name + "'s bash permission \"ask\""
	} else if hb := a.startHooks(cfg.Extensions); hb != nil {
		cfg.Extensions = hb
		a.hookContext = hb.sessionStart(ctx, a.sessionSource())
		cfg.System += a.hookSection()
	}
	if a.resolved != nil {
		cfg.Client = a.resolved.Client
		cfg.Model = agentModel(a.resolved)
		cfg.Reasoning = a.resolved.Reasoning
	}
	a.agent = agent.New(cfg)
	a.enableHostAPI()
	a.live.Store(true)
	if a.mcp != nil {
		a.refreshTools() // servers that got ready while New ran
	}
	a.startWork()
	return a, nil
}

// Skills returns the current skills (nil with --no-skills).
func (a *App) Skills() *skills.Index {
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

// warm opens the connection to the model's API ahead of the first request
// (provider.Warm), unless ZUT_PRECONNECT is 0.
func (a *App) warm(res *provider.Resolved) {
	if a.env.Getenv("ZUT_PRECONNECT") != "0" {
		provider.Warm(res.BaseURL)
	}
}

func (a *App) ProviderOptions() provider.Options { return ProviderOptions(a.env, a.opts) }

// ProviderOptions are the provider settings the options and environment
// give, for resolving a model or listing models without an App.
func ProviderOptions(e *Env, o Options) provider.Options {
	return provider.Options{
		Provider:  o.Provider,
		Model:     o.Model,
		BaseURL:   o.BaseURL,
		APIKey:    o.APIKey,
		Reasoning: o.Reasoning,
		Getenv:    e.Getenv,
		Home:      e.Home(),
	}
}

// SessionsDir is where session files live.
// With zut run they are the agent's own ($ZUT_HOME/agents/<name>/sessions).
func (a *App) SessionsDir() string { return AgentSessionsDir(a.home, a.opts) }

// openSession picks the session from the flags: --no-session (and a
// MemorySession frontend without --session, -c or -r) keeps it in memory.
func (a *App) openSession() error {
	o := a.opts
	opts := []session.Option{session.WithVersion(Version)}
	var (
		s        *session.Session
		warnings []session.Warning
		err      error
		created  bool // a new file: a failed --fork removes it
	)
	newSession := func() {
		s, err = session.Create(a.SessionsDir(), a.cwd, opts...)
		created = err == nil
	}
	switch {
	case o.NoSession || (a.front.MemorySession && !o.Continue && !o.ResumeSet && o.SessionPath == ""):
		s = session.NewMemory(a.cwd, opts...)
	case o.SessionPath != "":
		s, warnings, err = session.Open(o.SessionPath, opts...)
		if errors.Is(err, os.ErrNotExist) {
			s, err = session.CreateFile(o.SessionPath, a.cwd, opts...)
			created = err == nil
		}
	case o.Continue:
		s, warnings, err = session.Continue(a.SessionsDir(), a.cwd, opts...)
		if errors.Is(err, session.ErrNotFound) {
			what := "no session"
			if len(warnings) > 0 {
				what = "no readable session" // the warnings below say why
			}
			fmt.Fprintf(a.env.Stderr, "zut: %s to continue in %s; starting a new one\n", what, a.cwd)
			newSession()
		}
	case o.ResumeSet:
		if o.Resume == "" {
			if a.front.Interactive {
				// The interactive UI offers a picker; start from the latest.
				s, warnings, err = session.Continue(a.SessionsDir(), a.cwd, opts...)
				if errors.Is(err, session.ErrNotFound) {
					newSession()
				}
				break
			}
			if len(o.Prompt) > 0 {
				return Usagef("--resume needs a session id or a unique prefix of one here: %q is no session id (ids are hex digits, as zut sessions shows them), so it was taken as the prompt; -c continues the latest session", o.Prompt[0])
			}
			return Usagef("--resume needs a session id or a unique prefix of one here (zut sessions lists them)")
		}
		info, ferr := a.findSession(o.Resume)
		if ferr != nil {
			return ferr
		}
		s, warnings, err = session.Open(info.Path, opts...)
	default:
		newSession()
	}
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	for _, w := range warnings {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", w)
	}
	if o.Fork != "" {
		if err := s.Fork(o.Fork); err != nil {
			path := s.Path()
			s.Close()
			if created {
				os.Remove(path)
			}
			return fmt.Errorf("--fork: %w; zut sessions --tree %s shows the entry ids", err, s.ID())
		}
	}
	a.sess = s
	return nil
}

// SessionIdentity is the protocol's view of the current branch.
func (a *App) SessionIdentity() agent.SessionIdentity {
	return agent.SessionStore{S: a.sess}.Identity()
}

func (a *App) hostConfig() host.Config {
	id := a.SessionIdentity()
	cfg := host.Config{
		Home:            a.home,
		CWD:             a.cwd,
		ExtDirs:         a.opts.Exts,
		OnlyExtDirs:     a.packaged != nil,
		ZutVersion:      Version,
		Session:         protoSession(&id),
		Builtins:        a.activeBuiltins(),
		BuiltinCommands: builtinNames(),
		Callbacks:       a.ui.callbacks(),
		Env:             a.childEnv(),
		TrustProject:    a.trustNow,
		WrapCommand:     a.sandbox.childWrap(),
	}
	if a.resolved != nil {
		cfg.Provider = a.resolved.Provider.Name
		cfg.Model = a.resolved.Model.ID
	}
	if a.packaged != nil {
		cfg.ExtDirs = a.packaged.extensionDirs()
	}
	return cfg
}

// systemPrompt assembles the system prompt from the flags, context files
// and skills.
func (a *App) systemPrompt() (string, error) {
	replace, err := textOrFile(a.opts.SystemPrompt)
	if err != nil {
		return "", fmt.Errorf("--system-prompt: %w", err)
	}
	appendText, err := textOrFile(a.opts.AppendSystemPrompt)
	if err != nil {
		return "", fmt.Errorf("--append-system-prompt: %w", err)
	}
	if a.packaged != nil {
		replace, appendText = a.packaged.prompt(replace, appendText)
	}
	var manifest string
	if idx := a.Skills(); idx != nil {
		// The manifest tells the model how to load a skill: with the
		// skill tool, else by reading SKILL.md, else not at all.
		switch off := a.disabledTools(); {
		case !slices.Contains(off, "skill"):
			manifest = idx.Manifest()
		case !slices.Contains(off, "read"):
			manifest = idx.ReadManifest()
		}
	}
	s, files := agent.SystemPrompt(agent.PromptOptions{
		CWD: a.cwd, Home: a.home, UserHome: a.env.Getenv("HOME"), Replace: replace, Append: appendText,
		NoContextFiles: a.opts.NoContextFiles, Skills: manifest, Now: time.Now(),
	})
	a.mu.Lock()
	a.contextFiles = files
	a.mu.Unlock()
	if mi := a.mcpInstructions(); mi != "" {
		s += "\n\n" + mi
	}
	if a.opts.Orchestrate {
		s += "\n\n" + orchestration
	}
	return s + a.hookSection(), nil
}

// orchestration is what --orchestrate adds to the system prompt.
const orchestration = `# Orchestrating subagents
Work on this task as an orchestrator. First make a short plan that splits it into parts that do
not depend on each other. Give each independent part to a subagent with subagent_spawn (one call
per part, all in the same message, each with a task that says everything the subagent needs and
what to report, and wait set so that the results come back), do the parts that depend on others
yourself once their inputs are known, and check what the subagents report before you rely on it.
Finish with one answer that combines their results: what was done, what was found, what is left.
For a task too small to split, do it directly.`

// maxPromptFile bounds a --system-prompt or --append-system-prompt @FILE.
const maxPromptFile = 1 << 20

// textOrFile returns s, or the contents of the file named after a leading
// @ (a regular file of at most 1 MiB).
func textOrFile(s string) (string, error) {
	if !strings.HasPrefix(s, "@") {
		return s, nil
	}
	b, err := provider.ReadRegular(s[1:], maxPromptFile)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Start announces the session to extensions (session_start, and
// session_opened for a resumed one).
func (a *App) Start() {
	if a.bridge == nil {
		return
	}
	id := a.SessionIdentity()
	states := a.sess.States()
	a.host.SetSession(protoSession(&id), states)
	a.bridge.Notify(agent.LifecycleEvent{Name: "session_start", Session: &id})
	// session_opened comes for a new session too, with no state, so that
	// an extension that keeps state per session always learns which
	// session it is in and what (if anything) to restore.
	a.bridge.Notify(agent.LifecycleEvent{Name: "session_opened", Session: &id})
}

// Close shuts extensions down and closes the session.
func (a *App) Close() {
	a.closeOnce.Do(func() {
		a.closeWork()
		if a.hooks != nil {
			a.hooks.sessionEnd(context.Background(), "other")
		}
		if a.host != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			a.host.Close(ctx)
			cancel()
		}
		a.closeTools()
		if a.mcp != nil {
			a.mcp.Close()
		}
		if a.sess != nil {
			a.closeSession(a.sess)
		}
		if a.sandbox != nil {
			a.sandbox.close()
		}
	})
}

// cleanOutput deletes the bash tool's saved outputs of the session ended
// ("" for none) and the old ones (tools.CleanOutput); a run whose output
// directory does not exist has none, and asks package tools nothing.
func (a *App) cleanOutput(ended string) {
	dir := a.outputDir()
	if _, err := os.Lstat(dir); err == nil {
		tools.CleanOutput(dir, ended, time.Now())
	}
}

// closeSession closes s and deletes its file when nothing was ever written
// to it (zut opened and quit without a prompt), so that empty sessions do
// not pile up in zut sessions. A file named with --session is kept.
func (a *App) closeSession(s *session.Session) {
	empty := s.Path() != "" && s.Len() == 0 && s.Path() != a.opts.SessionPath
	path := s.Path()
	// The bash tool's saved outputs of the session go with it.
	a.cleanOutput(s.ID())
	if err := s.Close(); err != nil {
		fmt.Fprintf(a.env.Stderr, "zut: warning: close session: %v\n", err)
		return
	}
	if empty {
		os.Remove(path)
	}
}

// Session is the current session. It changes with NewSession and
// ResumeSession; read it on the goroutine that runs those.
func (a *App) Session() *session.Session { return a.sess }

// Host is the extension host, nil with --no-extensions.
func (a *App) Host() *host.Host { return a.host }

// Agent is the conversation's agent.
func (a *App) Agent() *agent.Agent { return a.agent }

// Resolved is the model in use, nil when none is configured (see
// ModelError).
func (a *App) Resolved() *provider.Resolved { return a.resolved }

// ModelError says why no model is configured, nil when one is.
func (a *App) ModelError() error { return a.modelErr }

// CWD is the working directory of the run.
func (a *App) CWD() string { return a.cwd }

// Home is $ZUT_HOME.
func (a *App) Home() string { return a.home }

// Env is the process environment the app was built with.
func (a *App) Env() *Env { return a.env }

// Options are the options of the run.
func (a *App) Options() Options { return a.opts }

// SetUI makes ui the receiver of extension chrome and dialogs from now on.
func (a *App) SetUI(ui UI) { a.ui.set(ui) }
