package goal

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// maxReason bounds the reason and the objective the model sends.
const maxReason = 2000

// Tool returns the update_goal tool, which reports on the tracker's goal.
func (t *Tracker) Tool() tools.Tool { return &updateTool{t: t} }

type updateTool struct{ t *Tracker }

func (u *updateTool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the update_goal tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "update_goal"
	ToolDescription = "Report on the goal the user set for this session (with /goal). While a goal is active, zut keeps sending you a continuation prompt each time you stop, until you call this tool: status \"complete\" when the goal is reached (reason: what shows it, such as the tests that pass), \"blocked\" when you cannot go on without the user (reason: what you need). Status \"active\" with a new objective refines the goal's wording when you learned what it really takes. Do not call it when no goal is set."
	ToolSchema      = `{"additionalProperties":false,"properties":{"objective":{"description":"status active: the refined objective.","type":"string"},"reason":{"description":"complete: the evidence; blocked: what is needed from the user. Required for both.","type":"string"},"status":{"enum":["complete","blocked","active"],"type":"string"}},"required":["status"],"type":"object"}`
)

type update struct{ status, reason, objective string }

func parseUpdate(raw json.RawMessage) (update, error) {
	a, err := tools.ParseArgs("update_goal", raw, "status", "reason", "objective")
	if err != nil {
		return update{}, err
	}
	var u update
	if u.status, err = a.String("status", true); err != nil {
		return u, err
	}
	if u.reason, err = a.String("reason", false); err != nil {
		return u, err
	}
	if u.objective, err = a.String("objective", false); err != nil {
		return u, err
	}
	u.reason, u.objective = strings.TrimSpace(u.reason), strings.TrimSpace(u.objective)
	switch u.status {
	case session.GoalComplete, session.GoalBlocked:
		if u.reason == "" {
			return u, a.Errorf("reason is required with status %q: say what shows it in one or two sentences", u.status)
		}
		if u.objective != "" {
			return u, a.Errorf("objective goes only with status \"active\" (to refine the goal)")
		}
	case session.GoalActive:
		if u.objective == "" {
			return u, a.Errorf("status \"active\" refines the goal: give the new objective")
		}
	default:
		return u, a.Errorf("status %q is not complete, blocked or active", u.status)
	}
	if len(u.reason) > maxReason || len(u.objective) > maxReason {
		return u, a.Errorf("keep reason and objective under %d bytes", maxReason)
	}
	return u, nil
}

func (u *updateTool) Preview(raw json.RawMessage) string {
	p, err := parseUpdate(raw)
	if err != nil {
		return "update_goal (bad arguments)"
	}
	if p.status == session.GoalActive {
		return "update_goal: " + tools.Clip(p.objective, 80)
	}
	return "update_goal " + p.status + ": " + tools.Clip(p.reason, 80)
}

func (u *updateTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	p, err := parseUpdate(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	g, err := u.t.Update(p.status, p.reason, p.objective)
	if err != nil {
		return tools.ErrorResult("update_goal: %v", err)
	}
	var msg string
	switch g.Status {
	case session.GoalComplete:
		msg = "Goal marked complete. zut stops continuing; give the user your final summary."
	case session.GoalBlocked:
		msg = "Goal marked blocked. zut stops continuing; tell the user what you need."
	default:
		msg = "Goal refined: " + g.Objective
	}
	return tools.TextResult(msg).WithDetails(g)
}
