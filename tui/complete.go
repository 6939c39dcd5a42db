package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Completer proposes completions for the text being edited. Complete is
// called after every change of the text or cursor (explicit false) and
// when the user presses Tab (explicit true); it returns nil when it has
// nothing to offer. It runs on the UI goroutine, so it must be quick.
type Completer interface {
	Complete(text string, cursor int, explicit bool) *Completion
}

// Completion is a set of candidates for replacing text[Start:End].
type Completion struct {
	Start, End int
	Items      []CompletionItem
}

// CompletionItem is one candidate.
type CompletionItem struct {
	Value  string // the replacement text
	Label  string // what the menu shows; Value when empty
	Detail string // a description shown after the label
}

// Menu is the completion popup: the candidates and the selected one.
type Menu struct {
	Items    []CompletionItem
	Selected int
	start    int
	end      int
}

// Completers tries each Completer in turn and returns the first
// non-empty completion.
type Completers []Completer

// Complete implements Completer.
func (cs Completers) Complete(text string, cursor int, explicit bool) *Completion {
	for _, c := range cs {
		if r := c.Complete(text, cursor, explicit); r != nil && len(r.Items) > 0 {
			return r
		}
	}
	return nil
}

// Menu returns the open completion menu, or nil.
func (e *Editor) Menu() *Menu { return e.menu }

// CloseMenu closes the completion menu.
func (e *Editor) CloseMenu() { e.menu = nil }

// complete asks the Completer for candidates at the cursor.
func (e *Editor) complete(explicit bool) {
	if e.Completer == nil {
		e.menu = nil
		return
	}
	c := e.Completer.Complete(e.text, e.cur, explicit)
	if c == nil || len(c.Items) == 0 || c.Start < 0 || c.End > len(e.text) || c.Start > c.End {
		e.menu = nil
		return
	}
	sel := 0
	if e.menu != nil && e.menu.Selected < len(e.menu.Items) {
		// Keep the selection when the same item is still offered.
		want := e.menu.Items[e.menu.Selected].Value
		for i, it := range c.Items {
			if it.Value == want {
				sel = i
			}
		}
	}
	e.menu = &Menu{Items: c.Items, Selected: sel, start: c.Start, end: c.End}
}

// tab completes explicitly: a single candidate is taken at once, several
// open the menu.
func (e *Editor) tab() EditAction {
	if e.Completer == nil {
		return EditIgnored
	}
	e.complete(true)
	if e.menu == nil {
		return EditIgnored
	}
	if len(e.menu.Items) == 1 {
		e.accept()
	}
	return EditHandled
}

// menuKey handles the keys that drive an open menu; ok is false for keys
// the menu leaves to the editor.
func (e *Editor) menuKey(k Key) (EditAction, bool) {
	m := e.menu
	switch k.String() {
	case "up", "ctrl+p", "shift+tab":
		m.Selected = (m.Selected - 1 + len(m.Items)) % len(m.Items)
	case "down", "ctrl+n":
		m.Selected = (m.Selected + 1) % len(m.Items)
	case "tab":
		e.accept()
	case "enter":
		if e.text[m.start:m.end] == m.Items[m.Selected].Value {
			// Already complete: Enter submits.
			e.menu = nil
			return EditSubmit, true
		}
		e.accept()
	case "esc":
		e.menu = nil
	default:
		return 0, false
	}
	return EditHandled, true
}

// accept replaces the completed range with the selected candidate and
// asks for completions again (a directory goes on to its entries).
func (e *Editor) accept() {
	m := e.menu
	e.menu = nil
	v := m.Items[m.Selected].Value
	e.edit(editOther)
	e.text = e.text[:m.start] + v + e.text[m.end:]
	e.cur = m.start + len(v)
	e.complete(false)
}

