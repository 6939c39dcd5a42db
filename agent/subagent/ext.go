package subagent

import (
	"context"
	"encoding/json"

	"github.com/zut-go/zut/agent"
)

// filtered is the parent's extension host as a child sees it: no
// interactive tools (nobody can answer their panels for a child), only
// the tools its profile allows, and none of the parent's lifecycle
// events: extensions receive the parent's events only (the app sends
// the documented subagent_* events to those that subscribe). Tool-call,
// turn and message interception still apply, so that a guard's rules
// hold for children too.
type filtered struct {
	x     agent.Extensions
	allow map[string]bool // nil: every non-interactive tool
}

var _ agent.Extensions = (*filtered)(nil)

func (f *filtered) Tools() []agent.ExtensionTool {
	var out []agent.ExtensionTool
	for _, t := range f.x.Tools() {
		if t.Interactive || f.allow != nil && !f.allow[t.Def.Name] {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (f *filtered) CallTool(ctx context.Context, call agent.ToolInvocation) (agent.ToolOutcome, error) {
	return f.x.CallTool(ctx, call)
}

func (f *filtered) Notify(ev agent.LifecycleEvent) {}

func (f *filtered) Intercepting(event string) bool { return f.x.Intercepting(event) }

func (f *filtered) InterceptToolCall(ctx context.Context, id, name string, args json.RawMessage) agent.ToolCallDecision {
	return f.x.InterceptToolCall(ctx, id, name, args)
}

func (f *filtered) InterceptTurnStart(ctx context.Context, step int) agent.TurnStartDecision {
	return f.x.InterceptTurnStart(ctx, step)
}

func (f *filtered) InterceptAssistantMessage(ctx context.Context, text string) agent.AssistantMessageDecision {
	return f.x.InterceptAssistantMessage(ctx, text)
}

// InterceptStop runs the parent's SubagentStop hooks, when it has any,
// for a child that would stop.
func (f *filtered) InterceptStop(ctx context.Context, answer string, active bool) agent.StopDecision {
	if h, ok := f.x.(agent.SubagentStopHooks); ok {
		return h.InterceptSubagentStop(ctx, answer, active)
	}
	return agent.StopDecision{}
}

// labelled asks the parent's confirmer, saying which subagent asks. When
// the user stops the turn there, the parent's running prompt is aborted
// too (stop), as the user's turn ends, not only the subagent's.
type labelled struct {
	id   string
	c    agent.Confirmer
	stop func()
}

func (l labelled) Confirm(ctx context.Context, req agent.ConfirmRequest) (agent.ConfirmAnswer, error) {
	req.Preview = "[subagent " + l.id + "] " + req.Preview
	ans, err := l.c.Confirm(ctx, req)
	if err == nil && ans.Stop && l.stop != nil {
		l.stop()
	}
	return ans, err
}
