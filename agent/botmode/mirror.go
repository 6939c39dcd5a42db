package botmode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram/telegramcmd"
	"github.com/zut-go/zut/agent/tools"
)

// Mirror shows the terminal's conversation in the paired Telegram chat:
// the answers go to both, the user may write from either, and panels and
// confirmations stay in the terminal. While it runs, the model has the
// tools telegram_send_file and telegram_send_image.
type Mirror struct {
	name   string
	link   *telegramcmd.Link
	m      *bot.Mirror
	remove func() // takes the tools back
	cancel context.CancelFunc
	done   chan struct{}
	err    error // why Run ended, once done is closed

	closeOnce sync.Once
}

// MirrorInput is what the terminal does with what the user writes in the
// chat: run a prompt (queued behind the running one) or a slash command
// line as if typed. It must not block.
type MirrorInput func(in agent.Input)

// Connect opens the bot name ("" for the only one set up), starts showing
// the conversation of a in its chat, and lends a the file tools. stop is
// called when the user sends /stop; ended, when the mirror stops by
// itself (a revoked token, the network gone for good), with the reason.
func Connect(ctx context.Context, a *app.App, name string, input MirrorInput, stop func(), ended func(error)) (*Mirror, error) {
	env := a.Env()
	exe, _ := os.Executable()
	link, err := telegramcmd.Open(ctx, telegramcmd.Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv,
		ZutHome: a.Home(), Executable: exe}, name)
	if err != nil {
		return nil, fmt.Errorf("telegram connect: %w", err)
	}
	bm, err := bot.NewMirror(bot.MirrorConfig{
		Transport: link.Bot, Input: input, Stop: stop, Log: link.Log,
		Files: tools.Config{CWD: a.CWD(), Home: env.Getenv("HOME")}.WithDefaults(),
	})
	if err != nil {
		link.Close()
		return nil, fmt.Errorf("telegram connect: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	mi := &Mirror{name: link.Name, link: link, m: bm, cancel: cancel, done: make(chan struct{})}
	mi.remove = a.AddTools(bm.Tools())
	go func() {
		defer close(mi.done)
		mi.err = bm.Run(rctx)
		if rctx.Err() == nil && ended != nil {
			reason := mi.err
			if reason == nil {
				reason = errors.New("the mirror stopped")
			}
			ended(reason)
		}
	}()
	return mi, nil
}

// Name is the bot's username.
func (mi *Mirror) Name() string { return mi.name }

// Event forwards an event of the conversation; it never blocks.
func (mi *Mirror) Event(ev agent.Event) { mi.m.Event(ev) }

// Close stops the mirror, takes the tools back and releases the bot (a
// daemon may poll it again). It waits for the mirror's last messages.
func (mi *Mirror) Close() error {
	mi.closeOnce.Do(func() {
		mi.remove()
		mi.cancel()
		<-mi.done
		mi.link.Close()
	})
	if errors.Is(mi.err, context.Canceled) {
		return nil
	}
	return mi.err
}
