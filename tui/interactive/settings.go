package interactive

import (
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"path/filepath"

	"github.com/zut-go/zut/tui"
)

// settingsItems describes the settings for the /settings list; each
// item's Value is its member of config.json, one of app.UISettings.
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
	items := []tui.ListItem{
		{Label: "Theme", Detail: u.st.Theme, Value: "theme"},
		{Label: "Terminal alerts", Detail: onOff(u.st.TerminalAlerts), Value: "terminal_alerts"},
		{Label: "Auto-compact at", Detail: ac, Value: "auto_compact"},
		{Label: "Thinking", Detail: u.st.Thinking, Value: "thinking"},
		{Label: "Default model", Detail: model + " (enter: use the current one)", Value: "model"},
		{Label: "Collapse pastes over", Detail: fmt.Sprintf("%d lines", u.st.PasteLines), Value: "paste_lines"},
	}
	// The values line up in a column.
	w := 0
	for _, it := range items {
		w = max(w, ansi.StringWidth(it.Label))
	}
	for i := range items {
		items[i].Label = ansi.PadRight(items[i].Label, w)
	}
	return items
}

// openSettings shows the settings; Enter, Left and Right change the
// selected one, and every change is saved at once.
func (u *ui) openSettings() {
	l := &tui.List{Title: "Settings", Items: u.settingsItems(), Hint: "←→ change · enter toggle · esc close · saved in " + filepath.Join(u.home, app.SettingsFile)}
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
	case "terminal_alerts":
		u.st.TerminalAlerts = !u.st.TerminalAlerts
	case "auto_compact":
		i := 0
		for j, v := range compactSteps {
			if v <= u.st.AutoCompact+1e-9 {
				i = j
			}
		}
		u.st.AutoCompact = compactSteps[(i+dir+len(compactSteps))%len(compactSteps)]
		u.app.Agent().SetAutoCompact(u.st.AutoCompact)
	case "thinking":
		u.st.Thinking = cycle([]string{"collapsed", "full", "hidden"}, u.st.Thinking, dir)
		mode, _ := tui.ParseThinkingMode(u.st.Thinking)
		o := u.chat.Options()
		o.Thinking = mode
		u.chat.SetOptions(o)
	case "model":
		switch {
		case enter && u.app.Resolved() != nil:
			u.st.Model = u.app.Resolved().Provider.Name + "/" + u.app.Resolved().Model.ID
		case !enter:
			u.st.Model = ""
		}
	case "paste_lines":
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
