package app

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/lsp"
	"github.com/zut-go/zut/agent/tools/python"
	"github.com/zut-go/zut/agent/tools/syntax"
	"github.com/zut-go/zut/agent/tools/web"
	"github.com/zut-go/zut/agent/tools/worktree"
	"github.com/zut-go/zut/provider"
)

// toolset is every built-in tool of one run: the six of package tools
// (read, write, edit, bash, grep, skill), then python, ast, worktree, lsp
// and the web tools. The tools that hold state (the python interpreter,
// the language servers, the web pages opened) live as long as the app;
// a reload rebuilds only the stateless ones. Python, ast, worktree, lsp
// and the web tools are offered as lazyTools: each is made, with what it
// holds, by its first call, and Close closes only what was made. Tools
// switched off with --no-tools or the disabled_tools setting are left out
// of the list.
type toolset struct {
	mu sync.Mutex // buildTools runs on the mode's loop and on MCP's goroutines; the tools are made on the agent's
	py *python.Tool
	// added are tools a frontend lends for a while (AddTools): the bot's
	// telegram_send_file and telegram_send_image, by handle.
	added     map[int][]tools.Tool
	nextAdded int
	lsp       *lsp.Manager
	web       *web.Web
	webTools  []tools.Tool // web.Tools() of web
	// closed is set by closeTools: what a late call makes after it is
	// closed at once, so nothing outlives the app.
	closed bool
}

// ToolNames are the built-in tools --no-tools and disabled_tools may
// name, in the order they are offered.
var ToolNames = []string{
	"read", "write", "edit", "bash", "grep", "skill",
	"python", "ast", "worktree", "lsp",
	"web_search", "web_open", "web_find", "web_click",
	"plan", "update_goal", "schedule", "subagent_spawn", "subagent_status", "subagent_stop", "subagent_resume",
}

// toolConfig is the configuration of the file and shell tools: the bash
// tool's saved output goes to $ZUT_HOME/tmp, named after the session, and
// the environment of commands withholds provider keys unless the user
// lets them through.
func (a *App) toolConfig(idx *skills.Index) tools.Config {
	return a.baseToolConfig(idx).WithDefaults()
}

// baseToolConfig is toolConfig before its defaults are filled in, which
// buildTools leaves to the first tool made.
func (a *App) baseToolConfig(idx *skills.Index) tools.Config {
	cfg := tools.Config{
		CWD: a.cwd, Home: a.env.Getenv("HOME"), Skills: idx,
		TempDir: a.outputDir(),
		Env:     a.childEnv(),
	}
	if a.sandbox != nil {
		cfg.Sandbox = a.sandbox
	}
	if a.sess != nil {
		cfg.SessionID = a.sess.ID()
	}
	if a.packaged != nil {
		cfg.Scope = a.packaged.scope()
	}
	return cfg
}

// childEnv is the environment of the processes zut starts for tools and
// extensions: the process's own, without provider credentials unless
// pass_keys or ZUT_PASS_KEYS lets them through (provider.ChildEnv); the
// RPC token never passes (provider.PassEnv).
func (a *App) childEnv() []string {
	env := os.Environ()
	if a.settings.PassKeys {
		env = provider.PassEnv(env)
	} else {
		var keys []string
		if a.resolved != nil {
			keys = a.resolved.Provider.KeyEnv
		}
		env, _ = provider.ChildEnv(env, keys...)
	}
	if a.packaged != nil {
		// An agent's children see only the variables of its env.read.
		env = a.packaged.filterEnv(env)
	}
	return env
}

// disabledTools are the names switched off for this run.
func (a *App) disabledTools() []string {
	off := append(append([]string(nil), a.settings.DisabledTools...), a.opts.NoTools...)
	if len(a.opts.Tools) > 0 {
		for _, n := range ToolNames {
			if !slices.Contains(a.opts.Tools, n) {
				off = append(off, n)
			}
		}
	}
	return off
}

