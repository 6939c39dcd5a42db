package exttest

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/zut-go/zut/proto"
)

// world is the tester's model of the host side of one session: what the
// extension registered, which requests are open, the panel slot, and the
// problems seen in its frames. observe updates it on the session's reader
// goroutine; the probes read it under mu.
type world struct {
	mu sync.Mutex
	s  *session

	name    string // the manifest's
	cwd     string // hello_ack cwd
	extDir  string
	dataDir string

	hello    *proto.Hello
	helloRec *record
	caps     map[string]bool
	window   bool    // the registration window closed (ready or C5)
	ready    *record // the first ready frame
	ack      *record // the shutdown_ack

	commands  []*reg[proto.RegisterCommand]
	tools     []*reg[proto.RegisterTool]
	subs      []*reg[proto.Subscribe]
	options   []*reg[proto.RegisterOption]
	shortcuts []*reg[proto.RegisterShortcut]
	editor    *reg[proto.SetEditor]
	toolRend  []*reg[proto.RegisterToolRenderer]
	msgRend   []*reg[proto.RegisterMessageRenderer]
	activated map[string]bool // deferred tools named in activate_tools

	sent     map[string]*sentRequest // requests of the tester, by id
	inflight map[string]bool         // tool call ids awaiting a result

	panel   *panel            // the open panel, nil when the slot is empty
	opened  []*panel          // every panel the extension opened
	closed  map[string]*panel // panels the host closed, by id
	shown   []finding         // ui2 frames, for additions.ui
	found   []finding         // problems for the end-of-run checks
	hostReq []*hostRequest
	added   map[string]int // additive frames by capability, for additions.capabilities

	data hostData // what host requests read and change
}

// reg is one registration frame and when it came.
type reg[T any] struct {
	f    T
	rec  *record
	late bool // after the registration window closed
}

// sentRequest is a request the tester sent and the replies it got.
type sentRequest struct {
	reply   string // the reply frame type
	replies int
}

// panel is an extension panel in (or once in) the slot.
type panel struct {
	p        proto.Panel
	rec      *record
	closedAt int       // index of the host's panel_close, -1 while open
	renders  []*record // panel_render frames while open
	after    []*record // panel_render frames after the host closed it
	byExt    bool      // the extension closed it
}

func newWorld(name, cwd, extDir, dataDir string) *world {
	return &world{
		name: name, cwd: cwd, extDir: extDir, dataDir: dataDir,
		caps: map[string]bool{}, activated: map[string]bool{}, sent: map[string]*sentRequest{},
		inflight: map[string]bool{}, closed: map[string]*panel{}, added: map[string]int{},
		data: newHostData(),
	}
}

func (w *world) note(id, subject string, st Status, r *record, format string, args ...any) {
	w.found = append(w.found, finding{id: id, subject: subject, status: st, msg: fmt.Sprintf(format, args...), rec: r})
}

// expect records a request the tester is about to send.
func (w *world) expect(id, replyType string) {
	w.mu.Lock()
	w.sent[id] = &sentRequest{reply: replyType}
	if replyType == "tool_result" {
		w.inflight[id] = true
	}
	w.mu.Unlock()
}

