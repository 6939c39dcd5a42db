package app

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/host/hooks"
)

// Claude Code's hooks run on the same interception chain as extensions:
// hookBridge stands between the agent and the extension bridge and
// implements the agent's Extensions, Hooks and StopHooks. On every chain
// the extensions go first and the hooks after them, so a hook sees what
// the extensions made of the call, the prompt or the result:
//
//	tool_call           → extensions' tool_call, then PreToolUse (with the rewritten arguments)
//	tool_result         → extensions' tool_result, then PostToolUse
//	input               → extensions' input, then UserPromptSubmit (its context joins the prompt
//	                      after the extensions' before_agent_start text)
//	the model stops     → Stop (SubagentStop for a subagent)
//	before_compact      → extensions' before_compact, then PreCompact
//	a confirmation      → Notification
//	New / Close         → SessionStart (its context joins the system prompt) / SessionEnd
//
// An extension that blocks ends the chain: the hooks do not run.

// claudeToolNames are Claude Code's names of zut's tools, which hook
// matchers and tool_name use; other tools keep zut's name (MCP tools are
// mcp__server__tool in both).
func claudeToolNames() map[string]string {
	return claudeToolNamesLazy.get(func() map[string]string {
		return map[string]string{
			"bash": "Bash", "read": "Read", "write": "Write", "edit": "Edit", "grep": "Grep",
			"web_open": "WebFetch", "web_search": "WebSearch", "subagent_spawn": "Task", "plan": "TodoWrite",
		}
	})
}

var claudeToolNamesLazy lazy[map[string]string]

// claudeName is the name hooks see for zut's tool name.
func claudeName(name string) string {
	if c, ok := claudeToolNames()[name]; ok {
		return c
	}
	return name
}

// hookBridge runs the hooks of cfg around inner (nil without extensions).
type hookBridge struct {
	inner   agent.Extensions
	cfg     *hooks.Config
	run     hooks.Runner
	trusted func() bool
	// session returns the session's id and file.
	session func() (id, path string)
	emit    func(agent.Event)

	mu      sync.Mutex
	pending []string // UserPromptSubmit context for the prompt about to start

	notes sync.WaitGroup // Notification hooks running; Close waits
}

// errNoExtensions answers a call of an extension tool when none run.
var errNoExtensions = errors.New("no extensions are loaded (--no-extensions)")

var (
	_ agent.Extensions = (*hookBridge)(nil)
	_ agent.Hooks      = (*hookBridge)(nil)
	_ agent.StopHooks  = (*hookBridge)(nil)
)

// events maps the agent's interceptions onto hook events.
func hookEvents() map[string]hooks.Event {
	return hookEventsLazy.get(func() map[string]hooks.Event {
		return map[string]hooks.Event{
			"tool_call": hooks.PreToolUse, "tool_result": hooks.PostToolUse, "input": hooks.UserPromptSubmit,
			"before_agent_start": hooks.UserPromptSubmit, "before_compact": hooks.PreCompact,
		}
	})
}

var hookEventsLazy lazy[map[string]hooks.Event]

func (b *hookBridge) has(ev hooks.Event) bool { return b.cfg.Has(ev, b.trusted()) }

func (b *hookBridge) innerIntercepts(event string) bool {
	return b.inner != nil && b.inner.Intercepting(event)
}

// fire runs the hooks of ev whose matchers match subjects.
func (b *hookBridge) fire(ctx context.Context, ev hooks.Event, in hooks.Input, subjects ...string) hooks.Result {
	cmds := b.cfg.Commands(ev, b.trusted(), subjects...)
	if len(cmds) == 0 {
		return hooks.Result{}
	}
	in.Event = ev
	in.SessionID, in.TranscriptPath = b.session()
	res := b.run.Run(ctx, cmds, in)
	for _, m := range res.Messages {
		b.emit(agent.Notice{Level: "warn", Source: "hooks", Message: m})
	}
	return res
}

func (b *hookBridge) Tools() []agent.ExtensionTool {
	if b.inner == nil {
		return nil
	}
	return b.inner.Tools()
}

func (b *hookBridge) CallTool(ctx context.Context, call agent.ToolInvocation) (agent.ToolOutcome, error) {
	if b.inner == nil {
		return agent.ToolOutcome{}, errNoExtensions
	}
	return b.inner.CallTool(ctx, call)
}

