package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Confirmer asks the user whether a tool call may run.
type Confirmer interface {
	Confirm(ctx context.Context, req ConfirmRequest) (ConfirmAnswer, error)
}

// ConfirmRequest describes the call awaiting approval.
type ConfirmRequest struct {
	ToolID  string
	Name    string
	Args    json.RawMessage
	Preview string
	// Body is the whole call for the dialog to show, never cut: the
	// command line of bash, the code of python, a subagent's task, or the
	// arguments as indented JSON (extension and MCP tools). It is empty
	// when Change shows the call, or when the call has no arguments.
	Body string
	// Change is what a write or edit would do to its file (nil for other
	// tools), for the dialog to show.
	Change *tools.FileChange
	// Once asks for this request only: the dialog offers no "always",
	// and nothing is remembered (the rerun of a command the sandbox
	// blocked, without the sandbox).
	Once bool
}

// ConfirmAnswer is the user's decision.
type ConfirmAnswer struct {
	Allow  bool
	Always bool   // remember for this tool name for the rest of the session
	Reason string // shown to the model when denied
	// Stop denies the call and ends the turn (Esc in the dialog): no
	// further model request is made. The denied call, and the calls of the
	// same reply after it, get tool results saying so, so that the
	// conversation stays valid for the next prompt.
	Stop bool
}

// Policy decides which calls need asking.
type Policy struct {
	// Yolo runs every tool without asking.
	Yolo bool
	// DenyMutating refuses mutating tools when no Confirmer can ask
	// (--no-yolo in print and JSON modes).
	DenyMutating bool
	// Interactive is true when interactive extension tools can run (a
	// person can see their panels).
	Interactive bool
	// Rules allow, ask about or deny calls by tool and argument pattern
	// (nil: none). Deny rules hold even with Yolo.
	Rules *permissions.Set
	// CWD is the project directory the rules' paths are relative to.
	CWD string
	// DenyHint, when set, replaces the --no-yolo advice in the message
	// of a call DenyMutating refuses (for example: add an --allow rule).
	DenyHint string
	// Withheld are built-in tools this run does not offer, with why (a
	// packaged agent's ceiling): a call of one gets that reason.
	Withheld map[string]string
	// AlwaysAsk are tools every call of which a person confirms: no
	// allow rule, no Yolo and no "always" answer lets one run unasked,
	// and without a Confirmer each is refused (a packaged agent's bash
	// "ask"). AlwaysAskWhy names who demands it, for the refusal.
	AlwaysAsk    []string
	AlwaysAskWhy string
}

// policy returns the confirmation policy and confirmer.
func (a *Agent) policy() (Policy, Confirmer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Policy, a.cfg.Confirm
}

// toolDefs lists the tools offered in the next request: built-ins, then
// extension tools whose names no built-in and no reserved name takes.
func (a *Agent) toolDefs() []provider.Tool {
	var defs []provider.Tool
	taken := map[string]bool{}
	for _, t := range a.cfg.Tools {
		d := t.Definition()
		taken[d.Name] = true
		if a.isActive(d.Name) {
			defs = append(defs, d)
		}
	}
	for _, et := range a.extTools() {
		if taken[et.Def.Name] || tools.IsReserved(et.Def.Name) {
			continue
		}
		taken[et.Def.Name] = true
		if a.isActive(et.Def.Name) {
			defs = append(defs, et.Def)
		}
	}
	return defs
}

func (a *Agent) extTools() []ExtensionTool {
	if a.cfg.Extensions == nil {
		return nil
	}
	return a.cfg.Extensions.Tools()
}

func (a *Agent) builtin(name string) tools.Tool {
	for _, t := range a.cfg.Tools {
		if t.Definition().Name == name {
			return t
		}
	}
	return nil
}

func (a *Agent) extTool(name string) (ExtensionTool, bool) {
	if tools.IsReserved(name) {
		return ExtensionTool{}, false
	}
	for _, et := range a.extTools() {
		if et.Def.Name == name {
			return et, true
		}
	}
	return ExtensionTool{}, false
}

