package app

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/mcp"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// The slash commands, as every frontend sees them: the built-in table,
// the list of all commands, skills as prompts, and extension commands.
// Each frontend presents them its own way (a picker or data), but runs
// them through these functions and the operations in ops.go.

// Builtin is a built-in slash command.
type Builtin struct {
	Name string
	Help string
	// Terminal commands need the interactive terminal (pickers of their
	// own, the clipboard, the screen); headless frontends refuse them.
	Terminal bool
}

// Builtins are the built-in slash commands; extension commands of the
// same names are shadowed.
var Builtins = []Builtin{
	{Name: "help", Help: "show keys and commands"},
	{Name: "model", Help: "switch the model (/model provider/name)"},
	{Name: "reasoning", Help: "set the reasoning level: off, minimal, low, medium, high, max, adaptive, or a token budget"},
	{Name: "settings", Help: "theme, terminal alerts, auto-compaction and more", Terminal: true},
	{Name: "permissions", Help: "list the permission rules (allow, ask, deny) and remove them", Terminal: true},
	{Name: "sandbox", Help: "show or set the OS sandbox of commands (/sandbox read-only, workspace-write ...)", Terminal: true},
	{Name: "login", Help: "save an API key or sign in with a subscription (/login [provider])", Terminal: true},
	{Name: "clear", Help: "start a new conversation and clear the screen"},
	{Name: "compact", Help: "summarise the conversation to free context (/compact [focus])"},
	{Name: "fork", Help: "start a new branch from an earlier message"},
	{Name: "tree", Help: "browse the session tree and switch branch"},
	{Name: "sessions", Help: "list and resume saved sessions"},
	{Name: "reload-ext", Help: "restart every extension and reload skills and themes"},
	{Name: "skills", Help: "list the available skills"},
	{Name: "mcp", Help: "show the MCP servers: state, tools, errors and logs (/mcp reconnect [name])"},
	{Name: "telegram", Help: "mirror this conversation to Telegram (/telegram connect|disconnect|status)", Terminal: true},
	{Name: "skill", Help: "load a skill into the conversation (/skill:<name>)"},
	{Name: "btw", Help: "ask a side question that is not kept (/btw question)"},
	{Name: "exit", Help: "quit zut", Terminal: true},
	{Name: "quit", Help: "quit zut", Terminal: true},
	{Name: "new", Help: "start a new conversation"},
	{Name: "resume", Help: "resume a saved session (/resume [id])"},
	{Name: "copy", Help: "copy the last answer to the clipboard", Terminal: true},
	{Name: "theme", Help: "switch the colour theme (/theme name)", Terminal: true},
	{Name: "hotkeys", Help: "show the keyboard shortcuts", Terminal: true},
	{Name: "session", Help: "show the session file, id and branch"},
	{Name: "config", Help: "show which setup files count here: context files, templates, skills, settings, hooks, MCP"},
	{Name: "name", Help: "name this session (/name title)"},
	{Name: "plan", Help: "show the model's plan for the current task"},
	{Name: "goal", Help: "set a goal zut works toward (/goal text, pause, resume, clear, history)"},
	{Name: "schedule", Help: "list scheduled turns, or cancel one (/schedule cancel id)"},
	{Name: "subagents", Help: "list subagents, show one's transcript, stop them (/subagents show|stop id)"},
}

// LookupBuiltin finds the built-in command name (lower case).
func LookupBuiltin(name string) (Builtin, bool) {
	for _, b := range Builtins {
		if b.Name == name {
			return b, true
		}
	}
	return Builtin{}, false
}

// builtinNames are the names of the built-in commands, for the host's
// shadowing of extension commands.
func builtinNames() []string {
	out := make([]string, len(Builtins))
	for i, b := range Builtins {
		out[i] = b.Name
	}
	return out
}

// ParseCommand splits a slash command line ("/name args") into its name
// and its trimmed arguments; the leading slash is optional.
func ParseCommand(line string) (name, args string) {
	name, args, _ = strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	return name, strings.TrimSpace(args)
}

// Command is a slash command as menus and RPC list it.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`              // "builtin", "extension", "skill", "mcp" or "prompt" (a prompt template)
	Extension   string `json:"extension,omitempty"` // the extension, or the MCP server
}

// Commands lists the built-in, skill, extension and MCP prompt slash
// commands, sorted by name.
func (a *App) Commands() []Command {
	var out []Command
	for _, b := range Builtins {
		out = append(out, Command{Name: b.Name, Description: b.Help, Source: "builtin"})
	}
	if idx := a.Skills(); idx != nil {
		for _, s := range idx.List() {
			out = append(out, Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill"})
		}
	}
	if a.host != nil {
		for _, c := range a.host.Commands() {
			out = append(out, Command{Name: c.Name, Description: c.Description, Source: "extension", Extension: c.Extension})
		}
	}
	out = append(out, a.mcpCommands()...)
	// A template shadowed by a command of another kind is left out.
	taken := map[string]bool{}
	for _, c := range out {
		taken[strings.ToLower(c.Name)] = true
	}
	for _, c := range a.templateCommands() {
		if !taken[strings.ToLower(c.Name)] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CommandResult is an extension command's reply (see proto.CommandResponse).
type CommandResult struct {
	Extension string
	Action    string
	Prompt    string
	Insert    string
	Display   string
	Panel     *proto.Panel
	Error     string
}

// ErrNoSuchCommand is returned by InvokeExtension for unknown names.
var ErrNoSuchCommand = errors.New("no such command")

// InvokeExtension runs an extension's slash command, an MCP server's
// prompt (/mcp__server__prompt args) or a prompt template (templates.go),
// whose text becomes the prompt. An extension's command wins over a
// template of the same name.
func (a *App) InvokeExtension(ctx context.Context, name, args string) (CommandResult, error) {
	if text, ok, err := a.mcpPrompt(ctx, name, args); ok {
		if err != nil {
			return CommandResult{}, err
		}
		server, _, _ := mcp.SplitName(name)
		return CommandResult{Action: "prompt", Prompt: text, Extension: server}, nil
	}
	found := false
	if a.host != nil {
		for _, c := range a.host.Commands() {
			if strings.EqualFold(c.Name, name) {
				found = true
				name = c.Name
				break
			}
		}
	}
	if !found {
		if text, ok := a.templatePrompt(name, args); ok {
			return CommandResult{Action: proto.ActionPrompt, Prompt: text}, nil
		}
		return CommandResult{}, ErrNoSuchCommand
	}
	r, err := a.host.InvokeCommand(ctx, name, args)
	if err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Action: r.Action, Prompt: r.Prompt, Insert: r.Insert, Display: r.Display, Panel: r.OpenPanel, Error: r.Error, Extension: extOf(a.host, name)}, nil
}

func extOf(h *host.Host, cmd string) string {
	for _, c := range h.Commands() {
		if c.Name == cmd {
			return c.Extension
		}
	}
	return ""
}

// SkillPrompt is the prompt /skill:name args sends: the skill's
// instructions, then the user's request.
func (a *App) SkillPrompt(name, args string) (string, error) {
	idx := a.Skills()
	if idx == nil {
		return "", errors.New("skills are off (--no-skills)")
	}
	r := tools.Skill(idx, strings.TrimSpace(name))
	var parts []string
	for _, b := range r.Content {
		if b.Type == provider.BlockText {
			parts = append(parts, b.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		return "", errors.New(text)
	}
	if args = strings.TrimSpace(args); args != "" {
		text += "\n\n" + args
	}
	return text, nil
}
