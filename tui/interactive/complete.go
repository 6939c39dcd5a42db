package interactive

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/zut-go/zut/tui"
)

// refreshCommands rebuilds the completion of slash commands, @ files and
// paths.
func (u *ui) refreshCommands() {
	if u.app == nil || u.reloading {
		return
	}
	var cmds []tui.Command
	for _, c := range u.app.Commands() {
		if c.Name == "skill" {
			continue
		}
		desc := c.Description
		if c.Extension != "" {
			desc = "[" + c.Extension + "] " + desc
		}
		cmds = append(cmds, tui.Command{Name: c.Name, Description: desc})
	}
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	if u.files == nil {
		u.files = &tui.FileIndex{Root: u.app.CWD()}
	}
	u.ed.Completer = tui.Completers{
		argCompleter{u},
		&tui.CommandCompleter{Commands: cmds},
		&tui.FileCompleter{Index: u.files},
		&tui.PathCompleter{Dir: u.app.CWD(), Home: u.env.Getenv("HOME")},
	}
}

// argCompleter completes the arguments of extension commands registered
// with completion, on Tab only (it asks the extension, which takes a
// moment).
type argCompleter struct{ u *ui }

func (c argCompleter) Complete(text string, cursor int, explicit bool) *tui.Completion {
	a := c.u.app
	if !explicit || a == nil || a.Host() == nil || !strings.HasPrefix(text, "/") {
		return nil
	}
	name, prefix, ok := strings.Cut(text[1:cursor], " ")
	if !ok || strings.ContainsAny(name, "\n") {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.u.ctx, time.Second)
	defer cancel()
	items, err := a.Host().CompleteCommand(ctx, name, prefix)
	if err != nil || len(items) == 0 {
		return nil
	}
	comp := &tui.Completion{Start: 1 + len(name) + 1, End: cursor}
	for _, it := range items {
		comp.Items = append(comp.Items, tui.CompletionItem{Value: it})
	}
	return comp
}
