package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
)

// MirrorConfig configures a Mirror. Transport and Input are required.
type MirrorConfig struct {
	Transport Transport
	// Input receives what the user writes in the chat, in order: a prompt
	// (Source "telegram", with images and documents already read), or a
	// command line starting with "/" (other than /stop) for the host to run
	// as if it was typed. It is called on the mirror's goroutine and must
	// not block for long: queue the prompt the way typed text is queued.
	Input func(in agent.Input)
	// Stop is called when the user sends /stop: cancel the running turn.
	Stop func()
	// Protocol, Log, EditInterval, Limits and Files are as in Config.
	Protocol     string
	Log          Logger
	EditInterval time.Duration
	Limits       Limits
	Files        tools.Config
}

// Mirror shows a conversation another host runs (the terminal UI) in the
// chat of the transport's home user: the host forwards every agent event
// to Event, and what the user writes in the chat comes back through
// MirrorConfig.Input. Replies go to both; panels and confirmations stay in
// the host. Event and Tools are safe for concurrent use.
type Mirror struct {
	cfg    MirrorConfig
	run    Config // the shared settings, with defaults
	lim    Limits
	home   ChatID
	out    *presenter
	inputs *queue[Update]
	once   sync.Once
}

// ErrNotPaired is returned by NewMirror when the transport does not know
// whose chat to mirror to.
var ErrNotPaired = errors.New("the bot is not paired with a user yet: run the bot once (zut telegram run) and send it the pairing code")

// NewMirror prepares a mirror of the transport's home chat.
func NewMirror(cfg MirrorConfig) (*Mirror, error) {
	home, ok := cfg.Transport.Home()
	if !ok {
		return nil, ErrNotPaired
	}
	rc := Config{Transport: cfg.Transport, Protocol: cfg.Protocol, Log: cfg.Log, EditInterval: cfg.EditInterval, Files: cfg.Files}.withDefaults()
	m := &Mirror{cfg: cfg, run: rc, lim: cfg.Limits.withDefaults(), home: home, inputs: newQueue[Update]()}
	m.out = newPresenter(cfg.Transport, home, rc.Log, rc.EditInterval)
	m.out.echo = true
	return m, nil
}

// Event forwards one agent event of the mirrored conversation. It never
// blocks; events after Run returned are dropped.
func (m *Mirror) Event(ev agent.Event) { m.out.event(ev) }

// Tools returns telegram_send_file and telegram_send_image for the
// mirrored conversation (add them while the mirror runs).
func (m *Mirror) Tools() []tools.Tool {
	return fileTools(m.run.Protocol, m.run.Files, m.lim, func(ctx context.Context, f File) error {
		done := make(chan error, 1)
		if !m.out.q.push(item{file: &fileJob{f: f, done: done}}) {
			return errors.New("the mirror is not running")
		}
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// Run polls the transport and shows the forwarded events until ctx is done
// (it returns nil) or the transport fails for good. It may run once.
func (m *Mirror) Run(ctx context.Context) error {
	started := false
	m.once.Do(func() { started = true })
	if !started {
		return errors.New("the mirror already ran; make a new one")
	}
	octx, stopOut := context.WithCancel(context.WithoutCancel(ctx))
	go m.out.run(octx)
	workerDone := make(chan struct{})
	go m.work(ctx, workerDone)
	err := m.cfg.Transport.Poll(ctx, func(u Update) { m.handle(u) })
	m.inputs.close()
	<-workerDone
	m.out.q.close()
	t := time.NewTimer(drainTimeout)
	select {
	case <-m.out.done:
	case <-t.C:
	}
	t.Stop()
	stopOut()
	<-m.out.done
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (m *Mirror) handle(u Update) {
	if u.Chat != m.home {
		m.run.Log.Printf("mirror: ignored an update from chat %s: only chat %s is mirrored", u.Chat, m.home)
		return
	}
	switch {
	case u.Callback != nil:
		m.out.q.push(item{answer: &answered{q: &question{}, choice: choiceStale, callback: u.Callback.ID}})
	case u.Unsupported != "" && strings.TrimSpace(u.Text) == "" && len(u.Attachments) == 0:
		m.out.sayf("I read text, photos and documents; this message has %s.", u.Unsupported)
	case len(u.Attachments) == 0 && strings.HasPrefix(u.Text, "/"):
		name, _ := parseCommand(u.Text)
		switch name {
		case "stop":
			if m.cfg.Stop != nil {
				m.cfg.Stop()
			}
		case "help", "start":
			m.out.sayf("This chat mirrors a zut conversation running in a terminal. Messages you send here go to it; /stop stops the running turn; other commands run in the terminal as if typed there.")
		default:
			m.inputs.push(u)
		}
	case strings.TrimSpace(u.Text) == "" && len(u.Attachments) == 0:
	default:
		m.inputs.push(u)
	}
}

// work reads attachments and hands inputs to the host, one at a time.
func (m *Mirror) work(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		u, ok := m.inputs.next(ctx)
		if !ok {
			return
		}
		in := agent.Input{Text: u.Text, Source: "telegram"}
		if len(u.Attachments) > 0 {
			var notes []string
			in, notes = buildInput(ctx, m.cfg.Transport, m.lim, u)
			for _, n := range notes {
				m.out.sayf("⚠ %s", n)
			}
		}
		if strings.TrimSpace(in.Text) == "" && len(in.Images) == 0 {
			continue
		}
		if !strings.HasPrefix(in.Text, "/") {
			m.out.q.push(item{echo: in.Text})
		}
		m.cfg.Input(in)
	}
}
