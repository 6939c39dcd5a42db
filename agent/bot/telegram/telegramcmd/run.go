package telegramcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/proto/regular"
)

// detailConnecting is the state's detail until the token is checked.
const detailConnecting = "connecting to Telegram"

// run runs the bot in this process until a signal or a fatal error, and
// records in status.json that it runs and then why it stopped.
func run(ctx context.Context, env Env, args []string, newAgent NewAgent) error {
	fs, name := flags(env, "run")
	if err := parse(fs, args); err != nil {
		return err
	}
	botName, err := pick(env, *name)
	if err != nil {
		return err
	}
	dir := dirOf(env, botName)
	lock, err := lockBot(dir)
	var running *errRunning
	if errors.As(err, &running) {
		return fmt.Errorf("zut telegram run: @%s is already running (pid %d); stop it with zut telegram stop, or watch it with zut telegram logs -f", botName, running.pid)
	}
	if err != nil {
		return fmt.Errorf("zut telegram run: %v", err)
	}
	defer lock.release()
	if newAgent == nil {
		return errors.New("zut telegram run: this build cannot start zut's app")
	}
	out := env.Stderr
	if capped := cappedLog(env.Stderr, logPath(dir)); capped != nil {
		defer capped.Close()
		out = capped
	}
	lg := log.New(out, "", log.LstdFlags)
	since := time.Now().UTC()
	writeState(dir, state{State: "running", PID: os.Getpid(), Since: since, Detail: detailConnecting})

	sctx, stop := signal.NotifyContext(ctx, stopSignals...)
	defer stop()
	err = serve(sctx, env, dir, botName, lg, since, newAgent)
	reason := "stopped"
	switch {
	case err != nil:
		reason = err.Error()
	case ctx.Err() != nil:
		reason = "stopped: zut was asked to end"
	case sctx.Err() != nil:
		reason = "stopped by a signal (zut telegram stop, Ctrl-C or the system)"
	}
	lg.Printf("@%s: %s", botName, reason)
	writeState(dir, state{State: "stopped", PID: os.Getpid(), Since: since, Stopped: time.Now().UTC(), Reason: reason})
	if err != nil {
		return fmt.Errorf("zut telegram run: %w", err)
	}
	return nil
}

func serve(ctx context.Context, env Env, dir, name string, lg *log.Logger, since time.Time, newAgent NewAgent) error {
	store := telegram.Store{Dir: dir}
	token, err := store.Token()
	if err != nil {
		return err
	}
	b, err := telegram.New(telegram.Config{Client: telegram.NewClient(env.Getenv("ZUT_TELEGRAM_API_URL"), token, nil), Store: store, Log: lg,
		OnPaired: func(p telegram.Pairing) {
			lg.Printf("@%s: paired with %s; polling for messages", name, p.UserName)
			writeState(dir, state{State: "running", PID: os.Getpid(), Since: since, Detail: "polling for messages"})
		}})
	if err != nil {
		return err
	}
	if err := checkToken(ctx, b, lg); err != nil {
		return err
	}
	detail := "polling for messages"
	if home, ok := b.Home(); ok {
		lg.Printf("@%s: running; paired with the user of chat %s", name, home)
	} else {
		detail = "waiting for the pairing code"
		lg.Printf("@%s: running; not paired yet: send the pairing code from zut telegram setup to @%s", name, name)
	}
	writeState(dir, state{State: "running", PID: os.Getpid(), Since: since, Detail: detail})
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	files := tools.Config{CWD: cwd, Home: env.Getenv("HOME")}.WithDefaults()
	r := bot.New(bot.Config{Transport: b, NewAgent: newAgent, Log: lg, Files: files})
	if err := r.Run(ctx); err != nil {
		if errors.Is(err, telegram.ErrToken) {
			return err
		}
		return fmt.Errorf("the bot stopped: %w", err)
	}
	return nil
}

// checkToken calls getMe until it answers: a refused token ends the bot,
// a network that is down is waited for.
func checkToken(ctx context.Context, b *telegram.Bot, lg *log.Logger) error {
	wait := time.Second
	for {
		_, err := b.Me(ctx)
		var api *telegram.APIError
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &api) && api.Unauthorized():
			return fmt.Errorf("%w (%v)", telegram.ErrToken, err)
		}
		lg.Printf("%v; retrying in %s", err, wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil
		}
		wait = min(wait*2, time.Minute)
	}
}

// cappedLog returns the bot's log opened as a capped, rotated log
// (regular.OpenLog) when stderr is that very file, as zut telegram start
// arranges; else nil, and the bot logs to stderr as it is.
func cappedLog(stderr io.Writer, path string) *regular.Log {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if pi, err := os.Stat(path); err != nil || !os.SameFile(fi, pi) {
		return nil
	}
	l, err := regular.OpenLog(path, regular.MaxLog)
	if err != nil {
		return nil
	}
	return l
}