// runTools runs the tool calls of one assistant message and returns one
// tool_result block per call, in the order of the calls, also for calls
// that were blocked, denied, failed or never started because the prompt
// was aborted. Calls are taken in order: each is announced, intercepted
// and confirmed before the next. A call of a tools.Concurrent tool then
// starts on a goroutine of its own while the next calls are taken; any
// other call first waits for those running, and runs alone. stopped
// reports that the user stopped the turn at a confirmation; the calls
// already running then finish.
func (a *Agent) runTools(ctx context.Context, uses []provider.Block, stop provider.StopReason) (results []provider.Block, stopped bool) {
	out := make([]provider.Block, len(uses))
	finish := func(i int, r tools.Result) {
		u := uses[i]
		a.cfg.Emit(ToolResult{ID: u.ID, Name: u.Name, IsError: r.IsError, Content: Blocks(r.Content), Details: r.Details})
		content := r.Content
		if len(content) == 0 {
			content = []provider.Block{provider.TextBlock("(no output)")}
		}
		out[i] = provider.Block{Type: provider.BlockToolResult, ToolUseID: u.ID, Content: content, IsError: r.IsError}
	}
	// running are the concurrent calls started and not yet finished,
	// each with the channel its result arrives on.
	type started struct {
		i    int
		done chan tools.Result
	}
	var running []started
	join := func() {
		for _, s := range running {
			finish(s.i, <-s.done)
		}
		running = nil
	}
	for i, u := range uses {
		conc := ctx.Err() == nil && !stopped && isObject(u.Input) && a.concurrent(u)
		if !conc {
			// Any other call waits for the running ones, and is checked
			// after them: the user may have aborted the turn meanwhile.
			join()
		}
		var r tools.Result
		switch {
		case ctx.Err() != nil:
			r = errResult("tool call not run: the user aborted the turn")
		case stopped:
			r = errResult(fmt.Sprintf("tool call %q not run: the user stopped the turn when asked about an earlier call", u.Name))
		case !isObject(u.Input) && stop == provider.StopMaxTokens:
			r = errResult(fmt.Sprintf("tool call %q not run: the reply reached the output limit before its arguments were complete; make the call again with smaller arguments", u.Name))
		case !isObject(u.Input):
			r = errResult(fmt.Sprintf("tool call %q not run: its arguments are not a JSON object (%s); call it again with a JSON object", u.Name, clip(string(u.Input), 200)))
		case conc:
			var exec func() tools.Result
			r, exec, stopped = a.prepareTool(ctx, u)
			done := make(chan tools.Result, 1)
			if exec != nil {
				go func() { done <- exec() }() // joined by join, before runTools returns
			} else {
				done <- r // refused: its result waits for those of the calls before it
			}
			running = append(running, started{i, done})
			continue
		default:
			r, stopped = a.runTool(ctx, u)
		}
		if len(running) > 0 {
			// Aborted just now, after earlier calls started: its result
			// waits for theirs.
			done := make(chan tools.Result, 1)
			done <- r
			running = append(running, started{i, done})
			continue
		}
		finish(i, r)
	}
	join()
	return out, stopped
}

// concurrent reports whether the call u may run beside the calls around
// it (tools.Concurrent).
func (a *Agent) concurrent(u provider.Block) bool {
	c, ok := a.builtin(u.Name).(tools.Concurrent)
	return ok && c.Concurrent(rawArgs(u.Input))
}

// runTool takes one call through notification, interception, lookup,
// validation, confirmation and execution; stop reports that the user
// denied the call and stopped the turn.
func (a *Agent) runTool(ctx context.Context, u provider.Block) (r tools.Result, stop bool) {
	r, exec, stop := a.prepareTool(ctx, u)
	if exec == nil {
		return r, stop
	}
	return exec(), false
}

