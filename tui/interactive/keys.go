package interactive

import (
	"io"
	"strings"
	"time"

	"github.com/zut-go/zut/tui"
)

// doubleCtrlC is how soon a second Ctrl+C must follow the first to exit.
const doubleCtrlC = 2 * time.Second

// input handles one event from the terminal.
func (u *ui) input(ev tui.Event) {
	switch ev := ev.(type) {
	case tui.Key:
		if ev.Action == tui.KeyRelease {
			return
		}
		u.dirty = true
		u.key(ev)
	case tui.Paste:
		u.dirty = true
		switch {
		case u.ov != nil:
			u.ov.paste(u, ev.Text)
		case u.chat.Panel() != nil:
			// Panels take keys, not text.
		default:
			u.ed.Paste(ev.Text)
		}
	case tui.Resize:
		u.resize(ev.Width, ev.Height)
	case tui.Resume:
		u.resume()
	case tui.Focus:
		u.focused = ev.In
	}
}

// key routes a key: to the open dialog, the focused panel, the global
// keys, then the editor.
func (u *ui) key(k tui.Key) {
	if u.plain && k.String() == "ctrl+j" {
		// A line of a cooked terminal ends with a line feed.
		k = tui.Key{Code: tui.KeyEnter}
	}
	if ps, ok := u.screen.(*plainScreen); ok && k.Code == tui.KeyEnter {
		ps.lineRead()
	}
	name := k.String()
	if name == "ctrl+z" {
		u.suspend()
		return
	}
	if u.ov != nil {
		u.ov.key(u, k)
		return
	}
	if p := u.chat.Panel(); p != nil {
		switch name {
		case "esc", "ctrl+c":
			u.closePanelByUser()
			return
		case "ctrl+d":
			return
		}
		if pk, text, ok := k.PanelKey(); ok && u.app != nil && u.app.Host() != nil {
			u.app.Host().PanelKey(p.ID, pk, text)
		}
		return
	}
	if u.ed.Menu() != nil {
		// The completion menu has the arrows, Tab, Enter and Esc.
		switch name {
		case "up", "down", "tab", "shift+tab", "enter", "esc", "ctrl+p", "ctrl+n":
			u.editorKey(k)
			return
		}
	}
	switch name {
	case "ctrl+c":
		u.ctrlC()
		return
	case "ctrl+d":
		if u.ed.Empty() {
			u.exit()
			return
		}
	case "esc":
		u.esc()
		return
	case "ctrl+o":
		u.chat.ToggleExpand()
		return
	case "ctrl+t":
		u.togglePlan()
		return
	case "ctrl+g":
		u.externalEditor()
		return
	case "ctrl+v":
		u.pasteClipboard()
		return
	case "ctrl+l":
		u.redraw()
		return
	case "alt+enter":
		if u.busy && !u.ed.Empty() {
			text, _ := u.ed.Submit()
			u.steer(strings.TrimSpace(text))
			return
		}
	}
	used, remapped := u.extensionKey(k)
	switch {
	case used:
		return
	case remapped != nil:
		k = *remapped
	}
	u.editorKey(k)
}

// editorKey gives k to the editor and submits on Enter.
func (u *ui) editorKey(k tui.Key) {
	if u.ed.HandleKey(k) != tui.EditSubmit {
		return
	}
	text := u.ed.Value()
	if strings.TrimSpace(text) == "" {
		return
	}
	if _, err := u.ed.Submit(); err != nil {
		u.chat.AddNotice("warn", "", "save history: "+err.Error())
	}
	u.submit(text)
}

// submit runs what the user entered: a slash command, a shell command, or
// a prompt (queued while another one runs).
func (u *ui) submit(text string) {
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return
	case strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//"):
		u.command(trimmed)
	case strings.HasPrefix(trimmed, "!") && len(trimmed) > 1:
		u.shell(strings.TrimSpace(trimmed[1:]))
	case u.busy || u.job != nil:
		u.enqueue(text, "interactive")
	default:
		if strings.HasPrefix(trimmed, "//") {
			text = strings.TrimPrefix(strings.TrimLeft(text, " \t\n"), "/")
		}
		u.startPrompt(text, "interactive")
	}
	u.dirty = true
}

// esc closes the newest thing open, in order: the side answer, a queued
// prompt (back into the editor), the running turn or job, the notes.
func (u *ui) esc() {
	switch {
	case u.btw != nil:
		u.closeBTW()
	case u.unqueue():
	case u.busy || u.job != nil:
		u.abort()
		u.offerStopSubagents()
	default:
		u.offerStopSubagents()
	}
	u.chat.ClearNotes("", true)
	u.dirty = true
}

// ctrlC clears the editor; on an empty editor it interrupts what runs
// and, pressed twice, exits.
func (u *ui) ctrlC() {
	now := time.Now()
	if !u.ed.Empty() {
		u.ed.Clear()
		u.lastCtrlC = time.Time{}
		return
	}
	if !u.lastCtrlC.IsZero() && now.Sub(u.lastCtrlC) < doubleCtrlC {
		u.exit()
		return
	}
	u.lastCtrlC = now
	if u.busy || u.job != nil {
		u.abort()
	}
	u.flash(doubleCtrlC, tui.Note{Level: "info", Text: "press ctrl+c again to exit"})
}

// exit ends the UI loop.
func (u *ui) exit() {
	u.quit = true
	u.exitErr = errQuit
}

// resize lays the screen out for a new size.
func (u *ui) resize(w, h int) {
	if w <= 0 || h <= 0 || (w == u.width && h == u.height) {
		return
	}
	u.width, u.height = w, h
	u.screen.Resize(w, h)
	u.chat.Resize(w, h)
	u.dirty = true
}

// suspend stops zut as Ctrl+Z does in a shell.
func (u *ui) suspend() {
	if u.plain || !u.term.IsTerminal() {
		return
	}
	u.screen.Clear()
	u.suspended = true
	if err := u.term.Suspend(); err != nil {
		u.suspended = false
		u.screen.Invalidate()
		u.chat.AddNotice("warn", "", "suspend: "+err.Error())
	}
}

// resume redraws after fg.
func (u *ui) resume() {
	if !u.suspended {
		return
	}
	u.suspended = false
	if err := u.term.Resume(); err != nil {
		u.chat.AddNotice("warn", "", err.Error())
	}
	w, h := u.term.Size()
	if u.cfg.width > 0 {
		w, h = u.width, u.height
	}
	u.screen.Invalidate()
	u.resize(w, h)
	u.dirty = true
	u.render(true)
}

// redraw clears the visible screen and draws the live region again at the
// top (Ctrl+L); the scrollback is kept.
func (u *ui) redraw() {
	if u.plain {
		return
	}
	io.WriteString(u.cfg.out, "\x1b[H\x1b[2J")
	u.screen.Invalidate()
	u.dirty = true
}

// replaceEditor puts text in the editor. A draft that was there goes into
// the history first, so that Up brings it back: typed text is never lost.
func (u *ui) replaceEditor(text string) {
	if draft := u.ed.Value(); strings.TrimSpace(draft) != "" && draft != text {
		if err := u.hist.Add(draft); err != nil {
			u.chat.AddNotice("warn", "", "save the draft to the history: "+err.Error())
		}
	}
	u.ed.SetText(text)
	u.dirty = true
}
