package rpcmode

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/app"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// commandList is get_commands' data: the commands run_command can run.
func (s *rpcServer) commandList() []proto.RPCCommandInfo {
	out := []proto.RPCCommandInfo{}
	for _, c := range s.app.Commands() {
		if b, ok := app.LookupBuiltin(c.Name); ok && c.Source == "builtin" && b.Terminal {
			continue
		}
		out = append(out, proto.RPCCommandInfo{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension})
	}
	return out
}

// cmdRunCommand runs a built-in, skill or extension slash command.
// Built-in names win over extension commands, as in the terminal.
func (s *rpcServer) cmdRunCommand(ctx context.Context, c *proto.RPCRunCommand) {
	name := strings.TrimPrefix(strings.TrimSpace(c.Name), "/")
	args := strings.TrimSpace(c.Args)
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		// "/name args" in name alone.
		args = strings.TrimSpace(name[i+1:] + " " + args)
		name = name[:i]
	}
	if name == "" {
		s.fail(c, errors.New(`name is empty: send {"type":"run_command","name":"compact"}; get_commands lists the names`))
		return
	}
	lower := strings.ToLower(name)
	switch {
	case strings.HasPrefix(lower, "skill:"):
		s.runSkill(c, name[len("skill:"):], args)
	case lower == "exit" || lower == "quit":
		s.fail(c, fmt.Errorf("/%s: close zut's stdin to make it finish and exit", lower))
	case isBuiltin(lower):
		if b, _ := app.LookupBuiltin(lower); b.Terminal {
			s.fail(c, fmt.Errorf("/%s needs the interactive terminal; it is not available in RPC mode", lower))
			return
		}
		s.runBuiltin(ctx, c, lower, args)
	default:
		s.task(ctx, func(ctx context.Context) { s.runExtension(ctx, c, name, args) })
	}
}

// result answers c with the data of the equivalent command.
func (s *rpcServer) result(c proto.RPCCommand, data any, err error) {
	if err != nil {
		s.fail(c, err)
		return
	}
	raw, err := marshalData(data)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, proto.RPCCommandResult{Action: "result", Result: raw})
}

// runBuiltin runs a built-in slash command.
func (s *rpcServer) runBuiltin(ctx context.Context, c *proto.RPCRunCommand, name, args string) {
	a := s.app
	need := func(what string) bool {
		if args == "" {
			s.fail(c, fmt.Errorf("/%s needs %s", name, what))
			return false
		}
		return true
	}
	switch name {
	case "help":
		s.result(c, map[string]any{"commands": s.commandList()}, nil)
	case "model":
		if args == "" {
			m := a.Agent().Model()
			s.result(c, map[string]string{"provider": m.Provider, "model": m.ID}, nil)
			return
		}
		var res *provider.Resolved
		err := s.jobs.idle(func() (err error) { res, err = a.SetModel(ctx, args); return err })
		if err != nil {
			s.fail(c, err)
			return
		}
		s.result(c, map[string]string{"provider": res.Provider.Name, "model": res.Model.ID}, nil)
	case "reasoning":
		if args == "" {
			s.result(c, map[string]string{"reasoning": reasoningText(a.Agent().Reasoning())}, nil)
			return
		}
		r, err := a.SetReasoning(args)
		s.result(c, map[string]string{"reasoning": reasoningText(r)}, err)
	case "clear", "new":
		err := s.switchSession(ctx, name, a.NewSession)
		s.result(c, s.sessionData(), err)
	case "compact":
		s.queueCompact(c, args, func() { s.ok(c, proto.RPCCommandResult{Action: "compact", Started: true}) })
	case "fork":
		if need("the id of the entry to fork from (get_tree lists them)") {
			err := s.fork(ctx, args)
			s.result(c, s.branchData(), err)
		}
	case "tree":
		s.result(c, s.tree(), nil)
	case "sessions":
		data, err := s.sessions()
		s.result(c, data, err)
	case "resume":
		if need("a session id (get_sessions lists them)") {
			err := s.switchSession(ctx, "resume", func() error { return a.ResumeSession(args) })
			s.result(c, s.sessionData(), err)
		}
	case "reload-ext":
		err := s.jobs.idle(func() error { _, err := a.Reload(ctx); return err })
		s.result(c, s.extensions(), err)
	case "skills":
		s.result(c, map[string]any{"skills": s.skillList()}, nil)
	case "mcp":
		verb, name, _ := strings.Cut(args, " ")
		if verb != "reconnect" && verb != "restart" {
			s.result(c, map[string]any{"servers": a.MCPServers()}, nil)
			break
		}
		s.task(ctx, func(ctx context.Context) {
			err := a.RestartMCP(ctx, strings.TrimSpace(name))
			s.result(c, map[string]any{"servers": a.MCPServers()}, err)
		})
	case "skill":
		if need("a skill name: /skill <name> [text]") {
			skill, text, _ := strings.Cut(args, " ")
			s.runSkill(c, skill, strings.TrimSpace(text))
		}
	case "btw":
		if need("a question") {
			s.task(ctx, func(ctx context.Context) {
				answer, err := a.Agent().Ask(ctx, args, nil)
				s.result(c, map[string]string{"answer": answer}, err)
			})
		}
	case "config":
		s.result(c, map[string]string{"text": a.ConfigReport()}, nil)
	case "session":
		data := s.sessionData()
		data["title"] = a.Session().Title()
		data["leaf_id"] = a.Session().Leaf()
		s.result(c, data, nil)
	case "name":
		if need("a title") {
			err := a.Session().SetTitle(args)
			s.result(c, map[string]string{"title": a.Session().Title()}, err)
		}
	default:
		s.runWork(ctx, c, name, args)
	}
}

