package app

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider/providertest"
)

// workApp is an App against a scripted model server whose decide
// function sees every request.
type workApp struct {
	a      *App
	srv    *providertest.Server
	stderr *bytes.Buffer
	mu     sync.Mutex
	events []agent.Event
}

func newWorkApp(t *testing.T, decide func(providertest.Recorded) providertest.Reply, f Frontend, args ...string) *workApp {
	t.Helper()
	w := &workApp{stderr: &bytes.Buffer{}}
	w.srv = providertest.NewServerFunc(decide)
	t.Cleanup(w.srv.Close)
	home := t.TempDir()
	t.Chdir(t.TempDir())
	vars := map[string]string{"ZUT_HOME": home, "HOME": home, "ANTHROPIC_API_KEY": "k"}
	e := &Env{Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: w.stderr, Getenv: func(k string) string { return vars[k] }}
	o, err := ParseOptions(append([]string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", w.srv.URL, "--no-extensions", "--yolo"}, args...), io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Emit = func(ev agent.Event) { w.mu.Lock(); w.events = append(w.events, ev); w.mu.Unlock() }
	w.a, err = New(context.Background(), e, o, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.a.Close)
	return w
}

var childMarker = regexp.MustCompile(`\[(t[a-z])\]`)

// TestOneShotWaitsForSubagents: in print mode a prompt that started
// subagents without waiting waits for them and goes on with their
// results; nothing is left running.
func TestOneShotWaitsForSubagents(t *testing.T) {
	var mu sync.Mutex
	parent := 0
	decide := func(r providertest.Recorded) providertest.Reply {
		body := string(r.Raw)
		if strings.Contains(body, "You are a subagent") {
			k := childMarker.FindStringSubmatch(body)[1]
			return providertest.Reply{Text: "result of " + k, Delay: 50 * time.Millisecond}
		}
		mu.Lock()
		parent++
		n := parent
		mu.Unlock()
		switch {
		case n == 1:
			return providertest.Reply{Tools: []providertest.ToolCall{
				{ID: "a", Name: "subagent_spawn", Args: `{"task":"[ta] first"}`},
				{ID: "b", Name: "subagent_spawn", Args: `{"task":"[tb] second"}`},
			}}
		case strings.Contains(body, "[subagent result]"):
			return providertest.Reply{Text: "Both reported."}
		}
		return providertest.Reply{Text: "I started two subagents."}
	}
	w := newWorkApp(t, decide, Frontend{OneShot: true})
	if err := w.a.Prompt(context.Background(), agent.Input{Text: "split the work"}); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, r := range w.srv.Requests() {
		body := string(r.Raw)
		if !strings.Contains(body, "You are a subagent") && strings.Contains(body, "[subagent result]") {
			results = append(results, body)
		}
	}
	last := results[len(results)-1]
	for _, want := range []string{"Subagent sa-1 done", "result of ta", "Subagent sa-2 done", "result of tb"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last request lacks %q", want)
		}
	}
	if n := w.a.RunningSubagents(); n != 0 {
		t.Errorf("%d subagents still running", n)
	}
	if links := w.a.Session().Subagents(); len(links) != 2 || links[0].Status != "done" || links[1].Status != "done" {
		t.Errorf("links = %+v", links)
	}
}

// TestScheduleRefusedOneShot: print mode's schedule tool refuses, and
// starts no scheduler.
func TestScheduleRefusedOneShot(t *testing.T) {
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "x"} }, Frontend{OneShot: true})
	r, err := w.a.WorkCommand(context.Background(), "schedule", "")
	if err != nil || r.Text != "no scheduled entries" {
		t.Errorf("/schedule = %+v, %v", r, err)
	}
	for _, tl := range w.a.workTools() {
		if tl.Definition().Name == "schedule" {
			res := tl.Run(context.Background(), []byte(`{"action":"list"}`), nil)
			if !res.IsError || !strings.Contains(res.Text(), "print and JSON modes exit") {
				t.Errorf("schedule in print mode = %q", res.Text())
			}
		}
	}
}

// TestGoalInterrupted: interrupting a prompt while a goal is active
// pauses the goal, so that nothing continues by itself.
func TestGoalInterrupted(t *testing.T) {
	started := make(chan struct{}, 1)
	decide := func(providertest.Recorded) providertest.Reply {
		select {
		case started <- struct{}{}:
		default:
		}
		return providertest.Reply{Hang: true}
	}
	w := newWorkApp(t, decide, Frontend{}, "--goal", "finish the port")
	done := make(chan error, 1)
	go func() { done <- w.a.Prompt(context.Background(), agent.Input{}) }()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("no request within 30s")
	}
	w.a.Agent().Abort()
	if err := <-done; err != agent.ErrAborted {
		t.Errorf("Prompt = %v, want ErrAborted", err)
	}
	g, _ := w.a.Goal()
	if g.Status != session.GoalPaused || g.Reason != "interrupted by the user" {
		t.Errorf("goal = %+v, want paused by the interruption", g)
	}
	if !strings.Contains(string(w.srv.Requests()[0].Raw), "Goal: finish the port") {
		t.Error("the empty prompt did not start the goal")
	}
}

// TestWorkCommands: the commands' answers and bad inputs.
func TestWorkCommands(t *testing.T) {
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "x"} }, Frontend{})
	ctx := context.Background()
	cases := []struct {
		name, args string
		want       string
		prompt     string
		err        string
	}{
		{name: "plan", want: "no plan"},
		{name: "goal", want: "no goal: /goal <objective> sets one"},
		{name: "goal", args: "pause", err: "no goal is set"},
		{name: "goal", args: "ship the release", want: "goal set: ship the release", prompt: "Goal: ship the release"},
		{name: "goal", want: "goal (active): ship the release"},
		{name: "goal", args: "pause", want: "goal paused"},
		{name: "goal", args: "pause", err: "the goal is paused, not active"},
		{name: "goal", args: "resume", want: "goal resumed: ship the release", prompt: "Continue working toward the goal: ship the release"},
		{name: "goal", args: "history", want: "paused   user"},
		{name: "goal", args: "clear", want: "goal cleared"},
		{name: "schedule", want: "no scheduled entries"},
		{name: "schedule", args: "cancel", err: "needs an entry id"},
		{name: "schedule", args: "cancel s4", err: `no schedule entry "s4"`},
		{name: "schedule", args: "add x", err: "ask the model to add entries"},
		{name: "subagents", want: "no subagents in this session"},
		{name: "subagents", args: "stop sa-3", err: `no subagent "sa-3"`},
		{name: "subagents", args: "show", err: "needs an id"},
		{name: "subagents", args: "kill", err: "use /subagents"},
	}
	for _, tc := range cases {
		r, err := w.a.WorkCommand(ctx, tc.name, tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("/%s %s = %+v, %v; want an error containing %q", tc.name, tc.args, r, err, tc.err)
			}
		case err != nil || !strings.Contains(r.Text, tc.want) || !strings.HasPrefix(r.Prompt, tc.prompt):
			t.Errorf("/%s %s = %+v, %v; want %q and a prompt starting %q", tc.name, tc.args, r, err, tc.want, tc.prompt)
		}
	}
	var goals []string
	w.mu.Lock()
	for _, ev := range w.events {
		if g, ok := ev.(agent.GoalUpdate); ok {
			goals = append(goals, g.Status)
		}
	}
	w.mu.Unlock()
	if strings.Join(goals, ",") != "active,paused,active,cleared" {
		t.Errorf("goal events = %v", goals)
	}
}
