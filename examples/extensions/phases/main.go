// Command phases is an example zut extension that keeps a multi-phase plan
// for the current session: the model sets and advances it with a tool, the
// plan is session state (restored per branch), every model turn gets the
// current phase as hidden context, and a status item and a widget show
// progress. It bundles a skill that tells the model how to use it.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

const schema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["plan", "next", "status", "clear"]},
    "phases": {"type": "array", "items": {"type": "string"}, "description": "the phases, in order, for plan"}
  },
  "required": ["action"]
}`

// plan is the session state: the phases and how many are finished.
type plan struct {
	Version int      `json:"version"`
	Phases  []string `json:"phases"`
	Done    int      `json:"done"`
}

type phases struct {
	e  *ext.Extension
	mu sync.Mutex
	p  plan
}

func main() {
	ph := &phases{e: ext.New("phases", "1.0.0")}
	e := ph.e
	for _, ev := range []string{ext.EventSessionOpened, ext.EventSessionSwitched, ext.EventSessionForked, ext.EventSessionCompacted} {
		e.On(ev, ph.restore)
	}
	e.On(ext.EventSessionStart, func(ext.Event) { ph.show() })
	e.Tool("phases", "Keep a plan of phases for this task: plan (phases), next (finish the current phase), status, clear.",
		json.RawMessage(schema), ph.tool)
	e.InterceptTurnStart(ph.turnStart)
	e.Command("phases", "show the plan", func(string) ext.Response { return ext.Display(ph.describe()) })
	e.Run()
}

func (ph *phases) tool(args json.RawMessage) ext.ToolResult {
	var in struct {
		Action string   `json:"action"`
		Phases []string `json:"phases"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return ext.TextErrorResult(`phases: the arguments must be an object like {"action":"plan","phases":["read","write"]}: ` + err.Error())
	}
	ph.mu.Lock()
	switch in.Action {
	case "plan":
		var clean []string
		for _, s := range in.Phases {
			if s = strings.TrimSpace(s); s != "" {
				clean = append(clean, s)
			}
		}
		if len(clean) == 0 {
			ph.mu.Unlock()
			return ext.TextErrorResult("phases: plan needs a non-empty list of phases")
		}
		ph.p = plan{Version: 1, Phases: clean}
	case "next":
		if ph.p.Done >= len(ph.p.Phases) {
			ph.mu.Unlock()
			return ext.TextErrorResult("phases: there is no current phase; make a plan first")
		}
		ph.p.Done++
	case "clear":
		ph.p = plan{Version: 1}
	case "status":
	default:
		ph.mu.Unlock()
		return ext.TextErrorResult(fmt.Sprintf("phases: unknown action %q; use plan, next, status or clear", in.Action))
	}
	snapshot := ph.p
	ph.mu.Unlock()
	ph.show()
	r := ext.TextResult(ph.describe())
	r.Details = ext.JSONDetails(snapshot)
	return r
}

// restore takes the plan saved on the session branch; a branch without
// one has no plan.
func (ph *phases) restore(ev ext.Event) {
	var p plan
	if len(ev.State) > 0 {
		if err := json.Unmarshal(ev.State, &p); err != nil {
			ph.e.Logf("ignored unreadable session state: %v", err)
		}
	}
	ph.mu.Lock()
	ph.p = p
	ph.mu.Unlock()
	ph.show()
}

// turnStart gives the model the current phase before every turn, as
// hidden context that is not saved in the transcript.
func (ph *phases) turnStart(step int) ext.TurnStartDecision {
	ph.mu.Lock()
	p := ph.p
	ph.mu.Unlock()
	if p.Done >= len(p.Phases) {
		return ext.TurnStartDecision{}
	}
	ctx := fmt.Sprintf("Current phase (%d/%d): %s", p.Done+1, len(p.Phases), p.Phases[p.Done])
	if rest := p.Phases[p.Done+1:]; len(rest) > 0 {
		ctx += "\nRemaining: " + strings.Join(rest, "; ")
	}
	ctx += "\nWhen this phase is finished, call the phases tool with action next."
	return ext.TurnStartDecision{Context: ctx}
}

// show updates the status item and the widget.
func (ph *phases) show() {
	ph.mu.Lock()
	p := ph.p
	ph.mu.Unlock()
	if len(p.Phases) == 0 {
		ph.e.ClearStatus("phase")
		ph.e.ClearWidget("phases")
		return
	}
	if p.Done >= len(p.Phases) {
		ph.e.SetStatus("phase", ext.LevelSuccess, fmt.Sprintf("all %d phases done", len(p.Phases)))
	} else {
		ph.e.SetStatus("phase", ext.LevelInfo, fmt.Sprintf("phase %d/%d: %s", p.Done+1, len(p.Phases), p.Phases[p.Done]))
	}
	ph.e.SetWidget("phases", ext.WidgetPositionAboveInput, "Phases", lines(p))
}

func lines(p plan) []string {
	var out []string
	for i, s := range p.Phases {
		switch {
		case i < p.Done:
			out = append(out, "✓ "+s)
		case i == p.Done:
			out = append(out, "▶ "+s)
		default:
			out = append(out, "· "+s)
		}
	}
	return out
}

func (ph *phases) describe() string {
	ph.mu.Lock()
	p := ph.p
	ph.mu.Unlock()
	if len(p.Phases) == 0 {
		return "No plan. The model makes one with the phases tool (action plan)."
	}
	return fmt.Sprintf("%d/%d phases done\n%s", p.Done, len(p.Phases), strings.Join(lines(p), "\n"))
}
