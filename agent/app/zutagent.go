package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/zutfile"
)

// packaged is the packaged agent a zut run runs (Options.Agent) and the
// ceiling it runs under: its resolved permissions, the sandbox policy of
// every child it starts, and its data directory. The ceiling is enforced
// in the tools (tools.Scope, the bash gate, the web tools' hosts), in
// the agent's confirmation policy (bash "ask") and in the OS sandbox
// (policy); settings and flags can narrow it, never widen it.
type packaged struct {
	ag      *zutfile.Agent
	name    string
	ceiling zutfile.Ceiling
	data    string // $ZUT_HOME/agents/<name>/data
	home    string // $ZUT_HOME, which stays read-only
	// readOnly is the user's read-only sandbox (--sandbox or settings):
	// it narrows the ceiling to no writes at all.
	readOnly bool
}

// systemReadDirs are the trees an agent's confined children may read
// beyond its ceiling, to run programs at all: the system's programs,
// libraries and configuration. /proc and /sys are not among them (a
// process could read zut's own environment in /proc/<pid>/environ), nor
// is the home directory unless the ceiling lists it.
var systemReadDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"}

// systemHidden are files under systemReadDirs that confined children of
// an agent see empty: the system's secrets.
var systemHidden = []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private"}

// AgentSessionsDir is where the sessions of o's run live: the packaged
// agent's own directory with zut run, $ZUT_HOME/sessions otherwise.
func AgentSessionsDir(home string, o Options) string {
	if o.Agent != nil {
		return zutfile.SessionsDir(home, o.Agent.Manifest.Name)
	}
	return filepath.Join(home, "sessions")
}

// ConsentNeeded reports whether o's packaged agent needs the user's
// consent before it runs: its digest was never consented to here and
// --yes was not given.
func ConsentNeeded(home string, o Options) bool {
	return o.Agent != nil && !o.AgentYes && !zutfile.Consented(home, o.Agent.Digest)
}

// AgentVars are the values of the manifest's path variables for a run in
// cwd.
func AgentVars(e *Env, o Options, cwd string) zutfile.Vars {
	if o.Agent == nil {
		return zutfile.Vars{}
	}
	return zutfile.Vars{Workspace: cwd, AgentData: zutfile.AgentDataDir(e.Home(), o.Agent.Manifest.Name), Home: e.Getenv("HOME")}
}

// ConsentText is what the consent question shows: who the agent is and
// every permission it asks for.
func ConsentText(e *Env, o Options, cwd string) string {
	ag := o.Agent
	m := ag.Manifest
	var b strings.Builder
	fmt.Fprintf(&b, "The agent %s", m.Name)
	if m.Version != "" {
		fmt.Fprintf(&b, " %s", m.Version)
	}
	if m.Author != "" {
		fmt.Fprintf(&b, " by %s", m.Author)
	}
	fmt.Fprintf(&b, " (%s, %s) asks for:\n", ag.Source, ag.Digest)
	for _, l := range ag.Permissions(AgentVars(e, o, cwd)) {
		b.WriteString("  • " + l + "\n")
	}
	return b.String()
}

// RememberAgentConsent records the user's consent to o's agent.
func RememberAgentConsent(home string, o Options) error {
	return zutfile.RememberConsent(home, o.Agent.Manifest.Name, o.Agent.Digest)
}

// ConsentRefusal is the error of a run that needs consent nobody can give
// in its mode.
func ConsentRefusal(e *Env, o Options, cwd string) error {
	return fmt.Errorf("run agent %s: this agent (%s) has not been consented to on this machine, and nobody can be asked in this mode.\n%sRun it once in the interactive UI to be asked, or add --yes to consent to these permissions (remembered for this digest)",
		o.Agent.Source, o.Agent.Digest, ConsentText(e, o, cwd))
}

// initPackaged resolves the agent's ceiling; it runs before the model is
// chosen.
func (a *App) initPackaged() error {
	ag := a.opts.Agent
	if ag == nil {
		return nil
	}
	if ConsentNeeded(a.home, a.opts) {
		if !a.front.Interactive {
			return ConsentRefusal(a.env, a.opts, a.cwd)
		}
		// The interactive UI asks before it builds the app; reaching
		// here unasked is a bug of the frontend, and fails closed.
		return fmt.Errorf("run agent %s: the agent was not consented to; the permissions were not shown", ag.Source)
	}
	if a.opts.AgentYes && !zutfile.Consented(a.home, ag.Digest) {
		if err := RememberAgentConsent(a.home, a.opts); err != nil {
			fmt.Fprintf(a.env.Stderr, "zut: warning: remember the consent to agent %s: %v\n", ag.Manifest.Name, err)
		}
	}
	for _, w := range ag.Warnings {
		fmt.Fprintf(a.env.Stderr, "zut: warning: agent %s: %s\n", ag.Manifest.Name, w)
	}
	p := &packaged{ag: ag, name: ag.Manifest.Name}
	vars := AgentVars(a.env, a.opts, a.cwd)
	c, err := ag.Manifest.Ceiling(vars)
	if err != nil {
		return fmt.Errorf("run agent %s: %v", ag.Source, err)
	}
	p.ceiling = c
	p.data = vars.AgentData
	p.home = a.home
	a.packaged = p
	return nil
}

