package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zut-go/zut/provider"
)

// stepResult is how one model step ended.
type stepResult struct {
	stop    string // C16 stop value
	err     error
	message provider.Message
	pause   bool // the model paused a long turn (pause_turn) and expects another call
}

// run handles one user input: it records the message and runs steps.
// inject is text an extension put before the prompt (before_agent_start).
func (a *Agent) run(ctx context.Context, in Input, inject string) error {
	blocks := append([]provider.Block{}, in.Images...)
	if inject != "" {
		blocks = append(blocks, provider.ContextBlock(inject))
	}
	for _, c := range in.Context {
		blocks = append(blocks, provider.ContextBlock(c))
	}
	if in.Text != "" || len(blocks) == 0 {
		blocks = append(blocks, provider.TextBlock(in.Text))
	}
	user := provider.Message{Role: provider.RoleUser, Content: blocks}
	if err := a.cfg.Store.AppendMessage(user, MessageMeta{}); err != nil {
		a.fail(fmt.Errorf("save user message: %w", err))
		return err
	}
	a.cfg.Emit(UserMessage{Content: Blocks(user.Content), Time: a.now()})

	continues := 0 // how often stop hooks kept the model going
	for step := 1; ; step++ {
		if a.cfg.MaxSteps > 0 && step > a.cfg.MaxSteps {
			unit := "steps"
			if a.cfg.MaxSteps == 1 {
				unit = "step"
			}
			a.cfg.Emit(Notice{Level: "warn", Message: fmt.Sprintf("stopped after %d %s (--max-steps) before the model finished; send another prompt to continue", a.cfg.MaxSteps, unit)})
			return ErrMaxSteps
		}
		res := a.step(ctx, step)
		a.cfg.Emit(TurnEnd{Stop: res.stop, Error: errorText(res.err)})
		a.notify(LifecycleEvent{Name: "turn_end", Stop: res.stop, Error: errorText(res.err)})
		switch res.stop {
		case "tool_use":
			continue
		case "aborted":
			return ErrAborted
		case "error":
			return res.err
		}
		if res.pause {
			continue
		}
		if steer := a.takeSteering(); len(steer) > 0 {
			// The model finished before the steering text could be slipped
			// in between tool calls: send it as the next user message.
			if err := a.appendUserText(steer); err != nil {
				return err
			}
			continue
		}
		if sh, ok := a.cfg.Extensions.(StopHooks); ok && continues < maxStopContinues && ctx.Err() == nil {
			a.mu.Lock()
			answer := a.lastAnswer
			a.mu.Unlock()
			d := sh.InterceptStop(ctx, answer, continues > 0)
			if d.Continue {
				continues++
				if err := a.appendUserText([]string{d.Reason}); err != nil {
					return err
				}
				continue
			}
		}
		return nil
	}
}

// step runs one model request and the tools it asks for.
func (a *Agent) step(ctx context.Context, step int) stepResult {
	a.cfg.Emit(TurnStart{Step: step})
	a.notify(LifecycleEvent{Name: "turn_start", Step: step})

	var hidden string
	if x := a.cfg.Extensions; x != nil && x.Intercepting("turn_start") {
		d := x.InterceptTurnStart(ctx, step)
		if d.Block {
			reason := d.Reason
			if reason == "" {
				reason = "turn blocked"
			}
			a.cfg.Emit(Notice{Level: "warn", Source: d.By, Message: reason})
			return stepResult{stop: "aborted"}
		}
		hidden = d.Context
	}
	if ctx.Err() != nil {
		return stepResult{stop: "aborted"}
	}
	if err := a.maybeCompact(ctx); err != nil && ctx.Err() == nil {
		a.cfg.Emit(Notice{Level: "warn", Message: "automatic compaction failed: " + err.Error()})
	}

	req := a.request(ctx, hidden)
	msg, stop, err := a.stream(ctx, req, "turn")
	if err != nil {
		if ctx.Err() != nil {
			a.keepPartial(msg)
			return stepResult{stop: "aborted"}
		}
		a.keepPartial(msg)
		a.fail(err)
		return stepResult{stop: "error", err: err}
	}
	meta := MessageMeta{Provider: a.cfg.Model.Provider, Model: a.cfg.Model.ID, Stop: stop}
	if u := a.lastRequestUsage(); u != nil {
		meta.Usage = u
	}
	if err := a.cfg.Store.AppendMessage(msg, meta); err != nil {
		a.fail(fmt.Errorf("save assistant message: %w", err))
		return stepResult{stop: "error", err: err}
	}
	a.showAssistant(ctx, msg)

	uses := msg.ToolUses()
	if len(uses) == 0 {
		res := stepResult{stop: c16Stop(stop), message: msg}
		res.pause = stop == provider.StopPauseTurn
		return res
	}
	results, stopped := a.runTools(ctx, uses, stop)
	content := make([]provider.Block, 0, len(results)+1)
	content = append(content, results...)
	if steer := a.takeSteering(); len(steer) > 0 {
		content = append(content, provider.TextBlock(strings.Join(steer, "\n\n")))
	}
	toolMsg := provider.Message{Role: provider.RoleUser, Content: content}
	if err := a.cfg.Store.AppendMessage(toolMsg, MessageMeta{}); err != nil {
		a.fail(fmt.Errorf("save tool results: %w", err))
		return stepResult{stop: "error", err: err}
	}
	if ctx.Err() != nil || stopped {
		return stepResult{stop: "aborted", message: msg}
	}
	if stop == provider.StopMaxTokens {
		return stepResult{stop: "max_tokens", message: msg}
	}
	return stepResult{stop: "tool_use", message: msg}
}

