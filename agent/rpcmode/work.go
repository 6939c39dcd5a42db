package rpcmode

import (
	"context"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/proto"
)

// The RPC side of the work around the conversation: set_goal,
// get_subagents, and /plan, /goal, /schedule and /subagents through
// run_command. The plan, goal, schedule and subagent_* events are agent
// events and reach the client like the others.

// cmdSetGoal sets, pauses, resumes or clears the goal. Setting or
// resuming one starts work on it: its prompt is queued like a prompt
// command's (data.started).
func (s *rpcServer) cmdSetGoal(c *proto.RPCSetGoal) {
	status := strings.TrimSpace(c.Status)
	if status == "" && strings.TrimSpace(c.Objective) == "" {
		status = "show"
	}
	if status == "show" {
		g, ok := s.app.Goal()
		s.ok(c, goalData(g, ok, false))
		return
	}
	g, prompt, err := s.app.SetGoal(c.Objective, status)
	if err != nil {
		s.fail(c, err)
		return
	}
	if prompt == "" {
		s.ok(c, goalData(g, g.Status != "cleared", false))
		return
	}
	s.queuePrompt(c, agent.Input{Text: prompt, Source: "goal"}, func() { s.ok(c, goalData(g, true, true)) })
}

func goalData(g any, ok, started bool) map[string]any {
	d := map[string]any{"goal": nil}
	if ok {
		d["goal"] = g
	}
	if started {
		d["started"] = true
	}
	return d
}

// subagents is get_subagents' list.
func (s *rpcServer) subagents() []app.SubagentInfo {
	list := s.app.Subagents()
	if list == nil {
		list = []app.SubagentInfo{}
	}
	return list
}

// runWork runs a work command for run_command; one whose answer is a
// prompt (a goal set) queues it.
func (s *rpcServer) runWork(ctx context.Context, c *proto.RPCRunCommand, name, args string) {
	r, err := s.app.WorkCommand(ctx, name, args)
	if err != nil {
		s.fail(c, err)
		return
	}
	if r.Prompt == "" {
		s.result(c, r.Data, nil)
		return
	}
	raw, err := marshalData(r.Data)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.queuePrompt(c, agent.Input{Text: r.Prompt, Source: "goal"}, func() {
		s.ok(c, proto.RPCCommandResult{Action: proto.ActionPrompt, Started: true, Result: raw})
	})
}
