package interactive

import (
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/tui"
)

// openPermissions lists the permission rules in force, deny first, with
// where each comes from; Enter removes the selected rule (those of
// config.json; the others say where to change them).
func (u *ui) openPermissions() {
	rules := u.app.Rules().Rules()
	var items []tui.ListItem
	byValue := map[string]permissions.Rule{}
	for i, r := range rules {
		v := fmt.Sprint(i)
		byValue[v] = r
		items = append(items, tui.ListItem{Label: fmt.Sprintf("%-5s %s", r.Effect, r), Detail: r.Source.Describe(), Value: v})
	}
	for _, r := range u.app.Rules().Ignored() {
		items = append(items, tui.ListItem{Label: fmt.Sprintf("%-5s %s", r.Effect, r), Detail: "ignored: .zut/settings.json of a project you have not trusted", Value: "", Muted: true})
	}
	def := "Without a rule, reading tools run and the others ask (y once, a always here, n deny)."
	if u.app.Yolo() {
		def = "--yolo: every tool runs without asking; deny rules still refuse."
	}
	msg := def + "\nRules are allow, ask or deny TOOL(PATTERN), kept in config.json: a confirmation's \"always\" adds one for this project." +
		"\nA bash rule matches each command a line runs (deny: any of them; allow: all); a line zut cannot analyse is never allowed by one."
	if len(items) == 0 {
		items = append(items, tui.ListItem{Label: "(no rules yet)", Value: "", Muted: true})
	}
	l := &tui.List{Title: "Permissions", Message: msg, Items: items, Hint: "enter remove the rule · esc close"}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		r, ok := byValue[it.Value]
		if !ok {
			return
		}
		if err := u.app.RemoveRule(r); err != nil {
			u.chat.AddNotice("warn", "", "/permissions: "+err.Error())
			return
		}
		u.chat.AddNotice("success", "", fmt.Sprintf("removed %s %s (%s)", r.Effect, r, strings.TrimSpace(r.Source.Describe())))
	}})
}
