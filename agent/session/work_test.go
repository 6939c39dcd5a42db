package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func items(spec ...string) []ChecklistItem {
	var out []ChecklistItem
	for _, s := range spec {
		status, text, _ := strings.Cut(s, ":")
		out = append(out, ChecklistItem{Text: text, Status: status})
	}
	return out
}

// TestWorkForkAndResume records plans, goals, schedule changes and
// subagent links on a branch, forks before the later ones, and checks
// what each branch sees, before and after the file is reopened.
func TestWorkForkAndResume(t *testing.T) {
	s := newFile(t, testOpts()...)
	at := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	mustAppend(t, s, user("q1"))
	steps := []func() error{
		func() error { return s.AppendChecklist(Checklist{Items: items("in_progress:read", "pending:fix")}) },
		func() error { return s.AppendGoal(Goal{Objective: "fix the bug", Status: GoalActive, By: "user"}) },
		func() error {
			return s.AppendSchedule(ScheduleOp{Op: ScheduleAdd, ID: "s1", Cron: "*/5 * * * *", Message: "check CI"})
		},
		func() error { return s.AppendSubagent(SubagentLink{ID: "sa-1", Task: "look", Status: "running"}) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	forkAt := s.Leaf()
	mustAppend(t, s, assistant("a1"))
	later := []func() error{
		func() error {
			return s.AppendChecklist(Checklist{Items: items("done:read", "done:fix"), Note: "all done"})
		},
		func() error {
			return s.AppendGoal(Goal{Objective: "fix the bug", Status: GoalComplete, Reason: "tests pass", By: "model"})
		},
		func() error { return s.AppendSchedule(ScheduleOp{Op: ScheduleRun, ID: "s1", Due: &at}) },
		func() error { return s.AppendSchedule(ScheduleOp{Op: ScheduleCancel, ID: "s1"}) },
		func() error {
			return s.AppendSubagent(SubagentLink{ID: "sa-1", Task: "look", Status: "done", Result: "found it"})
		},
	}
	for _, f := range later {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	mainLeaf := s.Leaf()

	checkMain := func(t *testing.T, s *Session) {
		t.Helper()
		c, ok := s.Checklist()
		if !ok || c.Note != "all done" || !reflect.DeepEqual(c.Items, items("done:read", "done:fix")) {
			t.Errorf("Checklist() = %+v, %v; want the completed plan", c, ok)
		}
		g, ok := s.Goal()
		if !ok || g.Status != GoalComplete || g.Reason != "tests pass" {
			t.Errorf("Goal() = %+v, %v; want complete", g, ok)
		}
		var hist []string
		for _, h := range s.GoalHistory() {
			hist = append(hist, h.Status+"/"+h.By)
			if h.Time.IsZero() {
				t.Errorf("GoalHistory() entry %+v has no time", h)
			}
		}
		if want := []string{"active/user", "complete/model"}; !slices.Equal(hist, want) {
			t.Errorf("GoalHistory() = %v, want %v", hist, want)
		}
		var ops []string
		for _, op := range s.ScheduleOps() {
			ops = append(ops, op.Op+" "+op.ID)
		}
		if want := []string{"add s1", "run s1", "cancel s1"}; !slices.Equal(ops, want) {
			t.Errorf("ScheduleOps() = %v, want %v", ops, want)
		}
		if run := s.ScheduleOps()[1]; run.Due == nil || !run.Due.Equal(at) || run.Time.IsZero() {
			t.Errorf("ScheduleOps()[1] = %+v, want due %v and a time", run, at)
		}
		subs := s.Subagents()
		if len(subs) != 1 || subs[0].Status != "done" || subs[0].Result != "found it" {
			t.Errorf("Subagents() = %+v, want sa-1 done", subs)
		}
	}
	checkFork := func(t *testing.T, s *Session) {
		t.Helper()
		c, _ := s.Checklist()
		if !reflect.DeepEqual(c.Items, items("in_progress:read", "pending:fix")) || c.Note != "" {
			t.Errorf("fork: Checklist() = %+v, want the plan at the fork point", c)
		}
		if g, ok := s.Goal(); !ok || g.Status != GoalActive {
			t.Errorf("fork: Goal() = %+v, %v; want active", g, ok)
		}
		if n := len(s.GoalHistory()); n != 1 {
			t.Errorf("fork: GoalHistory() has %d changes, want 1", n)
		}
		if ops := s.ScheduleOps(); len(ops) != 1 || ops[0].Op != ScheduleAdd || ops[0].Cron != "*/5 * * * *" {
			t.Errorf("fork: ScheduleOps() = %+v, want only the add", ops)
		}
		if subs := s.Subagents(); len(subs) != 1 || subs[0].Status != "running" {
			t.Errorf("fork: Subagents() = %+v, want sa-1 running", subs)
		}
	}

	checkMain(t, s)
	if err := s.Fork(forkAt); err != nil {
		t.Fatal(err)
	}
	checkFork(t, s)
	forkLeaf := s.Leaf()

	// The fork is the latest entry: reopening continues on it.
	r, warns := reopen(t, s)
	if len(warns) > 0 {
		t.Fatalf("reopen warnings: %v", warns)
	}
	if r.Leaf() != forkLeaf {
		t.Fatalf("reopened leaf = %s, want the fork %s", r.Leaf(), forkLeaf)
	}
	checkFork(t, r)
	if err := r.Switch(mainLeaf); err != nil {
		t.Fatal(err)
	}
	checkMain(t, r)
}

// TestWorkClearedGoal: a cleared goal reads as none, and stays in the
// history.
func TestWorkClearedGoal(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	if _, ok := s.Goal(); ok {
		t.Fatal("Goal() of a new session is set")
	}
	if err := s.AppendGoal(Goal{Objective: "x", Status: GoalActive}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendGoal(Goal{Objective: "x", Status: GoalCleared, By: "user"}); err != nil {
		t.Fatal(err)
	}
	if g, ok := s.Goal(); ok {
		t.Errorf("Goal() = %+v, true after clearing; want false", g)
	}
	if n := len(s.GoalHistory()); n != 2 {
		t.Errorf("GoalHistory() has %d changes, want 2", n)
	}
}

// TestWorkBadEntries: malformed work entries are refused with a message
// naming the problem.
func TestWorkBadEntries(t *testing.T) {
	at := time.Now()
	cases := []struct {
		name string
		e    Entry
		want string
	}{
		{"plan without plan", Entry{Type: TypePlan}, "without a plan"},
		{"plan bad status", Entry{Type: TypePlan, Plan: &Checklist{Items: items("later:x")}}, `status "later"`},
		{"goal bad status", Entry{Type: TypeGoal, Goal: &Goal{Objective: "x", Status: "won"}}, `goal status "won"`},
		{"schedule no id", Entry{Type: TypeSchedule, Schedule: &ScheduleOp{Op: ScheduleAdd, Cron: "* * * * *"}}, "without an entry id"},
		{"schedule both", Entry{Type: TypeSchedule, Schedule: &ScheduleOp{Op: ScheduleAdd, ID: "s1", Cron: "* * * * *", At: &at}}, "either cron or at"},
		{"schedule bad op", Entry{Type: TypeSchedule, Schedule: &ScheduleOp{Op: "pause", ID: "s1"}}, `op "pause"`},
		{"subagent no id", Entry{Type: TypeSubagent, Subagent: &SubagentLink{}}, "without an id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewMemory("/p", testOpts()...)
			_, err := s.Append(tc.e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Append(%+v) = %v, want an error containing %q", tc.e, err, tc.want)
			}
			if s.Len() != 0 {
				t.Errorf("Len() = %d after a refused append, want 0", s.Len())
			}
		})
	}
}

// TestWorkPreview: the tree names work entries.
func TestWorkPreview(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	s.AppendChecklist(Checklist{Items: items("done:a", "pending:b")})
	s.AppendGoal(Goal{Objective: "ship it", Status: GoalActive})
	s.AppendSchedule(ScheduleOp{Op: ScheduleAdd, ID: "s2", Cron: "0 9 * * MON", Message: "standup"})
	s.AppendSubagent(SubagentLink{ID: "sa-3", Task: "review", Status: "running"})
	var got []string
	for n := s.Tree(); len(n.Children) > 0; n = n.Children[0] {
		got = append(got, n.Children[0].Preview)
	}
	want := []string{"plan: 1 of 2 done", "goal active: ship it", "schedule add s2 0 9 * * MON", "subagent sa-3 running: review"}
	if !slices.Equal(got, want) {
		t.Errorf("previews = %q, want %q", got, want)
	}
}

// TestWorkGolden writes one entry of each work type and compares the
// file byte for byte with testdata/work.jsonl (docs/sessions.md shows
// these lines).
func TestWorkGolden(t *testing.T) {
	s, err := CreateFile(filepath.Join(t.TempDir(), "work.jsonl"), "/work/project", testOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	steps := []func() error{
		func() error { return s.AppendMessage(user("refactor the parser"), Meta{}) },
		func() error {
			return s.AppendChecklist(Checklist{Items: items("done:Read the parser", "in_progress:Split the lexer", "pending:Run the tests"), Note: "lexer first"})
		},
		func() error {
			return s.AppendGoal(Goal{Objective: "make the tests pass", Status: GoalActive, By: "user"})
		},
		func() error {
			return s.AppendGoal(Goal{Objective: "make the tests pass", Status: GoalComplete, Reason: "go test passes", By: "model"})
		},
		func() error {
			return s.AppendSchedule(ScheduleOp{Op: ScheduleAdd, ID: "s1", Cron: "0 9 * * MON-FRI", Message: "check CI", Zone: "Europe/Paris"})
		},
		func() error {
			return s.AppendSchedule(ScheduleOp{Op: ScheduleAdd, ID: "s2", At: &at, Message: "ship it"})
		},
		func() error { return s.AppendSchedule(ScheduleOp{Op: ScheduleRun, ID: "s1", Due: &at}) },
		func() error { return s.AppendSchedule(ScheduleOp{Op: ScheduleMissed, ID: "s1", Due: &at, Missed: 3}) },
		func() error { return s.AppendSchedule(ScheduleOp{Op: ScheduleCancel, ID: "s1"}) },
		func() error {
			return s.AppendSubagent(SubagentLink{ID: "sa-1", Task: "review parser.go", Agent: "reviewer", Model: "anthropic/claude-haiku-4-5",
				Isolation: "worktree", Session: "/zut/sessions/p/2026-01-02T03-04-05.000Z_uuid.subagents/sa-1.jsonl", Status: "running"})
		},
		func() error {
			return s.AppendSubagent(SubagentLink{ID: "sa-1", Task: "review parser.go", Agent: "reviewer", Model: "anthropic/claude-haiku-4-5",
				Isolation: "worktree", Session: "/zut/sessions/p/2026-01-02T03-04-05.000Z_uuid.subagents/sa-1.jsonl", Status: "done",
				Result: "parser.go:12 divides by zero", Diff: "/zut/sessions/p/2026-01-02T03-04-05.000Z_uuid.subagents/sa-1.diff", Steps: 4, CostUSD: 0.0123})
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	s.Close()
	got, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "work.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("session file differs from %s (run go test -update and review the diff):\n%s", golden, got)
	}
	// And it reads back.
	r, warns, err := Open(s.Path())
	if err != nil || len(warns) > 0 {
		t.Fatalf("Open: %v %v", err, warns)
	}
	defer r.Close()
	if c, _ := r.Checklist(); len(c.Items) != 3 {
		t.Errorf("Checklist() after reopening = %+v", c)
	}
	if l := r.Subagents(); len(l) != 1 || l[0].CostUSD != 0.0123 {
		t.Errorf("Subagents() after reopening = %+v", l)
	}
}