// makeData creates the agent's data directory, private, once the run
// passed its checks (a refused run leaves nothing behind).
func (p *packaged) makeData() error {
	if p == nil {
		return nil
	}
	if err := os.MkdirAll(p.data, 0o700); err != nil {
		return fmt.Errorf("run agent %s: make the agent's data directory: %v", p.ag.Source, err)
	}
	if err := os.Chmod(p.data, 0o700); err != nil {
		return fmt.Errorf("run agent %s: make the agent's data directory private: %v", p.ag.Source, err)
	}
	return nil
}

// outputDir is where the bash tool saves the whole output of a command
// whose result it cut: $ZUT_HOME/tmp, or the agent's own
// $ZUT_HOME/agents/<name>/tmp, which its tools may read.
func (a *App) outputDir() string {
	if a.packaged != nil {
		return a.packaged.outputDir()
	}
	return filepath.Join(a.home, "tmp")
}

func (p *packaged) outputDir() string { return filepath.Join(filepath.Dir(p.data), "tmp") }

// homeHidden are the members of zut's own home the agent's tools and
// children never see, should its trees hold that home: all but its own
// directory agents/<name> (its data, sessions and saved outputs). So the
// user's keys, settings, sessions, logs, other agents and the consent
// store stay out of its reach.
func (p *packaged) homeHidden() []string {
	names := []string{"auth.json", "models.json", "config.json", "sessions", "trust.json", "history.jsonl", "logs", "extensions", "tmp", "themes", "skills", "prompts", "mcp.json"}
	if entries, err := os.ReadDir(p.home); err == nil {
		for _, e := range entries {
			if !slices.Contains(names, e.Name()) {
				names = append(names, e.Name())
			}
		}
	}
	var out []string
	for _, n := range names {
		if n != "agents" {
			out = append(out, filepath.Join(p.home, n))
		}
	}
	agents := filepath.Join(p.home, "agents")
	others := []string{"consent.json", "consent.json.lock"}
	if entries, err := os.ReadDir(agents); err == nil {
		for _, e := range entries {
			if e.Name() != p.name && !slices.Contains(others, e.Name()) {
				others = append(others, e.Name())
			}
		}
	}
	for _, n := range others {
		out = append(out, filepath.Join(agents, n))
	}
	return out
}

// preferModel puts the agent's preferred model in the options unless the
// command line chose one.
func (p *packaged) preferModel(o *Options) {
	if p == nil || o.Model != "" || o.Provider != "" {
		return
	}
	m := p.ag.Manifest.Model
	switch {
	case m.Provider != "" && m.ID != "":
		o.Provider, o.Model = m.Provider, m.ID
	case m.ID != "":
		o.Model = m.ID
	case m.Provider != "":
		o.Provider = m.Provider
	}
}

// checkRequirements refuses a run whose machine or model lacks what the
// agent requires, listing every unmet requirement.
func (a *App) checkRequirements() error {
	p := a.packaged
	if p == nil {
		return nil
	}
	env := zutfile.CheckEnv{ZutVersion: Version, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, LookPath: exec.LookPath}
	if r := a.resolved; r != nil {
		env.Model = r.Provider.Name + "/" + r.Model.ID
		env.ContextWindow = r.Model.ContextWindow
		if r.Model.ContextWindow > 0 { // a model zut knows: its facts are known too
			env.Capabilities = []string{"tools"}
			if r.Model.Images {
				env.Capabilities = append(env.Capabilities, "vision")
			}
			if r.Model.Reasoning != "" {
				env.Capabilities = append(env.Capabilities, "reasoning")
			}
		}
	}
	unmet := p.ag.Manifest.Check(env)
	if len(unmet) == 0 {
		return nil
	}
	return fmt.Errorf("run agent %s: the agent's requirements are not met:\n  • %s", p.ag.Source, strings.Join(unmet, "\n  • "))
}

