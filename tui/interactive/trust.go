package interactive

import (
	"fmt"

	"github.com/zut-go/zut/tui"
)

// askTrust asks, once per repository and digest, whether the code that
// came with it may run: its extensions, MCP servers and language
// servers. They stay off until the user says yes; the answer is kept in
// $ZUT_HOME/trust.json, and a changed manifest asks again.
func (u *ui) askTrust() {
	t := u.app.ProjectTrust()
	if t.Trusted || t.Empty() {
		return
	}
	msg := fmt.Sprintf("This folder has %s.\n\nThey are programs that came with the repository and run with your permissions. Trust them?", t.Summary())
	if t.StoreErr != nil {
		msg += "\n\n(" + t.StoreErr.Error() + ")"
	}
	l := &tui.List{Title: "Trust this folder?", Message: msg, Items: []tui.ListItem{
		{Label: "Trust this folder", Value: "trust", Detail: t.Root},
		{Label: "Not now", Value: "no", Detail: "they stay off; zut --trust runs them once"},
	}}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		if it.Value != "trust" {
			u.chat.AddNotice("info", "", "this folder's "+t.Summary()+" stay off")
			return
		}
		if err := u.app.TrustProject(); err != nil {
			u.chat.AddNotice("error", "", err.Error())
			return
		}
		u.reloadExt()
	}, onCancel: func(u *ui) {
		u.chat.AddNotice("info", "", "this folder's "+t.Summary()+" stay off")
	}})
}
