package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// TestSpawnWaits: a child that finishes within wait returns its result
// inline; it has its own session beside the parent's, linked from it;
// its tools lack the subagent tools; its cost is in the parent's totals.
func TestSpawnWaits(t *testing.T) {
	r := newRig(t, rigOptions{children: map[string][]providertest.Reply{
		"t1": {
			{Text: "Looking.", Tools: []providertest.ToolCall{toolCall("c1", "bash", `{"command":"echo hi-from-child"}`)}, Usage: provider.Usage{Input: 100, Output: 10}},
			{Text: "The answer is 42.", Usage: provider.Usage{Input: 200, Output: 20}},
		},
	}})
	res := run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[t1] find the answer","wait":30}`)
	if res.IsError || !strings.Contains(res.Text(), "Subagent sa-1 done after 2 steps") || !strings.Contains(res.Text(), "The answer is 42.") {
		t.Fatalf("spawn = %q, want sa-1's answer", res.Text())
	}
	reqs := r.childRequests("t1")
	if len(reqs) != 2 {
		t.Fatalf("%d child requests, want 2", len(reqs))
	}
	for _, name := range []string{"subagent_spawn", "update_goal", `"name":"schedule"`} {
		if strings.Contains(reqs[0], name) {
			t.Errorf("the child was offered %s", name)
		}
	}
	if !strings.Contains(reqs[0], `"name":"bash"`) || !strings.Contains(reqs[0], `"name":"plan"`) {
		t.Errorf("the child lacks the parent's bash or its own plan tool")
	}
	if !strings.Contains(reqs[1], "hi-from-child") {
		t.Errorf("the child's second request lacks its tool result")
	}
	links := r.sess.Subagents()
	if len(links) != 1 || links[0].Status != "done" || links[0].Result != "The answer is 42." || links[0].Steps != 2 {
		t.Fatalf("links = %+v, want sa-1 done", links)
	}
	wantDir := strings.TrimSuffix(r.sess.Path(), ".jsonl") + ".subagents"
	if filepath.Dir(links[0].Session) != wantDir {
		t.Errorf("child session %s, want it in %s", links[0].Session, wantDir)
	}
	msgs, err := r.m.Transcript("sa-1")
	if err != nil || len(msgs) != 4 {
		t.Errorf("Transcript(sa-1) = %d messages, %v; want 4", len(msgs), err)
	}
	if _, err := os.Stat(links[0].Session); err != nil {
		t.Errorf("child session file: %v", err)
	}
	if u := r.parent.Usage(); u.Input != 300 || u.Output != 30 {
		t.Errorf("parent usage = %+v, want the child's 300 in, 30 out", u)
	}
	if n := len(r.eventsOf("subagent_start")); n != 1 {
		t.Errorf("%d subagent_start events, want 1", n)
	}
	ends := r.eventsOf("subagent_end")
	if len(ends) != 1 || ends[0].(agent.SubagentEnd).Status != "done" || ends[0].(agent.SubagentEnd).Usage.Input != 300 {
		t.Errorf("subagent_end events = %+v", ends)
	}
	select {
	case res := <-r.results:
		t.Errorf("a waited-for result was delivered too: %+v", res)
	default:
	}
}

// TestSpawnDetached: without wait the parent gets the id at once, and the
// result is delivered when the child finishes.
func TestSpawnDetached(t *testing.T) {
	gate := make(chan struct{})
	r := newRig(t, rigOptions{gate: gate, children: map[string][]providertest.Reply{"t2": {{Text: "Detached result."}}}})
	res := run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[t2] go"}`)
	if res.IsError || !strings.Contains(res.Text(), "Subagent sa-1 is running") {
		t.Fatalf("spawn = %q, want sa-1 running", res.Text())
	}
	st := run(t, toolNamed(r.m, "subagent_status"), `{}`)
	if !strings.Contains(st.Text(), "sa-1  running") {
		t.Errorf("status = %q, want sa-1 running", st.Text())
	}
	close(gate)
	got := r.result()
	if got.ID != "sa-1" || got.Status != "done" || got.Text != "Detached result." {
		t.Errorf("delivered %+v", got)
	}
	if m := got.Message(); !strings.Contains(m, "Subagent sa-1 done") || !strings.Contains(m, "Task: [t2] go") {
		t.Errorf("Message() = %q", m)
	}
}

