package app

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// extBridge implements agent.Extensions over the extension host.
type extBridge struct {
	h *host.Host
	// background is set while a scheduled turn runs: it offers no
	// interactive tools.
	background atomic.Bool
}

var (
	_ agent.Extensions = (*extBridge)(nil)
	_ agent.Hooks      = (*extBridge)(nil)
)

func (b *extBridge) Tools() []agent.ExtensionTool {
	hts := b.h.Tools()
	out := make([]agent.ExtensionTool, 0, len(hts))
	for _, t := range hts {
		if t.Interactive && b.background.Load() {
			continue
		}
		out = append(out, agent.ExtensionTool{
			Extension:   t.Extension,
			Interactive: t.Interactive,
			Def:         provider.Tool{Name: t.Name, Description: t.Description, Schema: t.Schema},
		})
	}
	return out
}

func (b *extBridge) CallTool(ctx context.Context, call agent.ToolInvocation) (agent.ToolOutcome, error) {
	r, err := b.h.CallToolProgress(ctx, call.Name, call.Args, call.Progress)
	if err != nil {
		return agent.ToolOutcome{}, err
	}
	return agent.ToolOutcome{
		Extension: r.Extension,
		Result:    tools.Result{Content: providerBlocks(r.Content), IsError: r.IsError, Details: r.Details},
		State:     stateOrNull(r.State),
		StateSet:  r.StateSet,
		Warning:   r.Warning,
	}, nil
}

// stateOrNull turns a cleared state (nil) into JSON null for the session.
func stateOrNull(s json.RawMessage) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	return s
}

func providerBlocks(in []proto.ContentBlock) []provider.Block {
	out := make([]provider.Block, 0, len(in))
	for _, c := range in {
		switch c.Type {
		case proto.BlockImage:
			out = append(out, provider.Block{Type: provider.BlockImage, MIMEType: c.MIMEType, Data: c.Data})
		default:
			out = append(out, provider.TextBlock(c.Text))
		}
	}
	return out
}

func (b *extBridge) Notify(ev agent.LifecycleEvent) {
	if ev.States != nil && ev.Session != nil {
		b.h.SetSession(protoSession(ev.Session), ev.States)
	}
	if !b.h.Subscribed() {
		return // no one to send it to (a message_update for each delta)
	}
	b.h.Emit(proto.Event{
		Name:        ev.Name,
		Session:     protoSession(ev.Session),
		Step:        ev.Step,
		ToolID:      ev.ToolID,
		ToolName:    ev.ToolName,
		ToolArgs:    ev.ToolArgs,
		ToolPreview: ev.ToolPreview,
		Text:        ev.Text,
		Stop:        ev.Stop,
		Error:       ev.Error,

		Prompt:        ev.Prompt,
		Response:      ev.Response,
		IsError:       ev.IsError,
		Content:       ev.Content,
		Source:        ev.Source,
		Chunk:         ev.Chunk,
		Model:         ev.Model,
		PreviousModel: ev.PreviousModel,
	})
}

func (b *extBridge) Intercepting(event string) bool { return b.h.Intercepts(event) }

func (b *extBridge) InterceptToolCall(ctx context.Context, id, name string, args json.RawMessage) agent.ToolCallDecision {
	d := b.h.InterceptToolCall(ctx, id, name, args)
	return agent.ToolCallDecision{Block: d.Block, Reason: d.Reason, Args: d.Args, By: d.By}
}

func (b *extBridge) InterceptTurnStart(ctx context.Context, step int) agent.TurnStartDecision {
	d := b.h.InterceptTurnStart(ctx, step)
	return agent.TurnStartDecision{Block: d.Block, Reason: d.Reason, By: d.By, Context: d.Context}
}

func (b *extBridge) InterceptAssistantMessage(ctx context.Context, text string) agent.AssistantMessageDecision {
	d := b.h.InterceptAssistantMessage(ctx, text)
	return agent.AssistantMessageDecision{Block: d.Block, Reason: d.Reason, By: d.By, Text: d.Text}
}

func protoSession(s *agent.SessionIdentity) *proto.Session {
	if s == nil {
		return nil
	}
	return &proto.Session{ID: s.ID, ParentID: s.ParentID, Path: s.Path, CWD: s.CWD, ForkPoint: s.ForkPoint}
}

// The interceptions added beyond v2 (agent.Hooks and the session
// operations of the app).

func (b *extBridge) InterceptInput(ctx context.Context, text, source string) agent.InputDecision {
	d := b.h.InterceptInput(ctx, text, source)
	return agent.InputDecision{Handled: d.Handled, Text: d.Text, By: d.By}
}

func (b *extBridge) InterceptBeforeAgentStart(ctx context.Context, prompt string) agent.BeforeAgentStartDecision {
	d := b.h.InterceptBeforeAgentStart(ctx, prompt)
	return agent.BeforeAgentStartDecision{SystemPrompt: d.SystemPrompt, InjectText: d.InjectText}
}

func (b *extBridge) InterceptToolResult(ctx context.Context, r agent.ToolResultInfo) agent.ToolResultDecision {
	d := b.h.InterceptToolResult(ctx, host.ToolResultInfo{ToolID: r.ToolID, ToolName: r.ToolName, Args: r.Args, Content: r.Content, IsError: r.IsError})
	return agent.ToolResultDecision{ContentSet: d.ContentSet, Content: d.Content, IsError: d.IsError, By: d.By}
}

func (b *extBridge) InterceptContextPrepare(ctx context.Context, msgs []agent.ContextMessage) ([]agent.ContextMessage, bool) {
	in := make([]proto.ContextMessage, len(msgs))
	for i, m := range msgs {
		in[i] = proto.ContextMessage{Index: m.Index, Role: m.Role, Content: m.Content}
	}
	out, ok := b.h.InterceptContextPrepare(ctx, in)
	if !ok {
		return msgs, false
	}
	res := make([]agent.ContextMessage, len(out))
	for i, m := range out {
		res[i] = agent.ContextMessage{Index: m.Index, Role: m.Role, Content: m.Content}
	}
	return res, true
}

func (b *extBridge) InterceptBeforeCompact(ctx context.Context, c agent.ContextStats) agent.CancelDecision {
	d := b.h.InterceptBeforeCompact(ctx, host.CompactInfo{EstimatedTokens: c.EstimatedTokens, ContextLimit: c.ContextLimit,
		UsagePercent: c.UsagePercent, MessageCount: c.MessageCount, IsAutomatic: c.IsAutomatic})
	return agent.CancelDecision{Cancel: d.Cancel, Reason: d.Reason, By: d.By}
}

// beforeFork runs before_fork; a *agent.CancelledError means an extension
// cancelled the fork.
func (b *extBridge) beforeFork(ctx context.Context, targetID string, isUser bool, userText string) error {
	if !b.h.Intercepts(proto.EventBeforeFork) {
		return nil
	}
	return cancelled("fork", b.h.InterceptBeforeFork(ctx, targetID, isUser, userText))
}

// beforeSessionSwitch runs before_session_switch for reason (new, clear
// or resume).
func (b *extBridge) beforeSessionSwitch(ctx context.Context, reason string) error {
	if !b.h.Intercepts(proto.EventBeforeSessionSwitch) {
		return nil
	}
	return cancelled("switch session", b.h.InterceptBeforeSessionSwitch(ctx, reason))
}

func cancelled(op string, d host.CancelDecision) error {
	if !d.Cancel {
		return nil
	}
	return &agent.CancelledError{Op: op, By: d.By, Reason: d.Reason}
}
