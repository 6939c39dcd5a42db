package ext

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/zut-go/zut/proto"
)

// Requests to the host (capability host_requests). Each blocks until the
// host answers, ctx ends, or the connection ends (ErrClosed). They may be
// called from any handler: a command or tool handler waiting for an
// answer never holds up the SDK, and the host does not time out a command
// or tool call while its extension waits for the user. An error the host
// answered with is a *HostError.

// SelectRequest is a choice among Options. Default preselects an option
// and is the value of a cancelled choice. Timeout 0 is the host's default
// (5 minutes); after it the choice counts as cancelled.
type SelectRequest struct {
	Title   string
	Message string
	Options []string
	Default string
	Timeout time.Duration
}

// SelectResult is the chosen option (Index -1 when none).
type SelectResult = proto.SelectResult

// ConfirmRequest is a yes/no question; Default is the answer of a
// cancelled question.
type ConfirmRequest struct {
	Title   string
	Message string
	Default bool
	Timeout time.Duration
}

// ConfirmResult is the answer to a ConfirmRequest.
type ConfirmResult = proto.ConfirmResult

// InputRequest asks for a line of text.
type InputRequest struct {
	Title       string
	Message     string
	Placeholder string
	Default     string
	Timeout     time.Duration
}

// InputResult is the text entered (Default when cancelled).
type InputResult = proto.InputResult

// Overlay anchors.
const (
	AnchorCenter = proto.AnchorCenter
	AnchorTop    = proto.AnchorTop
	AnchorBottom = proto.AnchorBottom
)

// OverlayRequest is a modal dialog: Text (markdown when Markdown) with
// optional Actions as buttons. Width and MaxHeight 0 let the UI choose.
type OverlayRequest struct {
	Title       string
	Text        string
	Markdown    bool
	Actions     []string
	Width       int
	MaxHeight   int
	Anchor      string // AnchorCenter (default), AnchorTop or AnchorBottom
	BorderColor string
	Timeout     time.Duration
}

// OverlayResult is the action chosen (Index -1 when none).
type OverlayResult = proto.OverlayResult

// Select asks the user to choose one of r.Options. In modes without a
// screen (print, JSON) the answer is cancelled at once.
func (e *Extension) Select(ctx context.Context, r SelectRequest) (SelectResult, error) {
	var out SelectResult
	var def json.RawMessage
	if r.Default != "" {
		def, _ = json.Marshal(r.Default)
	}
	err := e.request(ctx, proto.MethodUISelect, proto.UIRequest{Title: r.Title, Message: r.Message, Options: r.Options,
		Default: def, TimeoutMS: r.Timeout.Milliseconds()}, &out, nil)
	return out, err
}

// Confirm asks the user a yes/no question.
func (e *Extension) Confirm(ctx context.Context, r ConfirmRequest) (ConfirmResult, error) {
	var out ConfirmResult
	def := json.RawMessage("false")
	if r.Default {
		def = json.RawMessage("true")
	}
	err := e.request(ctx, proto.MethodUIConfirm, proto.UIRequest{Title: r.Title, Message: r.Message, Default: def,
		TimeoutMS: r.Timeout.Milliseconds()}, &out, nil)
	return out, err
}

// Input asks the user for a line of text.
func (e *Extension) Input(ctx context.Context, r InputRequest) (InputResult, error) {
	var out InputResult
	var def json.RawMessage
	if r.Default != "" {
		def, _ = json.Marshal(r.Default)
	}
	err := e.request(ctx, proto.MethodUIInput, proto.UIRequest{Title: r.Title, Message: r.Message, Placeholder: r.Placeholder,
		Default: def, TimeoutMS: r.Timeout.Milliseconds()}, &out, nil)
	return out, err
}

// Overlay shows a modal dialog and returns the action chosen.
func (e *Extension) Overlay(ctx context.Context, r OverlayRequest) (OverlayResult, error) {
	var out OverlayResult
	err := e.request(ctx, proto.MethodUIOverlay, proto.UIRequest{Title: r.Title, Text: r.Text, Markdown: r.Markdown,
		Actions: r.Actions, Width: r.Width, MaxHeight: r.MaxHeight, Anchor: r.Anchor, BorderColor: r.BorderColor,
		TimeoutMS: r.Timeout.Milliseconds()}, &out, nil)
	return out, err
}

// Message is a conversation message; MessageBlock one of its blocks
// (text, thinking, image, tool_call, tool_result).
type (
	Message      = proto.Message
	MessageBlock = proto.MessageBlock
)