// TestConcurrency: at most MaxConcurrent children run at once; the rest
// queue and run when a slot frees.
func TestConcurrency(t *testing.T) {
	gate := make(chan struct{})
	r := newRig(t, rigOptions{gate: gate, cfg: func(c *Config) { c.MaxConcurrent = 2 }})
	for _, k := range []string{"ta", "tb", "tc", "td"} {
		if res := run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[`+k+`] work"}`); res.IsError {
			t.Fatal(res.Text())
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var states []string
		for _, in := range r.m.List() {
			states = append(states, in.State)
		}
		slices.Sort(states)
		if strings.Join(states, ",") == "queued,queued,running,running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states = %v, want two running and two queued", states)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(gate)
	for range 4 {
		if res := r.result(); res.Status != "done" {
			t.Errorf("result %+v", res)
		}
	}
	r.models.mu.Lock()
	maxSeen := r.models.maxSeen
	r.models.mu.Unlock()
	if maxSeen > 2 {
		t.Errorf("%d child requests at once, want at most 2", maxSeen)
	}
}

// TestStopAndClose: a stopped child reports stopped; Close ends every
// child, its processes and goroutines.
func TestStopAndClose(t *testing.T) {
	before := runtime.NumGoroutine()
	// The sleep's command line is this run's own (sleep adds up its
	// arguments), so that pgrep finds no other test's sleep.
	sleep := fmt.Sprintf("sleep 300 0.%09d", os.Getpid())
	func() {
		r := newRig(t, rigOptions{children: map[string][]providertest.Reply{
			"ts": {{Hang: true}},
			"tp": {{Tools: []providertest.ToolCall{toolCall("c1", "bash", `{"command":"`+sleep+`","timeout":600}`)}}},
		}})
		run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[ts] hang"}`)
		run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[tp] sleep"}`)
		// Wait until the sleep runs.
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(r.m.List()[1].Activity, sleep) {
			if time.Now().After(deadline) {
				t.Fatalf("the child never ran its command: %+v", r.m.List())
			}
			time.Sleep(5 * time.Millisecond)
		}
		res := run(t, toolNamed(r.m, "subagent_stop"), `{"id":"sa-1"}`)
		if res.IsError || !strings.Contains(res.Text(), "stopped") {
			t.Fatalf("stop = %q", res.Text())
		}
		if in, _ := r.m.Status("sa-1"); in.State != "stopped" {
			t.Errorf("sa-1 is %s, want stopped", in.State)
		}
		select {
		case got := <-r.results:
			t.Errorf("a stopped child's result was delivered: %+v", got)
		default:
		}
		if res := run(t, toolNamed(r.m, "subagent_stop"), `{"id":"sa-1"}`); !res.IsError || !strings.Contains(res.Text(), "not running (it is stopped)") {
			t.Errorf("second stop = %q", res.Text())
		}
		if res := run(t, toolNamed(r.m, "subagent_stop"), `{"id":"sa-9"}`); !res.IsError || !strings.Contains(res.Text(), "the subagents are sa-1, sa-2") {
			t.Errorf("stop sa-9 = %q", res.Text())
		}
		r.m.Close()
		if n := r.m.Running(); n != 0 {
			t.Errorf("Running() = %d after Close", n)
		}
		if out, err := exec.Command("pgrep", "-f", sleep).Output(); err == nil && len(out) > 0 {
			t.Errorf("processes left after Close: %s", out)
		}
		if _, _, _, err := r.m.Spawn(context.Background(), SpawnOptions{Task: "x"}); err != ErrClosed {
			t.Errorf("Spawn after Close = %v, want ErrClosed", err)
		}
		r.srv.Close()
	}()
	waitGoroutines(t, before+2) // the HTTP client may keep an idle connection's reader
}

// TestBudgetAndCrash: a child looping until its step budget, and one
// whose tool panics, fail with clear errors.
func TestBudgetAndCrash(t *testing.T) {
	loop := []providertest.Reply{}
	for i := 0; i < 10; i++ {
		loop = append(loop, providertest.Reply{Text: "again", Tools: []providertest.ToolCall{toolCall("l", "bash", `{"command":"true"}`)}})
	}
	r := newRig(t, rigOptions{
		cfg:   func(c *Config) { c.MaxSteps = 3 },
		tools: append(tools.Builtins(tools.Config{CWD: t.TempDir(), TempDir: t.TempDir()}), panicTool{}),
		children: map[string][]providertest.Reply{
			"tl": loop,
			"tc": {{Tools: []providertest.ToolCall{toolCall("p", "explode", `{}`)}}},
		},
	})
	res := run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[tl] loop","wait":60}`)
	if !res.IsError || !strings.Contains(res.Text(), "stopped after 3 steps, its step budget (subagents.max_steps)") {
		t.Errorf("looping child = %q", res.Text())
	}
	res = run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[tc] crash","wait":60}`)
	if !res.IsError || !strings.Contains(res.Text(), "failed") || !strings.Contains(res.Text(), "the subagent crashed: boom") {
		t.Errorf("crashing child = %q", res.Text())
	}
	// A failed request is a failure too.
	r.models.mu.Lock()
	r.models.children["te"] = []providertest.Reply{{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "bad model"}}
	r.models.mu.Unlock()
	res = run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[te] fail","wait":60}`)
	if !res.IsError || !strings.Contains(res.Text(), "bad model") {
		t.Errorf("failing child = %q", res.Text())
	}
}

