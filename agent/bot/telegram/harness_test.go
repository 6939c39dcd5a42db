package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
	"github.com/zut-go/zut/agent/tools"
)

const token = "123456789:AAtest-token_abcdefghijklmnopqrstuvwx"

var (
	owner    = telegramtest.User{ID: 42, FirstName: "Ada", Username: "ada"}
	stranger = telegramtest.User{ID: 666, FirstName: "Mallory", Username: "mallory"}
)

// logBuffer is a bot.Logger tests read and wait on.
type logBuffer struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{})} }

func (l *logBuffer) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait blocks until a line contains s (a minute at most).
func (l *logBuffer) wait(t testing.TB, s string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		l.mu.Lock()
		ch := l.changed
		l.mu.Unlock()
		if l.has(s) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no log line with %q in:\n%s", s, l)
		}
	}
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (l *logBuffer) has(s string) bool { return strings.Contains(l.String(), s) }

type options struct {
	parseMode string
	unpaired  bool
	code      string // pairing code for an unpaired bot
	interval  time.Duration
	script    func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error
	cwd       string
	now       func() time.Time // the bot's clock; nil is time.Now
	onPaired  func(telegram.Pairing)
}

// harness is a runner with the real Telegram transport against the fake
// server, driving a scripted agent.
type harness struct {
	t     *testing.T
	srv   *telegramtest.Server
	store telegram.Store
	agent *telegramtest.Agent
	logs  *logBuffer
	opts  options

	cancel context.CancelFunc
	done   chan error
}

func newHarness(t *testing.T, o options) *harness {
	t.Helper()
	h := &harness{t: t, srv: telegramtest.New(t, token), store: telegram.Store{Dir: t.TempDir()}, logs: newLogBuffer(), opts: o}
	h.agent = telegramtest.NewAgent(o.script)
	switch {
	case o.unpaired && o.code != "":
		if err := h.store.SavePairing(telegram.PairingFor(o.code)); err != nil {
			t.Fatal(err)
		}
	case !o.unpaired:
		if err := h.store.SavePairing(telegram.Pairing{UserID: owner.ID, UserName: "Ada"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		h.stop()
		if strings.Contains(h.logs.String(), token) || strings.Contains(h.logs.String(), "AAtest") {
			t.Errorf("the log shows the token:\n%s", h.logs)
		}
		if t.Failed() {
			t.Logf("bot log:\n%s", h.logs)
		}
	})
	return h
}

func (h *harness) newBot() *telegram.Bot {
	h.t.Helper()
	b, err := telegram.New(telegram.Config{
		Client: telegram.NewClient(h.srv.URL, token, nil), Store: h.store, Log: h.logs,
		ParseMode: h.opts.parseMode, PollTimeout: 5 * time.Second, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		Now: h.opts.now, OnPaired: h.opts.onPaired,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// start runs a runner on a new Bot (as a restarted process would).
func (h *harness) start() {
	h.t.Helper()
	interval := h.opts.interval
	if interval == 0 {
		interval = 20 * time.Millisecond
	}
	r := bot.New(bot.Config{
		Transport: h.newBot(),
		NewAgent:  func(context.Context) (bot.Agent, error) { return h.agent, nil },
		Log:       h.logs, EditInterval: interval,
		Files: tools.Config{CWD: h.opts.cwd},
	})
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- r.Run(ctx) }()
}

// stop ends the runner and returns what Run returned.
func (h *harness) stop() error {
	if h.cancel == nil {
		return nil
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		return err
	case <-time.After(60 * time.Second):
		h.t.Fatal("the runner did not stop within a minute")
	}
	return nil
}

// waitText waits for a message in the owner's chat containing s.
func (h *harness) waitText(s string) telegramtest.Sent {
	h.t.Helper()
	return h.srv.WaitSent(h.t, owner.ID, fmt.Sprintf("a message containing %q", s), func(m telegramtest.Sent) bool {
		return strings.Contains(m.Text, s)
	})
}

func (h *harness) waitPrompts(n int) []agent.Input {
	h.t.Helper()
	h.agent.Wait(h.t, fmt.Sprintf("%d prompts", n), func() bool { return len(h.agent.Prompts()) >= n })
	return h.agent.Prompts()
}

func (h *harness) waitLog(s string) {
	h.t.Helper()
	h.logs.wait(h.t, s)
}