// prepareTool takes one call through notification, interception,
// lookup, validation and confirmation. A call that may run comes back as
// exec, which runs it (its execution has been announced); a call that
// may not comes back as its result, with stop when the user denied it
// and stopped the turn. exec may run on another goroutine.
func (a *Agent) prepareTool(ctx context.Context, u provider.Block) (r tools.Result, exec func() tools.Result, stop bool) {
	args := rawArgs(u.Input)
	a.cfg.Emit(ToolCall{ID: u.ID, Name: u.Name, Args: args})
	a.notify(LifecycleEvent{Name: "tool_call", ToolID: u.ID, ToolName: u.Name, ToolArgs: args, Source: "llm"})

	hookPerm := ""
	if x := a.cfg.Extensions; x != nil && x.Intercepting("tool_call") {
		d := x.InterceptToolCall(ctx, u.ID, u.Name, args)
		if d.Block {
			reason := d.Reason
			if reason == "" {
				reason = "blocked by an extension"
			}
			if d.By != "" {
				reason = fmt.Sprintf("%s (blocked by extension %q)", reason, d.By)
			}
			return errResult(reason), nil, false
		}
		if len(d.Args) > 0 {
			args = d.Args
		}
		hookPerm = d.Permission
	}

	bt := a.builtin(u.Name)
	et, isExt := a.extTool(u.Name)
	if bt == nil && !isExt {
		if pol, _ := a.policy(); pol.Withheld[u.Name] != "" {
			return errResult(fmt.Sprintf("tool %q is not offered in this run: %s; available tools: %s", u.Name, pol.Withheld[u.Name], strings.Join(a.toolNames(), ", "))), nil, false
		}
		return errResult(fmt.Sprintf("unknown tool %q; available tools: %s", u.Name, strings.Join(a.toolNames(), ", "))), nil, false
	}
	if !a.isActive(u.Name) {
		avail := "none"
		if names := a.toolNames(); len(names) > 0 {
			avail = strings.Join(names, ", ")
		}
		return errResult(fmt.Sprintf("tool %q is not available now (an extension limited the tools); available tools: %s", u.Name, avail)), nil, false
	}
	if pol, _ := a.policy(); isExt && bt == nil && et.Interactive && !pol.Interactive {
		return errResult(fmt.Sprintf("tool %q needs a person to answer in the interactive terminal; it cannot run in this mode", u.Name)), nil, false
	}

	if v, ok := bt.(tools.Validator); ok {
		// The tool's own checks first: a call that cannot run gets its
		// error, and nobody is asked about it.
		if err := v.Validate(args); err != nil {
			return errResult(err.Error()), nil, false
		}
	}
	c := call{id: u.ID, name: u.Name, args: args, bt: bt, isExt: isExt && bt == nil, hookPerm: hookPerm}
	if bt != nil {
		c.schema = bt.Definition().Schema
	} else {
		c.schema = et.Def.Schema
	}
	if v := a.confirm(ctx, c); v.deny {
		return errResult(v.reason), nil, v.stop
	}

	a.cfg.Emit(ToolExecutionStarted{ID: u.ID, Name: u.Name})
	a.notify(LifecycleEvent{Name: "tool_execution_start", ToolID: u.ID, ToolName: u.Name})
	return tools.Result{}, func() tools.Result { return a.execute(ctx, u, args, bt) }, false
}

// execute runs a confirmed call: the built-in bt, or the extension's
// tool when bt is nil.
func (a *Agent) execute(ctx context.Context, u provider.Block, args json.RawMessage, bt tools.Tool) tools.Result {
	progress := progressFunc(u.ID, a.cfg.Emit)
	if bt != nil {
		return a.afterTool(ctx, u, args, bt.Run(ctx, args, progress))
	}
	out, err := a.cfg.Extensions.CallTool(ctx, ToolInvocation{ToolID: u.ID, Name: u.Name, Args: args, Progress: progress})
	if err != nil {
		if ctx.Err() != nil {
			return a.afterTool(ctx, u, args, errResult(fmt.Sprintf("tool %q cancelled: the user aborted the turn", u.Name)))
		}
		return a.afterTool(ctx, u, args, errResult(err.Error()))
	}
	if out.StateSet {
		if err := a.cfg.Store.AppendState(out.Extension, out.State); err != nil {
			a.cfg.Emit(Notice{Level: "warn", Source: out.Extension, Message: "save extension state: " + err.Error()})
		}
	}
	if out.Warning != "" {
		a.cfg.Emit(Notice{Level: "warn", Source: out.Extension, Message: out.Warning})
	}
	return a.afterTool(ctx, u, args, out.Result)
}

