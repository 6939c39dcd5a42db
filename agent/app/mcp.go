package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host/mcp"
	"github.com/zut-go/zut/provider"
)

// The MCP servers of the run (host/mcp) are a source of tools next to the
// built-ins and the extensions: their tools are agent tools named
// mcp__<server>__<tool> that go through the same confirmation,
// interception and events; their prompts are slash commands
// /mcp__<server>__<prompt>; their resources are read with the
// mcp_resource tool and @server:uri mentions in a prompt. Servers start in
// the background, so start-up does not wait for a slow one: their tools
// join the model's list when they are ready. A project's .mcp.json runs
// only in a trusted folder (trust.go).

// codexFile is Codex's config.toml, whose [mcp_servers] zut reads.
func (a *App) codexFile() string {
	if h := a.env.Getenv("HOME"); h != "" {
		return mcp.CodexFile(h)
	}
	return ""
}

// startMCP loads the MCP configuration and starts the manager; with no
// configuration it costs nothing. A --mcp-config file that cannot be read
// is an error (the run asked for it); a bad mcp.json or .mcp.json is a
// warning, and its servers are left out.
func (a *App) startMCP() error {
	if !a.mcpConfigured() {
		return nil
	}
	cfg, err := mcp.LoadConfig(mcp.LoadOptions{Home: a.home, CWD: a.cwd, Flags: a.opts.MCPConfigs, Getenv: a.env.Getenv, CodexFile: a.codexFile()})
	if err != nil {
		return fmt.Errorf("%w (--mcp-config)", err)
	}
	for _, p := range cfg.Problems {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %v\n", p)
	}
	for _, n := range cfg.Notes {
		fmt.Fprintf(a.env.Stderr, "zut: note: %s\n", n)
	}
	if len(cfg.Servers) == 0 {
		return nil
	}
	start, call := a.mcpTimeouts()
	a.mcpCalls = newMCPCallCount()
	a.mcp = mcp.NewManager(mcp.Options{
		Home: a.home, CWD: a.cwd, Config: cfg, Env: a.childEnv(), WrapCommand: a.sandbox.childWrap(),
		StartTimeout: start, CallTimeout: call, Elicitation: a.elicit,
		Trusted:     func(mcp.ServerConfig) bool { return a.trust.Trusted },
		Client:      mcp.Implementation{Name: "zut", Version: Version},
		OpenBrowser: mcp.OpenBrowser(a.env.Getenv),
		AuthPrompt: func(server, url string) {
			a.ui.get().Notify("mcp:"+server, "warning", "the server needs you to sign in: open "+url)
		},
		Callbacks: mcp.Callbacks{
			ToolsChanged:   a.refreshTools,
			PromptsChanged: func() { a.ui.get().CommandsChanged() },
			Note:           a.mcpNote,
			Waiting:        func(server string) { a.ui.get().Notify("mcp:"+server, "info", "waiting for the server to start") },
		},
	})
	return nil
}

