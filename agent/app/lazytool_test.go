package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/goal"
	"github.com/zut-go/zut/agent/plan"
	"github.com/zut-go/zut/agent/schedule"
	"github.com/zut-go/zut/agent/subagent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/lsp"
	"github.com/zut-go/zut/agent/tools/python"
	"github.com/zut-go/zut/agent/tools/syntax"
	"github.com/zut-go/zut/agent/tools/web"
	"github.com/zut-go/zut/agent/tools/worktree"
	"github.com/zut-go/zut/provider/providertest"
)

// TestLazyTools holds every lazyTool to the tool it stands for: the same
// definition and the same optional interfaces, which the agent branches
// on (edit and write are diagnosed, which has them all).
func TestLazyTools(t *testing.T) {
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "ok"} }, Frontend{})
	cfg := w.a.toolConfig(w.a.Skills())
	wb := web.New(web.Config{})
	defer wb.Close()
	py := python.New(cfg, python.Config{})
	defer py.Close()
	real := append(tools.Builtins(cfg), py, syntax.New(cfg, syntax.Config{}), worktree.New(cfg, worktree.Config{}), lsp.NewManager(lsp.Config{CWD: cfg.CWD}).Tool())
	real = append(append(real, wb.Tools()...), plan.New(plan.Config{}))
	real = append(real, goal.New(goal.Config{}).Tool(), schedule.New(schedule.Config{}).Tool())
	real = append(real, subagent.New(subagent.Config{}).Tools()...)
	c := func() tools.Config { return cfg }
	lazy := append(append(w.a.builtins(c, true), w.a.lazyTools(c)...), w.a.webProxies()...)
	for _, tool := range w.a.buildTools(w.a.Skills()) {
		if n := tool.Definition().Name; n == plan.ToolName || n == goal.ToolName || n == schedule.ToolName || strings.HasPrefix(n, "subagent_") {
			lazy = append(lazy, tool)
		}
	}
	if len(lazy) != len(real) {
		t.Fatalf("%d lazy tools, want %d", len(lazy), len(real))
	}
	kinds := func(x tools.Tool) []bool {
		_, p := x.(tools.Previewer)
		_, d := x.(tools.Describer)
		_, v := x.(tools.Validator)
		_, m := x.(tools.Mutator)
		_, pl := x.(tools.Planner)
		_, c := x.(tools.Concurrent)
		return []bool{p, d, v, m, pl, c}
	}
	for i, r := range real {
		l := lazy[i]
		name := r.Definition().Name
		if !reflect.DeepEqual(l.Definition(), r.Definition()) {
			t.Errorf("%s: lazy definition %+v, want %+v", name, l.Definition(), r.Definition())
		}
		want := kinds(r)
		if name == "edit" || name == "write" {
			want = []bool{true, true, true, true, true, false}
		}
		if got := kinds(l); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lazy tool implements (Previewer, Describer, Validator, Mutator, Planner, Concurrent) %v, want %v", name, got, want)
		}
		args := json.RawMessage(`{}`)
		if p, ok := r.(tools.Previewer); ok {
			if got, want := l.(tools.Previewer).Preview(args), p.Preview(args); got != want {
				t.Errorf("%s: lazy Preview = %q, want %q", name, got, want)
			}
		}
	}
}

// TestToolsMadeOnFirstCall: offering the tools (in a one-shot mode, which
// starts no scheduler) makes none of the stateful ones; a call makes the
// one it calls.
func TestToolsMadeOnFirstCall(t *testing.T) {
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "ok"} }, Frontend{OneShot: true})
	ts := &w.a.toolset
	byName := map[string]tools.Tool{}
	for _, tool := range w.a.buildTools(w.a.Skills()) {
		byName[tool.Definition().Name] = tool
	}
	made := func() []bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return []bool{ts.py != nil, ts.lsp != nil, ts.web != nil}
	}
	if got := made(); !reflect.DeepEqual(got, []bool{false, false, false}) {
		t.Fatalf("after buildTools, made (python, lsp, web) = %v, want none", got)
	}
	if w.a.work.madeSubagents() != nil || w.a.work.madeTracker() != nil || w.a.work.sched != nil {
		t.Fatal("after buildTools, the subagent manager, the goal tracker or the scheduler was made")
	}
	if got := w.a.Subagents(); got == nil || len(got) != 0 {
		t.Errorf("Subagents() = %#v before the manager is made, want an empty list", got)
	}
	byName["subagent_status"].Run(context.Background(), json.RawMessage(`{}`), nil)
	if w.a.work.madeSubagents() == nil {
		t.Error("after subagent_status ran, no subagent manager was made")
	}
	byName["schedule"].Run(context.Background(), json.RawMessage(`{"action": "list"}`), nil)
	byName["update_goal"].Run(context.Background(), json.RawMessage(`{"status": "complete", "reason": "r"}`), nil)
	if w.a.work.madeTracker() == nil || w.a.work.sched == nil {
		t.Error("after schedule and update_goal ran, the scheduler or the goal tracker was not made")
	}
	for i, name := range []string{"python", "lsp", "web_open"} {
		byName[name].(tools.Previewer).Preview(json.RawMessage(`{}`))
		if got := made(); !got[i] {
			t.Errorf("after %s's Preview, made (python, lsp, web) = %v", name, got)
		}
	}
}

// TestProfileDirs holds the app's list of agent profile directories to
// package subagent's.
func TestProfileDirs(t *testing.T) {
	for _, tc := range []struct{ cwd, zutHome, home string }{
		{"/p", "/z", "/h"}, {"", "/z", "/h"}, {"/p", "", "/h"}, {"/p", "/z", ""}, {"", "", ""},
	} {
		a := &App{cwd: tc.cwd, home: tc.zutHome, env: &Env{Getenv: func(k string) string {
			if k == "HOME" {
				return tc.home
			}
			return ""
		}}}
		if got, want := a.profileDirs(), subagent.ProfileDirs(tc.cwd, tc.zutHome, tc.home); !reflect.DeepEqual(got, want) {
			t.Errorf("profileDirs(%+v) = %q, want %q", tc, got, want)
		}
	}
}

// TestSubagentProfilesListed: with an agent profile, subagent_spawn
// lists it (the manager's own tools are offered).
func TestSubagentProfilesListed(t *testing.T) {
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "ok"} }, Frontend{})
	dir := filepath.Join(w.a.cwd, ".zut", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\ndescription: Reviews a change.\n---\nReview it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range w.a.buildTools(w.a.Skills()) {
		if d := tool.Definition(); d.Name == "subagent_spawn" {
			if !strings.Contains(d.Description, "\n- reviewer: Reviews a change.") {
				t.Errorf("subagent_spawn's description does not list the profile:\n%s", d.Description)
			}
			return
		}
	}
	t.Fatal("no subagent_spawn")
}
