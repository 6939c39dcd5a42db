package interactive

import (
	"fmt"
	"strings"

	"github.com/zut-go/zut/tui"
)

// updateActivity sets the activity line from the state.
func (u *ui) updateActivity() {
	switch {
	case u.app == nil:
		return
	case u.busy && u.waiting():
		u.chat.SetActivity(&tui.Activity{Label: "waiting for you", Detail: "answer the dialog below", Waiting: true})
	case u.busy:
		a := &tui.Activity{Label: "Working", Since: u.turn.start, Hint: "esc to interrupt",
			RetryAt: u.turn.retryAt, Retry: u.turn.retry}
		switch {
		case u.turn.haveUsage && u.turn.input+u.turn.output > 0:
			a.Detail = fmt.Sprintf("↑ %s ↓ %s tokens", compactCount(u.turn.input), compactCount(u.turn.output))
		case u.turn.streamed > 0:
			a.Detail = fmt.Sprintf("↓ ~%s tokens", compactCount(u.turn.streamed/4))
		}
		u.chat.SetActivity(a)
	case u.job != nil:
		u.chat.SetActivity(&tui.Activity{Label: u.job.label, Since: u.job.start, Hint: "esc to cancel",
			RetryAt: u.turn.retryAt, Retry: u.turn.retry})
	default:
		u.chat.SetActivity(nil)
	}
}

// compactCount writes 1234 as 1.2k.
func compactCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1000000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// updateFooter sets the bottom line: model, directory, context use.
func (u *ui) updateFooter() {
	if u.app == nil {
		return
	}
	a := u.app
	model := "no model"
	if m := a.Agent().Model(); m.ID != "" {
		// The agent's model: extensions may change it (model.set).
		model = m.ID
		if m.Provider != "" {
			model = m.Provider + "/" + m.ID
		}
		if r := a.Agent().Reasoning(); r.Effort != "" && r.Effort != "off" {
			model += " · " + r.Effort
		} else if r.BudgetTokens > 0 {
			model += fmt.Sprintf(" · think %d", r.BudgetTokens)
		}
	}
	left := model + " · " + shortPath(a.CWD(), u.env.Getenv("HOME"))
	if t := a.Session().Title(); t != "" {
		left += " · " + t
	}
	var right []string
	if g := u.goalFooter(); g != "" {
		right = append(right, g)
	}
	if m := a.Agent().Model(); m.ContextWindow > 0 && u.turn.ctxTokens > 0 {
		right = append(right, fmt.Sprintf("ctx %d%%", u.turn.ctxTokens*100/m.ContextWindow))
	}
	if u.turn.cost > 0 {
		right = append(right, fmt.Sprintf("$%.2f", u.turn.cost))
	}
	if u.chat.Expanded() {
		right = append(right, "expanded")
	}
	if a.Yolo() {
		right = append(right, "yolo: tools run unasked")
	}
	if m := a.SandboxMode(); m != "danger-full-access" {
		right = append(right, "sandbox: "+m)
	}
	u.chat.SetFooter(tui.Footer{Left: left, Right: strings.Join(right, " · ")})
}

// shortPath writes a path under home with "~".
func shortPath(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}
