package agent

import (
	"time"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// The events of the work around the conversation (the plan, the goal,
// the schedule and subagents) and the accessors the packages running
// that work need (agent/plan, agent/goal, agent/schedule,
// agent/subagent). The agent itself never emits these events: those
// packages do, through the same Emit function, so that every mode shows
// them as it shows the rest (docs/tools.md).

// PlanUpdate: the plan tool replaced the plan ("plan" event).
type PlanUpdate struct {
	Items []session.ChecklistItem `json:"items"`
	Note  string                  `json:"note,omitempty"`
}

// GoalUpdate: the goal was set, refined, paused, resumed, reached,
// blocked or cleared ("goal" event). By is user, model or budget. Turns
// is how many continuation turns ran for it so far.
type GoalUpdate struct {
	Objective string `json:"objective"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	By        string `json:"by,omitempty"`
	Turns     int    `json:"turns,omitempty"`
}

// ScheduleChange: a schedule entry was added, cancelled, ran (fired),
// was missed while zut was not running, or finished ("schedule" event).
// Next is the entry's next run, when it has one.
type ScheduleChange struct {
	Action  string     `json:"action"` // added, cancelled, fired, missed, finished
	ID      string     `json:"id"`
	Cron    string     `json:"cron,omitempty"`
	At      *time.Time `json:"at,omitempty"`
	Message string     `json:"message,omitempty"`
	Next    *time.Time `json:"next,omitempty"`
	Missed  int        `json:"missed,omitempty"`
}

// SubagentStart: a subagent was spawned ("subagent_start"); Queued is
// set when it waits for a free slot.
type SubagentStart struct {
	ID        string `json:"id"`
	Task      string `json:"task"`
	Agent     string `json:"agent,omitempty"`
	Model     string `json:"model,omitempty"`
	Isolation string `json:"isolation,omitempty"`
	Queued    bool   `json:"queued,omitempty"`
}

// SubagentUpdate: a subagent's state or last activity changed
// ("subagent_update"). State is queued or running; Activity is one short
// line (the tool it runs, the start of its text).
type SubagentUpdate struct {
	ID       string  `json:"id"`
	State    string  `json:"state"`
	Activity string  `json:"activity,omitempty"`
	Steps    int     `json:"steps"`
	CostUSD  float64 `json:"cost_usd"`
}

// SubagentEnd: a subagent finished ("subagent_end"). Status is done,
// failed or stopped; Result is its final answer (cut), Diff the patch of
// its worktree when it ran in one, Session its session file.
type SubagentEnd struct {
	ID      string     `json:"id"`
	Status  string     `json:"status"`
	Result  string     `json:"result,omitempty"`
	Error   string     `json:"error,omitempty"`
	Diff    string     `json:"diff,omitempty"`
	Steps   int        `json:"steps"`
	Usage   UsageTotal `json:"usage"`
	Session string     `json:"session,omitempty"`
}

func (PlanUpdate) EventType() string     { return "plan" }
func (GoalUpdate) EventType() string     { return "goal" }
func (ScheduleChange) EventType() string { return "schedule" }
func (SubagentStart) EventType() string  { return "subagent_start" }
func (SubagentUpdate) EventType() string { return "subagent_update" }
func (SubagentEnd) EventType() string    { return "subagent_end" }

// Confirmer returns who is asked before a mutating tool runs (nil:
// nobody).
func (a *Agent) Confirmer() Confirmer {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Confirm
}

// Policy returns the confirmation policy.
func (a *Agent) Policy() Policy {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Policy
}

// System returns the system prompt of the next request.
func (a *Agent) System() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.System
}

// Tools returns the built-in tools offered from the next request on.
func (a *Agent) Tools() []tools.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]tools.Tool(nil), a.cfg.Tools...)
}

// Extensions returns the extension host the agent talks to (nil: none).
func (a *Agent) Extensions() Extensions {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Extensions
}

// AddUsage adds usage spent on this agent's behalf elsewhere (its
// subagents) to its cumulative usage, which the next usage event and
// Usage report. It emits nothing.
func (a *Agent) AddUsage(u provider.Usage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.usage = a.usage.Add(u)
}