// observe takes one line from the extension.
func (w *world) observe(r *record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hello == nil && r.err != nil {
		return // handshake.hello_first's business
	}
	if r.err != nil {
		w.badLine(r)
		return
	}
	f := r.frame
	if w.hello == nil {
		if h, ok := f.(*proto.Hello); ok {
			w.hello, w.helloRec = h, r
			for _, c := range h.Capabilities {
				w.caps[c] = true
			}
		}
		return // anything else first is handshake.hello_first's business
	}
	if c := proto.AddedFrameCapability(f.Type()); c != "" {
		if !w.caps[c] {
			w.note("additions.capabilities", f.Type(), Fail, r,
				"sent a %s frame without listing the capability %q in hello; zut ignores it (C6)", f.Type(), c)
			return
		}
		w.added[c]++
	}
	switch f := f.(type) {
	case *proto.Hello:
		w.note("robustness.frames", "hello", Warn, r, "sent a second hello; zut ignores it")
	case *proto.RegisterCommand:
		w.commands = append(w.commands, &reg[proto.RegisterCommand]{*f, r, w.window})
	case *proto.RegisterTool:
		w.tools = append(w.tools, &reg[proto.RegisterTool]{*f, r, w.window})
	case *proto.Subscribe:
		w.subs = append(w.subs, &reg[proto.Subscribe]{*f, r, w.window})
	case *proto.Ready:
		if w.ready == nil {
			w.ready = r
		}
		w.window = true // ready closes the registration window (C5)
	case *proto.ToolResult:
		w.gotReply(r, f.ID)
		delete(w.inflight, f.ID)
		for _, n := range f.ActivateTools {
			w.activated[n] = true
		}
	case *proto.CommandResponse:
		w.gotReply(r, f.ID)
		if f.Action == proto.ActionOpenPanel && f.OpenPanel != nil {
			w.open(*f.OpenPanel, r)
		}
	case *proto.EventInterceptResponse, *proto.CommandCompletions, *proto.EditorKeyResponse,
		*proto.RenderToolResponse, *proto.RenderMessageResponse:
		w.gotReply(r, replyID(f))
	case *proto.OpenPanel:
		w.open(f.Panel, r)
	case *proto.PanelRender:
		w.render(f, r)
	case *proto.PanelClose:
		if w.panel != nil && w.panel.p.ID == f.PanelID {
			w.panel.byExt = true
			w.panel = nil
		}
	case *proto.ShutdownAck:
		if w.ack == nil {
			w.ack = r
		}
	case *proto.HostRequest:
		w.hostRequest(f, r)
	case *proto.RegisterOption:
		w.options = append(w.options, &reg[proto.RegisterOption]{*f, r, w.window})
	case *proto.RegisterShortcut:
		w.shortcuts = append(w.shortcuts, &reg[proto.RegisterShortcut]{*f, r, w.window})
	case *proto.SetEditor:
		w.editor = &reg[proto.SetEditor]{*f, r, w.window}
		if len(f.Keys) == 0 {
			w.shown = append(w.shown, finding{id: "additions.ui", subject: "set_editor", status: Warn, rec: r,
				msg: "set_editor with no keys; send reset_editor to stop handling keys"})
		}
	case *proto.ResetEditor:
		w.editor = nil
	case *proto.RegisterToolRenderer:
		w.toolRend = append(w.toolRend, &reg[proto.RegisterToolRenderer]{*f, r, w.window})
	case *proto.RegisterMessageRenderer:
		w.msgRend = append(w.msgRend, &reg[proto.RegisterMessageRenderer]{*f, r, w.window})
	default:
		w.oneWay(f, r)
	}
}

// badLine judges a line that did not decode.
func (w *world) badLine(r *record) {
	var (
		tooLong *proto.LineTooLongError
		unknown *proto.UnknownTypeError
		bad     *proto.InvalidFrameError
	)
	switch {
	case errors.Is(r.err, errFlood):
		w.note("robustness.stdout", "", Fail, nil, "wrote more than %d lines or %d MiB on stdout during the test; the tester stopped it", maxRecords, maxRecordText>>20)
	case errors.As(r.err, &tooLong):
		w.note("robustness.stdout", "", Fail, r, "wrote a line longer than %d bytes; zut disconnects the extension (C12)", tooLong.Limit)
	case errors.As(r.err, &unknown):
		w.note("robustness.stdout", unknown.Type, Warn, r, "wrote a frame of unknown type %q; zut logs and skips it (C12)", unknown.Type)
	case errors.As(r.err, &bad) && bad.Type != "":
		w.note("robustness.frames", bad.Type, Fail, r, "wrote a %s frame zut cannot decode: %v; zut skips it (C12)", bad.Type, bad.Err)
	default:
		w.note("robustness.stdout", "", Fail, r, "wrote a line that is not a JSON frame; stdout is for frames only, write logs to stderr")
	}
}

