package interactive

import (
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"io"
	"strings"

	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/tui"
)

// uiBridge is the interactive host's side of the extension protocol: the
// host calls it from its goroutines, and it hands everything to the UI
// loop. Methods added to extUI later fall back to nopUI's.
type uiBridge struct {
	app.NopUI
	post func(func(*ui))
	done <-chan struct{} // closed when the UI ends
}

// bridge returns the app.UI that feeds this UI.
func (u *ui) bridge() app.UI { return uiBridge{post: u.inbox.post, done: u.ctx.Done()} }

func (b uiBridge) Notify(ext, level, message string) {
	b.post(func(u *ui) {
		u.note(tui.Note{Source: ext, Level: level, Text: message})
		u.dirty = true
	})
}

func (b uiBridge) Display(ext, text string) {
	b.post(func(u *ui) {
		u.note(tui.Note{Source: ext, Text: text, Display: true})
		u.dirty = true
	})
}

func (b uiBridge) ClearNotes(ext string) {
	b.post(func(u *ui) { u.chat.ClearNotes(ext, false); u.dirty = true })
}

func (b uiBridge) Alert(ext, kind, reason string) {
	if kind != proto.AlertBell && kind != "" {
		return
	}
	b.post(func(u *ui) { u.alert("extension") })
}

func (b uiBridge) Status(ext, key, level, text string) {
	b.post(func(u *ui) {
		u.chat.SetStatus(tui.StatusItem{Source: ext, Key: key, Level: level, Text: text, Priority: u.statusPrio[ext+"\x00"+key]})
		u.dirty = true
	})
}

func (b uiBridge) Widget(ext string, w proto.Widget) {
	b.post(func(u *ui) {
		// below_input shows below the editor, right_bar in the side rail
		// (above the editor when the terminal is narrow), any other
		// placement above the input (C18).
		u.chat.SetWidget(tui.Widget{Source: ext, ID: w.ID, Title: w.Title, Lines: append([]string(nil), w.Lines...),
			Below: w.Position == proto.WidgetBelowInput, Right: w.Position == proto.WidgetRightBar,
			Priority: w.Priority, Markdown: w.Markdown,
			Border: w.BorderColor, NoBorder: w.NoBorder})
		u.dirty = true
	})
}

func (b uiBridge) WidgetClear(ext, id string) {
	b.post(func(u *ui) { u.chat.ClearWidget(ext, id); u.dirty = true })
}

func (b uiBridge) OpenPanel(ext string, p proto.Panel) {
	b.post(func(u *ui) {
		u.chat.SetPanel(&tui.Panel{Source: ext, ID: p.ID, Title: p.Title, Lines: append([]string(nil), p.Lines...), Footer: p.Footer})
		u.plainPanel()
		u.dirty = true
	})
}

func (b uiBridge) RenderPanel(ext string, p proto.Panel) {
	b.post(func(u *ui) {
		cur := u.chat.Panel()
		if cur == nil || cur.Source != ext || cur.ID != p.ID {
			return
		}
		title := p.Title
		if title == "" {
			title = cur.Title
		}
		u.chat.SetPanel(&tui.Panel{Source: ext, ID: p.ID, Title: title, Lines: append([]string(nil), p.Lines...), Footer: p.Footer})
		u.plainPanel()
		u.dirty = true
	})
}

func (b uiBridge) ClosePanel(ext, panelID string) {
	b.post(func(u *ui) {
		if cur := u.chat.Panel(); cur != nil && cur.Source == ext && (cur.ID == panelID || panelID == "") {
			u.chat.SetPanel(nil)
			u.dirty = true
		}
	})
}

func (b uiBridge) Submit(ext, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.post(func(u *ui) { u.submitPrompt(text, "extension") })
}

// QueuePrompt serves app.send: the text is submitted like a typed prompt
// (queued while a turn runs).
func (b uiBridge) QueuePrompt(ext, text string) error {
	b.Submit(ext, text)
	return nil
}

func (b uiBridge) SubmitSlash(ext, text string) {
	b.post(func(u *ui) {
		if !strings.HasPrefix(strings.TrimSpace(text), "/") {
			text = "/" + strings.TrimSpace(text)
		}
		u.command(strings.TrimSpace(text))
		u.dirty = true
	})
}

func (b uiBridge) ClearChrome(ext string) {
	b.post(func(u *ui) {
		u.chat.ClearSource(ext)
		u.chat.SetBanner(tui.Banner{Source: ext}, false)
		u.chat.SetBanner(tui.Banner{Source: ext}, true)
		if _, ok := u.visibility[ext]; ok {
			delete(u.visibility, ext)
			u.applyVisibility()
		}
		u.reacquireFrom(ext)
		u.dirty = true
	})
}

func (b uiBridge) Exited(ext string, err error, logPath string) {
	b.post(func(u *ui) {
		msg := fmt.Sprintf("extension %q stopped: %v", ext, err)
		if logPath != "" {
			msg += "\nlog: " + logPath
		}
		u.chat.AddNotice("error", "", msg)
		u.refreshCommands()
		u.dirty = true
	})
}

func (b uiBridge) CommandsChanged() {
	b.post(func(u *ui) { u.refreshCommands() })
}

func (b uiBridge) Log(ext, msg string) {
	b.post(func(u *ui) {
		u.chat.AddNotice("warn", ext, msg)
		u.dirty = true
	})
}

// submitPrompt runs text as a prompt, or queues it behind the running
// one, as typed text would be (the extension protocol's submit).
func (u *ui) submitPrompt(text, source string) {
	if u.busy || u.job != nil {
		u.enqueue(text, source)
		return
	}
	u.startPrompt(text, source)
}

// closePanelByUser closes the panel on Esc or Ctrl+C and tells its owner
// (C17).
func (u *ui) closePanelByUser() {
	p := u.chat.Panel()
	if p == nil {
		return
	}
	u.chat.SetPanel(nil)
	if u.app != nil && u.app.Host() != nil {
		u.app.Host().PanelClosed(p.ID)
	}
	u.dirty = true
}

// alert rings the terminal bell when terminal alerts are on: for an
// extension's alert frame, and, while the terminal window is not focused
// (terminals that report focus), when a tool waits for confirmation or a
// prompt finished.
func (u *ui) alert(why string) {
	if !u.st.TerminalAlerts || u.plain {
		return
	}
	if why != "extension" && u.focused {
		return
	}
	io.WriteString(u.cfg.out, "\a")
}
