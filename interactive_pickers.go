package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui"
)

// openModels shows the model picker: the models zut can use now first.
func (u *ui) openModels() {
	u.job = &job{label: "Listing models", start: u.now()}
	opts := u.app.providerOptions()
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
	if u.app.resolved != nil {
		cur = u.app.resolved.Provider.Name + "/" + u.app.resolved.Model.ID
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

// reasoningLevels are the levels the /reasoning picker offers.
var reasoningLevels = []string{"off", "minimal", "low", "medium", "high", "max"}

func (u *ui) openReasoning() {
	cur := u.app.agent.Reasoning().Effort
	var items []tui.ListItem
	for _, l := range reasoningLevels {
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

// loadThemes reads the user's theme files and the extensions' themes.
// Problems are shown in the chat when report is set or at startup.
func (u *ui) loadThemes(report bool) {
	set := tui.NewThemeSet()
	var problems []string
	warns, err := set.LoadDir(filepath.Join(u.home, "themes"))
	problems = append(problems, warns...)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if u.app != nil && u.app.host != nil {
		for _, th := range u.app.host.Themes() {
			_, warns, err := set.LoadFile(th.Path)
			problems = append(problems, warns...)
			if err != nil {
				problems = append(problems, fmt.Sprintf("extension %q: %v", th.Extension, err))
			}
		}
	}
	u.themes = set
	for _, p := range problems {
		u.chat.AddNotice("warn", "", p)
	}
	_ = report
}

// darkBackground reports whether the terminal's background is dark (dark
// when it did not say).
func (u *ui) darkBackground() bool {
	dark, known := u.caps.DarkBackground()
	return dark || !known
}

// pickTheme returns the theme the settings name, or the default.
func (u *ui) pickTheme() *tui.Theme {
	t, err := u.themes.Lookup(u.st.Theme, u.darkBackground())
	if err != nil {
		t, _ = u.themes.Lookup("auto", u.darkBackground())
	}
	return t
}

// applyTheme draws with the theme of the settings from now on.
func (u *ui) applyTheme() {
	t, err := u.themes.Lookup(u.st.Theme, u.darkBackground())
	if err != nil {
		u.chat.AddNotice("warn", "", err.Error())
		t, _ = u.themes.Lookup("auto", u.darkBackground())
	}
	u.theme = t
	o := u.chat.Options()
	o.Theme = t
	u.chat.SetOptions(o)
	u.setPlaceholder()
	u.dirty = true
}

// setTheme switches the theme live and saves the choice.
func (u *ui) setTheme(name string, announce bool) {
	if _, err := u.themes.Lookup(name, u.darkBackground()); err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	u.st.Theme = name
	u.applyTheme()
	u.saveSettings()
	if announce {
		u.chat.AddNotice("success", "", "theme: "+name)
	}
}

func (u *ui) saveSettings() {
	if err := saveSettings(u.home, u.st); err != nil {
		u.chat.AddNotice("error", "", err.Error())
	}
}

func (u *ui) openThemes() {
	var items []tui.ListItem
	for _, n := range u.themes.Names() {
		it := tui.ListItem{Label: n, Value: n}
		if n == u.st.Theme {
			it.Mark = "●"
		}
		if n == "auto" {
			it.Detail = "dark or light, by the terminal's background"
		}
		items = append(items, it)
	}
	prev := u.st.Theme
	l := &tui.List{Title: "Theme", Items: items, Hint: "↑↓ preview · enter keep · esc undo"}
	l.Select(prev)
	lo := &listOverlay{List: l}
	lo.choose = func(u *ui, it tui.ListItem) { u.setTheme(it.Value, true) }
	lo.onCancel = func(u *ui) {
		u.st.Theme = prev
		u.applyTheme()
	}
	lo.side = func(u *ui, it tui.ListItem, dir int) {}
	u.openOverlay(&previewList{listOverlay: lo})
}

// previewList is the theme picker: moving the selection shows the theme.
type previewList struct{ *listOverlay }

func (p *previewList) key(u *ui, k tui.Key) {
	p.listOverlay.key(u, k)
	if u.ov != overlay(p) {
		return
	}
	if it, ok := p.Current(); ok && it.Value != u.st.Theme {
		u.st.Theme = it.Value
		u.applyTheme()
	}
}

// settingsItems describes the settings for the /settings list.
func (u *ui) settingsItems() []tui.ListItem {
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	ac := "off"
	if u.st.AutoCompact > 0 {
		ac = fmt.Sprintf("%d%% of the context", int(u.st.AutoCompact*100+0.5))
	}
	model := u.st.Model
	if model == "" {
		model = "automatic"
	}
	return []tui.ListItem{
		{Label: "Theme", Detail: u.st.Theme, Value: "theme"},
		{Label: "Terminal alerts", Detail: onOff(u.st.TerminalAlerts), Value: "alerts"},
		{Label: "Auto-compact at", Detail: ac + " (from the next start)", Value: "compact"},
		{Label: "Thinking", Detail: u.st.Thinking, Value: "thinking"},
		{Label: "Default model", Detail: model + " (enter: use the current one)", Value: "model"},
		{Label: "Collapse pastes over", Detail: fmt.Sprintf("%d lines", u.st.PasteLines), Value: "paste"},
	}
}

// openSettings shows the settings; Enter, Left and Right change the
// selected one, and every change is saved at once.
func (u *ui) openSettings() {
	l := &tui.List{Title: "Settings", Items: u.settingsItems(), Hint: "←→ change · enter toggle · esc close · saved in " + filepath.Join(u.home, settingsFile)}
	lo := &listOverlay{List: l, keep: true}
	lo.choose = func(u *ui, it tui.ListItem) { u.changeSetting(lo, it.Value, 1, true) }
	lo.side = func(u *ui, it tui.ListItem, dir int) { u.changeSetting(lo, it.Value, dir, false) }
	u.openOverlay(lo)
}

var compactSteps = []float64{0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95}

func (u *ui) changeSetting(lo *listOverlay, key string, dir int, enter bool) {
	switch key {
	case "theme":
		names := u.themes.Names()
		u.st.Theme = cycle(names, u.st.Theme, dir)
		u.applyTheme()
	case "alerts":
		u.st.TerminalAlerts = !u.st.TerminalAlerts
	case "compact":
		i := 0
		for j, v := range compactSteps {
			if v <= u.st.AutoCompact+1e-9 {
				i = j
			}
		}
		u.st.AutoCompact = compactSteps[(i+dir+len(compactSteps))%len(compactSteps)]
	case "thinking":
		u.st.Thinking = cycle([]string{"collapsed", "full", "hidden"}, u.st.Thinking, dir)
		mode, _ := tui.ParseThinkingMode(u.st.Thinking)
		o := u.chat.Options()
		o.Thinking = mode
		u.chat.SetOptions(o)
	case "model":
		switch {
		case enter && u.app.resolved != nil:
			u.st.Model = u.app.resolved.Provider.Name + "/" + u.app.resolved.Model.ID
		case !enter:
			u.st.Model = ""
		}
	case "paste":
		steps := []int{5, 10, 20, 50, 100}
		i := 0
		for j, v := range steps {
			if v <= u.st.PasteLines {
				i = j
			}
		}
		u.st.PasteLines = steps[(i+dir+len(steps))%len(steps)]
		u.ed.PasteLines = u.st.PasteLines
	}
	u.saveSettings()
	lo.SetItems(u.settingsItems())
	u.dirty = true
}

// cycle returns the value dir steps from cur in values.
func cycle(values []string, cur string, dir int) string {
	i := 0
	for j, v := range values {
		if v == cur {
			i = j
		}
	}
	return values[(i+dir+len(values))%len(values)]
}

// openFork lists the user's messages on this branch; choosing one starts
// a new branch just before it, with its text in the editor to change.
func (u *ui) openFork() {
	var items []tui.ListItem
	texts := map[string]string{}
	for _, e := range u.app.sess.Branch() {
		if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != provider.RoleUser {
			continue
		}
		text := strings.TrimSpace(e.Message.Text())
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
		e, ok := u.app.sess.Entry(it.Value)
		if !ok {
			return
		}
		if err := u.app.fork(e.ParentID); err != nil {
			u.chat.AddNotice("error", "", "fork: "+err.Error())
			return
		}
		u.chat.Clear()
		u.chat.AddNotice("success", "", "new branch: the conversation continues from before this message, which is in the editor")
		u.replay()
		u.replaceEditor(texts[it.Value])
	}})
}

// openTree shows the session tree; choosing an entry switches to its
// branch (a leaf) or starts a new branch after it (an inner entry).
func (u *ui) openTree() {
	root := u.app.sess.Tree()
	var items []tui.ListItem
	cur := ""
	var walk func(n *session.Node, depth int)
	walk = func(n *session.Node, depth int) {
		if n.Type != session.TypeSession {
			it := tui.ListItem{Label: n.Preview, Value: n.ID, Indent: depth, Detail: n.Time.Local().Format("Jan 2 15:04")}
			if n.Preview == "" {
				it.Label = string(n.Type)
			}
			switch {
			case n.Current:
				it.Mark = "●"
				cur = n.ID
			case n.OnBranch:
				it.Mark = "│"
			default:
				it.Muted = true
			}
			items = append(items, it)
		}
		for _, c := range n.Children {
			d := depth
			if len(n.Children) > 1 {
				d++
			}
			walk(c, d)
		}
	}
	walk(root, 0)
	if len(items) == 0 {
		u.chat.AddNotice("info", "", "the session is empty")
		return
	}
	l := &tui.List{Title: "Session tree", Items: items, Filter: true, Hint: "enter: switch to this point · esc close"}
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
	find(u.app.sess.Tree())
	var err error
	if hasKids {
		err = u.app.fork(id)
	} else {
		err = u.app.switchBranch(id)
	}
	if err != nil {
		u.chat.AddNotice("error", "", "/tree: "+err.Error())
		return
	}
	u.chat.Clear()
	u.chat.AddNotice("success", "", "switched branch")
	u.replay()
}

// openSessions shows the saved sessions of this directory. At startup
// (zut -r without an id) Esc keeps the session zut opened.
func (u *ui) openSessions(startup bool) {
	infos, err := session.List(u.app.sessionsDir(), u.app.cwd, false)
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
		if in.ID == u.app.sess.ID() {
			it.Mark = "●"
		}
		items = append(items, it)
	}
	title := "Sessions"
	if startup {
		title = "Resume a session"
	}
	l := &tui.List{Title: title, Items: items, Filter: true}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		if it.Value == u.app.sess.ID() {
			return
		}
		u.resumeSession(it.Value)
	}})
}

// resumeSession opens a saved session and shows its conversation.
func (u *ui) resumeSession(id string) {
	if err := u.app.resumeSession(id); err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	u.chat.Clear()
	u.turn = turnStats{}
	title := u.app.sess.Title()
	if title == "" {
		title = u.app.sess.ID()
	}
	u.chat.AddNotice("success", "", "resumed: "+title)
	u.replay()
}