// c16Stop maps a provider stop reason to the protocol's turn_end values.
func c16Stop(s provider.StopReason) string {
	switch s {
	case provider.StopToolUse:
		return "tool_use"
	case provider.StopMaxTokens:
		return "max_tokens"
	case provider.StopAborted:
		return "aborted"
	case provider.StopError:
		return "error"
	}
	return "end_turn"
}

// request builds the provider request for the current conversation. The
// extensions' context_prepare may rearrange the window of this request
// only. hidden is turn_start context: it goes into this request only, as an
// ephemeral trailing text block of the last user message, and is never
// stored.
func (a *Agent) request(ctx context.Context, hidden string) *provider.Request {
	msgs, extraSystem := a.prepareContext(ctx, a.cfg.Store.Messages())
	req := &provider.Request{
		Model:       a.cfg.Model.ID,
		System:      a.systemFor(extraSystem),
		Messages:    msgs,
		Tools:       a.toolDefs(),
		MaxTokens:   a.cfg.MaxTokens,
		Temperature: a.cfg.Temperature,
		Reasoning:   a.Reasoning(),
		Cache:       true,
	}
	if hidden != "" {
		req.Ephemeral = []provider.Block{provider.TextBlock("<extension-context>\n" + hidden + "\n</extension-context>")}
	}
	return req
}

// appendUserText records steering text that arrived too late to join a
// tool-result message.
func (a *Agent) appendUserText(texts []string) error {
	m := provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(strings.Join(texts, "\n\n"))}}
	if err := a.cfg.Store.AppendMessage(m, MessageMeta{}); err != nil {
		a.fail(fmt.Errorf("save steering message: %w", err))
		return err
	}
	a.cfg.Emit(UserMessage{Content: Blocks(m.Content), Time: a.now()})
	return nil
}

// keepPartial records the text of an interrupted answer so the transcript
// shows what the user saw. Unfinished tool calls and unsigned thinking are
// dropped: they cannot be sent back.
func (a *Agent) keepPartial(m provider.Message) {
	var kept []provider.Block
	for _, b := range m.Content {
		if b.Type == provider.BlockText && b.Text != "" {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return
	}
	msg := provider.Message{Role: provider.RoleAssistant, Content: kept}
	if err := a.cfg.Store.AppendMessage(msg, MessageMeta{Provider: a.cfg.Model.Provider, Model: a.cfg.Model.ID, Stop: provider.StopAborted}); err != nil {
		a.cfg.Emit(Notice{Level: "error", Message: "save partial answer: " + err.Error()})
	}
}

// showAssistant runs the assistant_message interceptors and emits the
// message as the user may see it. The stored message is never changed.
func (a *Agent) showAssistant(ctx context.Context, msg provider.Message) {
	text := msg.Text()
	visible := Blocks(msg.Content)
	ev := AssistantMessage{Content: visible, Time: a.now()}
	shown := text // what the user sees, which extensions are told
	if x := a.cfg.Extensions; x != nil && text != "" && x.Intercepting("assistant_message") {
		d := x.InterceptAssistantMessage(ctx, text)
		switch {
		case d.Block:
			ev.Blocked = true
			ev.Reason = d.Reason
			ev.Content = withoutText(visible)
			shown = ""
			if d.Reason != "" {
				a.cfg.Emit(Notice{Level: "warn", Source: d.By, Message: d.Reason})
			}
		case d.Text != text:
			ev.Content = replaceText(visible, d.Text)
			shown = d.Text
		}
	}
	a.cfg.Emit(ev)
	if shown != "" {
		a.mu.Lock()
		a.lastAnswer = shown
		a.mu.Unlock()
		a.notify(LifecycleEvent{Name: "assistant_message", Text: shown})
	}
}

func withoutText(in []Block) []Block {
	out := []Block{}
	for _, b := range in {
		if b.Type != "text" {
			out = append(out, b)
		}
	}
	return out
}

// replaceText puts text in place of all text blocks (at the first one).
func replaceText(in []Block, text string) []Block {
	var out []Block
	done := false
	for _, b := range in {
		if b.Type != "text" {
			out = append(out, b)
			continue
		}
		if !done {
			out = append(out, Block{Type: "text", Text: text})
			done = true
		}
	}
	if !done {
		out = append([]Block{{Type: "text", Text: text}}, out...)
	}
	return out
}

// fail emits an error event with a one-line message.
func (a *Agent) fail(err error) {
	a.cfg.Emit(Error{Message: oneLine(err)})
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (a *Agent) notify(ev LifecycleEvent) {
	if a.cfg.Extensions != nil {
		a.cfg.Extensions.Notify(ev)
	}
}

func (a *Agent) lastRequestUsage() *provider.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.lastUsage
	return &u
}

// errNoClient is returned when the agent has no model client.
var errNoClient = errors.New("no model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run with --provider and --model (zut --list-models)")

func rawArgs(b []byte) json.RawMessage { return jsonOrEmpty(b) }