// activeBuiltins are the built-in tools not switched off for this run:
// the names that shadow an extension's tool in the host (the protocol's
// reserved names shadow whether active or not, host.Reserved).
func (a *App) activeBuiltins() []string {
	off := a.disabledTools()
	var on []string
	for _, n := range ToolNames {
		if !slices.Contains(off, n) {
			on = append(on, n)
		}
	}
	return on
}

// checkToolNames fails on a --tools or --no-tools name that is no
// built-in tool.
func checkToolNames(flag string, names []string) error {
	for _, n := range names {
		if !slices.Contains(ToolNames, n) {
			return Usagef("%s %s: no such tool; the built-in tools are %s", flag, n, strings.Join(ToolNames, ", "))
		}
	}
	return nil
}

// buildTools returns the tools offered to the model. The built-in ones
// are offered as lazyTools, made (with what they hold) on their first
// call.
func (a *App) buildTools(idx *skills.Index) []tools.Tool {
	base := a.baseToolConfig(idx)
	cfg := sync.OnceValue(base.WithDefaults)
	ts := &a.toolset
	ts.mu.Lock() // the work tools are made on the first call
	defer ts.mu.Unlock()
	all := a.builtins(cfg, idx != nil)
	all = append(all, a.lazyTools(cfg)...)
	all = append(all, a.webProxies()...)
	all = append(all, a.mcpTools()...)
	all = append(all, a.workTools()...)
	for _, k := range slices.Sorted(maps.Keys(ts.added)) {
		all = append(all, ts.added[k]...)
	}
	off := a.disabledTools()
	if len(off) == 0 && a.packaged == nil {
		return all
	}
	return slices.DeleteFunc(all, func(t tools.Tool) bool {
		n := t.Definition().Name
		return slices.Contains(off, n) || !a.packagedOffers(n)
	})
}

// builtins are the tools of tools.Builtins (read, write, edit, bash,
// grep, and skill when there is a skill index) as lazyTools; edit and
// write are diagnosed.
func (a *App) builtins(cfg func() tools.Config, skill bool) []tools.Tool {
	made := sync.OnceValue(func() []tools.Tool { return tools.Builtins(cfg()) })
	tool := func(i int) func() tools.Tool { return func() tools.Tool { return made()[i] } }
	var diag func() *lsp.Manager // nil: no diagnostics after edits
	if a.settings.LSPDiagnostics && !a.opts.NoLSP && a.packaged == nil {
		diag = func() *lsp.Manager { return a.lspManager(cfg()) }
	}
	all := []tools.Tool{
		lazyMutator{&lazyTool{"read", tools.ReadDescription, tools.ReadSchema, tool(0)}},
		&diagnosed{lazyTool: &lazyTool{"write", tools.WriteDescription, tools.WriteSchema, tool(1)}, lsp: diag, cwd: a.cwd},
		&diagnosed{lazyTool: &lazyTool{"edit", tools.EditDescription, tools.EditSchema, tool(2)}, lsp: diag, cwd: a.cwd},
		lazyChecked{&lazyTool{"bash", tools.BashDescription, tools.BashSchema, tool(3)}},
		lazyMutator{&lazyTool{"grep", tools.GrepDescription, tools.GrepSchema, tool(4)}},
	}
	if skill {
		all = append(all, lazyMutator{&lazyTool{"skill", tools.SkillDescription, tools.SkillSchema, tool(5)}})
	}
	return all
}

// lazyTools are python, ast, worktree and lsp, offered before they are
// made (lazyTool).
func (a *App) lazyTools(cfg func() tools.Config) []tools.Tool {
	ast := sync.OnceValue(func() tools.Tool { return syntax.New(cfg(), syntax.Config{}) })
	wt := sync.OnceValue(func() tools.Tool { return worktree.New(cfg(), worktree.Config{}) })
	return []tools.Tool{
		lazyChecked{&lazyTool{python.ToolName, python.ToolDescription, python.ToolSchema, func() tools.Tool { return a.python(cfg()) }}},
		&lazyTool{syntax.ToolName, syntax.ToolDescription, syntax.ToolSchema, ast},
		lazyMutator{&lazyTool{worktree.ToolName, worktree.ToolDescription, worktree.ToolSchema, wt}},
		lazyMutator{&lazyTool{lsp.ToolName, lsp.ToolDescription, lsp.ToolSchema, func() tools.Tool { return a.lspManager(cfg()).Tool() }}},
	}
}

