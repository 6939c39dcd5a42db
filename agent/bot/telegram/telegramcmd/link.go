package telegramcmd

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/proto/regular"
)

// Link is a configured bot opened in this process for a mirror of the
// interactive conversation (/telegram connect): it holds the bot's lock so
// that no daemon polls the same bot meanwhile. Close releases it.
type Link struct {
	Name string        // the bot's username
	Bot  *telegram.Bot // the transport for bot.NewMirror
	Log  *log.Logger   // appends to the bot's log file

	lock *runLock
	logf *regular.Log
}

// Open opens the bot name ("" for the only one). It fails when the bot is
// not set up, is not paired, or runs as a daemon (stop it first).
func Open(ctx context.Context, env Env, name string) (*Link, error) {
	botName, err := pick(env, name)
	if err != nil {
		return nil, err
	}
	dir := dirOf(env, botName)
	lock, err := lockBot(dir)
	var running *errRunning
	if errors.As(err, &running) {
		return nil, fmt.Errorf("@%s is running in the background (pid %d); stop it with zut telegram stop to mirror this conversation", botName, running.pid)
	}
	if err != nil {
		return nil, err
	}
	l := &Link{Name: botName, lock: lock}
	if err := l.open(ctx, env, dir); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func (l *Link) open(ctx context.Context, env Env, dir string) error {
	store := telegram.Store{Dir: dir}
	token, err := store.Token()
	if err != nil {
		return err
	}
	if l.logf, err = regular.OpenLog(logPath(dir), regular.MaxLog); err != nil {
		return err
	}
	l.Log = log.New(l.logf, "mirror: ", log.LstdFlags)
	b, err := telegram.New(telegram.Config{Client: telegram.NewClient(env.Getenv("ZUT_TELEGRAM_API_URL"), token, nil), Store: store, Log: l.Log})
	if err != nil {
		return err
	}
	if _, ok := b.Home(); !ok {
		return fmt.Errorf("@%s is not paired yet: run zut telegram run once and send it the pairing code from zut telegram setup", l.Name)
	}
	if _, err := b.Me(ctx); err != nil {
		return err
	}
	l.Bot = b
	return nil
}

// Close releases the bot (after the mirror's Run returned).
func (l *Link) Close() error {
	if l.lock != nil {
		l.lock.release()
		l.lock = nil
	}
	if l.logf != nil {
		l.logf.Close()
		l.logf = nil
	}
	return nil
}
