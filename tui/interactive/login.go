package interactive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/authcmd"
	"github.com/zut-go/zut/tui"
)

// login runs /login [provider] [--subscription]: a picker of the
// subscription sign-ins and the providers that take a key, then either a
// masked prompt for the key or the sign-in.
func (u *ui) login(args string) {
	fields := strings.Fields(args)
	sub := slices.Contains(fields, "--subscription")
	fields = slices.DeleteFunc(fields, func(f string) bool { return f == "--subscription" })
	if len(fields) > 0 {
		name := fields[0]
		if o, ok := provider.LookupOAuth(name, nil); ok && (sub || o.Provider == "openai-codex") {
			u.signIn(o.Provider)
			return
		}
		p, err := provider.LookupProvider(u.home, name)
		if err != nil {
			u.chat.AddNotice("error", "", "/login: "+err.Error())
			return
		}
		if sub {
			u.chat.AddNotice("error", "", "/login: "+p.Name+" has no subscription sign-in; zut signs in to Claude Pro/Max (/login anthropic --subscription) and ChatGPT (/login openai-codex)")
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
	saved, _ := provider.SavedCredentials(u.home)
	var items []tui.ListItem
	for _, name := range provider.SignIns {
		o, _ := provider.LookupOAuth(name, nil)
		it := tui.ListItem{Label: name + " · sign in with " + o.Title, Value: "sign-in " + name}
		if c, ok := saved[name]; ok && c.Kind == "subscription" {
			it.Detail = "signed in"
		}
		items = append(items, it)
	}
	for _, p := range ps {
		if p.Local || len(p.KeyEnv) == 0 && slices.Contains(provider.SignIns, p.Name) {
			continue
		}
		it := tui.ListItem{Label: p.Name + " · API key", Value: p.Name}
		if c, ok := saved[p.Name]; ok && c.Kind == "key" {
			it.Detail = "a key is saved"
		}
		items = append(items, it)
	}
	l := &tui.List{Title: "Sign in, or save an API key, for…", Items: items, Filter: true}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		if name, ok := strings.CutPrefix(it.Value, "sign-in "); ok {
			u.signIn(name)
			return
		}
		u.openLoginPrompt(it.Value)
	}})
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
	u.useCredential(saved)
}

// useCredential switches to a provider's new key or sign-in when zut has
// no model yet, or runs this provider (whose old key may have been
// rejected).
func (u *ui) useCredential(name string) {
	res := u.app.Resolved()
	switch {
	case u.busy || u.job != nil:
	case res == nil:
		u.setModel(name + "/")
	case res.Provider.Name == name:
		u.setModel(name + "/" + res.Model.ID)
	}
}

func (o *loginOverlay) paste(u *ui, s string) { o.Editor.Paste(s) }
func (o *loginOverlay) cancel(u *ui)          {}

// signIn starts the subscription sign-in of provider name: the link is
// shown (and offered to a browser); Claude's code is pasted into a
// prompt, ChatGPT's answer comes to the local callback while a job
// waits (Esc stops it).
func (u *ui) signIn(name string) {
	s, err := authcmd.Begin(u.home, name, u.env.Getenv)
	if err != nil {
		u.chat.AddNotice("error", "", "/login "+name+": "+err.Error())
		return
	}
	o := s.OAuth
	opened := ""
	if authcmd.OpenBrowser(s.Link) {
		opened = " (a browser was asked to open it)"
	}
	if s.Pasted() {
		u.chat.AddNotice("info", "", fmt.Sprintf("Sign in with %s: open this link%s, authorize zut, then paste the code the page shows.\n%s", o.Title, opened, s.Link))
		p := &tui.Prompt{Title: "Sign in with " + o.Title,
			Message: "Paste the code the page shows after you authorize (code#state)."}
		p.Editor.Placeholder = "code#state"
		u.openOverlay(&signInOverlay{Prompt: p, s: s})
		return
	}
	u.chat.AddNotice("info", "", fmt.Sprintf("Sign in with %s: open this link%s and authorize zut; the browser then comes back to zut on this machine (esc stops waiting).\n%s", o.Title, opened, s.Link))
	u.finishSignIn(s, "Waiting for the browser", func(ctx context.Context) (string, string, error) { return s.Wait(ctx) })
}

// finishSignIn gets the code (from answer) and trades it on a job.
func (u *ui) finishSignIn(s *authcmd.SignIn, label string, answer func(ctx context.Context) (code, state string, err error)) {
	ctx, cancel := context.WithCancel(u.ctx)
	u.job = &job{label: label, start: u.now(), cancel: cancel}
	u.dirty = true
	u.goJob(func() {
		defer cancel()
		defer s.Close()
		code, state, err := answer(ctx)
		var c *provider.OAuthCredential
		if err == nil {
			c, err = s.Finish(ctx, code, state)
		}
		stopped := ctx.Err() != nil
		u.inbox.post(func(u *ui) {
			u.job = nil
			u.dirty = true
			o := s.OAuth
			switch {
			case err != nil && stopped:
				u.chat.AddNotice("warn", "", o.Title+" sign-in stopped")
			case err != nil:
				u.chat.AddNotice("error", "", "/login: "+err.Error())
			default:
				who := ""
				if c.Account != "" {
					who = " as " + c.Account
				}
				u.chat.AddNotice("success", "", fmt.Sprintf("signed in to %s%s; saved in %s", o.Title, who, provider.AuthPath(u.home)))
				if p, err := provider.LookupProvider(u.home, o.Provider); err == nil {
					for _, v := range p.KeyEnv {
						if u.env.Getenv(v) != "" {
							u.chat.AddNotice("warn", "", "$"+v+" is set and comes first; unset it to use the sign-in")
							u.startQueued()
							return
						}
					}
				}
				u.useCredential(o.Provider)
			}
			u.startQueued()
		})
	})
}

// signInOverlay takes Claude's pasted code.
type signInOverlay struct {
	*tui.Prompt
	s *authcmd.SignIn
}

func (o *signInOverlay) key(u *ui, k tui.Key) {
	text, done, cancelled := o.HandleKey(k)
	if !done {
		return
	}
	u.closeOverlay(o)
	if cancelled {
		o.s.Close()
		u.chat.AddNotice("warn", "", o.s.OAuth.Title+" sign-in stopped")
		return
	}
	code, state := authcmd.ParseCode(text)
	u.finishSignIn(o.s, "Signing in", func(context.Context) (string, string, error) { return code, state, nil })
}

func (o *signInOverlay) paste(u *ui, s string) { o.Editor.Paste(s) }
func (o *signInOverlay) cancel(u *ui)          { o.s.Close() }