func (b *hookBridge) Notify(ev agent.LifecycleEvent) {
	if ev.Name == "tool_confirmation_requested" && b.has(hooks.Notification) {
		in := hooks.Input{Message: "zut needs your permission to use " + claudeName(ev.ToolName)}
		b.notes.Add(1)
		go func() { // exits when the hooks have run (each within its timeout)
			defer b.notes.Done()
			b.fire(context.Background(), hooks.Notification, in)
		}()
	}
	if b.inner != nil {
		b.inner.Notify(ev)
	}
}

func (b *hookBridge) Intercepting(event string) bool {
	if b.innerIntercepts(event) {
		return true
	}
	ev, ok := hookEvents()[event]
	return ok && b.has(ev)
}

func (b *hookBridge) InterceptToolCall(ctx context.Context, id, name string, args json.RawMessage) agent.ToolCallDecision {
	d := agent.ToolCallDecision{Args: args}
	if b.innerIntercepts("tool_call") {
		d = b.inner.InterceptToolCall(ctx, id, name, args)
		if d.Block {
			return d
		}
		if len(d.Args) == 0 {
			d.Args = args
		}
	}
	if !b.has(hooks.PreToolUse) {
		return d
	}
	res := b.fire(ctx, hooks.PreToolUse, hooks.Input{ToolName: claudeName(name), ToolInput: b.claudeInput(name, d.Args)}, claudeName(name), name)
	switch {
	case res.Block:
		return agent.ToolCallDecision{Block: true, Reason: "a PreToolUse hook blocked this call: " + res.Reason}
	case res.Stop:
		return agent.ToolCallDecision{Block: true, Reason: "a PreToolUse hook stopped the work: " + res.StopReason}
	}
	d.Permission = res.Permission
	return d
}

