package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// UI is where extension chrome goes: the interactive UI, RPC events, or
// stderr lines in print and JSON modes. Methods are called from host
// goroutines and must not block.
type UI interface {
	Notify(ext, level, message string)
	Display(ext, text string)
	ClearNotes(ext string)
	Alert(ext, kind, reason string)
	Status(ext, key, level, text string)
	Widget(ext string, w proto.Widget)
	WidgetClear(ext, id string)
	OpenPanel(ext string, p proto.Panel)
	RenderPanel(ext string, p proto.Panel)
	ClosePanel(ext, panelID string)
	Submit(ext, text string)
	SubmitSlash(ext, text string)
	ClearChrome(ext string)
	Exited(ext string, err error, logPath string)
	ToolsChanged()
	CommandsChanged()
	Log(ext, msg string)

	// The methods below serve the additions beyond protocol v2
	// (docs/protocol.md, "Additions beyond v2"). nopUI gives each a
	// default; a mode overrides what it can show.

	// UIRequest shows a dialog (select, confirm, input or overlay) and
	// calls answer once, from any goroutine, with the user's answer
	// (proto.SelectAnswer, ConfirmAnswer, InputAnswer, OverlayAnswer or
	// CancelledAnswer). It must not block: show the dialog and return.
	// nopUI answers at once, cancelled, since nobody can see a dialog.
	UIRequest(ext string, req proto.UIRequest, answer func(proto.UIResponse))
	// UIRequestDone closes the dialog id: it timed out or its extension
	// stopped. It is not called after answer.
	UIRequestDone(ext, id string)
	// Print adds a transcript note that is never sent to the model nor
	// saved. p.Renderer names a message renderer (host.RenderMessage).
	Print(ext string, p proto.Print)
	// Header and Footer set ext's header or footer; empty Text clears it.
	Header(ext string, h proto.Header)
	Footer(ext string, f proto.Footer)
	// UIVisibility replaces what ext asks to hide; hide a part when any
	// extension asks for it.
	UIVisibility(ext string, v proto.UIVisibility)
	// StatusPriority orders ext's status item key (lower is further
	// left); it comes before the Status call that shows the item.
	StatusPriority(ext, key string, priority int)
	// UIChanged: the extensions' shortcuts, editor keys, renderers or
	// options changed; read them again from the host.
	UIChanged()
	// SetEditorText replaces the editor's text (editor.set_text) and
	// reports whether there is an editor to take it; false (NopUI) means
	// the request had no effect.
	SetEditorText(ext, text string) bool
	// SuspendTUI releases the terminal (restores cooked mode, leaves the
	// screen) so that ext can run an interactive program on /dev/tty,
	// and returns once it is released; false means no terminal UI runs.
	// ResumeTUI takes the terminal back and redraws. A UI should resume
	// by itself when the extension stops while it is suspended.
	SuspendTUI(ext string) bool
	ResumeTUI(ext string)
	// Exit asks zut to quit gracefully (app.exit).
	Exit(ext string)
	// QueuePrompt runs text as a prompt of its own after the running one
	// (app.send); ErrNoPromptQueue (NopUI) means the mode has no prompt
	// queue and the app tries a follow-up instead.
	QueuePrompt(ext, text string) error
	// ReloadExtensions runs /reload-ext on the mode's own loop for ext
	// (app.reload_extensions) and reports true; false (nopUI) means the
	// mode has no such loop and the app reloads at once.
	ReloadExtensions(ext string) bool
}

// uiSwitch forwards host callbacks to the current extUI, which a mode may
// replace after the host has started, and host requests to the app's
// handler (hostapi.go), once one is attached.
type uiSwitch struct {
	mu  sync.Mutex
	ui  UI
	api func(ctx context.Context, req *host.Request)
}

// setAPI attaches the handler of host requests.
func (s *uiSwitch) setAPI(api func(ctx context.Context, req *host.Request)) {
	s.mu.Lock()
	s.api = api
	s.mu.Unlock()
}

// hostRequest serves a host request with the attached handler.
func (s *uiSwitch) hostRequest(ctx context.Context, req *host.Request) {
	s.mu.Lock()
	api := s.api
	s.mu.Unlock()
	if api == nil {
		req.Respond(nil, fmt.Errorf("%s: not available: this zut does not serve host requests yet", req.Method))
		return
	}
	api(ctx, req)
}

func (s *uiSwitch) set(ui UI) {
	s.mu.Lock()
	s.ui = ui
	s.mu.Unlock()
}

func (s *uiSwitch) get() UI {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ui == nil {
		return NopUI{}
	}
	return s.ui
}