// panicTool panics when it runs.
type panicTool struct{}

func (panicTool) Definition() provider.Tool {
	return tools.Define("explode", "panics", map[string]any{"type": "object"})
}
func (panicTool) Run(context.Context, json.RawMessage, func(string)) tools.Result { panic("boom") }

// TestBadSpawns: bad arguments and profiles give clear errors.
func TestBadSpawns(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".zut", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Task\n---\nYou review.")
	writeFile(t, filepath.Join(dir, ".zut", "agents", "bad.md"), "---\nname: bad\ntools: [read, teleport]\n---\nx")
	writeFile(t, filepath.Join(dir, ".zut", "agents", "asker.md"), "---\nname: asker\ntools:\n  - read\n  - ask_user\n---\nx")
	writeFile(t, filepath.Join(dir, ".zut", "agents", "spawner.md"), "---\nname: spawner\ntools: subagent_spawn\n---\nx")
	ext := &fakeExt{tools: []agent.ExtensionTool{
		{Extension: "dialog", Interactive: true, Def: provider.Tool{Name: "ask_user", Schema: json.RawMessage(`{"type":"object"}`)}},
		{Extension: "weather", Def: provider.Tool{Name: "weather", Schema: json.RawMessage(`{"type":"object"}`)}},
	}}
	r := newRig(t, rigOptions{dir: dir, ext: ext})
	spawn := toolNamed(r.m, "subagent_spawn")
	if d := spawn.Definition().Description; !strings.Contains(d, "- reviewer: Reviews diffs.") {
		t.Errorf("spawn description lacks the profiles:\n%s", d)
	}
	cases := []struct{ args, want string }{
		{`{}`, "task is required"},
		{`{"task":"  "}`, "task is empty"},
		{`{"task":"x","agent":"nobody"}`, `no agent profile "nobody"; the profiles are asker, bad, reviewer, spawner`},
		{`{"task":"x","agent":"bad"}`, `names tool "teleport", which zut does not have`},
		{`{"task":"x","agent":"asker"}`, `names tool "ask_user" of extension "dialog", which needs a person at the interactive terminal`},
		{`{"task":"x","agent":"spawner"}`, `subagents never have`},
		{`{"task":"x","isolation":"vm"}`, `isolation "vm" is not shared or worktree`},
		{`{"task":"x","wait":-1}`, "wait must be a number of seconds"},
		{`{"task":"x","wait":"soon"}`, "wait must be a number of seconds"},
		{`{"task":"x","model":"nosuch/model"}`, "cannot switch models"},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			res := run(t, spawn, tc.args)
			if !res.IsError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("spawn %s = %q, want an error containing %q", tc.args, res.Text(), tc.want)
			}
		})
	}
	if res := run(t, toolNamed(r.m, "subagent_status"), `{"id":"sa-7"}`); !res.IsError || !strings.Contains(res.Text(), "none was spawned") {
		t.Errorf("status sa-7 = %q", res.Text())
	}
	if res := run(t, toolNamed(r.m, "subagent_resume"), `{"id":"sa-7","prompt":"go on"}`); !res.IsError || !strings.Contains(res.Text(), `no subagent "sa-7"`) {
		t.Errorf("resume sa-7 = %q", res.Text())
	}
	// The profile's tools: read and grep, not bash; interactive tools
	// are never offered.
	r.models.mu.Lock()
	r.models.children["tr"] = []providertest.Reply{{Text: "reviewed"}}
	r.models.mu.Unlock()
	if res := run(t, spawn, `{"task":"[tr] review","agent":"reviewer","wait":30}`); res.IsError {
		t.Fatal(res.Text())
	}
	req := r.childRequests("tr")[0]
	for _, want := range []string{`"name":"read"`, `"name":"grep"`, "You review.", "# Your role: reviewer"} {
		if !strings.Contains(req, want) {
			t.Errorf("reviewer's request lacks %s", want)
		}
	}
	for _, not := range []string{`"name":"bash"`, `"name":"ask_user"`, `"name":"weather"`} {
		if strings.Contains(req, not) {
			t.Errorf("reviewer was offered %s", not)
		}
	}
	if len(ext.notified) != 0 {
		t.Errorf("extensions got the child's events: %v", ext.notified)
	}
}

// fakeExt is an extension host with fixed tools.
type fakeExt struct {
	tools    []agent.ExtensionTool
	notified []string
}