// Render draws the menu in at most rows lines of width cells, keeping
// the selected item visible; selected, when not nil, styles its line,
// which also starts with "›" so that it shows without colours. Labels are
// followed by their details, cut to the width.
func (m *Menu) Render(width, rows int, selected func(string) string) []string {
	if m == nil || rows <= 0 {
		return nil
	}
	first := 0
	if m.Selected >= rows {
		first = m.Selected - rows + 1
	}
	labelWidth := 0
	for _, it := range m.Items {
		labelWidth = max(labelWidth, ansi.StringWidth(ansi.Sanitize(it.label())))
	}
	labelWidth = min(labelWidth, max(width-2, 1)/2)
	var out []string
	for i := first; i < len(m.Items) && len(out) < rows; i++ {
		it := m.Items[i]
		line := ansi.PadRight(ansi.Truncate(ansi.Sanitize(it.label()), labelWidth, "…"), labelWidth)
		if it.Detail != "" {
			line += "  " + ansi.Sanitize(it.Detail)
		}
		mark := "  "
		if i == m.Selected {
			mark = "› "
		}
		line = ansi.PadRight(ansi.Truncate(mark+line, width, "…"), width)
		if i == m.Selected && selected != nil {
			line = selected(line)
		}
		out = append(out, line)
	}
	return out
}

func (it CompletionItem) label() string {
	if it.Label != "" {
		return it.Label
	}
	return it.Value
}

// Command is a slash command offered by CommandCompleter.
type Command struct {
	Name        string // without the slash
	Description string
}

// CommandCompleter completes slash commands while the cursor is in a
// leading "/word". Names starting with what was typed come first, then
// names containing it.
type CommandCompleter struct {
	Commands []Command
}

// Complete implements Completer.
func (c *CommandCompleter) Complete(text string, cursor int, explicit bool) *Completion {
	// The cursor must be after the slash: before it (Ctrl+Left moved it
	// there) there is no name to complete.
	if !strings.HasPrefix(text, "/") || cursor < 1 || strings.ContainsFunc(text[:cursor], unicode.IsSpace) {
		return nil
	}
	end := cursor
	for end < len(text) && !unicode.IsSpace(rune(text[end])) {
		end++
	}
	typed := strings.ToLower(text[1:cursor])
	var prefix, inside []CompletionItem
	for _, cmd := range c.Commands {
		name := strings.ToLower(cmd.Name)
		it := CompletionItem{Value: "/" + cmd.Name, Detail: cmd.Description}
		switch {
		case strings.HasPrefix(name, typed):
			prefix = append(prefix, it)
		case strings.Contains(name, typed):
			inside = append(inside, it)
		}
	}
	byValue := func(items []CompletionItem) {
		sort.SliceStable(items, func(i, j int) bool { return items[i].Value < items[j].Value })
	}
	byValue(prefix)
	byValue(inside)
	return &Completion{Start: 0, End: end, Items: append(prefix, inside...)}
}

// PathCompleter completes the file path before the cursor on Tab,
// relative to Dir (the working directory when empty); "~/" is the home
// directory. Directories end in "/". Hidden entries are offered only when
// the typed name starts with a dot.
type PathCompleter struct {
	Dir string
	// Home is the home directory for "~/"; the user's when empty.
	Home string
	// Max bounds the candidates; 0 means 200.
	Max int
}

// Complete implements Completer.
func (c *PathCompleter) Complete(text string, cursor int, explicit bool) *Completion {
	if !explicit {
		return nil
	}
	start := cursor
	for start > 0 && !unicode.IsSpace(rune(text[start-1])) {
		start--
	}
	word := text[start:cursor]
	word = strings.TrimPrefix(word, "@")
	if strings.HasPrefix(text[start:cursor], "@") {
		start++
	}
	dirPart, base := "", word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		dirPart, base = word[:i+1], word[i+1:]
	}
	dir := c.resolve(dirPart)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	limit := c.Max
	if limit <= 0 {
		limit = 200
	}
	var items []CompletionItem
	for _, ent := range entries {
		name := ent.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		v := dirPart + name
		if ent.IsDir() || (ent.Type()&os.ModeSymlink != 0 && isDir(filepath.Join(dir, name))) {
			v += "/"
		}
		items = append(items, CompletionItem{Value: v, Label: name})
		if len(items) == limit {
			break
		}
	}
	if len(items) == 0 {
		return nil
	}
	return &Completion{Start: start, End: cursor, Items: items}
}

// resolve turns the directory part of a typed path into a directory.
func (c *PathCompleter) resolve(dirPart string) string {
	switch {
	case strings.HasPrefix(dirPart, "~/"):
		home := c.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return filepath.Join(home, dirPart[2:])
	case filepath.IsAbs(dirPart):
		return dirPart
	}
	base := c.Dir
	if base == "" {
		base = "."
	}
	return filepath.Join(base, dirPart)
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
