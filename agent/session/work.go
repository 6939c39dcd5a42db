package session

import (
	"fmt"
	"strings"
	"time"
)

// The entries of the work the model and the user organise in a session:
// the plan (the model's checklist), the goal and its history, the
// schedule of background turns, and the links to subagents' sessions.
// Each is an append-only record on the current branch, like everything
// else: the state is what the latest records on the branch say, so a
// fork inherits the state at its fork point and a resumed session finds
// it again (docs/sessions.md).

// Statuses of a ChecklistItem.
const (
	ItemPending    = "pending"
	ItemInProgress = "in_progress"
	ItemDone       = "done"
)

// Checklist is the model's plan: the whole list, as the plan tool last
// replaced it. Note is an optional line about the plan as a whole.
type Checklist struct {
	Items []ChecklistItem `json:"items"`
	Note  string          `json:"note,omitempty"`
}

// ChecklistItem is one step of a plan.
type ChecklistItem struct {
	Text   string `json:"text"`
	Status string `json:"status"` // ItemPending, ItemInProgress or ItemDone
}

// Statuses of a Goal.
const (
	GoalActive   = "active"   // zut keeps the model working toward it
	GoalPaused   = "paused"   // kept, but no continuation until resumed
	GoalComplete = "complete" // the model said it is reached
	GoalBlocked  = "blocked"  // the model said it cannot go on (Reason)
	GoalCleared  = "cleared"  // the user dropped it
)

