package goal

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
)

type recorder struct {
	mu  sync.Mutex
	evs []agent.Event
}

func (r *recorder) emit(ev agent.Event) { r.mu.Lock(); r.evs = append(r.evs, ev); r.mu.Unlock() }

func (r *recorder) statuses() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.evs {
		if g, ok := ev.(agent.GoalUpdate); ok {
			out = append(out, g.Status+"/"+g.By)
		}
	}
	return out
}

func newTracker(b Budget) (*Tracker, *session.Session, *recorder) {
	s := session.NewMemory("/p")
	r := &recorder{}
	return New(Config{Session: func() *session.Session { return s }, Emit: r.emit, Budget: b}), s, r
}

// TestLifecycle walks a goal through set, pause, resume, the model's
// updates and clear, checking the session's history and the events.
func TestLifecycle(t *testing.T) {
	tr, s, rec := newTracker(Budget{})
	if _, err := tr.Pause("", "user"); err != ErrNoGoal {
		t.Errorf("Pause without a goal = %v, want ErrNoGoal", err)
	}
	if _, err := tr.Set("  ", "user"); err == nil {
		t.Error("Set(blank) succeeded, want an error")
	}
	if _, err := tr.Set("make the tests pass", "user"); err != nil {
		t.Fatal(err)
	}
	if !tr.Active() {
		t.Fatal("Active() = false after Set")
	}
	if _, err := tr.Pause("lunch", "user"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Update(session.GoalComplete, "done", ""); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Errorf("Update on a paused goal = %v, want an error naming paused", err)
	}
	if _, ok := tr.Next(); ok {
		t.Error("Next() continues a paused goal")
	}
	if _, err := tr.Resume("user"); err != nil {
		t.Fatal(err)
	}
	if g, err := tr.Update(session.GoalActive, "", "make the parser tests pass"); err != nil || g.Objective != "make the parser tests pass" {
		t.Errorf("Update(active) = %+v, %v; want the refined objective", g, err)
	}
	if _, err := tr.Update(session.GoalBlocked, "needs a key", ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Next(); ok {
		t.Error("Next() continues a blocked goal")
	}
	if _, err := tr.Clear("user"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Current(); ok {
		t.Error("Current() is set after Clear")
	}
	want := []string{"active/user", "paused/user", "active/user", "active/model", "blocked/model", "cleared/user"}
	if got := rec.statuses(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	var hist []string
	for _, h := range s.GoalHistory() {
		hist = append(hist, h.Status+"/"+h.By)
	}
	if !slices.Equal(hist, want) {
		t.Errorf("history = %v, want %v", hist, want)
	}
}

// TestBudget: Next continues until a budget is spent, then pauses the
// goal with the reason.
func TestBudget(t *testing.T) {
	cases := []struct {
		name    string
		budget  Budget
		perTurn func(tr *Tracker)
		want    int // continuations before the pause
		reason  string
	}{
		{"turns", Budget{MaxTurns: 3}, func(*Tracker) {}, 3, "3 continuation turns"},
		{"steps", Budget{MaxTurns: 50, MaxSteps: 5}, func(tr *Tracker) { tr.Observe(agent.TurnStart{Step: 1}); tr.Observe(agent.TurnStart{Step: 2}) }, 2, "5 model steps"},
		{"cost", Budget{MaxCostUSD: 1}, func(tr *Tracker) { tr.Observe(agent.Usage{CostUSD: 0.3}) }, 3, "goal.max_cost_usd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, _ := newTracker(tc.budget)
			tr.Set("loop", "user")
			n := 0
			for {
				tc.perTurn(tr)
				p, ok := tr.Next()
				if !ok {
					break
				}
				n++
				if !strings.Contains(p, "Continue working toward the goal: loop") {
					t.Fatalf("Next() = %q, want the continuation prompt", p)
				}
				if n > 100 {
					t.Fatal("Next() never stops")
				}
			}
			if n != tc.want {
				t.Errorf("%d continuations, want %d", n, tc.want)
			}
			g, _ := tr.Current()
			if g.Status != session.GoalPaused || g.By != "budget" || !strings.Contains(g.Reason, tc.reason) {
				t.Errorf("goal = %+v, want paused by budget naming %q", g, tc.reason)
			}
			// Resume starts a fresh budget.
			tr.Resume("user")
			if _, ok := tr.Next(); !ok && tc.name == "turns" {
				t.Error("Next() after Resume = false, want a continuation")
			}
		})
	}
}

// TestInterrupted pauses an active goal, and leaves others alone.
func TestInterrupted(t *testing.T) {
	tr, _, _ := newTracker(Budget{})
	tr.Interrupted() // no goal: nothing
	tr.Set("x", "user")
	tr.Interrupted()
	if g, _ := tr.Current(); g.Status != session.GoalPaused || g.Reason != "interrupted by the user" {
		t.Errorf("goal = %+v, want paused by the interruption", g)
	}
}

// TestTool: update_goal's arguments and answers.
func TestTool(t *testing.T) {
	cases := []struct {
		name, args string
		noGoal     bool
		want       string
		isErr      bool
		status     string
	}{
		{"complete", `{"status":"complete","reason":"tests pass"}`, false, "Goal marked complete", false, session.GoalComplete},
		{"blocked", `{"status":"blocked","reason":"needs the API key"}`, false, "Goal marked blocked", false, session.GoalBlocked},
		{"refine", `{"status":"active","objective":"fix both parsers"}`, false, "Goal refined: fix both parsers", false, session.GoalActive},
		{"no reason", `{"status":"complete"}`, false, "reason is required", true, session.GoalActive},
		{"refine without objective", `{"status":"active"}`, false, "give the new objective", true, session.GoalActive},
		{"bad status", `{"status":"won","reason":"x"}`, false, `status "won"`, true, session.GoalActive},
		{"unknown arg", `{"status":"complete","reason":"x","why":1}`, false, `unknown argument "why"`, true, session.GoalActive},
		{"no goal", `{"status":"complete","reason":"x"}`, true, "no goal is set", true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, _ := newTracker(Budget{})
			if !tc.noGoal {
				tr.Set("fix the parser", "user")
			}
			r := tr.Tool().Run(context.Background(), json.RawMessage(tc.args), nil)
			if r.IsError != tc.isErr || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("Run(%s) = %q (error %v), want %q (error %v)", tc.args, r.Text(), r.IsError, tc.want, tc.isErr)
			}
			g, _ := tr.Current()
			if g.Status != tc.status {
				t.Errorf("status after Run(%s) = %q, want %q", tc.args, g.Status, tc.status)
			}
		})
	}
}
