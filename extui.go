package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// extUI is where extension chrome goes: the interactive UI, RPC events, or
// stderr lines in print and JSON modes. Methods are called from host
// goroutines and must not block.
type extUI interface {
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
}

// uiSwitch forwards host callbacks to the current extUI, which a mode may
// replace after the host has started.
type uiSwitch struct {
	mu sync.Mutex
	ui extUI
}

func (s *uiSwitch) set(ui extUI) {
	s.mu.Lock()
	s.ui = ui
	s.mu.Unlock()
}

func (s *uiSwitch) get() extUI {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ui == nil {
		return nopUI{}
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
	}
}

// nopUI drops everything.
type nopUI struct{}

func (nopUI) Notify(ext, level, message string)      {}
func (nopUI) Display(ext, text string)               {}
func (nopUI) ClearNotes(ext string)                  {}
func (nopUI) Alert(ext, kind, reason string)         {}
func (nopUI) Status(ext, key, level, text string)    {}
func (nopUI) Widget(ext string, w proto.Widget)      {}
func (nopUI) WidgetClear(ext, id string)             {}
func (nopUI) OpenPanel(ext string, p proto.Panel)    {}
func (nopUI) RenderPanel(ext string, p proto.Panel)  {}
func (nopUI) ClosePanel(ext, panelID string)         {}
func (nopUI) Submit(ext, text string)                {}
func (nopUI) SubmitSlash(ext, text string)           {}
func (nopUI) ClearChrome(ext string)                 {}
func (nopUI) Exited(ext string, err error, l string) {}
func (nopUI) ToolsChanged()                          {}
func (nopUI) CommandsChanged()                       {}
func (nopUI) Log(ext, msg string)                    {}

// stderrUI is the chrome of print and JSON modes: notes, displays and
// diagnostics become "[name] text" lines on stderr; everything that needs
// a screen (status, widgets, panels, bells, submit) is ignored.
type stderrUI struct {
	nopUI
	mu sync.Mutex
	w  io.Writer
}

func (u *stderrUI) line(ext, text string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(u.w, "[%s] %s\n", ext, l)
	}
}

func (u *stderrUI) Notify(ext, level, message string) {
	if level != proto.LevelInfo && level != "" {
		message = level + ": " + message
	}
	u.line(ext, message)
}
func (u *stderrUI) Display(ext, text string) { u.line(ext, text) }
func (u *stderrUI) Log(ext, msg string)      { u.line(ext, msg) }
func (u *stderrUI) Exited(ext string, err error, logPath string) {
	u.line(ext, fmt.Sprintf("stopped: %v (log: %s)", err, logPath))
}
