package interactive

import (
	"fmt"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/authcmd"
	"github.com/zut-go/zut/tui"
)

// login runs /login [provider]: a picker of the providers that take a
// key, then a masked prompt for it.
func (u *ui) login(name string) {
	if name != "" {
		p, err := provider.LookupProvider(u.home, name)
		if err != nil {
			u.chat.AddNotice("error", "", "/login: "+err.Error())
			return
		}
		u.openLoginPrompt(p.Name)
		return
	}
	ps, err := provider.Providers(u.home)
	if err != nil {
		u.chat.AddNotice("error", "", "/login: "+err.Error())
		return
	}
	keys, _ := provider.SavedKeys(u.home)
	var items []tui.ListItem
	for _, p := range ps {
		if p.Local {
			continue
		}
		it := tui.ListItem{Label: p.Name, Value: p.Name}
		if keys[p.Name] != "" {
			it.Detail = "a key is saved"
		}
		items = append(items, it)
	}
	l := &tui.List{Title: "Save an API key for…", Items: items, Filter: true}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) { u.openLoginPrompt(it.Value) }})
}

// loginOverlay asks for a key without showing it.
type loginOverlay struct {
	*tui.Prompt
	provider string
}

func (u *ui) openLoginPrompt(name string) {
	p := &tui.Prompt{Title: "API key for " + name, Masked: true,
		Message: fmt.Sprintf("Paste the key; it is saved in %s (mode 0600) and not shown.", provider.AuthPath(u.home))}
	p.Editor.Placeholder = "the key"
	u.openOverlay(&loginOverlay{Prompt: p, provider: name})
}

func (o *loginOverlay) key(u *ui, k tui.Key) {
	text, done, cancelled := o.HandleKey(k)
	if !done {
		return
	}
	u.closeOverlay(o)
	if cancelled {
		return
	}
	saved, note, err := authcmd.Save(u.home, o.provider, text, u.env.Getenv)
	if err != nil {
		u.chat.AddNotice("error", "", "/login "+o.provider+": "+err.Error())
		return
	}
	u.chat.AddNotice("success", "", fmt.Sprintf("saved the %s key in %s", saved, provider.AuthPath(u.home)))
	if note != "" {
		u.chat.AddNotice("warn", "", note)
		return
	}
	// Use the key now when zut has no model yet, or runs this provider
	// (whose old key may have been rejected).
	res := u.app.Resolved()
	switch {
	case u.busy || u.job != nil:
	case res == nil:
		u.setModel(saved + "/")
	case res.Provider.Name == saved:
		u.setModel(saved + "/" + res.Model.ID)
	}
}

func (o *loginOverlay) paste(u *ui, s string) { o.Editor.Paste(s) }
func (o *loginOverlay) cancel(u *ui)          {}
