package interactive

import (
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"path/filepath"

	"github.com/zut-go/zut/tui"
)

// loadThemes reads the user's theme files and the extensions' themes.
// Problems are shown in the chat when report is set or at startup.
func (u *ui) loadThemes(report bool) {
	set := ansi.NewThemeSet()
	var problems []string
	warns, err := set.LoadDir(filepath.Join(u.home, "themes"))
	problems = append(problems, warns...)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if u.app != nil && u.app.Host() != nil {
		for _, th := range u.app.Host().Themes() {
			_, warns, err := set.LoadFile(th.Path)
			problems = append(problems, warns...)
			if err != nil {
				problems = append(problems, fmt.Sprintf("extension %q: %v", th.Extension, err))
			}
		}
	}
	u.themes = set
	for _, p := range problems {
		u.earlyNote("warn", p)
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
func (u *ui) pickTheme() *ansi.Theme {
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
		u.earlyNote("warn", err.Error())
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
	if err := app.SaveSettings(u.home, u.st); err != nil {
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
	pl := &previewList{listOverlay: lo}
	lo.outer = pl
	u.openOverlay(pl)
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