// gotReply counts a reply for calls.ids (C13).
func (w *world) gotReply(r *record, id string) {
	typ := r.frame.Type()
	sr := w.sent[id]
	switch {
	case id == "":
		w.note("calls.ids", typ, Fail, r, "a %s without an id; zut cannot match it to a request", typ)
	case sr == nil || sr.reply != typ:
		w.note("calls.ids", typ, Fail, r, "a %s for id %q, which the host never sent such a request for", typ, id)
	case sr.replies > 0:
		w.note("calls.ids", typ, Fail, r, "a second %s for id %q; a request gets one reply", typ, id)
	}
	if sr != nil {
		sr.replies++
	}
}

// open puts an extension panel in the slot; a panel already there is
// closed with panel_close to its owner first (C17).
func (w *world) open(p proto.Panel, r *record) {
	np := &panel{p: p, rec: r, closedAt: -1}
	w.opened = append(w.opened, np)
	if p.ID == "" {
		return // panels.open reports it; zut cannot open it
	}
	if old := w.panel; old != nil && old.p.ID != p.ID {
		w.closeLocked(old)
	}
	w.panel = np
}

// closeLocked sends panel_close for p as zut does when the user presses
// Esc or another panel takes the slot.
func (w *world) closeLocked(p *panel) {
	if w.panel == p {
		w.panel = nil
	}
	w.closed[p.p.ID] = p
	p.closedAt = w.s.mark()
	w.s.answer(proto.PanelClose{PanelID: p.p.ID})
}

func (w *world) render(f *proto.PanelRender, r *record) {
	if w.panel != nil && w.panel.p.ID == f.PanelID {
		w.panel.renders = append(w.panel.renders, r)
		return
	}
	if p := w.closed[f.PanelID]; p != nil {
		p.after = append(p.after, r)
		return
	}
	open := "no panel is open"
	if w.panel != nil {
		open = fmt.Sprintf("the open panel is %q", w.panel.p.ID)
	}
	w.note("panels.keys", f.PanelID, Fail, r, "panel_render for panel %q, but %s; zut ignores it", f.PanelID, open)
}

// hostToExtension lists the frame types only the host sends.
func hostToExtension() map[string]bool {
	return hostToExtensionLazy.get(func() map[string]bool {
		return map[string]bool{
			"hello_ack": true, "command_invoked": true, "tool_call": true, "tool_cancel": true, "event": true,
			"event_intercept": true, "panel_key": true, "shutdown": true, "host_response": true, "host_stream": true,
			"shortcut": true, "command_complete": true, "editor_key": true, "render_tool": true, "render_message": true,
		}
	})
}

var hostToExtensionLazy lazy[map[string]bool]

