package printmode

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/proto"
)

// command runs text when it is a slash command that zut knows ("/name
// args" where name is a built-in, /skill:x or an extension's command);
// other text, "/etc/hosts is odd" among it, is a prompt (handled is
// false). A command that answers with a prompt returns it; one that
// answers with text to show calls display. Built-ins that need a terminal
// or a conversation to keep going fail with an error that says where they
// work.
func command(ctx context.Context, a *app.App, text string, display func(string)) (prompt string, handled bool, err error) {
	if !strings.HasPrefix(strings.TrimSpace(text), "/") {
		return "", false, nil
	}
	name, args := app.ParseCommand(text)
	lower := strings.ToLower(name)
	if skill, ok := strings.CutPrefix(lower, "skill:"); ok {
		p, err := a.SkillPrompt(skill, args)
		return p, true, err
	}
	if app.IsWorkCommand(lower) {
		r, err := a.WorkCommand(ctx, lower, args)
		if err == nil && r.Text != "" {
			display(r.Text)
		}
		return r.Prompt, true, err
	}
	if _, ok := app.LookupBuiltin(lower); ok {
		return "", true, builtin(ctx, a, lower, args, display)
	}
	r, err := a.InvokeExtension(ctx, name, args)
	switch {
	case errors.Is(err, app.ErrNoSuchCommand) && app.LooksLikeCommand(name):
		return "", true, unknownCommand(a, name)
	case errors.Is(err, app.ErrNoSuchCommand):
		return "", false, nil
	case err != nil:
		return "", true, fmt.Errorf("/%s: %w", name, err)
	}
	if r.Error != "" && (r.Action == "" || r.Action == proto.ActionNoop) {
		return "", true, fmt.Errorf("/%s: %s", name, r.Error)
	}
	switch r.Action {
	case proto.ActionPrompt:
		return strings.TrimSpace(r.Prompt), true, nil
	case proto.ActionDisplay:
		display(r.Display)
	case proto.ActionInsert:
		// There is no editor: the text is the command's answer.
		display(r.Insert)
	case proto.ActionOpenPanel:
		return "", true, fmt.Errorf("/%s opens a panel, which needs the interactive UI", name)
	}
	return "", true, nil
}

// unknownCommand is the error for /name that no command has: it names
// the commands print mode can run.
func unknownCommand(a *app.App, name string) error {
	var names []string
	for _, c := range a.Commands() {
		if bc, ok := app.LookupBuiltin(c.Name); ok && (bc.Terminal || !printable()[c.Name]) {
			continue
		}
		names = append(names, "/"+c.Name)
	}
	const most = 40
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return fmt.Errorf("unknown command /%s; the commands are %s (a prompt that mentions /%s must not start with it)", name, strings.Join(names, ", "), name)
}

// builtin runs the built-in commands that make sense for one prompt.
func builtin(ctx context.Context, a *app.App, name, args string, display func(string)) error {
	switch name {
	case "help":
		var b strings.Builder
		for _, c := range a.Commands() {
			if bc, ok := app.LookupBuiltin(c.Name); ok && (bc.Terminal || !printable()[c.Name]) {
				continue
			}
			fmt.Fprintf(&b, "/%s  %s\n", c.Name, c.Description)
		}
		display(b.String())
		return nil
	case "mcp":
		a.WaitMCP(ctx)
		if verb, name, _ := strings.Cut(args, " "); verb == "reconnect" || verb == "restart" {
			if err := a.RestartMCP(ctx, strings.TrimSpace(name)); err != nil {
				return fmt.Errorf("/mcp %s: %w", verb, err)
			}
		}
		display(a.MCPReport())
		return nil
	case "skills":
		idx := a.Skills()
		if idx == nil || len(idx.List()) == 0 {
			display("no skills found")
			return nil
		}
		var lines []string
		for _, s := range idx.List() {
			lines = append(lines, fmt.Sprintf("%s  %s", s.Name, s.Description))
		}
		sort.Strings(lines)
		display(strings.Join(lines, "\n"))
		return nil
	case "config":
		display(a.ConfigReport())
		return nil
	case "session":
		s := a.Session()
		path := s.Path()
		if path == "" {
			path = "(not saved)"
		}
		display(fmt.Sprintf("session %s\ntitle: %s\nfile: %s\nmessages: %d", s.ID(), s.Title(), path, len(s.Messages())))
		return nil
	case "name":
		if args == "" {
			return errors.New("/name needs a title: zut -p -c '/name fix the parser'")
		}
		return a.Session().SetTitle(args)
	case "compact":
		summary, err := a.Compact(ctx, args)
		if errors.Is(err, agent.ErrNothingToCompact) {
			display(err.Error())
			return nil
		}
		if err != nil {
			return fmt.Errorf("/compact: %w", err)
		}
		display(fmt.Sprintf("compacted: the conversation continues from a %d-line summary", strings.Count(summary, "\n")+1))
		return nil
	case "btw":
		if args == "" {
			return errors.New("/btw needs a question")
		}
		answer, err := a.Agent().Ask(ctx, args, nil)
		if err != nil {
			return fmt.Errorf("/btw: %w", err)
		}
		display(answer)
		return nil
	case "model":
		if args == "" {
			m := a.Agent().Model()
			display(m.Provider + "/" + m.ID)
			return nil
		}
		return errors.New("/model: print mode answers one prompt; choose its model with --model " + args)
	case "reasoning":
		return errors.New("/reasoning: print mode answers one prompt; choose the level with --reasoning LEVEL")
	}
	return fmt.Errorf("/%s does not work in print mode, which answers one prompt; use it in the interactive UI or over RPC (zut rpc)", name)
}

// printable are the built-in commands print mode runs.
func printable() map[string]bool {
	return printableLazy.get(func() map[string]bool {
		return map[string]bool{
			"help": true, "skills": true, "skill": true, "session": true, "name": true, "mcp": true, "config": true,
			"compact": true, "btw": true, "model": true,
			"plan": true, "goal": true, "schedule": true, "subagents": true,
		}
	})
}

var printableLazy lazy[map[string]bool]
