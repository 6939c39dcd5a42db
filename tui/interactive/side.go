package interactive

import (
	"context"
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"time"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui"
)

// btwState is a /btw side question in flight or answered.
type btwState struct {
	side   tui.SideAnswer
	cancel context.CancelFunc
	done   bool
}

// askBTW asks a side question; it runs even while a prompt runs.
func (u *ui) askBTW(question string) {
	if strings.TrimSpace(question) == "" {
		u.chat.AddNotice("warn", "", "/btw needs a question: /btw what does this function return?")
		return
	}
	if u.btw != nil && u.btw.cancel != nil {
		u.btw.cancel()
	}
	ctx, cancel := context.WithCancel(u.ctx)
	st := &btwState{side: tui.SideAnswer{Question: question}, cancel: cancel}
	u.btw = st
	u.chat.SetSide(&st.side)
	u.dirty = true
	u.goJob(func() {
		defer cancel()
		text, err := u.app.Agent().Ask(ctx, question, func(delta string) {
			u.inbox.post(func(u *ui) {
				if u.btw == st {
					st.side.Answer += delta
					u.dirty = true
				}
			})
		})
		stopped := ctx.Err() != nil
		u.inbox.post(func(u *ui) {
			if u.btw != st {
				return
			}
			st.done = true
			st.side.Done = true
			switch {
			case err != nil && stopped:
				st.side.Err = "cancelled"
			case err != nil:
				st.side.Err = err.Error()
			default:
				st.side.Answer = text
			}
			u.dirty = true
		})
	})
}

// closeBTW cancels or dismisses the side question.
func (u *ui) closeBTW() {
	if u.btw == nil {
		return
	}
	if u.btw.cancel != nil {
		u.btw.cancel()
	}
	u.btw = nil
	u.chat.SetSide(nil)
	u.dirty = true
}

// replay shows the messages of the current branch, as when a session is
// resumed.
func (u *ui) replay() {
	msgs := u.app.Session().Messages()
	if len(msgs) == 0 {
		return
	}
	const keep = 60
	if len(msgs) > keep {
		u.chat.AddNotice("info", "", fmt.Sprintf("… %d earlier messages", len(msgs)-keep))
		msgs = msgs[len(msgs)-keep:]
	}
	for _, m := range msgs {
		u.replayMessage(m)
	}
	u.chat.EndTurn("not run")
	u.dirty = true
}

func (u *ui) replayMessage(m provider.Message) {
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			if b.Context {
				continue // not the user's words
			}
			if m.Role == provider.RoleUser {
				u.chat.AddUser(b.Text)
			} else {
				u.chat.AddMarkdown(b.Text, ansi.RoleAssistantText)
				u.answer = b.Text
			}
		case provider.BlockToolUse:
			u.chat.SetToolArgs(b.ID, b.Name, string(b.Input))
		case provider.BlockToolResult:
			var parts []string
			for _, c := range b.Content {
				if c.Type == provider.BlockText {
					parts = append(parts, c.Text)
				}
			}
			u.chat.ToolDone(b.ToolUseID, "", strings.Join(parts, "\n"), b.IsError, nil, time.Time{})
		case provider.BlockImage:
			if m.Role == provider.RoleUser {
				u.chat.AddUser("[image " + b.MIMEType + "]")
			}
		}
	}
}
