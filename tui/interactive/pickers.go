package interactive

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui"
)

// openModels shows the model picker: the models zut can use now first.
func (u *ui) openModels() {
	u.job = &job{label: "Listing models", start: u.now()}
	opts := u.app.ProviderOptions()
	u.goJob(func() {
		ctx, cancel := context.WithTimeout(u.ctx, 10*time.Second)
		defer cancel()
		ls, err := provider.Listings(ctx, opts)
		u.inbox.post(func(u *ui) {
			u.job = nil
			u.dirty = true
			if err != nil && len(ls) == 0 {
				u.chat.AddNotice("error", "", "list models: "+err.Error())
				return
			}
			u.showModels(ls)
		})
	})
}

func (u *ui) showModels(ls []provider.ModelListing) {
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Ready != "" && ls[j].Ready == "" })
	cur := ""
	if u.app.Resolved() != nil {
		cur = u.app.Resolved().Provider.Name + "/" + u.app.Resolved().Model.ID
	}
	var items []tui.ListItem
	for _, l := range ls {
		v := l.Provider + "/" + l.ID
		var detail []string
		if l.ContextWindow > 0 {
			detail = append(detail, compactCount(l.ContextWindow)+" ctx")
		}
		if l.Reasoning != "" {
			detail = append(detail, "reasoning")
		}
		if l.Ready == "" {
			detail = append(detail, "no key")
		}
		it := tui.ListItem{Label: v, Value: v, Detail: strings.Join(detail, " · "), Muted: l.Ready == ""}
		if v == cur {
			it.Mark = "●"
		}
		items = append(items, it)
	}
	l := &tui.List{Title: "Model", Items: items, Filter: true}
	l.Select(cur)
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		if u.busy || u.job != nil {
			u.chat.AddNotice("warn", "", "/model waits for the running turn")
			return
		}
		u.setModel(it.Value)
	}})
}

func (u *ui) openReasoning() {
	cur := u.app.Agent().Reasoning().Effort
	var items []tui.ListItem
	for _, l := range provider.ReasoningLevels {
		it := tui.ListItem{Label: l, Value: l}
		if l == cur {
			it.Mark = "●"
		}
		items = append(items, it)
	}
	l := &tui.List{Title: "Reasoning", Items: items}
	l.Select(cur)
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) { u.setReasoning(it.Value) }})
}

// openFork lists the user's messages on this branch; choosing one starts
// a new branch just before it, with its text in the editor to change.
func (u *ui) openFork() {
	var items []tui.ListItem
	texts := map[string]string{}
	for _, e := range u.app.Session().Branch() {
		if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != provider.RoleUser {
			continue
		}
		text := strings.TrimSpace(e.Message.UserText())
		if text == "" {
			continue
		}
		texts[e.ID] = text
		first, _, _ := strings.Cut(text, "\n")
		items = append(items, tui.ListItem{Label: first, Value: e.ID, Detail: e.Time.Local().Format("15:04")})
	}
	if len(items) == 0 {
		u.chat.AddNotice("info", "", "nothing to fork from yet: send a message first")
		return
	}
	l := &tui.List{Title: "Fork from before…", Items: items, Filter: true}
	l.Select(items[len(items)-1].Value)
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		e, ok := u.app.Session().Entry(it.Value)
		if !ok {
			return
		}
		// Extensions are asked about the message the user chose; the new
		// branch starts just before it.
		u.askExtensions("fork", func(ctx context.Context) error { return u.app.AllowFork(ctx, e.ID) }, func(u *ui) { u.forkBefore(e.ParentID, texts[it.Value]) })
	}})
}

// forkBefore forks at parent and puts text, the message the branch
// replaces, in the editor.
func (u *ui) forkBefore(parent, text string) {
	if err := u.app.Fork(parent); err != nil {
		u.chat.AddNotice("error", "", "fork: "+err.Error())
		return
	}
	u.chat.Clear()
	u.chat.AddNotice("success", "", "new branch: the conversation continues from before this message, which is in the editor")
	u.replay()
	u.replaceEditor(text)
}