// Messages returns the messages of the current branch as the model sees
// them (compaction applied).
func (e *Extension) Messages(ctx context.Context) ([]Message, error) {
	var out proto.MessagesResult
	err := e.request(ctx, proto.MethodSessionMessages, nil, &out, nil)
	return out.Messages, err
}

// SessionInfo describes the open session: ID and Path of its file ("" in
// memory), the project directory, its title and the current branch.
type SessionInfo struct {
	ID     string
	Path   string
	CWD    string
	Title  string
	Branch *Session
}

// SessionInfo returns the open session.
func (e *Extension) SessionInfo(ctx context.Context) (SessionInfo, error) {
	var out proto.SessionInfo
	err := e.request(ctx, proto.MethodSessionInfo, nil, &out, nil)
	return SessionInfo{ID: out.ID, Path: out.Path, CWD: out.CWD, Title: out.Title, Branch: sessionFrom(out.Branch)}, err
}

// ContextStats estimates the context of the next model request.
type ContextStats = proto.ContextStats

// ContextStats returns the estimated context size and the model's window.
func (e *Extension) ContextStats(ctx context.Context) (ContextStats, error) {
	var out ContextStats
	err := e.request(ctx, proto.MethodSessionContextStats, nil, &out, nil)
	return out, err
}

// Entry is a custom entry of the extension in the session.
type Entry = proto.Entry

// AppendEntry stores data (encoded as JSON) on the current branch as a
// custom entry of entryType, and returns its id. It never reaches the
// model.
func (e *Extension) AppendEntry(ctx context.Context, entryType string, data any) (string, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	var out proto.IDResult
	err = e.request(ctx, proto.MethodSessionAppendEntry, proto.AppendEntryParams{EntryType: entryType, Data: b}, &out, nil)
	return out.ID, err
}

// Entries returns the extension's custom entries of entryType ("" for
// all) on the current branch, oldest first.
func (e *Extension) Entries(ctx context.Context, entryType string) ([]Entry, error) {
	var out proto.EntriesResult
	err := e.request(ctx, proto.MethodSessionEntries, proto.EntriesParams{EntryType: entryType}, &out, nil)
	return out.Entries, err
}

// ModelInfo describes a model; Model is "provider/id".
type ModelInfo = proto.ModelInfo

// Model returns the current model.
func (e *Extension) Model(ctx context.Context) (ModelInfo, error) {
	var out ModelInfo
	err := e.request(ctx, proto.MethodModelGet, nil, &out, nil)
	return out, err
}

// SetModel switches to model ("provider/id"); it fails while a prompt
// runs. Other extensions see a model_change event with source
// "extension".
func (e *Extension) SetModel(ctx context.Context, model string) (ModelInfo, error) {
	var out ModelInfo
	err := e.request(ctx, proto.MethodModelSet, proto.ModelParams{Model: model}, &out, nil)
	return out, err
}

// Models lists the models zut knows.
func (e *Extension) Models(ctx context.Context) ([]ModelInfo, error) {
	var out proto.ModelsResult
	err := e.request(ctx, proto.MethodModelList, nil, &out, nil)
	return out.Models, err
}

// ToolInfo describes a tool: built-in or an extension's, and whether the
// model is offered it now.
type ToolInfo = proto.ToolInfo

// Tools lists every tool.
func (e *Extension) Tools(ctx context.Context) ([]ToolInfo, error) {
	var out proto.ToolsResult
	err := e.request(ctx, proto.MethodToolsList, nil, &out, nil)
	return out.Tools, err
}

// SetActiveTools offers the model only the tools names from the next
// request on; nil offers every tool again.
func (e *Extension) SetActiveTools(ctx context.Context, names []string) error {
	return e.request(ctx, proto.MethodToolsSetActive, proto.SetActiveToolsParams{Names: names}, nil, nil)
}

// CompleteRequest is one standalone model call, without tools and
// outside the conversation. Model "" is the current model; MaxTokens 0
// the provider's default. OnChunk, when set, receives the text as it is
// generated, on the goroutine calling Complete.
type CompleteRequest struct {
	Model     string
	System    string
	Prompt    string
	MaxTokens int
	OnChunk   func(chunk string)
}

// CompleteResponse is the model's answer and its token counts.
type CompleteResponse = proto.CompleteResult

// Complete runs a standalone model call.
func (e *Extension) Complete(ctx context.Context, r CompleteRequest) (CompleteResponse, error) {
	var out CompleteResponse
	err := e.request(ctx, proto.MethodLLMComplete, proto.CompleteParams{Model: r.Model, System: r.System, Prompt: r.Prompt,
		MaxTokens: r.MaxTokens, Stream: r.OnChunk != nil}, &out, r.OnChunk)
	return out, err
}