func (f *fakeExt) Tools() []agent.ExtensionTool { return f.tools }
func (f *fakeExt) CallTool(ctx context.Context, call agent.ToolInvocation) (agent.ToolOutcome, error) {
	return agent.ToolOutcome{Result: tools.TextResult("sunny")}, nil
}
func (f *fakeExt) Notify(ev agent.LifecycleEvent) { f.notified = append(f.notified, ev.Name) }
func (f *fakeExt) Intercepting(string) bool       { return false }
func (f *fakeExt) InterceptToolCall(context.Context, string, string, json.RawMessage) agent.ToolCallDecision {
	return agent.ToolCallDecision{}
}
func (f *fakeExt) InterceptTurnStart(context.Context, int) agent.TurnStartDecision {
	return agent.TurnStartDecision{}
}
func (f *fakeExt) InterceptAssistantMessage(ctx context.Context, text string) agent.AssistantMessageDecision {
	return agent.AssistantMessageDecision{Text: text}
}

// TestWorktree: an isolated child works in a worktree of its own; its
// diff comes back with the result and is saved; Close removes the
// worktree.
func TestWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "root"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r := newRig(t, rigOptions{dir: dir, children: map[string][]providertest.Reply{
		"tw": {
			{Tools: []providertest.ToolCall{toolCall("w", "write", `{"path":"notes.txt","content":"from the child\n"}`)}},
			{Text: "Wrote notes.txt."},
		},
	}})
	res := run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[tw] write notes","isolation":"worktree","wait":60}`)
	if res.IsError {
		t.Fatal(res.Text())
	}
	var got Result
	if err := json.Unmarshal(res.Details, &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Diff, "+from the child") || !strings.Contains(res.Text(), "```diff") {
		t.Errorf("result = %q, want the diff of notes.txt", res.Text())
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil {
		t.Error("the child wrote into the parent's directory")
	}
	if data, err := os.ReadFile(got.DiffPath); err != nil || !strings.Contains(string(data), "notes.txt") {
		t.Errorf("diff file %s: %v", got.DiffPath, err)
	}
	if !strings.Contains(r.childRequests("tw")[0], "You work in your own git worktree at "+got.Worktree) {
		t.Error("the child was not told about its worktree")
	}
	r.m.Close()
	if _, err := os.Stat(got.Worktree); err == nil {
		t.Errorf("worktree %s is left after Close", got.Worktree)
	}
}

// TestResume: a finished child continues with its context, in this run
// and after a restart (reopened from its session file).
func TestResume(t *testing.T) {
	r := newRig(t, rigOptions{children: map[string][]providertest.Reply{
		"tz": {{Text: "First answer."}, {Text: "Second answer."}, {Text: "Third answer."}},
	}})
	run(t, toolNamed(r.m, "subagent_spawn"), `{"task":"[tz] start","wait":30}`)
	res := run(t, toolNamed(r.m, "subagent_resume"), `{"id":"sa-1","prompt":"and then?","wait":30}`)
	if res.IsError || !strings.Contains(res.Text(), "Second answer.") {
		t.Fatalf("resume = %q", res.Text())
	}
	if req := r.childRequests("tz")[1]; !strings.Contains(req, "First answer.") || !strings.Contains(req, "and then?") {
		t.Errorf("the resumed request lacks the earlier context")
	}
	path := r.sess.Path()
	r.m.Close()
	r.sess.Close()

	// A new run of zut on the same session.
	r2 := newRig(t, rigOptions{dir: r.dir, sessPath: path, children: map[string][]providertest.Reply{"tz": {{Text: "After the restart."}}}})
	if in, err := r2.m.Status("sa-1"); err != nil || in.State != "done" {
		t.Errorf("Status(sa-1) after restart = %+v, %v", in, err)
	}
	res = run(t, toolNamed(r2.m, "subagent_resume"), `{"id":"sa-1","prompt":"once more","wait":30}`)
	if res.IsError || !strings.Contains(res.Text(), "After the restart.") {
		t.Fatalf("resume after restart = %q", res.Text())
	}
	if req := r2.childRequests("tz")[0]; !strings.Contains(req, "Second answer.") {
		t.Errorf("the request after the restart lacks the child's context")
	}
	msgs, err := r2.m.Transcript("sa-1")
	if err != nil || len(msgs) != 6 {
		t.Errorf("Transcript = %d messages, %v; want 6", len(msgs), err)
	}
	// A new spawn takes the next id.
	if in, _, _, err := r2.m.Spawn(context.Background(), SpawnOptions{Task: "[tn] new"}); err != nil || in.ID != "sa-2" {
		t.Errorf("Spawn = %+v, %v; want sa-2", in, err)
	}
}
