package interactive

import (
	"context"
	"strings"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/botmode"
)

// /telegram connect [bot] mirrors the conversation to the paired
// Telegram chat (package botmode): answers go to both, what the user
// writes there runs here as if typed (queued behind a running turn, a
// "/command" line as a command), /stop there interrupts, and confirmations
// and panels stay in the terminal. /telegram disconnect ends it;
// /telegram status says where it goes.

// telegramCommand runs /telegram args.
func (u *ui) telegramCommand(args string) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	m := u.mirror.Load()
	switch verb {
	case "", "status":
		switch {
		case m != nil:
			u.chat.AddNotice("info", "", "mirrored to Telegram @"+m.Name()+"; /telegram disconnect stops it")
		case u.mirrorBusy:
			u.chat.AddNotice("info", "", "connecting to Telegram…")
		default:
			u.chat.AddNotice("info", "", "not mirrored to Telegram; /telegram connect [bot] mirrors this conversation to the bot's paired chat (zut telegram setup makes a bot)")
		}
	case "connect":
		if m != nil {
			u.chat.AddNotice("info", "", "already mirrored to Telegram @"+m.Name())
			return
		}
		if u.mirrorBusy {
			return
		}
		u.mirrorBusy = true
		u.chat.AddNotice("info", "", "connecting to Telegram…")
		u.goJob(func() {
			ctx, cancel := context.WithTimeout(u.ctx, 30*time.Second)
			defer cancel()
			mi, err := botmode.Connect(ctx, u.app, rest, u.mirrorInput, func() { u.inbox.post(func(u *ui) { u.abort() }) }, u.mirrorEnded)
			u.inbox.post(func(u *ui) {
				u.mirrorBusy = false
				switch {
				case err != nil:
					u.chat.AddNotice("error", "", err.Error())
				case u.quit || u.ctx.Err() != nil:
					mi.Close()
				default:
					u.mirror.Store(mi)
					u.chat.AddNotice("info", "", "mirrored to Telegram @"+mi.Name()+": answers go there too, and what you write there runs here; /telegram disconnect stops it")
				}
				u.dirty = true
			})
		})
	case "disconnect":
		if m == nil {
			u.chat.AddNotice("info", "", "not mirrored to Telegram")
			return
		}
		u.disconnectMirror("the mirror to Telegram @" + m.Name() + " stopped")
	default:
		u.chat.AddNotice("warn", "", "use /telegram connect [bot], /telegram disconnect or /telegram status")
	}
}

// mirrorInput runs what the user wrote in the mirrored chat, on the UI
// loop, as typed text would run.
func (u *ui) mirrorInput(in agent.Input) {
	u.inbox.post(func(u *ui) {
		text := strings.TrimSpace(in.Text)
		switch {
		case strings.HasPrefix(text, "/") && len(in.Images) == 0 && len(in.Context) == 0:
			u.command(text)
		case u.busy || u.job != nil:
			u.enqueueInput(in)
		default:
			u.startInput(in)
		}
		u.dirty = true
	})
}

// mirrorEnded is told that the mirror stopped by itself.
func (u *ui) mirrorEnded(err error) {
	u.inbox.post(func(u *ui) {
		if u.mirror.Load() != nil {
			u.disconnectMirror("the mirror to Telegram stopped: " + err.Error())
		}
	})
}

// disconnectMirror stops the mirror and says so with note.
func (u *ui) disconnectMirror(note string) {
	m := u.mirror.Swap(nil)
	if m == nil {
		return
	}
	u.goJob(func() {
		err := m.Close()
		u.inbox.post(func(u *ui) {
			if err != nil {
				note += ": " + err.Error()
			}
			u.chat.AddNotice("info", "", note)
			u.dirty = true
		})
	})
}
