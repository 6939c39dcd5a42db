package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Tool returns the schedule tool, which adds, lists and cancels the
// scheduler's entries.
func (s *Scheduler) Tool() tools.Tool { return &scheduleTool{s: s} }

type scheduleTool struct{ s *Scheduler }

func (t *scheduleTool) Definition() provider.Tool {
	zone := t.s.c.Location.String()
	if zone == "Local" {
		zone = LocalZone
	}
	return provider.Tool{Name: ToolName, Description: ToolDescriptionHead + zone + ToolDescriptionTail, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the schedule tool: constant data around the
// time zone (LocalZone for time.Local), so that offering the tool runs no
// code of this package (TestToolDefinitions).
const (
	ToolName            = "schedule"
	LocalZone           = "the user's local time zone"
	ToolDescriptionHead = "Schedule a prompt to be sent to you later in this session, once or repeatedly, in "
	ToolDescriptionTail = ". add: message (the prompt, written so it makes sense on its own later) with cron (five fields: minute hour day-of-month month day-of-week; ranges 1-5, steps */15, lists 1,15, names JAN-DEC and SUN-SAT; e.g. \"0 9 * * MON-FRI\") or at (one time: \"+10m\", \"in 2h\", \"17:30\", \"2026-05-01 09:00\"). list: the entries with their next run. cancel: the entry id. A due entry runs as a new turn when the session is idle (it waits while a turn runs). Entries are kept in the session: they resume with it, and runs missed while zut was not running are reported, not replayed. Scheduled turns cannot use interactive tools."
	ToolSchema          = `{"additionalProperties":false,"properties":{"action":{"enum":["add","list","cancel"],"type":"string"},"at":{"description":"add: one time, instead of cron.","type":"string"},"cron":{"description":"add: a five-field cron expression (or @hourly, @daily, @weekly, @monthly).","type":"string"},"id":{"description":"cancel: the entry's id (s1, s2 ...).","type":"string"},"message":{"description":"add: the prompt to send when the entry is due.","type":"string"}},"required":["action"],"type":"object"}`
)

type scheduleArgs struct{ action, cron, at, message, id string }

func parseArgs(raw json.RawMessage) (scheduleArgs, error) {
	a, err := tools.ParseArgs("schedule", raw, "action", "cron", "at", "message", "id")
	if err != nil {
		return scheduleArgs{}, err
	}
	var p scheduleArgs
	for _, f := range []struct {
		name string
		dst  *string
		req  bool
	}{{"action", &p.action, true}, {"cron", &p.cron, false}, {"at", &p.at, false}, {"message", &p.message, false}, {"id", &p.id, false}} {
		if *f.dst, err = a.String(f.name, f.req); err != nil {
			return p, err
		}
	}
	switch p.action {
	case "add":
		if p.id != "" {
			return p, a.Errorf("id goes with cancel; add makes a new id")
		}
	case "list":
	case "cancel":
		if p.id == "" {
			return p, a.Errorf("cancel needs the entry's id (schedule list shows them)")
		}
	default:
		return p, a.Errorf("action %q is not add, list or cancel", p.action)
	}
	return p, nil
}

func (t *scheduleTool) Preview(raw json.RawMessage) string {
	p, err := parseArgs(raw)
	if err != nil {
		return "schedule (bad arguments)"
	}
	switch p.action {
	case "add":
		when := p.cron
		if p.at != "" {
			when = "at " + p.at
		}
		return fmt.Sprintf("schedule %s: %s", when, tools.Clip(p.message, 60))
	case "cancel":
		return "schedule cancel " + p.id
	}
	return "schedule list"
}

func (t *scheduleTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	if why := t.s.c.Unavailable; why != "" {
		return tools.ErrorResult("schedule: %s", why)
	}
	p, err := parseArgs(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	loc := t.s.c.Location
	switch p.action {
	case "add":
		e, err := t.s.Add(p.cron, p.at, p.message)
		if err != nil {
			return tools.ErrorResult("schedule: %v", err)
		}
		return tools.TextResult(fmt.Sprintf("Scheduled %s (%s); next run %s.", e.ID, e.When(), e.Next.In(loc).Format(time.RFC1123))).WithDetails(e)
	case "cancel":
		e, err := t.s.Cancel(p.id)
		if err != nil {
			return tools.ErrorResult("schedule: %v", err)
		}
		return tools.TextResult(fmt.Sprintf("Cancelled %s (%s).", e.ID, e.When())).WithDetails(e)
	}
	return tools.TextResult(t.s.Text()).WithDetails(t.s.List())
}
