package ext

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/zut-go/zut/proto"
)

// The UI additions beyond v2 (capability ui2). Registrations (Shortcut,
// CommandWithCompletion, ToolRenderer, MessageRenderer, AddTool) declare
// CapUI2 themselves; the one-way methods (Print, SetHeader, ...) need it
// declared with Use before Run. In modes without a screen the host prints
// notes as lines on stderr and ignores the rest.

// Print styles.
const (
	StylePlain = proto.PrintPlain
	StyleInfo  = proto.PrintInfo
	StyleError = proto.PrintError
	StyleBlock = proto.PrintBlock
)

// Print adds a note to the transcript: shown to the user, never sent to
// the model, not saved. style is one of the Style constants.
func (e *Extension) Print(style, text string) error {
	return e.sendAdded("Print", CapUI2, proto.Print{Text: text, Style: style})
}

// Block is a styled transcript note.
type Block struct {
	Text        string
	Markdown    bool
	BorderColor string // "#rrggbb"
	Subtitle    string
}

// PrintBlock adds a bordered note to the transcript.
func (e *Extension) PrintBlock(b Block) error {
	return e.sendAdded("PrintBlock", CapUI2, proto.Print{Text: b.Text, Style: StyleBlock, Markdown: b.Markdown,
		BorderColor: b.BorderColor, Subtitle: b.Subtitle})
}

// RenderMessage adds a note drawn by the message renderer named renderer
// (see MessageRenderer), of this or another extension.
func (e *Extension) RenderMessage(renderer, content string) error {
	return e.sendAdded("RenderMessage", CapUI2, proto.Print{Text: content, Renderer: renderer})
}

// Bar is the content of the header or the footer.
type Bar struct {
	Text        string
	Markdown    bool
	BorderColor string
}

// SetHeader shows b above the transcript.
func (e *Extension) SetHeader(b Bar) error {
	return e.sendAdded("SetHeader", CapUI2, proto.Header{Text: b.Text, Markdown: b.Markdown, BorderColor: b.BorderColor})
}

// ClearHeader removes the extension's header.
func (e *Extension) ClearHeader() error {
	return e.sendAdded("ClearHeader", CapUI2, proto.HeaderClear{})
}

// SetFooter shows b below the editor.
func (e *Extension) SetFooter(b Bar) error {
	return e.sendAdded("SetFooter", CapUI2, proto.Footer{Text: b.Text, Markdown: b.Markdown, BorderColor: b.BorderColor})
}

// ClearFooter removes the extension's footer.
func (e *Extension) ClearFooter() error {
	return e.sendAdded("ClearFooter", CapUI2, proto.FooterClear{})
}

// UIVisibility says which parts of the interactive UI to hide.
type UIVisibility = proto.UIVisibility

// SetUIVisibility replaces what the extension asks the UI to hide.
func (e *Extension) SetUIVisibility(v UIVisibility) error {
	return e.sendAdded("SetUIVisibility", CapUI2, v)
}

// SetStatusItem is SetStatus with a priority: lower is further left.
func (e *Extension) SetStatusItem(key, level, text string, priority int) error {
	return e.sendAdded("SetStatusItem", CapUI2, proto.Status{Key: key, Level: level, Text: text, Priority: priority})
}

// WidgetPositionBelowInput places a widget below the editor; SetWidget
// takes it without ui2.
const WidgetPositionBelowInput WidgetPosition = proto.WidgetBelowInput

// WidgetPositionRightBar places a widget in a side rail at the right of
// the editor; a narrow terminal shows it above the editor. SetWidget takes
// it without ui2.
const WidgetPositionRightBar WidgetPosition = proto.WidgetRightBar

// Widget is a widget with the styling of ui2.
type Widget struct {
	ID          string
	Position    WidgetPosition
	Title       string
	Lines       []string
	Priority    int // lower values are drawn first
	Markdown    bool
	BorderColor string
	NoBorder    bool
}

// SetStyledWidget sets or replaces the widget w.ID.
func (e *Extension) SetStyledWidget(w Widget) error {
	return e.sendAdded("SetStyledWidget", CapUI2, proto.Widget{ID: w.ID, Position: string(w.Position), Title: w.Title,
		Lines: w.Lines, Priority: w.Priority, Markdown: w.Markdown, BorderColor: w.BorderColor, NoBorder: w.NoBorder})
}

// CanonicalKey returns the form in which zut names the key called name
// (see docs/protocol.md, "Key names"): "Alt + Ctrl + P" is "ctrl+alt+p",
// "shift+a" is "A". For a name no key has it returns an error saying why.
// Shortcut and SetEditor use it; compare EditorKey.Key with its result.
func CanonicalKey(name string) (string, error) { return proto.CanonicalKey(name) }