// Goal is the session's objective and where it stands. By says who made
// the change: "user", "model" or "budget" (zut stopped continuing).
type Goal struct {
	Objective string `json:"objective"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	By        string `json:"by,omitempty"`
}

// GoalChange is one goal entry of the branch with its time.
type GoalChange struct {
	Goal
	Time time.Time `json:"time"`
}

// Operations of a ScheduleOp.
const (
	ScheduleAdd    = "add"    // a new entry: Cron or At, Message, Zone
	ScheduleCancel = "cancel" // the entry ID is cancelled
	ScheduleRun    = "run"    // the entry ran for its run due at Due
	ScheduleMissed = "missed" // Missed runs, the last due at Due, passed while zut was not running
)

// ScheduleOp is one change to the session's schedule. An entry is added
// once, then runs (or is reported missed) until it is cancelled or, for
// a one-shot entry (At), until it ran or was missed once.
type ScheduleOp struct {
	Op      string     `json:"op"`
	ID      string     `json:"id"`
	Cron    string     `json:"cron,omitempty"`
	At      *time.Time `json:"at,omitempty"`
	Message string     `json:"message,omitempty"`
	// Zone is the IANA time zone the cron fields are read in ("" is the
	// local zone of the machine running zut).
	Zone   string     `json:"zone,omitempty"`
	Due    *time.Time `json:"due,omitempty"`
	Missed int        `json:"missed,omitempty"`
	// Time is the time of the entry (set when read, not stored here).
	Time time.Time `json:"-"`
}

// SubagentLink records a subagent of this session: its task and, once
// it ends, its outcome. A subagent is recorded when it starts and again
// when it ends; the latest record of an ID is its state. Session is the
// child's own session file ("" when sessions are not saved); Diff is the
// file holding the diff of a subagent run in a worktree.
type SubagentLink struct {
	ID        string  `json:"id"`
	Task      string  `json:"task"`
	Agent     string  `json:"agent,omitempty"`
	Model     string  `json:"model,omitempty"`
	Isolation string  `json:"isolation,omitempty"`
	Session   string  `json:"session,omitempty"`
	Status    string  `json:"status"` // running, done, failed, stopped
	Result    string  `json:"result,omitempty"`
	Error     string  `json:"error,omitempty"`
	Diff      string  `json:"diff,omitempty"`
	Steps     int     `json:"steps,omitempty"`
	CostUSD   float64 `json:"cost_usd,omitempty"`
}

// maxWorkText bounds the text fields of the work entries (a plan item, an
// objective, a scheduled message, a subagent's result): the session is
// not the place for megabytes.
const maxWorkText = 64 << 10

// checkWork reports what is wrong with a work entry a caller wants to
// append.
func (e *Entry) checkWork() error {
	switch e.Type {
	case TypePlan:
		if e.Plan == nil {
			return fmt.Errorf("plan entry without a plan")
		}
		for i, it := range e.Plan.Items {
			switch it.Status {
			case ItemPending, ItemInProgress, ItemDone:
			default:
				return fmt.Errorf("plan item %d: status %q is not pending, in_progress or done", i+1, it.Status)
			}
			if len(it.Text) > maxWorkText {
				return fmt.Errorf("plan item %d is longer than %d KiB", i+1, maxWorkText>>10)
			}
		}
	case TypeGoal:
		if e.Goal == nil {
			return fmt.Errorf("goal entry without a goal")
		}
		switch e.Goal.Status {
		case GoalActive, GoalPaused, GoalComplete, GoalBlocked, GoalCleared:
		default:
			return fmt.Errorf("goal status %q is not active, paused, complete, blocked or cleared", e.Goal.Status)
		}
		if len(e.Goal.Objective) > maxWorkText {
			return fmt.Errorf("goal objective is longer than %d KiB", maxWorkText>>10)
		}
	case TypeSchedule:
		op := e.Schedule
		if op == nil || op.ID == "" {
			return fmt.Errorf("schedule entry without an entry id")
		}
		switch op.Op {
		case ScheduleAdd:
			if (op.Cron == "") == (op.At == nil) {
				return fmt.Errorf("schedule entry %s needs either cron or at", op.ID)
			}
			if len(op.Message) > maxWorkText {
				return fmt.Errorf("scheduled message is longer than %d KiB", maxWorkText>>10)
			}
		case ScheduleCancel, ScheduleRun, ScheduleMissed:
		default:
			return fmt.Errorf("schedule op %q is not add, cancel, run or missed", op.Op)
		}
	case TypeSubagent:
		if e.Subagent == nil || e.Subagent.ID == "" {
			return fmt.Errorf("subagent entry without an id")
		}
		if len(e.Subagent.Result) > maxWorkText {
			e.Subagent.Result = e.Subagent.Result[:maxWorkText] + "\n[cut: the full result is in the subagent's session]"
		}
	}
	return nil
}

// AppendChecklist records the plan c on the current branch, replacing
// the previous one.
func (s *Session) AppendChecklist(c Checklist) error {
	c.Items = append([]ChecklistItem{}, c.Items...)
	_, err := s.Append(Entry{Type: TypePlan, Plan: &c})
	return err
}

// Checklist returns the latest plan on the current branch; ok is false
// when the branch has none.
func (s *Session) Checklist() (c Checklist, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.path1) - 1; k >= 0; k-- {
		if e := s.entries.at(s.path1[k]); e.Type == TypePlan && e.Plan != nil {
			return *e.Plan, true
		}
	}
	return Checklist{}, false
}

// AppendGoal records a change of the goal on the current branch.
func (s *Session) AppendGoal(g Goal) error {
	_, err := s.Append(Entry{Type: TypeGoal, Goal: &g})
	return err
}

// Goal returns the latest goal on the current branch; ok is false when
// the branch has none or it was cleared.
func (s *Session) Goal() (g Goal, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.path1) - 1; k >= 0; k-- {
		if e := s.entries.at(s.path1[k]); e.Type == TypeGoal && e.Goal != nil {
			return *e.Goal, e.Goal.Status != GoalCleared
		}
	}
	return Goal{}, false
}

// GoalHistory returns every goal change on the current branch, oldest
// first.
func (s *Session) GoalHistory() []GoalChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []GoalChange
	for _, i := range s.path1 {
		if e := s.entries.at(i); e.Type == TypeGoal && e.Goal != nil {
			out = append(out, GoalChange{Goal: *e.Goal, Time: e.Time})
		}
	}
	return out
}

// AppendSchedule records a change of the schedule on the current branch.
func (s *Session) AppendSchedule(op ScheduleOp) error {
	op.Time = time.Time{}
	_, err := s.Append(Entry{Type: TypeSchedule, Schedule: &op})
	return err
}

// ScheduleOps returns the schedule changes of the current branch, oldest
// first, each with the time of its entry.
func (s *Session) ScheduleOps() []ScheduleOp {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ScheduleOp
	for _, i := range s.path1 {
		if e := s.entries.at(i); e.Type == TypeSchedule && e.Schedule != nil {
			op := *e.Schedule
			op.Time = e.Time
			out = append(out, op)
		}
	}
	return out
}

// AppendSubagent records a subagent's start or end on the current branch.
func (s *Session) AppendSubagent(l SubagentLink) error {
	_, err := s.Append(Entry{Type: TypeSubagent, Subagent: &l})
	return err
}

// Subagents returns the latest record of each subagent on the current
// branch, in the order they were first recorded.
func (s *Session) Subagents() []SubagentLink {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SubagentLink
	at := map[string]int{}
	for _, i := range s.path1 {
		e := s.entries.at(i)
		if e.Type != TypeSubagent || e.Subagent == nil {
			continue
		}
		if k, ok := at[e.Subagent.ID]; ok {
			out[k] = *e.Subagent
			continue
		}
		at[e.Subagent.ID] = len(out)
		out = append(out, *e.Subagent)
	}
	return out
}

// workPreview is the one-line description of a work entry in /tree.
func workPreview(e *Entry) string {
	switch {
	case e.Type == TypePlan && e.Plan != nil:
		done := 0
		for _, it := range e.Plan.Items {
			if it.Status == ItemDone {
				done++
			}
		}
		return fmt.Sprintf("plan: %d of %d done", done, len(e.Plan.Items))
	case e.Type == TypeGoal && e.Goal != nil:
		return "goal " + e.Goal.Status + ": " + clip(e.Goal.Objective)
	case e.Type == TypeSchedule && e.Schedule != nil:
		op := e.Schedule
		when := op.Cron
		if op.At != nil {
			when = op.At.Format(time.RFC3339)
		}
		return strings.TrimSpace(fmt.Sprintf("schedule %s %s %s", op.Op, op.ID, when))
	case e.Type == TypeSubagent && e.Subagent != nil:
		return "subagent " + e.Subagent.ID + " " + e.Subagent.Status + ": " + clip(e.Subagent.Task)
	}
	return string(e.Type)
}