// claudeInput is the tool_input hooks see: zut's arguments, with Claude
// Code's names beside them where they differ (file_path for path, made
// absolute; old_string and new_string for a single edit).
func (b *hookBridge) claudeInput(name string, args json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	switch name {
	case "read", "write", "edit":
		if p, ok := m["path"].(string); ok {
			if strings.HasPrefix(p, "~/") {
				// Left as written: the hook's shell knows ~.
			} else if !filepath.IsAbs(p) {
				p = filepath.Join(b.run.Dir, p)
			}
			m["file_path"] = p
		}
		if edits, ok := m["edits"].([]any); ok && len(edits) == 1 {
			if e, ok := edits[0].(map[string]any); ok {
				m["old_string"], m["new_string"] = e["oldText"], e["newText"]
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

func (b *hookBridge) InterceptTurnStart(ctx context.Context, step int) agent.TurnStartDecision {
	if b.innerIntercepts("turn_start") {
		return b.inner.InterceptTurnStart(ctx, step)
	}
	return agent.TurnStartDecision{}
}

func (b *hookBridge) InterceptAssistantMessage(ctx context.Context, text string) agent.AssistantMessageDecision {
	if b.innerIntercepts("assistant_message") {
		return b.inner.InterceptAssistantMessage(ctx, text)
	}
	return agent.AssistantMessageDecision{Text: text}
}

// innerHooks is the extensions' Hooks when they intercept event.
func (b *hookBridge) innerHooks(event string) agent.Hooks {
	if !b.innerIntercepts(event) {
		return nil
	}
	h, _ := b.inner.(agent.Hooks)
	return h
}

func (b *hookBridge) InterceptInput(ctx context.Context, text, source string) agent.InputDecision {
	d := agent.InputDecision{Text: text}
	if h := b.innerHooks("input"); h != nil {
		d = h.InterceptInput(ctx, text, source)
		if d.Handled {
			return d
		}
	}
	b.mu.Lock()
	b.pending = nil
	b.mu.Unlock()
	if !b.has(hooks.UserPromptSubmit) {
		return d
	}
	res := b.fire(ctx, hooks.UserPromptSubmit, hooks.Input{Prompt: d.Text})
	switch {
	case res.Block:
		return agent.InputDecision{Handled: true, Reason: "a UserPromptSubmit hook blocked the prompt; nothing was sent to the model: " + res.Reason}
	case res.Stop:
		return agent.InputDecision{Handled: true, Reason: "a UserPromptSubmit hook stopped the prompt: " + res.StopReason}
	}
	b.mu.Lock()
	b.pending = res.Context
	b.mu.Unlock()
	return d
}

func (b *hookBridge) InterceptBeforeAgentStart(ctx context.Context, prompt string) agent.BeforeAgentStartDecision {
	var d agent.BeforeAgentStartDecision
	if h := b.innerHooks("before_agent_start"); h != nil {
		d = h.InterceptBeforeAgentStart(ctx, prompt)
	}
	b.mu.Lock()
	extra := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(extra) > 0 {
		parts := append([]string(nil), extra...)
		if d.InjectText != "" {
			parts = append([]string{d.InjectText}, parts...)
		}
		d.InjectText = strings.Join(parts, "\n\n")
	}
	return d
}

func (b *hookBridge) InterceptToolResult(ctx context.Context, r agent.ToolResultInfo) agent.ToolResultDecision {
	d := agent.ToolResultDecision{Content: r.Content, IsError: r.IsError}
	if h := b.innerHooks("tool_result"); h != nil {
		d = h.InterceptToolResult(ctx, r)
		if !d.ContentSet {
			d.Content = r.Content
		}
	}
	if !b.has(hooks.PostToolUse) {
		return d
	}
	resp := map[string]any{"content": d.Content, "is_error": d.IsError}
	res := b.fire(ctx, hooks.PostToolUse, hooks.Input{ToolName: claudeName(r.ToolName), ToolInput: b.claudeInput(r.ToolName, r.Args), ToolResponse: resp},
		claudeName(r.ToolName), r.ToolName)
	var add []string
	if res.Block {
		add = append(add, "PostToolUse hook: "+res.Reason)
	}
	add = append(add, res.Context...)
	if res.Stop {
		add = append(add, "PostToolUse hook: stop here: "+res.StopReason)
	}
	if len(add) > 0 {
		d.ContentSet = true
		d.Content = strings.TrimRight(d.Content, "\n") + "\n\n" + strings.Join(add, "\n\n")
	}
	return d
}

func (b *hookBridge) InterceptContextPrepare(ctx context.Context, msgs []agent.ContextMessage) ([]agent.ContextMessage, bool) {
	if h := b.innerHooks("context_prepare"); h != nil {
		return h.InterceptContextPrepare(ctx, msgs)
	}
	return msgs, false
}

func (b *hookBridge) InterceptBeforeCompact(ctx context.Context, c agent.ContextStats) agent.CancelDecision {
	if h := b.innerHooks("before_compact"); h != nil {
		if d := h.InterceptBeforeCompact(ctx, c); d.Cancel {
			return d
		}
	}
	trigger := "manual"
	if c.IsAutomatic {
		trigger = "auto"
	}
	empty := ""
	// PreCompact cannot stop a compaction: its messages are shown.
	b.fire(ctx, hooks.PreCompact, hooks.Input{Trigger: trigger, CustomInstructions: &empty}, trigger)
	return agent.CancelDecision{}
}

func (b *hookBridge) InterceptStop(ctx context.Context, answer string, active bool) agent.StopDecision {
	return b.stop(ctx, hooks.Stop, active)
}

// InterceptSubagentStop runs SubagentStop for a subagent that would stop.
func (b *hookBridge) InterceptSubagentStop(ctx context.Context, answer string, active bool) agent.StopDecision {
	return b.stop(ctx, hooks.SubagentStop, active)
}

func (b *hookBridge) stop(ctx context.Context, ev hooks.Event, active bool) agent.StopDecision {
	if !b.has(ev) {
		return agent.StopDecision{}
	}
	res := b.fire(ctx, ev, hooks.Input{StopHookActive: &active})
	if res.Block && !res.Stop {
		return agent.StopDecision{Continue: true, Reason: res.Reason}
	}
	return agent.StopDecision{}
}

// sessionStart runs SessionStart and returns the context its hooks gave.
func (b *hookBridge) sessionStart(ctx context.Context, source string) string {
	res := b.fire(ctx, hooks.SessionStart, hooks.Input{Source: source}, source)
	return strings.Join(res.Context, "\n\n")
}

// sessionEnd runs SessionEnd and waits for the Notification hooks still
// running.
func (b *hookBridge) sessionEnd(ctx context.Context, reason string) {
	b.fire(ctx, hooks.SessionEnd, hooks.Input{Reason: reason}, reason)
	b.notes.Wait()
}
