package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Tools returns subagent_spawn, subagent_status, subagent_stop and
// subagent_resume.
func (m *Manager) Tools() []tools.Tool {
	return []tools.Tool{&spawnTool{m}, &statusTool{m}, &stopTool{m}, &resumeTool{m}}
}

// MaxWait bounds the wait argument, in seconds.
const MaxWait = 3600

// Message is the result as the parent's model reads it.
func (r Result) Message() string {
	var b strings.Builder
	who := r.ID
	if r.Agent != "" {
		who += " (agent " + r.Agent + ")"
	}
	fmt.Fprintf(&b, "Subagent %s %s after %s", who, r.Status, tools.Plural(r.Steps, "step"))
	if r.Usage.CostUSD > 0 {
		fmt.Fprintf(&b, ", $%.4f", r.Usage.CostUSD)
	}
	b.WriteString(".\nTask: " + tools.FirstLine(r.Task, 200) + "\n")
	if r.Error != "" {
		b.WriteString("Error: " + r.Error + "\n")
	}
	text := r.Text
	if text == "" {
		text = "(it gave no answer)"
	}
	text, _ = tools.CapText(text, 400, 16<<10, "its whole transcript is in "+r.Session)
	b.WriteString("\n" + text + "\n")
	if r.Worktree != "" {
		switch {
		case r.Diff == "":
			b.WriteString("\nIts worktree " + r.Worktree + " has no changes.\n")
		default:
			hint := "the whole patch is in the worktree " + r.Worktree
			if r.DiffPath != "" {
				hint = "the whole patch is in " + r.DiffPath
			}
			diff, _ := tools.CapText(r.Diff, 400, 32<<10, hint)
			where := ""
			if r.DiffPath != "" {
				where = "; saved to " + r.DiffPath + " (apply it with git apply)"
			}
			fmt.Fprintf(&b, "\nThe changes in its worktree %s (%s%s):\n```diff\n%s\n```\n", r.Worktree, tools.Plural(strings.Count(r.Diff, "\n"), "line"), where, strings.TrimRight(diff, "\n"))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

type spawnTool struct{ m *Manager }

// The description of subagent_spawn, around its limit of subagents at
// once; the agent profiles follow. The host offers the tool with them
// before a Manager is made (TestToolDefinitions).
const (
	SpawnDescriptionHead = "Start a subagent: a separate agent with its own context that works on a task with your tools (not the interactive ones, and it cannot spawn subagents), then reports back. Use it for self-contained work that would fill your context (a broad search, a review, an independent change), and to run several tasks at once: at most "
	SpawnDescriptionTail = " run at the same time, the others wait. The task must say everything the subagent needs (it does not see this conversation) and what to report. wait: seconds to wait for the result (default 0: return at once with the id; the result then arrives as a message when the subagent finishes). isolation \"worktree\" gives it a git worktree of its own; the diff of its changes comes back with the result."
)

func (t *spawnTool) Definition() provider.Tool {
	desc := SpawnDescriptionHead + strconv.Itoa(t.m.c.MaxConcurrent) + SpawnDescriptionTail
	ps, _ := t.m.Profiles()
	if len(ps) > 0 {
		desc += "\n\nAgents (agent: name):"
		for _, p := range ps {
			d := p.Description
			if d == "" {
				d = "(no description)"
			}
			desc += "\n- " + p.Name + ": " + tools.FirstLine(d, 200)
		}
	}
	return provider.Tool{Name: "subagent_spawn", Description: desc, Schema: json.RawMessage(SpawnSchema)}
}

// The JSON schema of subagent_spawn, constant data (TestToolDefinitions).
const SpawnSchema = `{"additionalProperties":false,"properties":{"agent":{"description":"An agent profile's name (see the list); default: a general agent.","type":"string"},"isolation":{"description":"shared (default): your working directory; worktree: a git worktree of its own.","enum":["shared","worktree"],"type":"string"},"model":{"description":"A model (provider/id) instead of the profile's or yours.","type":"string"},"task":{"description":"Everything the subagent needs to know and do, and what to report.","type":"string"},"wait":{"description":"Seconds to wait for the result before returning.","maximum":3600,"minimum":0,"type":"number"}},"required":["task"],"type":"object"}`

func parseSpawn(raw json.RawMessage) (SpawnOptions, error) {
	a, err := tools.ParseArgs("subagent_spawn", raw, "task", "agent", "model", "wait", "isolation")
	if err != nil {
		return SpawnOptions{}, err
	}
	var o SpawnOptions
	if o.Task, err = a.String("task", true); err != nil {
		return o, err
	}
	if o.Agent, err = a.String("agent", false); err != nil {
		return o, err
	}
	if o.Model, err = a.String("model", false); err != nil {
		return o, err
	}
	if o.Isolation, err = a.String("isolation", false); err != nil {
		return o, err
	}
	w, err := waitArg(a)
	o.Wait = w
	return o, err
}

// waitArg reads wait: seconds, a number from 0 to MaxWait.
func waitArg(a *tools.Args) (time.Duration, error) {
	raw := a.Raw("wait")
	if raw == nil {
		return 0, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f < 0 || f > MaxWait {
		return 0, a.Errorf("wait must be a number of seconds from 0 to %d", MaxWait)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func (t *spawnTool) Preview(raw json.RawMessage) string {
	o, err := parseSpawn(raw)
	if err != nil {
		return "subagent_spawn (bad arguments)"
	}
	s := "subagent"
	if o.Agent != "" {
		s += " " + o.Agent
	}
	if o.Isolation == "worktree" {
		s += " (worktree)"
	}
	return s + ": " + tools.FirstLine(o.Task, 80)
}

// Describe is the whole task, for the confirmation dialog.
func (t *spawnTool) Describe(raw json.RawMessage) string {
	o, _ := parseSpawn(raw)
	return o.Task
}

// Validate reports what Run would reject in the arguments.
func (t *spawnTool) Validate(raw json.RawMessage) error {
	_, err := parseSpawn(raw)
	return err
}

// Concurrent says that calls of subagent_spawn in one reply start at
// once: each child waits for a free slot of its own (MaxConcurrent), and
// the calls with wait wait side by side.
func (t *spawnTool) Concurrent(json.RawMessage) bool { return true }

func (t *spawnTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	o, err := parseSpawn(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if progress != nil && o.Wait > 0 {
		progress("starting a subagent")
	}
	info, r, done, err := t.m.Spawn(ctx, o)
	if err != nil {
		return tools.ErrorResult("subagent_spawn: %v", err)
	}
	return answer(info, r, done)
}

// answer is the result of spawn and resume: the result when it is ready,
// else where the child stands.
func answer(info Info, r Result, done bool) tools.Result {
	if done {
		res := tools.TextResult(r.Message()).WithDetails(r)
		res.IsError = r.Status == "failed"
		return res
	}
	state := "is running"
	if info.State == "queued" {
		state = "waits for a free slot"
	}
	return tools.TextResult(fmt.Sprintf("Subagent %s %s. Its result will arrive as a message when it finishes; subagent_status shows its progress, subagent_stop stops it.", info.ID, state)).WithDetails(info)
}

type statusTool struct{ m *Manager }

func (t *statusTool) Definition() provider.Tool {
	return provider.Tool{Name: "subagent_status", Description: StatusDescription, Schema: json.RawMessage(StatusSchema)}
}

// What the model is told of the subagent_status tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	StatusDescription = "Show the subagents of this session: state (queued, running, done, failed, stopped), steps, cost and last activity; with id, one subagent with its result."
	StatusSchema      = `{"additionalProperties":false,"properties":{"id":{"description":"A subagent id (sa-1 ...); default: all.","type":"string"}},"type":"object"}`
)

func (t *statusTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("subagent_status", raw, "id")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	id, err := a.String("id", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if id == "" {
		list := t.m.List()
		if len(list) == 0 {
			return tools.TextResult("No subagents in this session.")
		}
		return tools.TextResult(StatusText(list)).WithDetails(list)
	}
	in, err := t.m.Status(id)
	if err != nil {
		return tools.ErrorResult("subagent_status: %v", err)
	}
	text := StatusText([]Info{in})
	if in.Error != "" {
		text += "\nerror: " + in.Error
	}
	if in.Result != "" {
		r, _ := tools.CapText(in.Result, 200, 16<<10, "the rest is in "+in.Session)
		text += "\nresult:\n" + r
	}
	return tools.TextResult(text).WithDetails(in)
}

// StatusText lists children one per line.
func StatusText(list []Info) string {
	var b strings.Builder
	for _, in := range list {
		fmt.Fprintf(&b, "%s  %-7s  %s", in.ID, in.State, tools.Plural(in.Steps, "step"))
		if in.CostUSD > 0 {
			fmt.Fprintf(&b, "  $%.4f", in.CostUSD)
		}
		if in.Agent != "" {
			b.WriteString("  agent " + in.Agent)
		}
		if in.Activity != "" {
			b.WriteString("  last: " + tools.FirstLine(in.Activity, 60))
		}
		b.WriteString("  task: " + tools.FirstLine(in.Task, 80) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

type stopTool struct{ m *Manager }

func (t *stopTool) Definition() provider.Tool {
	return provider.Tool{Name: "subagent_stop", Description: StopDescription, Schema: json.RawMessage(StopSchema)}
}

// What the model is told of the subagent_stop tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	StopDescription = "Stop a running or queued subagent. What it did so far stays in its session."
	StopSchema      = `{"additionalProperties":false,"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"}`
)

func (t *stopTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("subagent_stop", raw, "id")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	id, err := a.String("id", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	in, err := t.m.Stop(id)
	if err != nil {
		return tools.ErrorResult("subagent_stop: %v", err)
	}
	return tools.TextResult(fmt.Sprintf("Subagent %s stopped after %s.", in.ID, tools.Plural(in.Steps, "step"))).WithDetails(in)
}

type resumeTool struct{ m *Manager }

func (t *resumeTool) Definition() provider.Tool {
	return provider.Tool{Name: "subagent_resume", Description: ResumeDescription, Schema: json.RawMessage(ResumeSchema)}
}

// What the model is told of the subagent_resume tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ResumeDescription = "Continue a finished subagent with a new prompt: it keeps its context (what it read and did). Same wait as subagent_spawn."
	ResumeSchema      = `{"additionalProperties":false,"properties":{"id":{"type":"string"},"prompt":{"description":"What it should do next.","type":"string"},"wait":{"maximum":3600,"minimum":0,"type":"number"}},"required":["id","prompt"],"type":"object"}`
)

func (t *resumeTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("subagent_resume", raw, "id", "prompt", "wait")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	id, err := a.String("id", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	prompt, err := a.String("prompt", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	wait, err := waitArg(a)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	info, r, done, err := t.m.Resume(ctx, id, prompt, wait)
	if err != nil {
		return tools.ErrorResult("subagent_resume: %v", err)
	}
	return answer(info, r, done)
}