// mcpConfigured reports whether there may be an MCP configuration to
// load: a --mcp-config file, or something at one of the places
// mcp.LoadConfig reads (Codex's config.toml, mcp.json, .mcp.json). When
// none of them exists, LoadConfig would find nothing and say nothing, and
// the run need not ask package mcp at all.
func (a *App) mcpConfigured() bool {
	if len(a.opts.MCPConfigs) > 0 {
		return true
	}
	var files []string
	if f := a.codexFile(); f != "" {
		files = append(files, f)
	}
	if a.home != "" {
		files = append(files, mcp.GlobalFile(a.home))
	}
	if a.cwd != "" {
		files = append(files, mcp.ProjectFile(a.cwd))
	}
	for _, f := range files {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// HeadlessStartTimeout is the start timeout of an MCP server in print
// and JSON modes when neither its "startup_timeout_sec" nor MCP_TIMEOUT
// gives one: a script waits at most this long for a server, then goes on
// without it.
const HeadlessStartTimeout = 10 * time.Second

// mcpTimeouts are the default start and call timeouts of the MCP servers:
// MCP_TIMEOUT and MCP_TOOL_TIMEOUT (milliseconds, as Claude Code reads
// them), else 30 s to start (10 s in print and JSON modes) and 10 min per
// call. A server's own startup_timeout_sec and tool_timeout_sec win.
func (a *App) mcpTimeouts() (start, call time.Duration) {
	if a.front.OneShot {
		start = HeadlessStartTimeout
	}
	for _, v := range []struct {
		name string
		to   *time.Duration
	}{{"MCP_TIMEOUT", &start}, {"MCP_TOOL_TIMEOUT", &call}} {
		raw := strings.TrimSpace(a.env.Getenv(v.name))
		if raw == "" {
			continue
		}
		ms, err := strconv.ParseFloat(raw, 64)
		if err != nil || ms <= 0 || ms > float64(24*time.Hour/time.Millisecond) {
			fmt.Fprintf(a.env.Stderr, "zut: warning: %s=%q is not a number of milliseconds (1 to 86400000); ignored\n", v.name, raw)
			continue
		}
		*v.to = time.Duration(ms * float64(time.Millisecond))
	}
	return start, call
}

// mcpNote shows a note about an MCP server: in the UI as a notification;
// in print and JSON modes as a notice event (print mode writes it on
// stderr; JSON mode writes the event and the line on stderr).
func (a *App) mcpNote(server, msg string) {
	if a.front.OneShot {
		if _, late := a.mcpLate.Load(server); late && strings.Contains(msg, "initialize within") {
			return // the start timeout WaitMCP reported already
		}
		a.emit(agent.Notice{Level: "warn", Source: "mcp:" + server, Message: msg})
		return
	}
	a.ui.get().Notify("mcp:"+server, "info", msg)
}

// WaitMCP waits until no MCP server is starting any more (each for at
// most its start timeout), then offers the tools of those that are
// ready. Headless modes call it before their first prompt, so that a
// script's prompt sees the servers' tools, and they say which servers
// are left out and why; the interactive UI never waits.
func (a *App) WaitMCP(ctx context.Context) {
	if a.mcp == nil || a.mcpWaited.Swap(true) {
		return
	}
	late := a.mcp.WaitStart(ctx)
	a.refreshTools()
	if a.front.Interactive || ctx.Err() != nil {
		return // interrupted: nobody waits for the notes
	}
	for _, l := range late {
		a.mcpLate.Store(l.Name, true)
		a.mcpNote(l.Name, fmt.Sprintf("mcp server %q did not start within %v; going on without it (give it longer with \"startup_timeout_sec\" in its configuration, or MCP_TIMEOUT in milliseconds)", l.Name, l.After))
	}
	for _, s := range a.mcp.Servers() {
		if s.State == mcp.StateInvalid && s.Err != nil {
			a.mcpNote(s.Name, fmt.Sprintf("mcp server %q skipped: %v", s.Name, s.Err))
		}
	}
}

// RestartMCP starts the MCP server name again ("*" or "" for every
// server that failed or stopped), for /mcp reconnect, and returns once
// no server is starting (each has its start timeout) or ctx ends.
func (a *App) RestartMCP(ctx context.Context, name string) error {
	if a.mcp == nil {
		return errors.New("no MCP servers are configured (docs/mcp.md)")
	}
	var errs []error
	if name != "" && name != "*" {
		errs = append(errs, a.mcp.Restart(name))
	} else {
		for _, s := range a.mcp.Servers() {
			if s.State == mcp.StateFailed || s.State == mcp.StateStopped {
				errs = append(errs, a.mcp.Restart(s.Name))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	a.mcp.Wait(ctx)
	a.refreshTools()
	return nil
}

// maxInstructions bounds what one server's instructions add to the
// system prompt.
const maxInstructions = 4 << 10

// mcpInstructions is the system prompt's part about the ready MCP
// servers that sent instructions for the model, "" when none did.
func (a *App) mcpInstructions() string {
	if a.mcp == nil {
		return ""
	}
	var b strings.Builder
	for _, s := range a.mcp.Servers() {
		text := strings.TrimSpace(s.Instructions)
		if s.State != mcp.StateReady || text == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("# MCP servers\n\nThe tools named mcp__<server>__<tool> come from these servers, which say:\n")
		}
		if len(text) > maxInstructions {
			text = strings.ToValidUTF8(text[:maxInstructions], "") + " …"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.Name, text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// MCP is the MCP manager, nil when no server is configured.
func (a *App) MCP() *mcp.Manager { return a.mcp }

// mcpTools are the agent tools of the MCP servers ready now, and the
// mcp_resource tool when a server has resources.
func (a *App) mcpTools() []tools.Tool {
	if a.mcp == nil {
		return nil
	}
	var out []tools.Tool
	cfg := a.toolConfig(nil)
	for _, t := range a.mcp.Tools() {
		out = append(out, &mcpTool{m: a.mcp, t: t, calls: a.mcpCalls, cfg: cfg})
	}
	out = append(out, &mcpResourceTool{m: a.mcp, cfg: cfg})
	return out
}

// mcpTool is one tool of an MCP server.
type mcpTool struct {
	m     *mcp.Manager
	t     mcp.Tool
	calls *mcpCallCount
	cfg   tools.Config // where a cut result is saved
}

func (t *mcpTool) Definition() provider.Tool {
	desc := t.t.Description
	if desc == "" {
		desc = t.t.Title
	}
	return provider.Tool{Name: t.t.Name, Description: desc + fmt.Sprintf(" (MCP server %q)", t.t.Server), Schema: t.t.InputSchema}
}

func (t *mcpTool) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	defer t.calls.begin(ctx, t.t.Server)()
	r, err := t.m.Call(ctx, t.t.Name, args, func(p mcp.Progress) {
		if progress == nil {
			return
		}
		switch {
		case p.Message != "" && p.Total > 0:
			progress(fmt.Sprintf("%s (%v/%v)", p.Message, p.Progress, p.Total))
		case p.Message != "":
			progress(p.Message)
		case p.Total > 0:
			progress(fmt.Sprintf("%v/%v", p.Progress, p.Total))
		default:
			progress(fmt.Sprint(p.Progress))
		}
	})
	if err != nil {
		return tools.ErrorResult("%s: %v", t.t.Name, err)
	}
	return capResult(mcpResult(r), t.cfg)
}

// capResult bounds the text of an MCP tool's result (mcp.MaxResultText):
// the text past it is cut, the whole text saved to a file, and a line
// tells the model where to read the rest, as the bash tool does.
func capResult(r tools.Result, cfg tools.Config) tools.Result {
	total := 0
	for _, b := range r.Content {
		if b.Type == provider.BlockText {
			total += len(b.Text)
		}
	}
	if total <= mcp.MaxResultText {
		return r
	}
	var all []string
	for _, b := range r.Content {
		if b.Type == provider.BlockText {
			all = append(all, b.Text)
		}
	}
	whole := strings.Join(all, "\n")
	hint := "the rest could not be saved"
	if path, err := tools.SaveOutput(cfg, whole); err == nil {
		hint = fmt.Sprintf("the whole result is saved to %s; read or grep it for the rest", path)
	}
	text, _ := tools.CapText(whole, 1<<30, mcp.MaxResultText, hint)
	out := tools.Result{IsError: r.IsError, Content: []provider.Block{provider.TextBlock(text)}}
	for _, b := range r.Content {
		if b.Type != provider.BlockText {
			out.Content = append(out.Content, b)
		}
	}
	return out
}

// Preview is the call in one line: the server's tool and its arguments.
func (t *mcpTool) Preview(args json.RawMessage) string {
	return t.t.Server + " " + t.t.Tool + " " + tools.Clip(strings.Join(strings.Fields(string(args)), " "), 100)
}

// Validate checks the arguments against the tool's input schema, before
// the user is asked about the call.
func (t *mcpTool) Validate(args json.RawMessage) error {
	return tools.CheckArgs(t.t.Name, t.t.InputSchema, args)
}

// Mutates is false only for a tool its server marks read-only: an MCP
// server's tools can do anything, so they are confirmed like bash.
func (t *mcpTool) Mutates(json.RawMessage) bool {
	var hints struct {
		ReadOnly bool `json:"readOnlyHint"`
	}
	return json.Unmarshal(t.t.Annotations, &hints) != nil || !hints.ReadOnly
}

// mcpResourceTool reads a resource of an MCP server.
type mcpResourceTool struct {
	m   *mcp.Manager
	cfg tools.Config
}

func (t *mcpResourceTool) Definition() provider.Tool {
	return provider.Tool{Name: mcp.ResourceToolName, Description: mcp.ResourceToolDescription, Schema: mcp.ResourceToolSchema}
}

func (t *mcpResourceTool) Run(ctx context.Context, args json.RawMessage, _ func(string)) tools.Result {
	return capResult(mcpResult(t.m.ResourceTool(ctx, args)), t.cfg)
}

func (t *mcpResourceTool) Mutates(json.RawMessage) bool { return false }

// mcpResult converts an MCP result to a tool result.
func mcpResult(r *mcp.Result) tools.Result {
	var out tools.Result
	for _, b := range r.Blocks() {
		switch b.Type {
		case "image":
			out.Content = append(out.Content, provider.Block{Type: provider.BlockImage, MIMEType: b.MIMEType, Data: b.Data})
		default:
			out.Content = append(out.Content, provider.TextBlock(b.Text))
		}
	}
	if len(out.Content) == 0 {
		out.Content = []provider.Block{provider.TextBlock("(no content)")}
	}
	out.IsError = r.IsError
	return out
}

// mcpPrompt runs the MCP prompt command /name args; ok is false when
// name is no MCP prompt.
func (a *App) mcpPrompt(ctx context.Context, name, args string) (text string, ok bool, err error) {
	if a.mcp == nil || !strings.HasPrefix(name, mcp.Prefix) {
		return "", false, nil
	}
	p, ok := a.findPrompt(name)
	if !ok {
		// Its server may still be starting: wait for the servers, once.
		a.mcp.Wait(ctx)
		if p, ok = a.findPrompt(name); !ok {
			return "", false, nil
		}
	}
	margs, err := mcp.PromptArgs(p, args)
	if err != nil {
		return "", true, fmt.Errorf("/%s: %w", name, err)
	}
	r, err := a.mcp.Prompt(ctx, name, margs)
	if err != nil {
		return "", true, err
	}
	return r.Text(), true, nil
}

// findPrompt finds the MCP prompt zut calls name among the ready servers'.
func (a *App) findPrompt(name string) (mcp.Prompt, bool) {
	for _, p := range a.mcp.Prompts() {
		if p.Name == name {
			return p, true
		}
	}
	return mcp.Prompt{}, false
}

// mcpCommands are the MCP prompts as slash commands.
func (a *App) mcpCommands() []Command {
	if a.mcp == nil {
		return nil
	}
	var out []Command
	for _, p := range a.mcp.Prompts() {
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		out = append(out, Command{Name: p.Name, Description: desc, Source: "mcp", Extension: p.Server})
	}
	return out
}

// mention is "@server:uri" in a prompt.
func mention() *regexp.Regexp {
	return mentionLazy.get(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`)
	})
}

var mentionLazy lazy[*regexp.Regexp]

// maxMention bounds the text one @server:uri mention adds to a prompt.
const maxMention = 256 << 10

// mcpMentions reads the resources a prompt mentions as @server:uri and
// returns them as context for the prompt; a resource that cannot be read
// is a line saying why, so the model knows.
func (a *App) mcpMentions(ctx context.Context, text string) []string {
	if a.mcp == nil || !strings.Contains(text, "@") {
		return nil
	}
	servers := map[string]bool{}
	for _, s := range a.mcp.Servers() {
		servers[s.Name] = true
	}
	var out []string
	for _, m := range mention().FindAllStringSubmatch(text, 8) {
		server, uri := m[1], m[2]
		if !servers[server] {
			continue
		}
		r, err := a.mcp.ReadResource(ctx, server, uri)
		if err != nil {
			out = append(out, fmt.Sprintf("The resource @%s:%s could not be read: %v", server, uri, err))
			continue
		}
		var parts []string
		for _, c := range r.Contents {
			parts = append(parts, mcp.DescribeContents(c))
		}
		body, _ := tools.CapText(strings.Join(parts, "\n"), 4000, maxMention, "read the rest with the mcp_resource tool")
		out = append(out, fmt.Sprintf("The resource @%s:%s:\n%s", server, uri, body))
	}
	return out
}

// withMentions adds the resources a prompt mentions to its context.
func (a *App) withMentions(ctx context.Context, in agent.Input) agent.Input {
	if extra := a.mcpMentions(ctx, in.Text); len(extra) > 0 {
		in.Context = append(append([]string(nil), in.Context...), extra...)
	}
	return in
}

// MCPServer is one configured MCP server as /mcp and RPC show it.
type MCPServer struct {
	Name      string   `json:"name"`
	Origin    string   `json:"origin"`    // global, project or flag
	File      string   `json:"file"`      // the configuration file
	Transport string   `json:"transport"` // stdio, http or sse
	State     string   `json:"state"`     // starting, ready, stopped, failed, untrusted, disabled, invalid
	Error     string   `json:"error,omitempty"`
	Server    string   `json:"server,omitempty"` // the server's name and version
	Tools     []string `json:"tools"`
	Prompts   int      `json:"prompts"`
	Resources int      `json:"resources"`
	Log       string   `json:"log"`
}

// MCPServers reports every configured MCP server, sorted by name.
func (a *App) MCPServers() []MCPServer {
	if a.mcp == nil {
		return []MCPServer{}
	}
	var out []MCPServer
	for _, s := range a.mcp.Servers() {
		m := MCPServer{Name: s.Name, Origin: string(s.Origin), File: s.File, Transport: s.Transport, State: string(s.State),
			Tools: s.Tools, Prompts: s.Prompts, Resources: s.Resources, Log: s.Log}
		if m.Tools == nil {
			m.Tools = []string{}
		}
		if s.Err != nil {
			m.Error = s.Err.Error()
		}
		if s.Server.Name != "" {
			m.Server = strings.TrimSpace(s.Server.Name + " " + s.Server.Version)
		}
		out = append(out, m)
	}
	return out
}

// MCPReport is /mcp's text: a line per server with its state and what it
// offers, then its error.
func (a *App) MCPReport() string {
	servers := a.MCPServers()
	if len(servers) == 0 {
		return "No MCP servers are configured. Add one with zut mcp add NAME -- COMMAND [ARGS] " +
			"(or --url URL), in .mcp.json, or with --mcp-config FILE (docs/mcp.md)."
	}
	var b strings.Builder
	for i, s := range servers {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s  %s  %s, %s", s.Name, s.State, s.Transport, s.Origin)
		if s.State == string(mcp.StateReady) || s.State == string(mcp.StateStopped) {
			fmt.Fprintf(&b, "  %s, %s, %s", plural(len(s.Tools), "tool"), plural(s.Prompts, "prompt"), plural(s.Resources, "resource"))
		}
		if s.Server != "" {
			fmt.Fprintf(&b, "  (%s)", s.Server)
		}
		switch {
		case s.Error != "":
			fmt.Fprintf(&b, "\n  %s\n  log: %s", s.Error, s.Log)
		case s.State == string(mcp.StateUntrusted):
			b.WriteString("\n  from this folder's .mcp.json, which runs once you trust the folder (restart zut to be asked, or pass --trust)")
		}
	}
	return b.String()
}

// plural is "1 tool", "2 tools".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// swapString is a string read and replaced atomically.
type swapString struct {
	mu sync.Mutex
	s  string
}

// Swap stores s and returns the previous value.
func (v *swapString) Swap(s string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.s
	v.s = s
	return old
}
