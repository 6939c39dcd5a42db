package interactive

import (
	"context"
	"encoding/json"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"time"
	"unicode"

	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/tui"
)

// This file serves the additions beyond protocol v2 (docs/protocol.md):
// dialogs, print notes, headers and footers, hidden chrome, status order,
// shortcuts, editor keys, tool and message renderers, editor text, the
// terminal handed to an extension, and exit.

// renderTimeout bounds the wait for an extension's tool rendering before
// the default one is shown.
const renderTimeout = 2 * time.Second

func (b uiBridge) UIRequest(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
	b.post(func(u *ui) { u.openDialog(ext, req, answer) })
}

func (b uiBridge) UIRequestDone(ext, id string) {
	b.post(func(u *ui) {
		for _, o := range u.ovs {
			if d, ok := o.(*dialogOverlay); ok && d.id == id {
				u.closeOverlay(d)
				return
			}
		}
	})
}

func (b uiBridge) Print(ext string, p proto.Print) {
	b.post(func(u *ui) { u.print(ext, p) })
}

func (b uiBridge) Header(ext string, h proto.Header) {
	b.post(func(u *ui) {
		u.chat.SetBanner(tui.Banner{Source: ext, Text: h.Text, Markdown: h.Markdown, Border: h.BorderColor}, false)
		u.dirty = true
	})
}

func (b uiBridge) Footer(ext string, f proto.Footer) {
	b.post(func(u *ui) {
		u.chat.SetBanner(tui.Banner{Source: ext, Text: f.Text, Markdown: f.Markdown, Border: f.BorderColor}, true)
		u.dirty = true
	})
}

func (b uiBridge) UIVisibility(ext string, v proto.UIVisibility) {
	b.post(func(u *ui) {
		if u.visibility == nil {
			u.visibility = map[string]proto.UIVisibility{}
		}
		u.visibility[ext] = v
		u.applyVisibility()
	})
}

func (b uiBridge) StatusPriority(ext, key string, priority int) {
	b.post(func(u *ui) {
		if u.statusPrio == nil {
			u.statusPrio = map[string]int{}
		}
		u.statusPrio[ext+"\x00"+key] = priority
	})
}

func (b uiBridge) UIChanged() {
	b.post(func(u *ui) { u.refreshKeys() })
}

func (b uiBridge) SetEditorText(ext, text string) bool {
	b.post(func(u *ui) { u.replaceEditor(text); u.dirty = true })
	return true
}

func (b uiBridge) SuspendTUI(ext string) bool {
	reply := make(chan bool, 1)
	b.post(func(u *ui) { reply <- u.releaseFor(ext) })
	select {
	case ok := <-reply:
		return ok
	case <-b.done:
		return false
	}
}

func (b uiBridge) ResumeTUI(ext string) {
	b.post(func(u *ui) { u.reacquireFrom(ext) })
}

func (b uiBridge) Exit(ext string) {
	b.post(func(u *ui) { u.exit() })
}

// applyVisibility hides what any extension asked to hide.
func (u *ui) applyVisibility() {
	var h tui.Hidden
	u.hideHint, u.hideStartup = false, false
	for _, v := range u.visibility {
		h.StatusBar = h.StatusBar || v.HideStatusBar
		h.Separator = h.Separator || v.HideSeparator
		u.hideHint = u.hideHint || v.HideInputHint
		u.hideStartup = u.hideStartup || v.HideStartupMessage
	}
	u.chat.SetHidden(h)
	u.setPlaceholder()
	u.dirty = true
}

// dialogOverlay is an extension's ui.select, ui.confirm, ui.input or
// ui.overlay request.
type dialogOverlay struct {
	tui.Overlay
	id, ext string
	req     proto.UIRequest
	list    *tui.List
	prompt  *tui.Prompt
	answer  func(proto.UIResponse)
}

