package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/provider"
)

// The operations below are shared by the interactive UI and RPC mode. None
// may run while a prompt runs unless it says so; they return agent.ErrBusy.

// Prompt runs one Prompt and names the session after its first Prompt.
// A prompt sent with no model configured names nothing: it gets no
// answer, and the first one that does should name the session.
func (a *App) Prompt(ctx context.Context, in agent.Input) error {
	if a.agent.Model().ID != "" {
		a.NameAfter(in.Text)
	}
	if !a.front.Interactive {
		a.WaitMCP(ctx) // the first prompt of a script sees the servers' tools
	}
	return a.runPrompt(ctx, a.withMentions(ctx, in))
}

// NameAfter names an untitled session after text, the first prompt as the
// user typed it.
func (a *App) NameAfter(text string) {
	if a.sess.Title() != "" || strings.TrimSpace(text) == "" {
		return
	}
	if err := a.sess.SetTitle(titleFrom(text)); err != nil {
		fmt.Fprintf(a.env.Stderr, "zut: warning: name the session: %v\n", err)
	}
}

// titleFrom makes a session title from the first prompt: its first line,
// at most 60 characters.
func titleFrom(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:59])) + "…"
	}
	return s
}

// NewSession starts a new conversation: a new session file (or a new
// in-memory session when sessions are off) and session_start for
// extensions.
func (a *App) NewSession() error {
	if a.agent.Busy() {
		return agent.ErrBusy
	}
	var s *session.Session
	var err error
	if a.sess.Path() == "" {
		s = session.NewMemory(a.cwd, session.WithVersion(Version))
	} else {
		s, err = session.Create(a.SessionsDir(), a.cwd, session.WithVersion(Version))
		if err != nil {
			return fmt.Errorf("new session: %w", err)
		}
	}
	if err := a.replaceSession(s, "session_start"); err != nil {
		return err
	}
	// The new session has no state: extensions restoring on
	// session_opened reset (see Start).
	a.notifySession("session_opened")
	return nil
}

// ResumeSession opens the saved session id (or a unique prefix of it).
func (a *App) ResumeSession(id string) error {
	if a.agent.Busy() {
		return agent.ErrBusy
	}
	info, err := a.findSession(id)
	if err != nil {
		return err
	}
	s, warnings, err := session.Open(info.Path, session.WithVersion(Version))
	if err != nil {
		return fmt.Errorf("resume session: %w", err)
	}
	for _, w := range warnings {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", w)
	}
	return a.replaceSession(s, "session_opened")
}

// replaceSession swaps the agent's session for s and tells extensions.
func (a *App) replaceSession(s *session.Session, event string) error {
	if err := a.agent.SetStore(agent.SessionStore{S: s}); err != nil {
		s.Close()
		return err
	}
	old := a.sess
	a.sess = s
	if old != nil && old != s {
		a.closeSession(old)
	}
	a.notifySession(event)
	return nil
}

// Fork starts a new branch from entry id of the current session (the
// session id forks from the very start).
func (a *App) Fork(id string) error {
	if a.agent.Busy() {
		return agent.ErrBusy
	}
	if err := a.sess.Fork(id); err != nil {
		return err
	}
	a.notifySession("session_forked")
	return nil
}

// SwitchBranch makes leaf the current branch.
func (a *App) SwitchBranch(leaf string) error {
	if a.agent.Busy() {
		return agent.ErrBusy
	}
	if err := a.sess.Switch(leaf); err != nil {
		return err
	}
	a.notifySession("session_switched")
	return nil
}

// notifySession sends a session event carrying the branch identity; each
// extension gets its own state on that branch.
func (a *App) notifySession(event string) {
	a.workSessionChanged(event)
	if a.bridge == nil {
		return
	}
	id := a.SessionIdentity()
	a.bridge.Notify(agent.LifecycleEvent{Name: event, Session: &id, States: nonNilStates(a.sess.States())})
}

func nonNilStates(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// Compact summarises the conversation now.
func (a *App) Compact(ctx context.Context, instructions string) (string, error) {
	return a.agent.Compact(ctx, instructions)
}

// SetModel switches to spec ("model", "provider/model"); the provider is
// resolved again with the same flags otherwise.
func (a *App) SetModel(ctx context.Context, spec string) (*provider.Resolved, error) {
	if a.agent.Busy() {
		return nil, agent.ErrBusy
	}
	o := a.ProviderOptions()
	o.Model = spec
	if strings.Contains(spec, "/") {
		o.Provider = ""
	}
	if a.opts.Provider != "" && !strings.Contains(spec, "/") {
		o.Provider = a.opts.Provider
	}
	o.BaseURL = ""
	prefix, _, _ := strings.Cut(spec, "/")
	if a.resolved != nil && (o.Provider == a.resolved.Provider.Name || o.Provider == "" && prefix == a.resolved.Provider.Name) {
		// The same provider keeps --base-url.
		o.BaseURL = a.opts.BaseURL
	}
	res, err := provider.Resolve(ctx, o)
	if err != nil {
		return nil, err
	}
	a.warm(res)
	if err := a.agent.SetModel(res.Client, agentModel(res)); err != nil {
		return nil, err
	}
	a.agent.SetReasoning(res.Reasoning)
	if err := a.sess.AppendModelChange(res.Provider.Name, res.Model.ID); err != nil {
		fmt.Fprintf(a.env.Stderr, "zut: warning: record the model change: %v\n", err)
	}
	a.resolved = res
	a.modelErr = nil
	return res, nil
}

// SetReasoning changes the reasoning level ("off", "low", "medium",
// "high", a token budget ...).
func (a *App) SetReasoning(level string) (provider.Reasoning, error) {
	r, err := provider.ParseReasoning(level)
	if err != nil {
		return provider.Reasoning{}, err
	}
	a.agent.SetReasoning(r)
	return r, nil
}

// Reload restarts every extension, then discovers skills again and
// rebuilds the system prompt and tools. It returns the load reports.
func (a *App) Reload(ctx context.Context) ([]host.Report, error) {
	if a.host == nil {
		return nil, errors.New("extensions are off (--no-extensions)")
	}
	if a.agent.Busy() {
		return nil, agent.ErrBusy
	}
	reports, err := a.host.Reload(ctx)
	if err != nil {
		return reports, err
	}
	var idx *skills.Index
	if !a.opts.NoSkills {
		idx = skills.Discover(skills.Options{CWD: a.cwd, Root: a.trust.Root, ZutHome: a.home, Home: a.env.Getenv("HOME"), ExtensionDirs: a.host.Skills()})
	}
	ts := a.buildTools(idx)
	tpl := a.loadTemplates()
	a.mu.Lock()
	a.skills, a.tools, a.templates = idx, ts, tpl
	a.mu.Unlock()
	a.agent.SetTools(ts)
	if system, err := a.systemPrompt(); err == nil {
		a.agent.SetSystem(system)
	}
	id := a.SessionIdentity()
	a.host.SetSession(protoSession(&id), a.sess.States())
	a.bridge.Notify(agent.LifecycleEvent{Name: "session_start", Session: &id})
	return reports, nil
}

// LoadErrors returns the diagnostics of extensions that failed to load.
func LoadErrors(reports []host.Report) []string {
	var out []string
	for _, r := range reports {
		if r.Status == "error" || r.Status == "ready-timeout" {
			msg := r.Error
			if msg == "" {
				msg = r.Status
			}
			out = append(out, fmt.Sprintf("extension %q: %s", r.Name, msg))
		}
	}
	return out
}
