package interactive

import (
	"os"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui"
)

// askConsent asks, before anything of zut run's agent runs (the app is
// not built yet), whether the agent may run with the permissions its
// manifest lists. Yes is remembered for the agent's digest, so a changed
// agent asks again; no, Esc or Ctrl-C ends zut without running it.
func (u *ui) askConsent() (bool, error) {
	cwd, _ := os.Getwd()
	msg := app.ConsentText(u.env, u.opts, cwd) +
		"\nIt can do no more than this, whatever the permission rules and --yolo say: its tools " +
		"refuse the rest, and its commands and extensions run in a sandbox of these permissions."
	decided, yes := false, false
	l := &tui.List{Title: "Run the agent " + u.opts.Agent.Manifest.Name + "?", Message: msg, Items: []tui.ListItem{
		{Label: "Run it with these permissions", Value: "yes", Detail: "remembered for this digest"},
		{Label: "Do not run it", Value: "no", Detail: "zut exits"},
	}}
	u.openOverlay(&listOverlay{List: l,
		choose:   func(u *ui, it tui.ListItem) { decided, yes = true, it.Value == "yes" },
		onCancel: func(u *ui) { decided = true },
	})
	u.render(true)
	events := u.term.Events()
	for !decided {
		select {
		case <-u.ctx.Done():
			u.cancelOverlays()
			return false, app.ErrAborted
		case ev, ok := <-events:
			if !ok {
				u.cancelOverlays()
				return false, app.ErrAborted
			}
			switch ev.(type) {
			case tui.Key, tui.Resize, tui.Paste:
				u.input(ev)
			}
			u.render(true)
		}
	}
	if !yes {
		return false, nil
	}
	if err := app.RememberAgentConsent(u.home, u.opts); err != nil {
		u.earlyNote("warn", "the consent could not be remembered ("+err.Error()+"); zut run will ask again")
	}
	return true, nil
}
