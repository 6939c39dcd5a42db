package agent

import (
	"context"

	"github.com/zut-go/zut/provider"
)

// stream sends req and turns the provider's events into agent events. It
// returns the assembled message (partial when err is set).
func (a *Agent) stream(ctx context.Context, req *provider.Request, scope string) (provider.Message, provider.StopReason, error) {
	return a.streamText(ctx, req, scope, nil)
}

// streamText is stream with a callback for visible text deltas of scopes
// other than "turn" (the turn's deltas are events).
func (a *Agent) streamText(ctx context.Context, req *provider.Request, scope string, onText func(string)) (provider.Message, provider.StopReason, error) {
	client := a.client()
	if client == nil {
		return provider.Message{}, provider.StopError, errNoClient
	}
	model := a.Model()
	// Visible text deltas are withheld when an extension may rewrite or
	// block the assistant's message (C15): the user sees only the result.
	withhold := scope == "turn" && a.cfg.Extensions != nil && a.cfg.Extensions.Intercepting("assistant_message")
	emitText := a.cfg.EmitText
	if emitText == nil {
		emitText = func(d TextDelta) { a.cfg.Emit(d) }
	}
	s, err := client.Stream(ctx, req)
	if err != nil {
		return provider.Message{}, provider.StopError, err
	}
	defer s.Close()
	stop := provider.StopEndTurn
	started := false
	var usage provider.Usage
	haveUsage := false
	toolIDs := map[int]string{}
	for s.Next() {
		e := s.Event()
		switch e.Type {
		case provider.EventRequest:
			a.cfg.Emit(RequestStarted{Provider: model.Provider, Model: model.ID, Scope: scope, Attempt: e.Attempt, MaxAttempts: e.MaxAttempts})
		case provider.EventRetry:
			a.cfg.Emit(RetryScheduled{Scope: scope, Attempt: e.Attempt, MaxAttempts: e.MaxAttempts, DelayMS: e.Delay.Milliseconds(), Error: errorText(e.Err)})
		case provider.EventStart:
			if !started && scope == "turn" {
				a.cfg.Emit(AssistantStart{})
				a.notify(LifecycleEvent{Name: "message_start"})
			}
			started = true
		case provider.EventTextDelta:
			if scope == "turn" {
				a.notify(LifecycleEvent{Name: "message_update", Chunk: e.Text})
			}
			if scope == "turn" && !withhold {
				emitText(TextDelta{Delta: e.Text})
			} else if onText != nil {
				onText(e.Text)
			}
		case provider.EventThinkingDelta:
			if scope == "turn" {
				a.cfg.Emit(ThinkingDelta{Delta: e.Text})
			}
		case provider.EventToolStart:
			toolIDs[e.Index] = e.ToolID
			if scope == "turn" {
				a.cfg.Emit(ToolUseStart{ID: e.ToolID, Name: e.ToolName})
			}
		case provider.EventToolDelta:
			if scope == "turn" {
				a.cfg.Emit(ToolUseArgs{ID: toolIDs[e.Index], Delta: e.Text})
			}
		case provider.EventToolEnd:
			if scope == "turn" {
				id := e.ToolID
				if id == "" {
					id = toolIDs[e.Index]
				}
				a.cfg.Emit(ToolUseEnd{ID: id})
			}
		case provider.EventUsage:
			usage = e.Usage
			haveUsage = true
		case provider.EventStop:
			stop = e.Stop
			if e.Usage != (provider.Usage{}) {
				usage = e.Usage
				haveUsage = true
			}
		}
	}
	// Every answered request counts, even one whose server reported no
	// usage (its usage event then says 0).
	if haveUsage || s.Err() == nil {
		a.recordUsage(usage)
	}
	msg := s.Message()
	if msg.Role == "" {
		msg.Role = provider.RoleAssistant
	}
	if err := s.Err(); err != nil {
		return msg, provider.StopError, err
	}
	if ctx.Err() != nil {
		return msg, provider.StopAborted, ctx.Err()
	}
	if scope == "turn" && started {
		a.notify(LifecycleEvent{Name: "message_end", Content: msg.Text()})
	}
	return msg, stop, nil
}

func (a *Agent) client() provider.Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Client
}