// webProxies are web_search, web_open, web_find and web_click, in the
// order of web.Tools, offered before the web state is made.
func (a *App) webProxies() []tools.Tool {
	tool := func(i int) func() tools.Tool { return func() tools.Tool { return a.webTool(i) } }
	return []tools.Tool{
		lazyMutator{&lazyTool{web.SearchName, web.SearchDescription, web.SearchSchema, tool(0)}},
		lazyMutator{&lazyTool{web.OpenName, web.OpenDescription, web.OpenSchema, tool(1)}},
		lazyMutator{&lazyTool{web.FindName, web.FindDescription, web.FindSchema, tool(2)}},
		lazyMutator{&lazyTool{web.ClickName, web.ClickDescription, web.ClickSchema, tool(3)}},
	}
}

// python returns the python tool, making it on the first call; its
// interpreter starts with its first run.
func (a *App) python(cfg tools.Config) *python.Tool {
	ts := &a.toolset
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.py == nil {
		ts.py = python.New(cfg, python.Config{Env: cfg.Env})
		if ts.closed {
			ts.py.Close()
		}
	}
	return ts.py
}

// lspManager returns the language servers' manager, making it on the
// first call (again after closeLSP, with the trust of then).
func (a *App) lspManager(cfg tools.Config) *lsp.Manager {
	ts := &a.toolset
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.lsp == nil {
		ts.lsp = lsp.NewManager(lsp.Config{
			CWD: a.cwd, Home: cfg.Home, ZutHome: a.home,
			TrustProject:         a.projectTrusted(),
			TrustedRepo:          a.trustedRepo(),
			LogDir:               filepath.Join(a.home, "logs"),
			DiagnosticsAfterEdit: a.settings.LSPDiagnostics && !a.opts.NoLSP && a.packaged == nil, // an agent starts no language server
			Apply:                lsp.WriteEdits,
			Env:                  cfg.Env,
			WrapCommand:          a.sandbox.childWrap(),
		})
		if ts.closed {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			ts.lsp.Close(ctx)
			cancel()
		}
	}
	return ts.lsp
}

// webTool returns the i-th of web.Tools, making the web state (fetcher,
// pages) on the first call.
func (a *App) webTool(i int) tools.Tool {
	ts := &a.toolset
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.web == nil {
		wc := web.ConfigFromEnv(a.env.Getenv)
		wc.Version = Version
		wc.AllowPrivate = wc.AllowPrivate || a.settings.WebAllowPrivate
		if a.packaged != nil {
			// An agent's web tools open only its net.allow (none when it
			// is empty: then they are not offered at all).
			wc.AllowHosts = append([]string{}, a.packaged.ceiling.Hosts...)
			wc.AllowPrivate = false
		}
		ts.web = web.New(wc)
		ts.webTools = ts.web.Tools()
		if ts.closed {
			ts.web.Close()
		}
	}
	return ts.webTools[i]
}

// packagedOffers reports whether the ceiling of zut run's agent lets the
// built-in tool name be offered (always true without an agent).
func (a *App) packagedOffers(name string) bool {
	if a.packaged == nil || !slices.Contains(ToolNames, name) {
		return true
	}
	ok, _ := a.packaged.offered(name)
	return ok
}

// closeTools stops the interpreter and the language servers and closes
// the web connections, of those that were made.
func (a *App) closeTools() {
	ts := &a.toolset
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	a.closeLSP()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.py != nil {
		ts.py.Close()
	}
	if ts.web != nil {
		ts.web.Close()
	}
}

// closeLSP stops the language servers; the next call that needs them
// makes a new manager.
func (a *App) closeLSP() {
	a.toolset.mu.Lock()
	m := a.toolset.lsp
	a.toolset.lsp = nil
	a.toolset.mu.Unlock()
	if m != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m.Close(ctx)
		cancel()
	}
}