// call is one tool call on its way to the confirmation.
type call struct {
	id, name string
	args     json.RawMessage
	bt       tools.Tool      // the built-in tool, nil for an extension's
	isExt    bool            // an extension tool
	schema   json.RawMessage // the tool's argument schema
	hookPerm string          // a PreToolUse hook's permissionDecision: "", allow, ask
}

// verdict is what confirm decided: deny says the call does not run,
// reason is the result the model gets, stop ends the turn.
type verdict struct {
	deny   bool
	reason string
	stop   bool
}

// confirm applies the policy. The rules decide first (deny, then ask,
// then allow); without a rule, read-only calls run and the others are
// asked about. When nobody can be asked, a call that would be asked runs,
// unless DenyMutating (or an ask rule) refuses it. Refusals by policy are
// also emitted as a Notice, so that headless modes report them. Before
// anyone is asked the call is checked: against its schema when the tool
// has no checks of its own, and against the file for write and edit
// (Plan); a call that would fail gets its error and no question.
func (a *Agent) confirm(ctx context.Context, c call) verdict {
	pol, confirmer := a.policy()
	name, args := c.name, c.args
	d := pol.Rules.Check(permissions.Call{Tool: name, Args: args, CWD: pol.CWD})
	effect, rule := d.Effect, d.Rule
	// why is what the rules say about the command: which of its commands
	// a rule matched, or why zut cannot tell what it runs.
	why := ""
	if d.Reason != "" {
		why = ": " + d.Reason
	}
	switch {
	case c.hookPerm == "allow" && effect != permissions.Deny && effect != permissions.Ask && !slices.Contains(pol.AlwaysAsk, name):
		// A PreToolUse hook allowed it: no question, unless a rule
		// denies or asks.
		return verdict{}
	case c.hookPerm == "ask" && effect != permissions.Deny:
		effect, rule = permissions.Ask, permissions.Rule{Effect: permissions.Ask, Tool: name, Source: "PreToolUse hook"}
	}
	refuse := func(reason string) verdict {
		a.cfg.Emit(Notice{Level: "warn", Message: "refused " + name + ": " + reason})
		return verdict{deny: true, reason: fmt.Sprintf("tool %q was denied: %s", name, reason)}
	}
	always := slices.Contains(pol.AlwaysAsk, name)
	switch {
	case effect == permissions.Deny:
		return refuse(fmt.Sprintf("the permission rule deny %s (%s) refuses it%s; do it another way or ask the user", rule, rule.Source.Describe(), why))
	case always && confirmer == nil:
		return refuse(fmt.Sprintf("%s has every %s call confirmed by a person, and nobody can confirm it in this mode; run it in the interactive UI or do without it", pol.AlwaysAskWhy, name))
	case always:
		// asked below, whatever the rules, --yolo or an earlier "always"
	case effect == permissions.Allow, pol.Yolo:
		return verdict{}
	}
	mutates := c.isExt
	if m, ok := c.bt.(tools.Mutator); ok {
		mutates = m.Mutates(args)
	}
	if !mutates && effect != permissions.Ask && !always {
		return verdict{}
	}
	a.mu.Lock()
	remembered := a.always[name]
	a.mu.Unlock()
	if remembered && effect != permissions.Ask && !always {
		return verdict{}
	}
	if confirmer == nil {
		switch {
		case effect == permissions.Ask:
			return refuse(fmt.Sprintf("the permission rule ask %s (%s) needs a person to confirm it%s, and nobody can in this mode", rule, rule.Source.Describe(), why))
		case pol.DenyMutating && pol.DenyHint != "" && d.Reason != "":
			return refuse(d.Reason + "; " + pol.DenyHint)
		case pol.DenyMutating && pol.DenyHint != "":
			return refuse(pol.DenyHint)
		case pol.DenyMutating:
			return refuse("zut runs with --no-yolo, which refuses tools that change files or run commands; use read-only tools or ask the user to rerun without --no-yolo")
		}
		return verdict{}
	}
	if _, ok := c.bt.(tools.Validator); !ok {
		if err := tools.CheckArgs(name, c.schema, args); err != nil {
			return verdict{deny: true, reason: err.Error()}
		}
	}
	// An always-asked call offers no "always": nothing is remembered.
	req := ConfirmRequest{ToolID: c.id, Name: name, Args: args, Preview: c.preview(), Once: always}
	if p, ok := c.bt.(tools.Planner); ok {
		fc, err := p.Plan(args)
		if err != nil {
			return verdict{deny: true, reason: err.Error() + "; the call was not run"}
		}
		req.Change = &fc
	}
	req.Body = c.body(req.Change)
	a.notify(LifecycleEvent{Name: "tool_confirmation_requested", ToolID: c.id, ToolName: name, ToolPreview: req.Preview})
	ans, err := confirmer.Confirm(ctx, req)
	if err != nil {
		return verdict{deny: true, reason: fmt.Sprintf("tool %q was not run: %v", name, err)}
	}
	if ans.Stop {
		reason := "the user stopped the turn; wait for the next prompt"
		if ans.Reason != "" {
			reason = "the user stopped the turn (" + ans.Reason + "); wait for the next prompt"
		}
		return verdict{deny: true, stop: true, reason: fmt.Sprintf("tool %q was denied: %s", name, reason)}
	}
	if !ans.Allow {
		reason := ans.Reason
		if reason == "" {
			reason = "the user declined this tool call"
		}
		return verdict{deny: true, reason: fmt.Sprintf("tool %q was denied: %s", name, reason)}
	}
	if ans.Always && !always {
		a.mu.Lock()
		a.always[name] = true
		a.mu.Unlock()
	}
	return verdict{}
}

