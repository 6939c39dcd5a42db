package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// ModelChange: the model changed (an addition to the RPC event set).
// Model and PreviousModel are "provider/id"; Source is "user" or
// "extension".
type ModelChange struct {
	Model         string `json:"model"`
	PreviousModel string `json:"previous_model"`
	Source        string `json:"source"`
}

// EventType returns "model_change".
func (ModelChange) EventType() string { return "model_change" }

// runInput runs one input through the extensions' input event and
// interception, then as a prompt between agent_start and agent_end.
func (a *Agent) runInput(ctx context.Context, in Input) error {
	source := in.Source
	if source == "" {
		source = "cli"
	}
	a.notify(LifecycleEvent{Name: "input", Text: in.Text, Source: source})
	if h := a.hooks("input"); h != nil {
		d := h.InterceptInput(ctx, in.Text, source)
		if d.Handled {
			if d.Reason != "" {
				a.cfg.Emit(Notice{Level: "warn", Source: d.By, Message: d.Reason})
			} else {
				a.cfg.Emit(Notice{Level: "info", Source: d.By, Message: "input handled by the extension; nothing was sent to the model"})
			}
			return nil
		}
		in.Text = d.Text
	}
	var inject string
	a.mu.Lock()
	a.promptSystem, a.lastAnswer = "", ""
	a.mu.Unlock()
	if h := a.hooks("before_agent_start"); h != nil {
		d := h.InterceptBeforeAgentStart(ctx, in.Text)
		inject = d.InjectText
		a.mu.Lock()
		a.promptSystem = d.SystemPrompt
		a.mu.Unlock()
	}
	a.notify(LifecycleEvent{Name: "agent_start", Prompt: in.Text})
	err := a.run(ctx, in, inject)
	a.mu.Lock()
	answer := a.lastAnswer
	a.promptSystem, a.lastAnswer = "", ""
	a.mu.Unlock()
	end := LifecycleEvent{Name: "agent_end", Response: answer, Stop: "completed"}
	switch {
	case errors.Is(err, ErrAborted) || (err != nil && ctx.Err() != nil):
		end.Stop = "cancelled"
	case err != nil:
		end.Stop, end.Error = "error", oneLine(err)
	}
	a.notify(end)
	return err
}

// systemFor returns the system prompt of the next request: the
// configured one, the running prompt's before_agent_start text, and the
// system text injected by context_prepare.
func (a *Agent) systemFor(extra string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	parts := []string{a.cfg.System}
	for _, s := range []string{a.promptSystem, extra} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// SetActiveTools restricts the tools offered to the model to names, from
// the next request on; nil offers every tool again. Names that match no
// tool are kept, so a tool registered later can become active.
func (a *Agent) SetActiveTools(names []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if names == nil {
		a.active = nil
		return
	}
	a.active = slices.Clone(names)
}

// ActiveTools returns the names set with SetActiveTools; restricted is
// false when every tool is offered.
func (a *Agent) ActiveTools() (names []string, restricted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.active), a.active != nil
}

// isActive reports whether the tool name may be offered and run.
func (a *Agent) isActive(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.active == nil || slices.Contains(a.active, name)
}

// ToolInfo describes a tool for extensions (tools.list).
type ToolInfo struct {
	Name        string
	Description string
	Source      string // "builtin" or "extension"
	Extension   string
	Enabled     bool // offered to the model now
}

// ToolInfos lists the built-in tools, then the extension tools no
// built-in or reserved name shadows, with whether each is active.
func (a *Agent) ToolInfos() []ToolInfo {
	a.mu.Lock()
	builtins := slices.Clone(a.cfg.Tools)
	a.mu.Unlock()
	var out []ToolInfo
	taken := map[string]bool{}
	for _, t := range builtins {
		d := t.Definition()
		taken[d.Name] = true
		out = append(out, ToolInfo{Name: d.Name, Description: d.Description, Source: "builtin", Enabled: a.isActive(d.Name)})
	}
	for _, et := range a.extTools() {
		if taken[et.Def.Name] || tools.IsReserved(et.Def.Name) {
			continue
		}
		taken[et.Def.Name] = true
		out = append(out, ToolInfo{Name: et.Def.Name, Description: et.Def.Description, Source: "extension",
			Extension: et.Extension, Enabled: a.isActive(et.Def.Name)})
	}
	return out
}

// afterTool runs the tool_execution_end event, the tool_result chain and
// the tool_result event for a tool that ran.
func (a *Agent) afterTool(ctx context.Context, u provider.Block, args []byte, r tools.Result) tools.Result {
	a.notify(LifecycleEvent{Name: "tool_execution_end", ToolID: u.ID, ToolName: u.Name, IsError: r.IsError})
	if h := a.hooks("tool_result"); h != nil {
		d := h.InterceptToolResult(ctx, ToolResultInfo{ToolID: u.ID, ToolName: u.Name, Args: rawArgs(args),
			Content: textOfBlocks(r.Content), IsError: r.IsError})
		if d.ContentSet {
			r.Content = withText(provider.Message{Content: r.Content}, d.Content).Content
		}
		r.IsError = d.IsError
	}
	a.notify(LifecycleEvent{Name: "tool_result", ToolID: u.ID, ToolName: u.Name, ToolArgs: rawArgs(args),
		Content: textOfBlocks(r.Content), IsError: r.IsError})
	return r
}

func textOfBlocks(bs []provider.Block) string {
	return textOf(provider.Message{Content: bs})
}

// beforeCompact runs the before_compact chain; it returns an error when
// an extension cancelled the compaction.
func (a *Agent) beforeCompact(ctx context.Context, automatic bool) error {
	h := a.hooks("before_compact")
	if h == nil {
		return nil
	}
	st := a.ContextStats()
	st.IsAutomatic = automatic
	d := h.InterceptBeforeCompact(ctx, st)
	if !d.Cancel {
		return nil
	}
	return &CancelledError{Op: "compact", By: d.By, Reason: d.Reason}
}

// CancelledError reports an operation an extension cancelled
// (before_compact, before_fork, before_session_switch).
type CancelledError struct {
	Op     string // "compact", "fork", "switch session", ...
	By     string // the extension
	Reason string
}

func (e *CancelledError) Error() string {
	if e.By == "" {
		return fmt.Sprintf("%s cancelled: %s", e.Op, e.Reason)
	}
	return fmt.Sprintf("%s cancelled by extension %q: %s", e.Op, e.By, e.Reason)
}

// Client returns the current model client, nil when no model is
// configured.
func (a *Agent) Client() provider.Client { return a.client() }