// diagnosed is the edit or write tool followed by the diagnostics a
// language server reports for the file it changed.
type diagnosed struct {
	*lazyTool
	// lsp returns the language servers' manager; nil when diagnostics
	// after edits are off, and then no manager is made.
	lsp func() *lsp.Manager
	cwd string
}

func (d *diagnosed) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	r := d.make().Run(ctx, args, progress)
	if d.lsp == nil || r.IsError || len(r.Details) == 0 {
		return r
	}
	var fc tools.FileChange
	if json.Unmarshal(r.Details, &fc) != nil || fc.Path == "" {
		return r
	}
	path := fc.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.cwd, path)
	}
	if text := d.lsp().DiagnosticsAfterWrite(ctx, path); text != "" {
		// Its own paragraph: a reader that joins the blocks must not run
		// the result and the diagnostics together.
		r.Content = append(r.Content, provider.TextBlock("\n"+strings.TrimLeft(text, "\n")))
	}
	return r
}

// Preview (lazyTool's), Describe, Validate and Mutates pass through to
// the tool.
func (d *diagnosed) Describe(args json.RawMessage) string {
	if x, ok := d.make().(tools.Describer); ok {
		return x.Describe(args)
	}
	return ""
}

func (d *diagnosed) Validate(args json.RawMessage) error {
	if v, ok := d.make().(tools.Validator); ok {
		return v.Validate(args)
	}
	return nil
}

func (d *diagnosed) Mutates(args json.RawMessage) bool { return mutates(d.make(), args) }

// ToolPreview is the one-line summary of a call of a built-in tool, as
// the confirmation dialog shows it ("" for other tools).
func (a *App) ToolPreview(name string, args json.RawMessage) string {
	a.mu.Lock()
	ts := a.tools
	a.mu.Unlock()
	for _, t := range ts {
		if t.Definition().Name == name {
			if p, ok := t.(tools.Previewer); ok {
				return p.Preview(args)
			}
		}
	}
	return ""
}

// Plan passes through to the tool, so the confirmation shows the diff.
func (d *diagnosed) Plan(args json.RawMessage) (tools.FileChange, error) {
	if p, ok := d.make().(tools.Planner); ok {
		return p.Plan(args)
	}
	return tools.FileChange{}, errors.New("this tool cannot say what it would change")
}

// AddTools offers ts to the model, with the built-in tools, until remove
// is called; a frontend lends tools that exist only while it is connected
// (a Telegram bot's file tools).
func (a *App) AddTools(ts []tools.Tool) (remove func()) {
	set := &a.toolset
	set.mu.Lock()
	if set.added == nil {
		set.added = map[int][]tools.Tool{}
	}
	set.nextAdded++
	key := set.nextAdded
	set.added[key] = ts
	set.mu.Unlock()
	a.refreshTools()
	var once sync.Once
	return func() {
		once.Do(func() {
			set.mu.Lock()
			delete(set.added, key)
			set.mu.Unlock()
			a.refreshTools()
		})
	}
}

// refreshTools offers the current tools (the MCP servers' that are ready,
// those lent with AddTools) from the next request on.
func (a *App) refreshTools() {
	if !a.live.Load() {
		return // New has not made the agent yet; it calls this once it has
	}
	// A refresh returns once the agent has both the tools and the system
	// prompt they go with: a concurrent one (a server that got ready) must
	// not leave the caller's next request with the tools and without the
	// server's instructions.
	a.refreshMu.Lock()
	defer a.refreshMu.Unlock()
	a.mu.Lock()
	idx := a.skills
	a.mu.Unlock()
	ts := a.buildTools(idx)
	a.mu.Lock()
	a.tools = ts
	a.mu.Unlock()
	a.agent.SetTools(ts)
	// A server that got ready may have instructions for the model.
	if mi := a.mcpInstructions(); mi != a.mcpSaid.Swap(mi) {
		if system, err := a.systemPrompt(); err == nil {
			a.agent.SetSystem(system)
		}
	}
	a.ui.get().ToolsChanged()
}