// sandboxPolicy builds the policy of every child of the agent (bash,
// python, its extensions) from the ceiling and the sandbox the user
// chose, which may only narrow it, and checks that this machine can
// enforce it.
func (p *packaged) sandboxPolicy(s *appSandbox, tmp string) (sandbox.Policy, error) {
	c := p.ceiling
	pol := sandbox.Policy{
		Read:    append(append(append([]string(nil), c.Read...), c.Write...), p.ag.Dir),
		Write:   append(append([]string(nil), c.Write...), tmp),
		Hidden:  append(append([]string(nil), systemHidden...), s.defaultHidden()...),
		Network: sandbox.NetworkNone,
		Env:     append([]string{}, c.Env...),
		TempDir: tmp,
	}
	if slices.ContainsFunc(pol.Read, func(r string) bool { return within(s.a.home, r) }) {
		pol.Hidden = append(pol.Hidden, p.homeHidden()...) // its trees hold zut's home
	}
	pol.Read = append(pol.Read, systemReadDirs...)
	pol.Hidden = append(pol.Hidden, s.paths(s.settings.Hidden)...)
	if p.readOnly {
		pol.Write = []string{tmp}
	}
	if len(c.Hosts) > 0 {
		pol.Network, pol.Hosts = sandbox.NetworkProxy, append([]string(nil), c.Hosts...)
	}
	// zut's own home stays read-only where a Write tree holds it (a
	// mount over all of it: the agent's data directory in it too, then),
	// and so do the files in a writable tree that would run code outside
	// the sandbox later: git's hooks and config, the project's .zut/.
	if slices.ContainsFunc(pol.Write, func(w string) bool { return within(s.a.home, w) }) {
		pol.ReadOnly = []string{s.a.home}
	}
	pol.ReadOnly = append(pol.ReadOnly, p.protected(c.Write)...)
	probe, err := s.box().Confine(exec.Command("true"), p.mode(), pol)
	if err != nil {
		return pol, p.unenforceable(err)
	}
	probe.Close() // a probe: the command never starts
	return pol, nil
}

// protectedNames are the members of a writable tree that stay read-only
// to an agent, as in the workspace-write mode: what would run code
// outside the sandbox later (git's hooks and config, the project's
// extensions and settings in .zut).
var protectedNames = []string{".git/hooks", ".git/config", ".zut"}

// protected are the protectedNames of the trees.
func (p *packaged) protected(trees []string) []string {
	var out []string
	for _, t := range trees {
		for _, n := range protectedNames {
			out = append(out, filepath.Join(t, filepath.FromSlash(n)))
		}
	}
	return out
}

// within reports whether path is root or inside it, by name.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// mode names the agent's sandbox in messages and the footer.
func (p *packaged) mode() string { return "agent " + p.name }

// unenforceable words a sandbox that cannot confine the agent: which
// permission needs which missing mechanism.
func (p *packaged) unenforceable(err error) error {
	var ue *sandbox.UnavailableError
	if !errors.As(err, &ue) {
		return fmt.Errorf("run agent %s: the agent's sandbox: %v; the agent was not started", p.ag.Source, err)
	}
	need := map[string]string{
		sandbox.MechLandlock:    "fs.read and fs.write (what its commands may read and write)",
		sandbox.MechLandlockNet: "net.allow",
		sandbox.MechUserNS:      "net.allow (its own network) and the hidden secrets",
		sandbox.MechMountNS:     "the secrets hidden from its commands",
		sandbox.MechNetNS:       "net.allow (" + p.netWords() + ")",
		sandbox.MechSeccomp:     "every permission (the filter that keeps commands from leaving the sandbox)",
	}
	var lines []string
	for _, m := range ue.Missing {
		lines = append(lines, fmt.Sprintf("%s cannot be enforced: it needs %s, which this machine lacks", need[m], m))
	}
	if len(ue.Why) > 0 {
		lines = append(lines, "the probe saw: "+strings.Join(ue.Why, "; "))
	}
	return fmt.Errorf("run agent %s: this machine cannot enforce the agent's permissions, so it was not started:\n  • %s\nzut sandbox check shows what the machine supports", p.ag.Source, strings.Join(lines, "\n  • "))
}

// netWords says what the agent's network is.
func (p *packaged) netWords() string {
	if len(p.ceiling.Hosts) == 0 {
		return "no network at all"
	}
	return "only " + strings.Join(p.ceiling.Hosts, ", ")
}

