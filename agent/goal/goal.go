// Package goal keeps a session's goal and the loop around it: while a goal
// is active and a prompt ends without the model saying the goal is
// complete or blocked (the update_goal tool), the host continues with a
// short continuation prompt, within a budget of turns, model steps and
// cost. The goal and every change of it are session entries (package
// session), so they survive a restart and follow forks.
//
// A Tracker is safe for concurrent use: the UI sets goals while the
// agent's goroutine reports steps and the tool updates them.
package goal

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
)

// Budget bounds the continuation of one goal, counted from the moment it
// was set or resumed. Zero fields are unlimited.
type Budget struct {
	// MaxTurns is how many continuation prompts zut sends (goal.max_turns).
	MaxTurns int
	// MaxSteps is how many model steps all the goal's prompts may take
	// together (--max-steps).
	MaxSteps int
	// MaxCostUSD is what they may spend (goal.max_cost_usd).
	MaxCostUSD float64
}

// DefaultMaxTurns is goal.max_turns when the setting is absent.
const DefaultMaxTurns = 20

// Config is what a Tracker needs from its host.
type Config struct {
	// Session returns the current session, where the goal is kept.
	Session func() *session.Session
	// Emit shows goal changes (agent.GoalUpdate) and notices.
	Emit   func(agent.Event)
	Budget Budget
}

// Tracker is the goal of the current session and the accounting of its
// continuation.
type Tracker struct {
	c Config

	mu    sync.Mutex
	turns int     // continuation prompts sent since set or resume
	steps int     // model steps since set or resume
	cost  float64 // spent since set or resume
}

// New returns a Tracker.
func New(c Config) *Tracker {
	if c.Emit == nil {
		c.Emit = func(agent.Event) {}
	}
	return &Tracker{c: c}
}

// ErrNoGoal is returned when no goal is set.
var ErrNoGoal = errors.New("no goal is set: set one with /goal <objective> (RPC set_goal, --goal TEXT)")

// Current returns the goal of the current branch; ok is false when none
// is set (or it was cleared).
func (t *Tracker) Current() (session.Goal, bool) { return t.c.Session().Goal() }

// History returns every change of the goal on the current branch.
func (t *Tracker) History() []session.GoalChange { return t.c.Session().GoalHistory() }

// Active reports whether zut keeps working toward a goal.
func (t *Tracker) Active() bool {
	g, ok := t.Current()
	return ok && g.Status == session.GoalActive
}

// Set makes objective the active goal (replacing any other) and starts
// its budget afresh.
func (t *Tracker) Set(objective, by string) (session.Goal, error) {
	objective = strings.TrimSpace(objective)
	if objective == "" {
		return session.Goal{}, errors.New("the goal is empty: say what should be achieved, as in /goal make the parser tests pass")
	}
	t.reset()
	return t.record(session.Goal{Objective: objective, Status: session.GoalActive, By: by})
}

// Pause keeps the goal but stops continuing until Resume.
func (t *Tracker) Pause(reason, by string) (session.Goal, error) {
	g, ok := t.Current()
	if !ok {
		return session.Goal{}, ErrNoGoal
	}
	if g.Status != session.GoalActive {
		return g, fmt.Errorf("the goal is %s, not active; /goal resume makes it active again", g.Status)
	}
	g.Status, g.Reason, g.By = session.GoalPaused, reason, by
	return t.record(g)
}

// Resume makes a paused, blocked or complete goal active again, with a
// fresh budget.
func (t *Tracker) Resume(by string) (session.Goal, error) {
	g, ok := t.Current()
	if !ok {
		return session.Goal{}, ErrNoGoal
	}
	t.reset()
	g.Status, g.Reason, g.By = session.GoalActive, "", by
	return t.record(g)
}

// Clear drops the goal (it stays in the history).
func (t *Tracker) Clear(by string) (session.Goal, error) {
	g, ok := t.Current()
	if !ok {
		return session.Goal{}, ErrNoGoal
	}
	g.Status, g.Reason, g.By = session.GoalCleared, "", by
	return t.record(g)
}

// Update applies the model's update_goal: complete, blocked (with a
// reason), or active with a refined objective.
func (t *Tracker) Update(status, reason, objective string) (session.Goal, error) {
	g, ok := t.Current()
	if !ok {
		return session.Goal{}, errors.New("no goal is set for this session; update_goal is only for a goal the user set with /goal")
	}
	if g.Status != session.GoalActive {
		return g, fmt.Errorf("the goal is %s, not active; only the user can resume it (/goal resume)", g.Status)
	}
	switch status {
	case session.GoalComplete, session.GoalBlocked:
		g.Status, g.Reason = status, reason
	case session.GoalActive:
		if objective != "" {
			g.Objective = objective
		}
		g.Reason = reason
	default:
		return g, fmt.Errorf("status %q is not complete, blocked or active", status)
	}
	g.By = "model"
	return t.record(g)
}