// Shortcut claims the editor key (such as "ctrl+alt+p", in any spelling
// CanonicalKey accepts) and runs fn on its own goroutine each time the
// user presses it. It declares CapUI2. A name no key has is logged, and
// zut refuses it with a note in the chat.
func (e *Extension) Shortcut(key, description string, fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapUI2)
	canon, err := proto.CanonicalKey(key)
	if err != nil {
		e.Logf("shortcut: %v; zut will refuse it", err)
		e.registerLocked(proto.RegisterShortcut{Key: key, Description: description})
		return
	}
	key = canon
	if e.add.shortcuts == nil {
		e.add.shortcuts = map[string]func(){}
	}
	_, again := e.add.shortcuts[key]
	e.add.shortcuts[key] = fn
	if !again {
		e.registerLocked(proto.RegisterShortcut{Key: key, Description: description})
	}
}

// CommandWithCompletion is Command with completion of the arguments:
// complete gets what the user typed after the name and returns
// completions, best first. It declares CapUI2.
func (e *Extension) CommandWithCompletion(name, description string, handler func(args string) Response, complete func(prefix string) []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapUI2)
	if e.add.completions == nil {
		e.add.completions = map[string]func(string) []string{}
	}
	e.add.completions[strings.ToLower(name)] = complete
	for _, c := range e.commands {
		if strings.EqualFold(c.name, name) {
			c.fn = handler
			return
		}
	}
	e.commands = append(e.commands, &command{name: name, fn: handler})
	e.registerLocked(proto.RegisterCommand{Name: name, Description: description, Complete: true})
}

// EditorKey is a key pressed in the editor, with the editor's text.
type EditorKey struct {
	Key  string
	Text string
}

// EditorAction says what the editor does with a key. Build it with
// Passthrough, Consumed, Remap or SubmitText.
type EditorAction struct {
	Action string // proto.EditorPassthrough, EditorConsumed, EditorRemap or EditorSubmit
	Key    string
	Text   string
}

// Passthrough lets the editor handle the key as usual.
func Passthrough() EditorAction { return EditorAction{Action: proto.EditorPassthrough} }

// Consumed swallows the key.
func Consumed() EditorAction { return EditorAction{Action: proto.EditorConsumed} }

// Remap makes the editor handle key instead.
func Remap(key string) EditorAction { return EditorAction{Action: proto.EditorRemap, Key: key} }

// SubmitText submits text as the prompt.
func SubmitText(text string) EditorAction {
	return EditorAction{Action: proto.EditorSubmit, Text: text}
}

// SetEditor asks for the editor keys keys (in any spelling CanonicalKey
// accepts; EditorKey.Key is the canonical name): fn decides, quickly (the
// host waits 200 ms, then lets the editor handle the key), what happens
// to each. It replaces any earlier set; ResetEditor removes it.
func (e *Extension) SetEditor(keys []string, fn func(EditorKey) EditorAction) error {
	canon := make([]string, len(keys))
	for i, k := range keys {
		c, err := proto.CanonicalKey(k)
		if err != nil {
			e.Logf("set_editor: %v; zut will refuse it", err)
			c = k
		}
		canon[i] = c
	}
	e.mu.Lock()
	e.add.editorKeys, e.add.editorFn = canon, fn
	e.mu.Unlock()
	return e.sendAdded("SetEditor", CapUI2, proto.SetEditor{Keys: canon})
}

// ResetEditor gives every key back to the editor.
func (e *Extension) ResetEditor() error {
	e.mu.Lock()
	e.add.editorKeys, e.add.editorFn = nil, nil
	e.mu.Unlock()
	return e.sendAdded("ResetEditor", CapUI2, proto.ResetEditor{})
}

// ToolRenderer changes how the interactive UI shows calls of ToolName.
// Header, when set, returns the header line for the call's arguments;
// Body, when set, the body for its result. An empty return keeps the
// default. Both run on their own goroutines and should be quick.
type ToolRenderer struct {
	ToolName     string
	DisplayName  string
	BorderColor  string
	BodyMarkdown bool
	Header       func(args json.RawMessage, width int) string
	Body         func(result string, isError bool, width int) string
}

// ToolRenderer registers r; it declares CapUI2.
func (e *Extension) ToolRenderer(r ToolRenderer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapUI2)
	if e.add.toolRenderers == nil {
		e.add.toolRenderers = map[string]ToolRenderer{}
	}
	_, again := e.add.toolRenderers[r.ToolName]
	e.add.toolRenderers[r.ToolName] = r
	if !again {
		e.registerLocked(proto.RegisterToolRenderer{ToolName: r.ToolName, DisplayName: r.DisplayName, BorderColor: r.BorderColor,
			BodyMarkdown: r.BodyMarkdown, RenderHeader: r.Header != nil, RenderBody: r.Body != nil})
	}
}

