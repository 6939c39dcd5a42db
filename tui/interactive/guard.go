package interactive

import (
	"context"
	"errors"

	"github.com/zut-go/zut/agent"
)

// askExtensions runs check (an extension interception such as before_fork
// or before_session_switch) off the UI goroutine, because an extension may
// take up to its interception timeout to answer, then runs then on the UI
// goroutine when nothing cancelled the action. A cancellation is shown as
// a note with the extension's reason.
func (u *ui) askExtensions(what string, check func(ctx context.Context) error, then func(u *ui)) {
	if u.app.Host() == nil {
		then(u)
		return
	}
	u.goJob(func() {
		err := check(u.ctx)
		u.inbox.post(func(u *ui) {
			u.dirty = true // the answer shows at once, not at the next key
			var c *agent.CancelledError
			switch {
			case errors.As(err, &c):
				u.chat.AddNotice("warn", c.By, err.Error())
			case err != nil:
				u.chat.AddNotice("error", "", what+": "+err.Error())
			default:
				then(u)
			}
		})
	})
}