// RegisterOption declares an option the user can set: $ZUT_OPT_<NAME>
// (upper case, other characters as '_') or options.<name> in
// $ZUT_HOME/config.json, else def. It declares CapHostRequests.
func (e *Extension) RegisterOption(name, description, def string) {
	e.mu.Lock()
	e.declareLocked(CapHostRequests)
	e.registerLocked(proto.RegisterOption{Name: name, Description: description, Default: def})
	e.mu.Unlock()
}

// Option returns the value of the option name: set with SetOption, else
// from the environment, the config file or its default.
func (e *Extension) Option(ctx context.Context, name string) (string, error) {
	var out proto.OptionResult
	err := e.request(ctx, proto.MethodOptionsGet, proto.OptionParams{Name: name}, &out, nil)
	return out.Value, err
}

// SetOption sets the option name for the rest of this run of zut.
func (e *Extension) SetOption(ctx context.Context, name, value string) error {
	return e.request(ctx, proto.MethodOptionsSet, proto.OptionParams{Name: name, Value: value}, nil, nil)
}

// SendMode says how Send delivers a prompt.
type SendMode string

// Send modes.
const (
	SendQueue     SendMode = proto.SendQueue     // after the running prompt, or now when idle
	SendSteer     SendMode = proto.SendSteer     // into the running prompt at its next safe point
	SendInterrupt SendMode = proto.SendInterrupt // abort the running prompt, then send
)

// Send submits text as a user prompt.
func (e *Extension) Send(ctx context.Context, text string, mode SendMode) error {
	return e.request(ctx, proto.MethodAppSend, proto.SendParams{Text: text, Mode: string(mode)}, nil, nil)
}

// Exit asks zut to quit gracefully.
func (e *Extension) Exit(ctx context.Context) error {
	return e.request(ctx, proto.MethodAppExit, nil, nil, nil)
}

// Reload restarts every extension, this one included: the call may
// return ErrClosed as the connection ends.
func (e *Extension) Reload(ctx context.Context) error {
	err := e.request(ctx, proto.MethodAppReloadExtensions, nil, nil, nil)
	if errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

// CustomEvent is an event another extension emitted with EmitCustom.
type CustomEvent struct {
	Name string
	Data json.RawMessage
	From string // the extension that emitted it
}

// EmitCustom sends the custom event name with data (encoded as JSON) to
// the other extensions that listen with OnCustom.
func (e *Extension) EmitCustom(ctx context.Context, name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return e.request(ctx, proto.MethodAppNotifyCustom, proto.CustomParams{Name: name, Data: b}, nil, nil)
}

// OnCustom adds fn to the functions told of custom events named name
// ("" for every name) from other extensions. It declares CapEvents2;
// custom events arrive in order with the lifecycle events.
func (e *Extension) OnCustom(name string, fn func(CustomEvent)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapEvents2)
	if e.add.customs == nil {
		e.add.customs = map[string][]func(CustomEvent){}
	}
	e.add.customs[name] = append(e.add.customs[name], fn)
	if _, ok := e.events[proto.EventCustom]; !ok {
		e.events[proto.EventCustom] = nil
		e.subscribeLocked(proto.EventCustom, false)
	}
}

func (e *Extension) runCustom(ev CustomEvent) {
	e.mu.Lock()
	fns := append(append([]func(CustomEvent){}, e.add.customs[ev.Name]...), e.add.customs[""]...)
	e.mu.Unlock()
	for _, fn := range fns {
		e.guard("custom event handler", func() { fn(ev) })
	}
}

// SetEditorText replaces the text of the user's editor.
func (e *Extension) SetEditorText(ctx context.Context, text string) error {
	return e.request(ctx, proto.MethodEditorSetText, proto.TextParams{Text: text}, nil, nil)
}

// SuspendTUI asks the terminal UI to release the terminal, runs fn (which
// may run an interactive program on /dev/tty), and gives the terminal
// back. In modes without a terminal UI fn runs all the same.
func (e *Extension) SuspendTUI(ctx context.Context, fn func()) error {
	var out proto.SuspendResult
	if err := e.request(ctx, proto.MethodTUISuspend, nil, &out, nil); err != nil {
		return err
	}
	e.guard("SuspendTUI function", fn)
	if !out.Suspended {
		return nil
	}
	return e.request(context.WithoutCancel(ctx), proto.MethodTUIResume, nil, nil, nil)
}
