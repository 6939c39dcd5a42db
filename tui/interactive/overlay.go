package interactive

import (
	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/tui"
)

// overlay is a dialog in the editor's place. Overlays stack: a
// confirmation that arrives while a picker is open goes on top of it.
type overlay interface {
	tui.Overlay
	// key handles a key; the overlay closes itself with u.closeOverlay.
	key(u *ui, k tui.Key)
	paste(u *ui, s string)
	// cancel is called when the overlay is dropped without the user
	// deciding (the turn was interrupted, zut exits).
	cancel(u *ui)
}

// openOverlay shows o on top of the open dialogs.
func (u *ui) openOverlay(o overlay) {
	u.ovs = append(u.ovs, o)
	u.ov = o
	u.chat.SetOverlay(o)
	u.plainShow(o)
	u.dirty = true
}

// closeOverlay removes o (wherever it is in the stack) without calling
// its cancel.
func (u *ui) closeOverlay(o overlay) {
	for i, x := range u.ovs {
		if x == o {
			u.ovs = append(u.ovs[:i], u.ovs[i+1:]...)
			break
		}
	}
	u.ov = nil
	u.chat.SetOverlay(nil)
	if n := len(u.ovs); n > 0 {
		u.ov = u.ovs[n-1]
		u.chat.SetOverlay(u.ov)
	}
	u.dirty = true
}

// cancelOverlays drops every dialog (at exit).
func (u *ui) cancelOverlays() {
	for len(u.ovs) > 0 {
		o := u.ovs[len(u.ovs)-1]
		u.closeOverlay(o)
		o.cancel(u)
	}
}

// confirmOverlay is the tool confirmation dialog.
type confirmOverlay struct {
	*tui.Confirm
	id    string
	reply chan agent.ConfirmAnswer
	// rule is what "always allow" saves: the call's tool and a pattern
	// for calls like it (for a command, exactly it), in this project;
	// the zero Rule when none can be written.
	rule permissions.Rule
}

// openConfirm shows the confirmation dialog for req, with the change a
// write or edit would make. The agent already told extensions
// (tool_confirmation_requested) before asking.
func (u *ui) openConfirm(req agent.ConfirmRequest, reply chan agent.ConfirmAnswer) {
	if u.quit {
		reply <- agent.ConfirmAnswer{Reason: "zut is exiting"}
		return
	}
	preview := req.Preview
	if h := u.headers[req.ToolID]; h != "" {
		preview = h // an extension renderer's header, or the tool's own
	}
	cwd := ""
	if u.app != nil {
		cwd = u.app.CWD()
	}
	rule, ok := permissions.Suggest(permissions.Call{Tool: req.Name, Args: req.Args, CWD: cwd})
	always, short := "Always allow "+rule.String()+" in this project", "Always "+rule.String()
	if !ok {
		// No rule names exactly this command: a is y, and saves nothing.
		always, short = "Allow (no rule can name exactly this command)", "Allow"
	}
	d := &tui.Confirm{Tool: req.Name, Preview: preview, Body: req.Body, BodyLabel: bodyLabel(req.Name),
		Always: always, AlwaysShort: short, Once: req.Once}
	if c := req.Change; c != nil && !c.Truncated {
		d.Diff = &tui.ToolDiff{Old: c.Old, New: c.New}
	}
	u.openOverlay(&confirmOverlay{Confirm: d, id: req.ToolID, reply: reply, rule: rule})
	u.chat.ToolWaiting(req.ToolID, true)
	u.alert("confirm")
}

// bodyLabel names what the confirmation's body holds for tool name.
func bodyLabel(name string) string {
	switch name {
	case "bash":
		return "command"
	case "python":
		return "code"
	case "subagent_spawn":
		return "task"
	}
	return "arguments"
}

// waiting reports whether a confirmation waits for the user.
func (u *ui) waiting() bool {
	for _, o := range u.ovs {
		if _, ok := o.(*confirmOverlay); ok {
			return true
		}
	}
	return false
}

// closeConfirm drops the dialog of tool call id (the turn was
// interrupted while it was open).
func (u *ui) closeConfirm(id string) {
	for _, o := range u.ovs {
		if c, ok := o.(*confirmOverlay); ok && c.id == id {
			u.closeOverlay(c)
			u.chat.ToolWaiting(id, false)
			return
		}
	}
}

func (c *confirmOverlay) key(u *ui, k tui.Key) {
	choice, done := c.HandleKey(k)
	if !done {
		return
	}
	u.closeOverlay(c)
	u.chat.ToolWaiting(c.id, false)
	if choice.Stop {
		// Esc: the call is denied and the turn ends; the agent says
		// "interrupted" when it has.
		c.reply <- agent.ConfirmAnswer{Reason: choice.Reason, Stop: true}
		return
	}
	if choice.Always && c.rule.Tool != "" {
		// Calls like this one run without asking from now on, in this
		// project: the rule is saved in config.json (/permissions lists
		// and removes it).
		if err := u.app.AddRule(c.rule); err != nil {
			u.chat.AddNotice("error", "", "save the permission rule: "+err.Error())
		} else {
			u.chat.AddNotice("success", "", "allowed from now on in this project: "+c.rule.String()+" (/permissions lists the rules)")
		}
	}
	// The rule is the whole of "always": the agent's own memory of the
	// tool for the session would allow every call of it.
	choice.Always = false
	c.reply <- agent.ConfirmAnswer{Allow: choice.Allow, Always: choice.Always, Reason: choice.Reason}
}

func (c *confirmOverlay) paste(u *ui, s string) { c.Paste(s) }

func (c *confirmOverlay) cancel(u *ui) {
	select {
	case c.reply <- agent.ConfirmAnswer{Reason: "the user closed the dialog"}:
	default:
	}
}

// listOverlay is a picker whose choice runs choose. side, when set,
// handles Left and Right (settings that cycle through values).
type listOverlay struct {
	*tui.List
	choose   func(u *ui, it tui.ListItem)
	side     func(u *ui, it tui.ListItem, dir int)
	onCancel func(u *ui)
	// keep leaves the list open after a choice.
	keep bool
	// outer is the overlay that wraps this list on the stack (the theme
	// picker's previewList), which closing must remove; nil: the list
	// itself is on the stack.
	outer overlay
}

// self is what the overlay stack holds for l.
func (l *listOverlay) self() overlay {
	if l.outer != nil {
		return l.outer
	}
	return l
}

func (l *listOverlay) key(u *ui, k tui.Key) {
	switch l.HandleKey(k) {
	case tui.ListChoose:
		it, ok := l.Current()
		if !l.keep {
			u.closeOverlay(l.self())
		}
		if ok && l.choose != nil {
			l.choose(u, it)
		}
	case tui.ListCancel:
		u.closeOverlay(l.self())
		if l.onCancel != nil {
			l.onCancel(u)
		}
	case tui.ListLeft, tui.ListRight:
		if it, ok := l.Current(); ok && l.side != nil {
			dir := 1
			if k.String() == "left" {
				dir = -1
			}
			l.side(u, it, dir)
		}
	}
}

func (l *listOverlay) paste(u *ui, s string) {}

func (l *listOverlay) cancel(u *ui) {
	if l.onCancel != nil {
		l.onCancel(u)
	}
}