func (t *Tracker) reset() {
	t.mu.Lock()
	t.turns, t.steps, t.cost = 0, 0, 0
	t.mu.Unlock()
}

// record appends g to the session and emits it.
func (t *Tracker) record(g session.Goal) (session.Goal, error) {
	if err := t.c.Session().AppendGoal(g); err != nil {
		return g, fmt.Errorf("save the goal: %w", err)
	}
	t.mu.Lock()
	turns := t.turns
	t.mu.Unlock()
	t.c.Emit(agent.GoalUpdate{Objective: g.Objective, Status: g.Status, Reason: g.Reason, By: g.By, Turns: turns})
	return g, nil
}

// Observe counts the model steps and the cost of the prompts that run
// while the goal is active. Give it every agent event.
func (t *Tracker) Observe(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.TurnStart:
		t.mu.Lock()
		t.steps++
		t.mu.Unlock()
	case agent.Usage:
		t.mu.Lock()
		t.cost += ev.CostUSD
		t.mu.Unlock()
	}
}

// Spent reports the continuation turns, model steps and cost counted
// since the goal was set or resumed.
func (t *Tracker) Spent() (turns, steps int, costUSD float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.turns, t.steps, t.cost
}

// Next is called when a prompt ended normally. While the goal is active
// it returns the continuation prompt to send next; when the budget is
// spent it pauses the goal (By "budget") and says so. ok is false when
// nothing should follow.
func (t *Tracker) Next() (prompt string, ok bool) {
	g, has := t.Current()
	if !has || g.Status != session.GoalActive {
		return "", false
	}
	b := t.c.Budget
	t.mu.Lock()
	turns, steps, cost := t.turns, t.steps, t.cost
	var over string
	switch {
	case b.MaxTurns > 0 && turns >= b.MaxTurns:
		over = fmt.Sprintf("%d continuation turns (goal.max_turns)", b.MaxTurns)
	case b.MaxSteps > 0 && steps >= b.MaxSteps:
		over = fmt.Sprintf("%d model steps (--max-steps)", b.MaxSteps)
	case b.MaxCostUSD > 0 && cost >= b.MaxCostUSD:
		over = fmt.Sprintf("$%.2f of $%.2f (goal.max_cost_usd)", cost, b.MaxCostUSD)
	}
	if over == "" {
		t.turns++
		turns = t.turns
	}
	t.mu.Unlock()
	if over != "" {
		reason := "budget spent: " + over
		if _, err := t.Pause(reason, "budget"); err != nil {
			t.c.Emit(agent.Notice{Level: "error", Message: "pause the goal: " + err.Error()})
		}
		t.c.Emit(agent.Notice{Level: "warn", Message: "goal paused: " + reason + "; /goal resume continues with a fresh budget (from a script: zut -p -c '/goal resume')"})
		return "", false
	}
	return ContinuePrompt(g.Objective, turns, b.MaxTurns), true
}

// Interrupted pauses an active goal after the user interrupted its work
// (Esc, Ctrl+C, RPC abort), so that nothing continues by itself.
func (t *Tracker) Interrupted() {
	if !t.Active() {
		return
	}
	if _, err := t.Pause("interrupted by the user", "user"); err == nil {
		t.c.Emit(agent.Notice{Level: "info", Message: "goal paused; /goal resume continues"})
	}
}

// StartPrompt is the prompt that starts work on a goal just set.
func StartPrompt(objective string) string {
	return "Goal: " + objective + "\n\n" +
		"Work toward this goal until it is reached. When it is, call update_goal with status \"complete\" and a short reason. " +
		"If you cannot make progress without the user, call update_goal with status \"blocked\" and say why."
}

// ContinuePrompt is the continuation prompt number n (of at most max; 0
// is no limit).
func ContinuePrompt(objective string, n, max int) string {
	count := fmt.Sprintf("continuation %d", n)
	if max > 0 {
		count = fmt.Sprintf("continuation %d of at most %d", n, max)
	}
	return "Continue working toward the goal: " + objective + "\n\n" +
		"(" + count + ". When the goal is reached, call update_goal with status \"complete\" and a short reason; " +
		"if you are blocked, call update_goal with status \"blocked\" and the reason.)"
}