// skillList describes the skills for /skills.
func (s *rpcServer) skillList() []map[string]string {
	out := []map[string]string{}
	if s.app.Skills() == nil {
		return out
	}
	for _, sk := range s.app.Skills().List() {
		out = append(out, map[string]string{"name": sk.Name, "description": sk.Description, "path": sk.Path})
	}
	return out
}

// runSkill sends a prompt made of the skill's text and the user's text.
func (s *rpcServer) runSkill(c *proto.RPCRunCommand, name, text string) {
	body, err := s.app.SkillPrompt(name, text)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.queuePrompt(c, agent.Input{Text: body, Source: "rpc"}, func() {
		s.ok(c, proto.RPCCommandResult{Action: proto.ActionPrompt, Started: true})
	})
}

// isBuiltin reports whether name is a built-in command.
func isBuiltin(name string) bool {
	_, ok := app.LookupBuiltin(name)
	return ok
}

// runExtension runs an extension command (as a task: the extension may ask
// the client something first) and maps its answer: prompt starts a prompt,
// display and insert become ext_display and ext_insert events, open_panel
// has already become ext_panel_open. An error the extension reports
// becomes an ext_notify of level error; with no action it fails the
// command.
func (s *rpcServer) runExtension(ctx context.Context, c *proto.RPCRunCommand, name, args string) {
	r, err := s.app.InvokeExtension(ctx, name, args)
	if errors.Is(err, app.ErrNoSuchCommand) {
		s.fail(c, fmt.Errorf("unknown slash command /%s: get_commands lists the commands", name))
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	if r.Error != "" && r.Action != "" && r.Action != proto.ActionNoop {
		s.event(proto.RPCExtNotify{Extension: r.Extension, Level: proto.LevelError, Message: r.Error})
	}
	res := proto.RPCCommandResult{Action: r.Action, Extension: r.Extension}
	switch r.Action {
	case proto.ActionPrompt:
		if strings.TrimSpace(r.Prompt) == "" {
			s.fail(c, fmt.Errorf("/%s: extension %q answered with an empty prompt", name, r.Extension))
			return
		}
		res.Started = true
		s.queuePrompt(c, agent.Input{Text: r.Prompt, Source: "extension"}, func() { s.ok(c, res) })
		return
	case proto.ActionDisplay:
		s.event(proto.RPCExtDisplay{Extension: r.Extension, Text: r.Display})
		res.Text = r.Display
	case proto.ActionInsert:
		s.event(proto.RPCExtInsert{Extension: r.Extension, Text: r.Insert})
		res.Text = r.Insert
	case proto.ActionOpenPanel:
		if r.Panel != nil {
			p := rpcPanel(r.Extension, *r.Panel)
			res.Panel = &p
		}
	default:
		if r.Error != "" {
			s.fail(c, fmt.Errorf("/%s: %s", name, r.Error))
			return
		}
		res.Action = proto.ActionNoop
	}
	s.ok(c, res)
}