// oneWay judges a one-way frame.
func (w *world) oneWay(f proto.Frame, r *record) {
	typ := f.Type()
	if hostToExtension()[typ] {
		w.note("robustness.frames", typ, Warn, r, "sent a %s frame, which only the host sends; zut skips it", typ)
		return
	}
	level := func(l string) {
		switch l {
		case "", proto.LevelInfo, proto.LevelSuccess, proto.LevelWarn, proto.LevelError, "warning":
		default:
			w.note("robustness.frames", typ, Fail, r, "level %q is not info, success, warn or error (spec: notify); zut shows it as info", l)
		}
	}
	ui2 := w.caps[proto.CapUI2]
	switch f := f.(type) {
	case *proto.Notify:
		level(f.Level)
		if strings.TrimSpace(f.Message) == "" {
			w.note("robustness.frames", typ, Warn, r, "notify with an empty message shows an empty note")
		}
	case *proto.Status:
		level(f.Level)
		if f.Key == "" {
			w.note("robustness.frames", typ, Fail, r, "status without a key; a status item is set by its key (spec: status), so zut ignores it")
		}
		if f.Priority != 0 && !ui2 {
			w.note("additions.capabilities", typ, Warn, r, "status.priority needs the capability ui2; zut drops it (C6)")
		}
	case *proto.Widget:
		if f.ID == "" {
			w.note("robustness.frames", typ, Fail, r, "widget without an id; a widget is set and cleared by its id (spec: widget), so zut ignores it")
		}
		switch f.Position {
		case "", proto.WidgetAboveInput, proto.WidgetBelowInput, proto.WidgetRightBar:
		default:
			w.note("robustness.frames", typ, Warn, r, "widget position %q is unknown; zut places it above_input (spec: widget, C18)", f.Position)
		}
		if (f.Priority != 0 || f.Markdown || f.BorderColor != "" || f.NoBorder) && !ui2 {
			w.note("additions.capabilities", typ, Warn, r, "widget priority, markdown, border_color and no_border need the capability ui2; zut drops them (C6)")
		}
	case *proto.WidgetClear:
		if f.ID == "" {
			w.note("robustness.frames", typ, Fail, r, "widget_clear without an id; it names the widget to clear (spec: widget_clear), so zut clears nothing")
		}
	case *proto.Alert:
		if f.Kind != proto.AlertBell {
			w.note("robustness.frames", typ, Warn, r, "alert kind %q is not bell; zut ignores it", f.Kind)
		}
	case *proto.Submit:
		if strings.TrimSpace(f.Text) == "" {
			w.note("robustness.frames", typ, Warn, r, "submit with empty text; zut ignores it")
		}
	case *proto.SubmitSlash:
		if t := strings.TrimSpace(f.Text); !strings.HasPrefix(t, "/") || len(t) < 2 {
			w.note("robustness.frames", typ, Warn, r, "submit_slash %q does not start with /name; zut ignores it", f.Text)
		}
	case *proto.ToolProgress:
		if !w.inflight[f.ID] {
			w.shown = append(w.shown, finding{id: "additions.ui", subject: typ, status: Warn, rec: r,
				msg: fmt.Sprintf("tool_progress for id %q, which is not a running tool call; zut ignores it", f.ID)})
		} else {
			w.shown = append(w.shown, finding{id: "additions.ui", subject: typ, status: Pass, rec: r})
		}
	case *proto.Print:
		st, msg := Pass, ""
		switch f.Style {
		case "", proto.PrintPlain, proto.PrintInfo, proto.PrintError, proto.PrintBlock:
		default:
			st, msg = Warn, fmt.Sprintf("print style %q is not plain, info, error or block; zut shows it plain", f.Style)
		}
		if f.Renderer != "" && !w.hasRenderer(f.Renderer) {
			st, msg = Warn, fmt.Sprintf("print names the renderer %q, which the extension did not register; zut shows the text itself", f.Renderer)
		}
		w.shown = append(w.shown, finding{id: "additions.ui", subject: typ, status: st, msg: msg, rec: r})
	case *proto.Header, *proto.Footer, *proto.HeaderClear, *proto.FooterClear, *proto.UIVisibility:
		w.shown = append(w.shown, finding{id: "additions.ui", subject: typ, status: Pass, rec: r})
	case *proto.ClearNotes:
	}
}

func (w *world) hasRenderer(name string) bool {
	for _, m := range w.msgRend {
		if m.f.Name == name {
			return true
		}
	}
	return false
}

// subscribed reports whether the extension subscribed to (intercept
// false) or intercepts the event name.
func (w *world) subscribed(name string, intercept bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.subs {
		list := s.f.Events
		if intercept {
			list = s.f.Intercept
		}
		for _, n := range list {
			if n == name {
				return w.caps[proto.EventCapability(name, intercept)] || proto.EventCapability(name, intercept) == ""
			}
		}
	}
	return false
}
