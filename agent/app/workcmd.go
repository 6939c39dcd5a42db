package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/goal"
	"github.com/zut-go/zut/agent/plan"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/subagent"
	"github.com/zut-go/zut/provider"
)

// The slash commands of the work around the conversation (/plan, /goal,
// /schedule, /subagents) and the operations behind them, for every mode.

// SubagentInfo is a subagent's state (subagent.Info).
type SubagentInfo = subagent.Info

// WorkReply is the answer of a work command: Text for people, Data for
// RPC, and Prompt, when set, to run next (a goal just set starts work).
type WorkReply struct {
	Text   string
	Data   any
	Prompt string
}

// IsWorkCommand reports whether name is /plan, /goal, /schedule or
// /subagents.
func IsWorkCommand(name string) bool {
	switch name {
	case "plan", "goal", "schedule", "subagents":
		return true
	}
	return false
}

var errNoWork = errors.New("this zut runs no plan, goal, schedule or subagents")

// WorkCommand runs /plan, /goal, /schedule or /subagents with args.
func (a *App) WorkCommand(ctx context.Context, name, args string) (WorkReply, error) {
	if a.work == nil {
		return WorkReply{}, errNoWork
	}
	switch name {
	case "plan":
		c, ok := a.Plan()
		if !ok || len(c.Items) == 0 {
			return WorkReply{Text: "no plan: the model keeps one with the plan tool on longer tasks", Data: session.Checklist{Items: []session.ChecklistItem{}}}, nil
		}
		return WorkReply{Text: "Plan (" + plan.Summary(c) + ")\n" + plan.Text(c), Data: c}, nil
	case "goal":
		return a.goalCommand(args)
	case "schedule":
		return a.scheduleCommand(args)
	case "subagents":
		return a.subagentsCommand(args)
	}
	return WorkReply{}, fmt.Errorf("/%s is not a work command", name)
}

// Plan is the plan of the current branch.
func (a *App) Plan() (session.Checklist, bool) { return a.sess.Checklist() }

// Goal is the goal of the current branch.
func (a *App) Goal() (session.Goal, bool) {
	if a.work == nil {
		return session.Goal{}, false
	}
	return a.work.session().Goal() // goal.Tracker.Current
}

// GoalSpent reports the continuation turns, model steps and cost spent
// on the goal since it was set or resumed.
func (a *App) GoalSpent() (turns, steps int, costUSD float64) {
	if a.work == nil {
		return 0, 0, 0
	}
	return a.work.tracker().Spent()
}

// SetGoal changes the goal: status "active" with an objective sets it
// (and returns the prompt that starts work on it), "paused" pauses it,
// "active" alone resumes it (with its continuation prompt), "cleared"
// drops it.
func (a *App) SetGoal(objective, status string) (session.Goal, string, error) {
	if a.work == nil {
		return session.Goal{}, "", errNoWork
	}
	t := a.work.tracker()
	switch status {
	case "", session.GoalActive:
		if strings.TrimSpace(objective) != "" {
			g, err := t.Set(objective, "user")
			return g, goal.StartPrompt(g.Objective), err
		}
		g, err := t.Resume("user")
		if err != nil {
			return g, "", err
		}
		return g, goal.ContinuePrompt(g.Objective, 0, 0), nil
	case session.GoalPaused:
		g, err := t.Pause("paused by the user", "user")
		return g, "", err
	case session.GoalCleared, "clear":
		g, err := t.Clear("user")
		return g, "", err
	}
	return session.Goal{}, "", fmt.Errorf("status %q is not active, paused or cleared", status)
}

// goalData is a goal as RPC returns it.
func (a *App) goalData(g session.Goal, ok bool) map[string]any {
	if !ok {
		return map[string]any{"goal": nil}
	}
	turns, steps, cost := a.work.tracker().Spent()
	return map[string]any{"goal": g, "turns": turns, "steps": steps, "cost_usd": cost}
}

func (a *App) goalCommand(args string) (WorkReply, error) {
	verb, _, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch strings.ToLower(verb) {
	case "":
		g, ok := a.Goal()
		if !ok {
			return WorkReply{Text: "no goal: /goal <objective> sets one; zut then keeps working until the model reports it complete or blocked", Data: a.goalData(g, ok)}, nil
		}
		turns, steps, cost := a.GoalSpent()
		text := fmt.Sprintf("goal (%s): %s", g.Status, g.Objective)
		if g.Reason != "" {
			text += "\nreason: " + g.Reason
		}
		text += fmt.Sprintf("\nspent: %d continuation turns, %d model steps, $%.2f", turns, steps, cost)
		return WorkReply{Text: text, Data: a.goalData(g, ok)}, nil
	case "pause":
		g, _, err := a.SetGoal("", session.GoalPaused)
		return WorkReply{Text: "goal paused: zut stops continuing after this turn; /goal resume goes on", Data: a.goalData(g, err == nil)}, err
	case "resume":
		g, prompt, err := a.SetGoal("", session.GoalActive)
		return WorkReply{Text: "goal resumed: " + g.Objective, Data: a.goalData(g, err == nil), Prompt: prompt}, err
	case "clear":
		g, _, err := a.SetGoal("", session.GoalCleared)
		return WorkReply{Text: "goal cleared", Data: a.goalData(g, false)}, err
	case "history":
		h := a.sess.GoalHistory()
		if len(h) == 0 {
			return WorkReply{Text: "no goal was ever set in this branch", Data: map[string]any{"history": []session.GoalChange{}}}, nil
		}
		var b strings.Builder
		for _, c := range h {
			fmt.Fprintf(&b, "%s  %-8s %-6s %s", c.Time.Local().Format(time.DateTime), c.Status, c.By, c.Objective)
			if c.Reason != "" {
				b.WriteString(" — " + c.Reason)
			}
			b.WriteByte('\n')
		}
		return WorkReply{Text: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"history": h}}, nil
	}
	g, prompt, err := a.SetGoal(args, session.GoalActive)
	if err != nil {
		return WorkReply{}, err
	}
	return WorkReply{Text: "goal set: " + g.Objective, Data: a.goalData(g, true), Prompt: prompt}, nil
}

