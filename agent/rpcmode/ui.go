package rpcmode

import (
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/proto"
)

// rpcUI turns what extensions show into RPC events. Its methods are called
// from the extension host's goroutines and never block: they only queue
// events. Methods added to extUI later fall back to nopUI until they get
// an RPC mapping here.
type rpcUI struct {
	app.NopUI
	s       *rpcServer
	dialogs rpcDialogs
	prio    rpcPriorities
}

var _ app.UI = (*rpcUI)(nil)

func newRPCUI(s *rpcServer) *rpcUI {
	return &rpcUI{s: s}
}

func (u *rpcUI) Notify(ext, level, message string) {
	if level == "" {
		level = proto.LevelInfo
	}
	u.s.event(proto.RPCExtNotify{Extension: ext, Level: level, Message: message})
}

func (u *rpcUI) Display(ext, text string) {
	u.s.event(proto.RPCExtDisplay{Extension: ext, Text: text})
}

func (u *rpcUI) ClearNotes(ext string) {
	u.s.event(proto.RPCExtClearNotes{Extension: ext})
}

func (u *rpcUI) Alert(ext, kind, reason string) {
	u.s.event(proto.RPCExtAlert{Extension: ext, Kind: kind, Reason: reason})
}

func (u *rpcUI) Status(ext, key, level, text string) {
	if level == "" {
		level = proto.LevelInfo
	}
	u.s.event(proto.RPCExtStatus{Extension: ext, Key: key, Level: level, Text: text, Priority: u.prio.get(ext, key)})
}

func (u *rpcUI) Widget(ext string, w proto.Widget) {
	pos := w.Position
	if pos == "" {
		pos = proto.WidgetAboveInput
	}
	lines := w.Lines
	if lines == nil {
		lines = []string{}
	}
	u.s.event(proto.RPCExtWidget{Extension: ext, ID: w.ID, Position: pos, Title: w.Title, Lines: lines,
		Priority: w.Priority, Markdown: w.Markdown, BorderColor: w.BorderColor, NoBorder: w.NoBorder})
}

func (u *rpcUI) WidgetClear(ext, id string) {
	u.s.event(proto.RPCExtWidgetClear{Extension: ext, ID: id})
}

func (u *rpcUI) OpenPanel(ext string, p proto.Panel) {
	u.s.event(proto.RPCExtPanelOpen{RPCExtPanel: rpcPanel(ext, p)})
}

func (u *rpcUI) RenderPanel(ext string, p proto.Panel) {
	u.s.event(proto.RPCExtPanelRender{RPCExtPanel: rpcPanel(ext, p)})
}

func (u *rpcUI) ClosePanel(ext, panelID string) {
	u.s.event(proto.RPCExtPanelClose{Extension: ext, PanelID: panelID})
}

// Submit is ignored in RPC mode, as the protocol says: there is no prompt
// queue an extension may feed. It is logged on stderr.
func (u *rpcUI) Submit(ext, text string) {
	u.s.logf("ignored submit from extension %q: extensions cannot send prompts in RPC mode", ext)
}

// SubmitSlash is ignored like Submit.
func (u *rpcUI) SubmitSlash(ext, text string) {
	u.s.logf("ignored submit_slash %q from extension %q: extensions cannot run commands in RPC mode", text, ext)
}

func (u *rpcUI) ClearChrome(ext string) {
	u.s.event(proto.RPCExtChromeClear{Extension: ext})
}

func (u *rpcUI) Exited(ext string, err error, logPath string) {
	msg := "stopped"
	if err != nil {
		msg = err.Error()
	}
	u.s.event(proto.RPCExtExited{Extension: ext, Error: msg, Log: logPath})
}

// CommandsChanged becomes commands_changed once serving has started;
// registrations during startup are in get_commands from the first
// command on.
func (u *rpcUI) CommandsChanged() {
	if u.s.live.Load() {
		u.s.event(proto.RPCCommandsChanged{})
	}
}

// Log carries host diagnostics meant for the user (an interceptor that
// timed out, unusable modified_args): a warning note of the extension.
func (u *rpcUI) Log(ext, msg string) {
	u.s.event(proto.RPCExtNotify{Extension: ext, Level: proto.LevelWarn, Message: msg})
}

// rpcPanel is a panel's content as panel events carry it.
func rpcPanel(ext string, p proto.Panel) proto.RPCExtPanel {
	lines := p.Lines
	if lines == nil {
		lines = []string{}
	}
	return proto.RPCExtPanel{Extension: ext, PanelID: p.ID, Title: p.Title, Lines: lines, Footer: p.Footer}
}