// openTree shows the session tree: the user's words and the answers'
// first lines, branches drawn under the entry they fork from, the current
// branch marked, entry ids for --fork. Choosing an entry switches to its
// branch (a leaf) or starts a new branch after it (an inner entry).
func (u *ui) openTree() {
	rows := app.TreeRows(u.app.Session())
	var items []tui.ListItem
	cur := ""
	for _, r := range rows {
		it := tui.ListItem{Label: r.ID + "  " + r.Graph + r.Label, Value: r.ID, Detail: r.Time.Local().Format("Jan 2 15:04")}
		switch {
		case r.Current:
			it.Mark = "●"
			it.Detail += " · you are here"
			cur = r.ID
		case r.OnBranch:
			it.Mark = "•"
		default:
			it.Muted = true
		}
		if r.Minor {
			it.Muted = true
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		u.chat.AddNotice("info", "", "the session is empty")
		return
	}
	title := "Session tree"
	if t := u.app.Session().Title(); t != "" {
		title += " · " + t
	}
	l := &tui.List{Title: title, Items: items, Filter: true, Hint: "enter: continue from there · ● you are here · esc close"}
	l.Select(cur)
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) { u.gotoEntry(it.Value) }})
}

// gotoEntry makes id the end of the current branch: a leaf is switched to,
// an inner entry is forked from.
func (u *ui) gotoEntry(id string) {
	hasKids := false
	var find func(n *session.Node) bool
	find = func(n *session.Node) bool {
		if n.ID == id {
			hasKids = len(n.Children) > 0
			return true
		}
		for _, c := range n.Children {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(u.app.Session().Tree())
	if hasKids {
		u.askExtensions("fork", func(ctx context.Context) error { return u.app.AllowFork(ctx, id) }, func(u *ui) { u.switchTo(id, true) })
		return
	}
	u.switchTo(id, false)
}

// switchTo forks from id or switches to the branch ending at id.
func (u *ui) switchTo(id string, fork bool) {
	var err error
	if fork {
		err = u.app.Fork(id)
	} else {
		err = u.app.SwitchBranch(id)
	}
	if err != nil {
		u.chat.AddNotice("error", "", "/tree: "+err.Error())
		return
	}
	u.chat.Clear()
	u.chat.AddNotice("success", "", "switched branch")
	u.replay()
	u.restoreUsage()
}

// openSessions shows the saved sessions of this directory. At startup
// (zut -r without an id) Esc keeps the session zut opened.
func (u *ui) openSessions(startup bool) {
	infos, err := session.List(u.app.SessionsDir(), u.app.CWD(), false)
	if err != nil {
		u.chat.AddNotice("error", "", "list sessions: "+err.Error())
		return
	}
	if len(infos) == 0 {
		u.chat.AddNotice("info", "", "no saved sessions for this directory yet")
		return
	}
	var items []tui.ListItem
	for _, in := range infos {
		label := in.Title
		if label == "" {
			label = in.Preview
		}
		if label == "" {
			label = "(empty)"
		}
		it := tui.ListItem{Label: label, Value: in.ID, Detail: fmt.Sprintf("%s · %d messages", in.Modified.Local().Format("Jan 2 15:04"), in.Messages)}
		if in.ID == u.app.Session().ID() {
			it.Mark = "●"
		}
		items = append(items, it)
	}
	title := "Sessions"
	if startup {
		title = "Resume a session"
	}
	l := &tui.List{Title: title, Items: items, Filter: true}
	lo := &listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		switch {
		case it.Value != u.app.Session().ID():
			u.resumeSession(it.Value)
		case startup:
			// zut -r opened the latest session without showing it.
			u.chat.AddNotice("success", "", "resumed: "+sessionLabel(u.app.Session()))
			u.replay()
			u.restoreUsage()
		}
	}}
	if startup {
		// Esc at the start picks no saved session: a new conversation,
		// not the latest one unseen.
		lo.onCancel = func(u *ui) { u.newConversation() }
	}
	u.openOverlay(lo)
}

// sessionLabel is a session's title, else its id.
func sessionLabel(s *session.Session) string {
	if t := s.Title(); t != "" {
		return t
	}
	return s.ID()
}

// resumeSession opens a saved session and shows its conversation, unless
// an extension cancels the switch.
func (u *ui) resumeSession(id string) {
	u.askExtensions("resume", func(ctx context.Context) error { return u.app.AllowSessionSwitch(ctx, "resume") }, func(u *ui) { u.resumeNow(id) })
}

func (u *ui) resumeNow(id string) {
	if err := u.app.ResumeSession(id); err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	u.chat.Clear()
	u.turn = turnStats{}
	u.chat.AddNotice("success", "", "resumed: "+sessionLabel(u.app.Session()))
	u.replay()
	u.restoreUsage()
}