// preview is the short line shown in the confirmation dialog.
func (c call) preview() string { return previewOf(c.bt, c.name, c.args) }

// body is the whole call for the dialog: what the tool describes, else
// the arguments as indented JSON, unless the change shows the call.
func (c call) body(change *tools.FileChange) string {
	if d, ok := c.bt.(tools.Describer); ok {
		return d.Describe(c.args)
	}
	if change != nil && !change.Truncated {
		return ""
	}
	t := bytes.TrimSpace(c.args)
	if len(t) == 0 || string(t) == "{}" || string(t) == "null" {
		return ""
	}
	var out bytes.Buffer
	if json.Indent(&out, t, "", "  ") != nil {
		return string(t)
	}
	return out.String()
}

// previewOf is the short line shown in the confirmation dialog.
func previewOf(bt tools.Tool, name string, args json.RawMessage) string {
	if p, ok := bt.(tools.Previewer); ok {
		return p.Preview(args)
	}
	return name + " " + clip(string(args), 200)
}

func (a *Agent) toolNames() []string {
	var names []string
	for _, d := range a.toolDefs() {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// isObject reports whether raw is a JSON object (absent counts as {}).
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || (t[0] == '{' && json.Valid(t))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func errResult(msg string) tools.Result {
	return tools.Result{Content: []provider.Block{provider.TextBlock(msg)}, IsError: true}
}

// progressFunc is the progress callback of call id. A tool reports its
// progress as a whole each time (each text replaces the previous one);
// the events carry that whole text as Progress and, as Text, what is new
// since the previous one. It is safe for concurrent use.
func progressFunc(id string, emit func(Event)) func(string) {
	var mu sync.Mutex
	prev := ""
	return func(text string) {
		mu.Lock()
		delta := newText(prev, text)
		prev = text
		mu.Unlock()
		emit(ToolProgress{ID: id, Text: delta, Progress: text})
	}
}

// newText is what cur adds to prev: the rest of cur when it continues
// prev, or what follows the longest run of whole lines that ends prev
// and starts cur (a window of the last lines that moved on); otherwise
// all of cur.
func newText(prev, cur string) string {
	if strings.HasPrefix(cur, prev) {
		return cur[len(prev):]
	}
	for k := min(len(prev), len(cur)); k > 0; k-- {
		if cur[k-1] == '\n' && strings.HasSuffix(prev, cur[:k]) {
			return cur[k:]
		}
	}
	return cur
}