// openDialog shows an extension's dialog.
func (u *ui) openDialog(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
	if u.quit {
		answer(proto.CancelledAnswer())
		return
	}
	title := req.Title
	if title == "" {
		title = ext
	}
	d := &dialogOverlay{id: req.ID, ext: ext, req: req, answer: answer}
	switch req.Kind {
	case proto.UIInput:
		d.prompt = &tui.Prompt{Title: title, Message: req.Message, Border: req.BorderColor}
		d.prompt.Editor.Placeholder = req.Placeholder
		if def := req.DefaultString(); def != "" {
			d.prompt.Editor.SetText(def)
		}
		d.Overlay = d.prompt
	case proto.UIConfirm:
		l := &tui.List{Title: title, Message: req.Message, Hint: "y yes · n no · esc cancel", Border: req.BorderColor,
			Items: []tui.ListItem{{Label: "Yes", Value: "yes"}, {Label: "No", Value: "no"}}}
		if !req.DefaultBool() {
			l.Select("no")
		}
		d.list, d.Overlay = l, l
	case proto.UISelect:
		var items []tui.ListItem
		for _, o := range req.Options {
			items = append(items, tui.ListItem{Label: o, Value: o})
		}
		l := &tui.List{Title: title, Message: req.Message, Items: items, Filter: len(items) > 8, Border: req.BorderColor}
		l.Select(req.DefaultString())
		d.list, d.Overlay = l, l
	default: // overlay
		var items []tui.ListItem
		for _, a := range req.Actions {
			items = append(items, tui.ListItem{Label: a, Value: a})
		}
		hint := ""
		if len(items) == 0 {
			hint = "enter or esc closes"
		}
		l := &tui.List{Title: title, Message: req.Text, Markdown: req.Markdown, Items: items, Hint: hint, Border: req.BorderColor}
		// The dialog takes the editor's place at the bottom of the screen
		// whatever the anchor; width and max_height are honoured, and a
		// narrower dialog is centred unless anchored top or bottom.
		d.list, d.Overlay = l, tui.Sized{Overlay: l, Width: req.Width, MaxRows: req.MaxHeight,
			Center: req.Anchor != proto.AnchorTop && req.Anchor != proto.AnchorBottom}
	}
	u.openOverlay(d)
}

