package main

import (
	"context"
	"encoding/json"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// extBridge implements agent.Extensions over the extension host.
type extBridge struct {
	h *host.Host
}

var _ agent.Extensions = (*extBridge)(nil)

func (b *extBridge) Tools() []agent.ExtensionTool {
	hts := b.h.Tools()
	out := make([]agent.ExtensionTool, 0, len(hts))
	for _, t := range hts {
		out = append(out, agent.ExtensionTool{
			Extension:   t.Extension,
			Interactive: t.Interactive,
			Def:         provider.Tool{Name: t.Name, Description: t.Description, Schema: t.Schema},
		})
	}
	return out
}

func (b *extBridge) CallTool(ctx context.Context, call agent.ToolInvocation) (agent.ToolOutcome, error) {
	r, err := b.h.CallTool(ctx, call.Name, call.Args)
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