// MessageRenderer registers the renderer name for RenderMessage notes: fn
// returns the lines to show in width columns. It declares CapUI2.
func (e *Extension) MessageRenderer(name string, fn func(content string, width int) []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.declareLocked(CapUI2)
	if e.add.msgRenderers == nil {
		e.add.msgRenderers = map[string]func(string, int) []string{}
	}
	_, again := e.add.msgRenderers[name]
	e.add.msgRenderers[name] = fn
	if !again {
		e.registerLocked(proto.RegisterMessageRenderer{Name: name})
	}
}

// ToolContext is what a tool registered with AddTool gets besides its
// context: the call's id and a way to report progress.
type ToolContext struct {
	CallID string
	e      *Extension
}

// Progress shows text as the call's progress while it runs.
func (tc ToolContext) Progress(text string) error {
	if tc.e == nil {
		return nil
	}
	return tc.e.sendAdded("ToolContext.Progress", CapUI2, proto.ToolProgress{ID: tc.CallID, Text: text})
}

// ToolSpec is a tool with every option: Deferred and Interactive as for
// DeferredTool and InteractiveTool. Handler's ctx is cancelled when the
// host abandons the call, on shutdown and when the connection ends.
type ToolSpec struct {
	Name        string
	Description string
	Schema      json.RawMessage
	Deferred    bool
	Interactive bool
	Handler     func(ctx context.Context, tc ToolContext, args json.RawMessage) ToolResult
}

// AddTool registers s. It declares CapUI2 for ToolContext.Progress.
func (e *Extension) AddTool(s ToolSpec) {
	e.mu.Lock()
	e.declareLocked(CapUI2)
	e.mu.Unlock()
	h := s.Handler
	e.addTool(proto.RegisterTool{Name: s.Name, Description: s.Description, Schema: s.Schema, Deferred: s.Deferred, Interactive: s.Interactive},
		&tool{name: s.Name, specFn: h})
}

// dispatchAdded acts on an additive frame from the host and reports
// whether it knew it.
func (c *conn) dispatchAdded(f proto.Frame) bool {
	e := c.e
	switch f := f.(type) {
	case *proto.HostResponse:
		c.hostResponse(f.ID, f, nil)
	case *proto.HostStream:
		c.hostResponse(f.ID, nil, &f.Text)
	case *proto.Shortcut:
		e.mu.Lock()
		key := f.Key
		if k, err := proto.CanonicalKey(key); err == nil {
			key = k
		}
		fn := e.add.shortcuts[key]
		e.mu.Unlock()
		if fn == nil {
			e.Logf("ignored shortcut %q: no handler", f.Key)
			break
		}
		c.afterEvents(func() { e.guard("shortcut "+f.Key, fn) })
	case *proto.CommandComplete:
		c.goRequest(func() {
			e.mu.Lock()
			fn := e.add.completions[strings.ToLower(f.Name)]
			e.mu.Unlock()
			items := []string{}
			if fn != nil {
				e.guard("completion of /"+f.Name, func() { items = append(items, fn(f.Prefix)...) })
			}
			c.reply(proto.CommandCompletions{ID: f.ID, Items: items})
		})
	case *proto.EditorKey:
		c.goRequest(func() {
			e.mu.Lock()
			fn := e.add.editorFn
			e.mu.Unlock()
			a := Passthrough()
			if fn != nil {
				e.guard("editor key "+f.Key, func() { a = fn(EditorKey{Key: f.Key, Text: f.Text}) })
			}
			if a.Action == "" {
				a.Action = proto.EditorPassthrough
			}
			c.reply(proto.EditorKeyResponse{ID: f.ID, Action: a.Action, Key: a.Key, Text: a.Text})
		})
	case *proto.RenderTool:
		c.goRequest(func() {
			e.mu.Lock()
			r := e.add.toolRenderers[f.ToolName]
			e.mu.Unlock()
			resp := proto.RenderToolResponse{ID: f.ID}
			if r.Header != nil {
				e.guard("tool renderer header", func() { resp.Header = r.Header(f.Args, f.Width) })
			}
			if r.Body != nil && f.Result != nil {
				e.guard("tool renderer body", func() { resp.Body = r.Body(*f.Result, f.IsError, f.Width) })
			}
			c.reply(resp)
		})
	case *proto.RenderMessage:
		c.goRequest(func() {
			e.mu.Lock()
			fn := e.add.msgRenderers[f.Name]
			e.mu.Unlock()
			lines := []string{f.Content}
			if fn != nil {
				e.guard("message renderer "+f.Name, func() { lines = fn(f.Content, f.Width) })
			}
			c.reply(proto.RenderMessageResponse{ID: f.ID, Lines: lines})
		})
	default:
		return false
	}
	return true
}