func (a *App) scheduleCommand(args string) (WorkReply, error) {
	s := a.work.scheduler()
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch strings.ToLower(verb) {
	case "", "list":
		return WorkReply{Text: s.Text(), Data: map[string]any{"entries": s.List()}}, nil
	case "cancel":
		id := strings.TrimSpace(rest)
		if id == "" {
			return WorkReply{}, errors.New("/schedule cancel needs an entry id (/schedule lists them)")
		}
		e, err := s.Cancel(id)
		if err != nil {
			return WorkReply{}, err
		}
		return WorkReply{Text: "cancelled " + e.ID + " (" + e.When() + ")", Data: map[string]any{"cancelled": e}}, nil
	}
	return WorkReply{}, fmt.Errorf("/schedule %s: use /schedule (list) or /schedule cancel <id>; ask the model to add entries", verb)
}

// Subagents lists the subagents of this run.
func (a *App) Subagents() []SubagentInfo {
	if a.work == nil {
		return nil
	}
	if m := a.work.madeSubagents(); m != nil {
		return m.List()
	}
	return []SubagentInfo{} // as List has it: none ran
}

// RunningSubagents counts the subagents running or queued.
func (a *App) RunningSubagents() int {
	if a.work == nil {
		return 0
	}
	if m := a.work.madeSubagents(); m != nil {
		return m.Running()
	}
	return 0
}

// StopSubagent stops the subagent id; "all" stops every one.
func (a *App) StopSubagent(id string) (int, error) {
	if a.work == nil {
		return 0, errNoWork
	}
	if id == "all" {
		return a.work.stopSubagents(), nil
	}
	_, err := a.work.subagents().Stop(id)
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// SubagentTranscript returns the messages of subagent id's session.
func (a *App) SubagentTranscript(id string) ([]provider.Message, error) {
	if a.work == nil {
		return nil, errNoWork
	}
	return a.work.subagents().Transcript(id)
}

func (a *App) subagentsCommand(args string) (WorkReply, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	id := strings.TrimSpace(rest)
	switch strings.ToLower(verb) {
	case "", "list":
		list := a.Subagents()
		if list == nil {
			list = []SubagentInfo{}
		}
		if len(list) == 0 {
			return WorkReply{Text: "no subagents in this session", Data: map[string]any{"subagents": list}}, nil
		}
		return WorkReply{Text: subagent.StatusText(list), Data: map[string]any{"subagents": list}}, nil
	case "stop":
		if id == "" {
			return WorkReply{}, errors.New("/subagents stop needs an id, or all")
		}
		n, err := a.StopSubagent(id)
		if err != nil {
			return WorkReply{}, err
		}
		return WorkReply{Text: fmt.Sprintf("stopped %d", n), Data: map[string]any{"stopped": n}}, nil
	case "show":
		if id == "" {
			return WorkReply{}, errors.New("/subagents show needs an id")
		}
		msgs, err := a.SubagentTranscript(id)
		if err != nil {
			return WorkReply{}, err
		}
		return WorkReply{Text: TranscriptText(msgs), Data: map[string]any{"messages": msgs}}, nil
	}
	return WorkReply{}, fmt.Errorf("/subagents %s: use /subagents, /subagents show <id> or /subagents stop <id|all>", verb)
}

// TranscriptText renders messages as plain text, one block each, for a
// read-only view.
func TranscriptText(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, bl := range m.Content {
			switch bl.Type {
			case provider.BlockText:
				if strings.TrimSpace(bl.Text) != "" {
					fmt.Fprintf(&b, "%s: %s\n\n", m.Role, strings.TrimSpace(bl.Text))
				}
			case provider.BlockToolUse:
				fmt.Fprintf(&b, "→ %s %s\n", bl.Name, clipText(string(bl.Input), 200))
			case provider.BlockToolResult:
				var parts []string
				for _, c := range bl.Content {
					if c.Type == provider.BlockText {
						parts = append(parts, c.Text)
					}
				}
				mark := "←"
				if bl.IsError {
					mark = "← error:"
				}
				fmt.Fprintf(&b, "%s %s\n\n", mark, clipText(strings.Join(parts, " "), 300))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