// scope is the ceiling as the file tools and bash enforce it.
func (p *packaged) scope() *tools.Scope {
	c := p.ceiling
	s := &tools.Scope{
		Read:   append(append([]string(nil), c.Read...), p.ag.Dir, p.outputDir()),
		Hidden: p.homeHidden(),
		Write:  append([]string(nil), c.Write...),
		// zut's own home (config, consent, keys) stays read-only where a
		// Write tree holds it, but for the agent's data directory.
		ReadOnly: append([]string{p.home}, p.protected(c.Write)...),
		Owner:    "the agent " + p.name + "'s permissions",
	}
	if p.readOnly {
		s.Write = nil
	}
	if c.Bash.Mode == zutfile.BashAllowlist {
		allow := append([]string(nil), c.Bash.Allow...)
		s.Commands = func(command string) error {
			l := permissions.ParseCommandLine(command)
			if l.Allows(allow) >= 0 {
				return nil
			}
			why := ""
			switch {
			case l.Unknown != "":
				why = " (" + l.Unknown + ")"
			default:
				for _, c := range l.Commands {
					if c.Writes {
						why = fmt.Sprintf(" (`%s` writes a file by redirection, which no pattern matches)", c.String())
						break
					}
					if c.Name != "" && permissions.ParseCommandLine(c.String()).Allows(allow) < 0 {
						why = fmt.Sprintf(" (`%s` matches none)", c.String())
						break
					}
				}
			}
			return fmt.Errorf("the agent %s may run only the commands its bash allowlist matches (%s), and this line is not one of them%s", p.name, strings.Join(allow, ", "), why)
		}
	}
	return s
}

// offered reports whether the built-in tool name may be offered under
// the ceiling, and why not.
func (p *packaged) offered(name string) (bool, string) {
	mode := p.ceiling.Bash.Mode
	switch name {
	case "bash":
		if mode == zutfile.BashNone {
			return false, "bash is \"none\""
		}
	case "python":
		// Python code is a command no allowlist can match.
		if mode != zutfile.BashAsk {
			return false, "python runs code, and bash is not \"ask\""
		}
	case "worktree":
		return false, "the worktree tool makes git checkouts outside the ceiling"
	case "lsp":
		return false, "language servers run unconfined"
	case "subagent_spawn", "subagent_status", "subagent_stop", "subagent_resume":
		return false, "subagents do not inherit the ceiling"
	case "web_search", "web_open", "web_find", "web_click":
		if len(p.ceiling.Hosts) == 0 {
			return false, "net.allow is empty"
		}
	}
	return true, ""
}

// withheld are the built-in tools the ceiling keeps from the model, with
// why, for the result of a call of one.
func (p *packaged) withheld() map[string]string {
	out := map[string]string{}
	for _, n := range ToolNames {
		if ok, why := p.offered(n); !ok {
			out[n] = "the agent " + p.name + "'s permissions leave it out (" + why + ")"
		}
	}
	return out
}

// alwaysAsk are the tools every call of which a person confirms: bash and
// python in bash mode "ask".
func (p *packaged) alwaysAsk() []string {
	if p == nil || p.ceiling.Bash.Mode != zutfile.BashAsk {
		return nil
	}
	return []string{"bash", "python"}
}

// filterEnv keeps only the variables env.read names.
func (p *packaged) filterEnv(env []string) []string {
	out := []string{}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(p.ceiling.Env, name) {
			out = append(out, kv)
		}
	}
	return out
}

// extensionDirs are the agent's bundled extensions, absolute.
func (p *packaged) extensionDirs() []string {
	var out []string
	for _, e := range p.ag.Manifest.Extensions {
		out = append(out, filepath.Join(p.ag.Dir, filepath.FromSlash(e)))
	}
	return out
}

// skills is the index of the agent's run: its own skills/ first, then
// the skills zut finds as usual that the agent may read.
func (p *packaged) skills(all *skills.Index) *skills.Index {
	own := skills.Discover(skills.Options{ExtensionDirs: []string{filepath.Join(p.ag.Dir, "skills")}})
	list := own.List()
	sc := p.scope()
	cfg := tools.Config{Scope: sc}
	if all != nil {
		for _, s := range all.List() {
			if cfg.CheckScope("skill", s.Path, false) == nil {
				list = append(list, s)
			}
		}
	}
	return skills.New(list...)
}

// prompt applies AGENT.md to the --system-prompt and
// --append-system-prompt texts: it replaces zut's prompt with
// replace_system_prompt (unless --system-prompt did), else it comes
// before the appended text.
func (p *packaged) prompt(replace, appendText string) (string, string) {
	instr := strings.TrimSpace(p.ag.Instructions)
	if instr == "" {
		return replace, appendText
	}
	if p.ag.Manifest.ReplaceSystemPrompt {
		if replace == "" {
			replace = instr
		}
		return replace, appendText
	}
	text := "# Instructions of the agent " + p.name + " (AGENT.md)\n\n" + instr
	if appendText != "" {
		text += "\n\n" + appendText
	}
	return replace, text
}
