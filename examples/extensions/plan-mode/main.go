// Command plan-mode is an example zut extension that uses the protocol
// additions beyond v2. Plan mode restricts the model to read-only tools,
// shows a status item, and adds instructions to the system prompt. It is
// toggled with /plan, with the Ctrl+Alt+P shortcut, or started by the
// option "plan" (ZUT_OPT_PLAN=true, or options.plan in config.json).
// Other extensions hear about each change as the custom event
// "plan-mode".
package main

import (
	"context"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

// readOnly are the tools plan mode leaves to the model.
var readOnly = []string{"read", "grep", "skill"}

// instructions go into the system prompt of every prompt in plan mode.
const instructions = `You are in PLAN MODE. You can only read and search; you cannot change files or run commands.
Study the code, answer questions, and write a step-by-step plan. Ask the user to leave plan mode (/plan off) to carry it out.`

type planner struct {
	e      *ext.Extension
	mu     sync.Mutex
	active bool
}

func main() {
	e := ext.New("plan-mode", "1.0.0")
	// Requests (tools, options, custom events) and UI frames (status,
	// print) are made from handlers at run time: declare them.
	e.Use(ext.CapHostRequests, ext.CapUI2)
	p := &planner{e: e}
	ctx := context.Background()

	e.RegisterOption("plan", "start in plan mode (read-only tools)", "false")
	e.Shortcut("ctrl+alt+p", "toggle plan mode", func() { p.set(ctx, !p.isActive()) })
	e.Command("plan", "toggle plan mode, read-only tools (/plan [on|off])", func(args string) ext.Response {
		on := !p.isActive()
		switch strings.ToLower(strings.TrimSpace(args)) {
		case "on":
			on = true
		case "off":
			on = false
		case "":
		default:
			return ext.ErrorResponse("/plan takes on, off or nothing (to toggle)")
		}
		if err := p.set(ctx, on); err != nil {
			return ext.ErrorResponse("plan mode: " + err.Error())
		}
		return ext.Noop()
	})
	e.On(ext.EventSessionStart, func(ext.Event) {
		if v, err := e.Option(ctx, "plan"); err == nil && strings.EqualFold(v, "true") {
			p.set(ctx, true)
		}
	})
	e.InterceptBeforeAgentStart(func(string) ext.BeforeAgentStartDecision {
		if !p.isActive() {
			return ext.BeforeAgentStartDecision{}
		}
		return ext.BeforeAgentStartDecision{SystemPrompt: instructions}
	})
	e.Run()
}

func (p *planner) isActive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.active
}

// set turns plan mode on or off: the tools offered to the model, the
// status item, a note in the transcript and a custom event.
func (p *planner) set(ctx context.Context, on bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.e
	var tools []string // nil: every tool again
	if on {
		tools = readOnly
	}
	if err := e.SetActiveTools(ctx, tools); err != nil {
		return err
	}
	p.active = on
	if on {
		e.SetStatusItem("plan-mode", ext.LevelWarn, "PLAN MODE (read-only)", 10)
		e.Print(ext.StyleInfo, "Plan mode ON: the model can only read and search.")
	} else {
		e.ClearStatus("plan-mode")
		e.Print(ext.StyleInfo, "Plan mode OFF: every tool is back.")
	}
	return e.EmitCustom(ctx, "plan-mode", map[string]bool{"active": on})
}
