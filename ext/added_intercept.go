package ext

import (
	"encoding/json"
	"strings"

	"github.com/zut-go/zut/proto"
)

// The interceptors added beyond v2 (capability intercepts2, declared by
// each method). They run on their own goroutines, after the events that
// came before them; the host waits up to 5 seconds for the answer (longer
// while the extension waits on a request of its own, such as Confirm) and
// then goes on as if the interceptor allowed everything. Several
// interceptors of one extension run in the order added; a rewrite is what
// the next one sees.

// InputDecision is an input interceptor's answer: Handled consumes the
// input (nothing is sent to the model); a non-empty Text replaces it.
type InputDecision struct {
	Handled bool
	Text    string
}

// BeforeAgentStartDecision adds SystemPrompt to the system prompt of this
// prompt's requests (never stored) and InjectText before the prompt's
// text in its message.
type BeforeAgentStartDecision struct {
	SystemPrompt string
	InjectText   string
}

// ToolResultEvent is a tool call that ran: its arguments and the text of
// its result.
type ToolResultEvent struct {
	ToolID   string
	ToolName string
	Args     json.RawMessage
	Content  string
	IsError  bool
}

// ToolResultDecision replaces the result's text (Content non-nil) and its
// error flag (IsError non-nil).
type ToolResultDecision struct {
	Content *string
	IsError *bool
}

// ContextMessage is a message of the context window; Index is its place
// in the window, -1 for one you add. Role is user, assistant or system
// (an added system message joins the request's system prompt).
type ContextMessage = proto.ContextMessage

// CancelDecision cancels an operation; Reason is shown to the user.
type CancelDecision struct {
	Cancel bool
	Reason string
}

// BeforeForkEvent is a fork about to start at the entry TargetID.
type BeforeForkEvent struct {
	TargetID      string
	IsUserMessage bool
	UserText      string
}

// CompactEvent describes a compaction about to run.
type CompactEvent struct {
	EstimatedTokens int
	ContextLimit    int
	UsagePercent    float64
	MessageCount    int
	IsAutomatic     bool
}

// InterceptInput adds an interceptor of the user's input (source:
// interactive, cli, rpc, extension or queue), run before the prompt.
func (e *Extension) InterceptInput(fn func(text, source string) InputDecision) {
	e.addIntercept(proto.EventInput, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		d := fn(f.Text, f.Source)
		switch {
		case d.Handled:
			r.Action, r.Text = proto.InputHandled, ""
			return true
		case d.Text != "":
			r.Action, r.Text = proto.InputTransform, d.Text
			f.Text = d.Text
		}
		return false
	})
}

// InterceptBeforeAgentStart adds an interceptor run before each prompt's
// first model request.
func (e *Extension) InterceptBeforeAgentStart(fn func(prompt string) BeforeAgentStartDecision) {
	e.addIntercept(proto.EventBeforeAgentStart, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		d := fn(f.Prompt)
		r.SystemPrompt = joinText(r.SystemPrompt, d.SystemPrompt)
		r.InjectText = joinText(r.InjectText, d.InjectText)
		return false
	})
}

// InterceptToolResult adds an interceptor of tool results, run after a
// tool ran and before the model sees its result.
func (e *Extension) InterceptToolResult(fn func(ToolResultEvent) ToolResultDecision) {
	e.addIntercept(proto.EventToolResult, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		d := fn(ToolResultEvent{ToolID: f.ToolID, ToolName: f.ToolName, Args: f.ToolArgs, Content: f.Content, IsError: f.IsError})
		if d.Content != nil {
			r.Content, f.Content = d.Content, *d.Content
		}
		if d.IsError != nil {
			r.IsError, f.IsError = d.IsError, *d.IsError
		}
		return false
	})
}

// InterceptContextPrepare adds an interceptor of the context window of
// each model request: return the messages to send instead, or nil to keep
// them. The change applies to that request only and is never stored.
func (e *Extension) InterceptContextPrepare(fn func(msgs []ContextMessage) []ContextMessage) {
	e.addIntercept(proto.EventContextPrepare, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		if out := fn(f.Messages); out != nil {
			r.Messages, f.Messages = out, out
		}
		return false
	})
}

// InterceptBeforeFork adds an interceptor that may cancel a fork.
func (e *Extension) InterceptBeforeFork(fn func(BeforeForkEvent) CancelDecision) {
	e.addIntercept(proto.EventBeforeFork, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		return cancel(r, fn(BeforeForkEvent{TargetID: f.TargetID, IsUserMessage: f.IsUserMessage, UserText: f.UserText}))
	})
}

// InterceptBeforeSessionSwitch adds an interceptor that may cancel a new
// session, a /clear or a resume (reason: new, clear or resume).
func (e *Extension) InterceptBeforeSessionSwitch(fn func(reason string) CancelDecision) {
	e.addIntercept(proto.EventBeforeSessionSwitch, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		return cancel(r, fn(f.Reason))
	})
}

// InterceptBeforeCompact adds an interceptor that may cancel a
// compaction, manual or automatic.
func (e *Extension) InterceptBeforeCompact(fn func(CompactEvent) CancelDecision) {
	e.addIntercept(proto.EventBeforeCompact, func(f *proto.EventIntercept, r *proto.EventInterceptResponse) bool {
		return cancel(r, fn(CompactEvent{EstimatedTokens: f.EstimatedTokens, ContextLimit: f.ContextLimit,
			UsagePercent: f.UsagePercent, MessageCount: f.MessageCount, IsAutomatic: f.IsAutomatic}))
	})
}

func cancel(r *proto.EventInterceptResponse, d CancelDecision) bool {
	if d.Cancel {
		r.Cancel, r.Reason = true, d.Reason
	}
	return d.Cancel
}

func joinText(a, b string) string {
	b = strings.TrimSpace(b)
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n\n" + b
}

// addIntercept records an interceptor of event and subscribes to it.
func (e *Extension) addIntercept(event string, ic interceptor) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapIntercepts2)
	if e.add.intercepts == nil {
		e.add.intercepts = map[string][]interceptor{}
	}
	e.add.intercepts[event] = append(e.add.intercepts[event], ic)
	e.subscribeLocked(event, true)
}

// interceptAdded runs the extension's interceptors of an additive event
// into r. A panicking interceptor is skipped.
func (e *Extension) interceptAdded(f *proto.EventIntercept, r *proto.EventInterceptResponse) {
	e.mu.Lock()
	ics := e.add.intercepts[f.Name]
	e.mu.Unlock()
	g := *f
	for _, ic := range ics {
		stop := false
		if e.guard(f.Name+" interceptor", func() { stop = ic(&g, r) }) {
			continue
		}
		if stop {
			return
		}
	}
}
