package proto

import "encoding/json"

// addedWire holds the encoded members of the additive events and
// interceptions; it is embedded in eventWire. As there, a pointer field is
// present exactly when the event defines the member.
type addedWire struct {
	Source          *string           `json:"source,omitempty"`
	Prompt          *string           `json:"prompt,omitempty"`
	Response        *string           `json:"response,omitempty"`
	Content         *string           `json:"content,omitempty"`
	IsError         *bool             `json:"is_error,omitempty"`
	Chunk           *string           `json:"chunk,omitempty"`
	Model           *string           `json:"model,omitempty"`
	PreviousModel   *string           `json:"previous_model,omitempty"`
	CustomName      *string           `json:"name,omitempty"`
	Data            json.RawMessage   `json:"data,omitempty"`
	From            *string           `json:"from,omitempty"`
	Messages        *[]ContextMessage `json:"messages,omitempty"`
	TargetID        *string           `json:"target_id,omitempty"`
	IsUserMessage   *bool             `json:"is_user_message,omitempty"`
	UserText        *string           `json:"user_text,omitempty"`
	Reason          *string           `json:"reason,omitempty"`
	EstimatedTokens *int              `json:"estimated_tokens,omitempty"`
	ContextLimit    *int              `json:"context_limit,omitempty"`
	UsagePercent    *float64          `json:"usage_percent,omitempty"`
	MessageCount    *int              `json:"message_count,omitempty"`
	IsAutomatic     *bool             `json:"is_automatic,omitempty"`
}

// addedEventMembers sets the members of the events2 event f.Name on w, in
// place of whatever the generic encoding set, and reports whether f.Name
// is such an event.
func addedEventMembers(w *eventWire, f *Event) bool {
	base := eventWire{ID: w.ID, Name: w.Name, Session: w.Session, State: w.State}
	switch f.Name {
	case EventSessionShutdown, EventMessageStart:
	case EventAgentStart:
		base.Prompt = &f.Prompt
	case EventAgentEnd:
		base.Response, base.Stop = &f.Response, &f.Stop
		base.Error = nonEmpty(&f.Error)
	case EventToolExecutionStart:
		base.ToolID, base.ToolName = &f.ToolID, &f.ToolName
	case EventToolExecutionEnd:
		base.ToolID, base.ToolName, base.IsError = &f.ToolID, &f.ToolName, &f.IsError
	case EventToolResult:
		base.ToolID, base.ToolName, base.ToolArgs = &f.ToolID, &f.ToolName, argsOrObject(&f.ToolArgs)
		base.Content, base.IsError = &f.Content, &f.IsError
		base.Source = nonEmpty(&f.Source)
	case EventInput:
		base.Text, base.Source = &f.Text, &f.Source
	case EventMessageUpdate:
		base.Chunk = &f.Chunk
	case EventMessageEnd:
		base.Content = &f.Content
	case EventModelChange:
		base.Model, base.PreviousModel, base.Source = &f.Model, &f.PreviousModel, &f.Source
	case EventCustom:
		base.CustomName, base.From = &f.CustomName, &f.From
		base.Data = f.Data
		if len(base.Data) == 0 {
			base.Data = json.RawMessage("null")
		}
	default:
		return false
	}
	*w = base
	return true
}

// nonZeroEventMembers adds the non-zero additive members of an event no
// list defines, so that it survives a round trip.
func nonZeroEventMembers(w *eventWire, f *Event) {
	w.Prompt, w.Response, w.Content = nonEmpty(&f.Prompt), nonEmpty(&f.Response), nonEmpty(&f.Content)
	w.Source, w.Chunk, w.Model = nonEmpty(&f.Source), nonEmpty(&f.Chunk), nonEmpty(&f.Model)
	w.PreviousModel, w.CustomName, w.From = nonEmpty(&f.PreviousModel), nonEmpty(&f.CustomName), nonEmpty(&f.From)
	w.IsError = nonFalse(&f.IsError)
	if len(f.Data) > 0 {
		w.Data = f.Data
	}
}

// addedInterceptMembers sets the members of the intercepts2 interception
// f.Name on w and reports whether f.Name is one.
func addedInterceptMembers(w *eventWire, f *EventIntercept) bool {
	base := eventWire{ID: w.ID, Name: w.Name}
	switch f.Name {
	case EventInput:
		base.Text, base.Source = &f.Text, &f.Source
	case EventBeforeAgentStart:
		base.Prompt = &f.Prompt
	case EventToolResult:
		base.ToolID, base.ToolName, base.ToolArgs = &f.ToolID, &f.ToolName, argsOrObject(&f.ToolArgs)
		base.Content, base.IsError = &f.Content, &f.IsError
	case EventContextPrepare:
		msgs := f.Messages
		if msgs == nil {
			msgs = []ContextMessage{}
		}
		base.Messages = &msgs
	case EventBeforeFork:
		base.TargetID, base.IsUserMessage, base.UserText = &f.TargetID, &f.IsUserMessage, &f.UserText
	case EventBeforeSessionSwitch:
		base.Reason = &f.Reason
	case EventBeforeCompact:
		base.EstimatedTokens, base.ContextLimit, base.UsagePercent = &f.EstimatedTokens, &f.ContextLimit, &f.UsagePercent
		base.MessageCount, base.IsAutomatic = &f.MessageCount, &f.IsAutomatic
	default:
		return false
	}
	*w = base
	return true
}

// nonZeroInterceptMembers adds the non-zero additive members of an
// interception no list defines.
func nonZeroInterceptMembers(w *eventWire, f *EventIntercept) {
	w.Source, w.Prompt, w.Content = nonEmpty(&f.Source), nonEmpty(&f.Prompt), nonEmpty(&f.Content)
	w.TargetID, w.UserText, w.Reason = nonEmpty(&f.TargetID), nonEmpty(&f.UserText), nonEmpty(&f.Reason)
	w.IsError, w.IsUserMessage, w.IsAutomatic = nonFalse(&f.IsError), nonFalse(&f.IsUserMessage), nonFalse(&f.IsAutomatic)
	w.EstimatedTokens, w.ContextLimit, w.MessageCount = nonZero(&f.EstimatedTokens), nonZero(&f.ContextLimit), nonZero(&f.MessageCount)
	if f.UsagePercent != 0 {
		w.UsagePercent = &f.UsagePercent
	}
	if len(f.Messages) > 0 {
		w.Messages = &f.Messages
	}
}

func nonFalse(p *bool) *bool {
	if !*p {
		return nil
	}
	return p
}