func (d *dialogOverlay) key(u *ui, k tui.Key) {
	if d.prompt != nil {
		text, done, cancelled := d.prompt.HandleKey(k)
		if !done {
			return
		}
		u.closeOverlay(d)
		if cancelled {
			d.answer(proto.CancelledAnswer())
		} else {
			d.answer(proto.InputAnswer(text))
		}
		return
	}
	name := k.String()
	if d.req.Kind == proto.UIConfirm {
		switch name {
		case "y":
			u.closeOverlay(d)
			d.answer(proto.ConfirmAnswer(true))
			return
		case "n":
			u.closeOverlay(d)
			d.answer(proto.ConfirmAnswer(false))
			return
		}
	}
	if d.req.Kind == proto.UIOverlay && len(d.req.Actions) == 0 && (name == "enter" || name == "esc" || name == "ctrl+c") {
		u.closeOverlay(d)
		d.answer(proto.OverlayAnswer("", -1))
		return
	}
	switch d.list.HandleKey(k) {
	case tui.ListChoose:
		it, _ := d.list.Current()
		u.closeOverlay(d)
		switch d.req.Kind {
		case proto.UIConfirm:
			d.answer(proto.ConfirmAnswer(it.Value == "yes"))
		case proto.UISelect:
			d.answer(proto.SelectAnswer(it.Value, indexOf(d.req.Options, it.Value)))
		default:
			d.answer(proto.OverlayAnswer(it.Value, indexOf(d.req.Actions, it.Value)))
		}
	case tui.ListCancel:
		u.closeOverlay(d)
		d.answer(proto.CancelledAnswer())
	}
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func (d *dialogOverlay) paste(u *ui, s string) {
	if d.prompt != nil {
		d.prompt.Editor.Paste(s)
	}
}

func (d *dialogOverlay) cancel(u *ui) { d.answer(proto.CancelledAnswer()) }

// print adds an extension's note to the transcript, drawn by its message
// renderer when it names one.
func (u *ui) print(ext string, p proto.Print) {
	pr := tui.Print{Source: ext, Style: p.Style, Text: p.Text, Markdown: p.Markdown, Subtitle: p.Subtitle, Border: p.BorderColor}
	if p.Renderer == "" || u.app == nil || u.app.Host() == nil {
		u.chat.AddPrint(pr)
		u.dirty = true
		return
	}
	width := u.width
	u.goJob(func() {
		ctx, cancel := context.WithTimeout(u.ctx, renderTimeout)
		defer cancel()
		lines, err := u.app.Host().RenderMessage(ctx, p.Renderer, p.Text, width)
		u.inbox.post(func(u *ui) {
			if err == nil {
				pr.Lines = lines
			}
			u.chat.AddPrint(pr)
			u.dirty = true
		})
	})
}

// refreshKeys reads the extensions' shortcuts and editor keys again.
func (u *ui) refreshKeys() {
	u.shortcuts = map[string]bool{}
	u.editorKeys = map[string]bool{}
	if u.app == nil || u.app.Host() == nil {
		return
	}
	for _, s := range u.app.Host().Shortcuts() {
		u.shortcuts[s.Key] = true
	}
	for _, k := range u.app.Host().EditorKeys() {
		u.editorKeys[k] = true
	}
}

// extensionKey offers k to the extensions: a shortcut one of them claimed,
// or an editor key one of them intercepts. It reports whether the key was
// used up; remapped reports a key to handle instead.
func (u *ui) extensionKey(k tui.Key) (used bool, remapped *tui.Key) {
	if u.app == nil || u.app.Host() == nil {
		return false, nil
	}
	name := keyName(k)
	if u.shortcuts[name] && u.app.Host().PressShortcut(name) {
		return true, nil
	}
	if !u.editorKeys[name] {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(u.ctx, time.Second)
	defer cancel()
	resp, ok := u.app.Host().EditorKey(ctx, name, u.ed.Value())
	if !ok {
		return false, nil
	}
	switch resp.Action {
	case proto.EditorConsumed:
		return true, nil
	case proto.EditorSubmit:
		u.ed.Reset()
		if strings.TrimSpace(resp.Text) != "" {
			u.submit(resp.Text)
		}
		return true, nil
	case proto.EditorRemap:
		if nk, err := tui.ParseKey(resp.Key); err == nil {
			return false, &nk
		}
	}
	return false, nil
}

// keyName names the pressed key k as the extension protocol does
// (proto.CanonicalKey, docs/protocol.md "Key names"): tui's spelling
// without the action, with two differences between terminals folded
// away. A capital letter with Ctrl, Alt, Super, Hyper or Meta is Shift
// with the small letter: a legacy terminal sends Alt+Shift+A as ESC A
// ("alt+A") and xterm's modifyOtherKeys reports Ctrl+Shift+A with "A",
// where the kitty protocol reports "alt+shift+a" and "ctrl+shift+a".
// Shift with a character and nothing else is the character: xterm
// reports Shift+1 as Shift with "!". The letter pairs are those of
// proto.CanonicalKey (upper and lower case both ways); the tests hold
// the two to each other.
func keyName(k tui.Key) string {
	k.Action = tui.KeyPress
	if k.Code != tui.KeyRune {
		return k.String()
	}
	switch r := k.Rune; {
	case k.Mod&^tui.ModShift != 0:
		if l := unicode.ToLower(r); unicode.IsUpper(r) && unicode.IsLower(l) && unicode.ToUpper(l) == r {
			k.Rune, k.Mod = l, k.Mod|tui.ModShift
		}
	case k.Mod == tui.ModShift && r != ' ':
		if up := unicode.ToUpper(r); unicode.IsLower(r) && unicode.IsUpper(up) && unicode.ToLower(up) == r {
			k.Rune = up
		}
		k.Mod = 0
	}
	return k.String()
}

// releaseFor hands the terminal to ext (tui.suspend).
func (u *ui) releaseFor(ext string) bool {
	if u.plain || u.quit || u.released != "" || u.suspended || u.term == nil {
		return false
	}
	u.screen.Clear()
	held, _ := u.term.Release()
	u.pending = append(u.pending, held...)
	u.released = ext
	return true
}

// reacquireFrom takes the terminal back from ext (tui.resume, or ext
// stopped while it had the terminal).
func (u *ui) reacquireFrom(ext string) {
	if u.released == "" || u.released != ext {
		return
	}
	u.released = ""
	if err := u.term.Reacquire(); err != nil {
		u.chat.AddNotice("warn", "", err.Error())
	}
	u.screen.Invalidate()
	u.dirty = true
	for _, ev := range u.takePending() {
		u.input(ev)
	}
	u.render(true)
}

// toolLook applies an extension's tool renderer to a call: its name and
// colour at once, its header and body (asked from the extension) once the
// call finished.
func (u *ui) toolLook(id, name string, result *string, isError bool) {
	if u.app == nil || u.app.Host() == nil || name == "" {
		return
	}
	r, ok := u.app.Host().ToolRenderer(name)
	if !ok {
		return
	}
	look := tui.ToolLook{DisplayName: r.DisplayName}
	if r.BorderColor != "" {
		if c, err := ansi.ParseColor(r.BorderColor); err == nil {
			look.TitleColor = c
		}
	}
	if result != nil && r.BodyMarkdown && !r.RenderBody {
		look.Body, look.BodyMarkdown = *result, true
	}
	u.chat.SetToolLook(id, look)
	if result == nil || !(r.RenderHeader || r.RenderBody) {
		return
	}
	u.chat.HoldTool(id, true)
	req := proto.RenderTool{ToolName: name, Args: u.toolArgs[id], Result: result, IsError: isError, Width: u.width}
	if len(req.Args) == 0 {
		req.Args = json.RawMessage("{}")
	}
	u.goJob(func() {
		ctx, cancel := context.WithTimeout(u.ctx, renderTimeout)
		defer cancel()
		resp, err := u.app.Host().RenderTool(ctx, req)
		u.inbox.post(func(u *ui) {
			if err == nil {
				u.chat.SetToolLook(id, tui.ToolLook{Header: resp.Header, Body: resp.Body, BodyMarkdown: r.BodyMarkdown})
			}
			u.chat.HoldTool(id, false)
			u.dirty = true
		})
	})
}

// toolHeader sets the header of call id once its arguments are complete:
// an extension renderer's header (render_tool without a result, Kit's
// RenderHeader), else the tool's own one-line preview for the tools the
// chat view has no summary of. The header then shows while the call
// runs, in the confirmation dialog and after the result.
func (u *ui) toolHeader(id, name string, args json.RawMessage) {
	if u.app == nil {
		return
	}
	if h := u.app.Host(); h != nil {
		if r, ok := h.ToolRenderer(name); ok && r.RenderHeader {
			req := proto.RenderTool{ToolName: name, Args: args, Width: u.width}
			u.goJob(func() {
				ctx, cancel := context.WithTimeout(u.ctx, renderTimeout)
				defer cancel()
				resp, err := h.RenderTool(ctx, req)
				if err != nil || strings.TrimSpace(resp.Header) == "" {
					return
				}
				u.inbox.post(func(u *ui) { u.setHeader(id, resp.Header) })
			})
			return
		}
	}
	if !classicTools()[name] {
		if p := u.app.ToolPreview(name, args); p != "" {
			if !namesTool(p, name) {
				p = name + " " + p
			}
			u.setHeader(id, p)
		}
	}
}

// namesTool reports whether a tool's preview already names it: it starts
// with the name, or, for an MCP tool mcp__server__tool, with "server
// tool" (the label showed the server and tool twice).
func namesTool(preview, name string) bool {
	if strings.HasPrefix(preview, name) {
		return true
	}
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && strings.HasPrefix(preview, strings.ReplaceAll(rest, "__", " ")+" ")
}

// classicTools are the tools whose arguments the chat view summarises
// itself.
func classicTools() map[string]bool {
	return classicToolsLazy.get(func() map[string]bool {
		return map[string]bool{"bash": true, "read": true, "edit": true, "write": true, "grep": true, "skill": true}
	})
}

var classicToolsLazy lazy[map[string]bool]

// setHeader keeps and shows the header of call id.
func (u *ui) setHeader(id, header string) {
	if u.headers == nil {
		u.headers = map[string]string{}
	}
	u.headers[id] = header
	u.chat.SetToolLook(id, tui.ToolLook{Header: header})
	for _, o := range u.ovs {
		if c, ok := o.(*confirmOverlay); ok && c.id == id {
			c.Preview = header
		}
	}
	u.dirty = true
}

// ReloadExtensions runs /reload-ext on the UI loop (app.reload_extensions).
func (b uiBridge) ReloadExtensions(ext string) bool {
	b.post(func(u *ui) {
		u.dirty = true
		if u.busy || u.job != nil {
			u.chat.AddNotice("warn", ext, "reload the extensions: zut is busy; try again when it is idle")
			return
		}
		if u.extCommands > 0 {
			// The asking extension may be inside a command: its answer
			// comes first, then the reload.
			u.reloadAfter = true
			return
		}
		u.reloadExt()
	})
	return true
}