func (s *uiSwitch) callbacks() host.Callbacks {
	return host.Callbacks{
		Notify:          func(ext, level, msg string) { s.get().Notify(ext, level, msg) },
		ClearNotes:      func(ext string) { s.get().ClearNotes(ext) },
		Alert:           func(ext, kind, reason string) { s.get().Alert(ext, kind, reason) },
		Status:          func(ext, key, level, text string) { s.get().Status(ext, key, level, text) },
		Widget:          func(ext string, w proto.Widget) { s.get().Widget(ext, w) },
		WidgetClear:     func(ext, id string) { s.get().WidgetClear(ext, id) },
		OpenPanel:       func(ext string, p proto.Panel) { s.get().OpenPanel(ext, p) },
		RenderPanel:     func(ext string, p proto.Panel) { s.get().RenderPanel(ext, p) },
		ClosePanel:      func(ext, id string) { s.get().ClosePanel(ext, id) },
		Submit:          func(ext, text string) { s.get().Submit(ext, text) },
		SubmitSlash:     func(ext, text string) { s.get().SubmitSlash(ext, text) },
		ClearChrome:     func(ext string) { s.get().ClearChrome(ext) },
		Exited:          func(ext string, err error, log string) { s.get().Exited(ext, err, log) },
		ToolsChanged:    func() { s.get().ToolsChanged() },
		CommandsChanged: func() { s.get().CommandsChanged() },
		Log:             func(ext, msg string) { s.get().Log(ext, msg) },

		UIRequest: func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
			s.get().UIRequest(ext, req, answer)
		},
		UIRequestDone:  func(ext, id string) { s.get().UIRequestDone(ext, id) },
		HostRequest:    s.hostRequest,
		Print:          func(ext string, p proto.Print) { s.get().Print(ext, p) },
		Header:         func(ext string, h proto.Header) { s.get().Header(ext, h) },
		Footer:         func(ext string, f proto.Footer) { s.get().Footer(ext, f) },
		UIVisibility:   func(ext string, v proto.UIVisibility) { s.get().UIVisibility(ext, v) },
		StatusPriority: func(ext, key string, p int) { s.get().StatusPriority(ext, key, p) },
		UIChanged:      func() { s.get().UIChanged() },
	}
}

// NopUI drops everything.
type NopUI struct{}

func (NopUI) Notify(ext, level, message string)      {}
func (NopUI) Display(ext, text string)               {}
func (NopUI) ClearNotes(ext string)                  {}
func (NopUI) Alert(ext, kind, reason string)         {}
func (NopUI) Status(ext, key, level, text string)    {}
func (NopUI) Widget(ext string, w proto.Widget)      {}
func (NopUI) WidgetClear(ext, id string)             {}
func (NopUI) OpenPanel(ext string, p proto.Panel)    {}
func (NopUI) RenderPanel(ext string, p proto.Panel)  {}
func (NopUI) ClosePanel(ext, panelID string)         {}
func (NopUI) Submit(ext, text string)                {}
func (NopUI) SubmitSlash(ext, text string)           {}
func (NopUI) ClearChrome(ext string)                 {}
func (NopUI) Exited(ext string, err error, l string) {}
func (NopUI) ToolsChanged()                          {}
func (NopUI) CommandsChanged()                       {}
func (NopUI) Log(ext, msg string)                    {}

// UIRequest answers at once, cancelled: nobody can see a dialog.
func (NopUI) UIRequest(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
	answer(proto.CancelledAnswer())
}
func (NopUI) UIRequestDone(ext, id string)                  {}
func (NopUI) Print(ext string, p proto.Print)               {}
func (NopUI) Header(ext string, h proto.Header)             {}
func (NopUI) Footer(ext string, f proto.Footer)             {}
func (NopUI) UIVisibility(ext string, v proto.UIVisibility) {}
func (NopUI) StatusPriority(ext, key string, priority int)  {}
func (NopUI) UIChanged()                                    {}
func (NopUI) SetEditorText(ext, text string) bool           { return false }
func (NopUI) SuspendTUI(ext string) bool                    { return false }
func (NopUI) ResumeTUI(ext string)                          {}
func (NopUI) Exit(ext string)                               {}
func (NopUI) ReloadExtensions(ext string) bool              { return false }
func (NopUI) QueuePrompt(ext, text string) error            { return ErrNoPromptQueue }

// ErrNoPromptQueue is what a UI without a prompt queue answers to
// QueuePrompt.
var ErrNoPromptQueue = errors.New("this mode has no prompt queue")
