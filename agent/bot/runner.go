package bot

import (
	"context"
	"io"
	"log"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Config configures a Runner. Transport and NewAgent are required.
type Config struct {
	Transport Transport
	// NewAgent builds the app for a chat; the runner closes it.
	NewAgent func(ctx context.Context) (Agent, error)
	// Protocol names the chat for the user and the file tools
	// ("Telegram": telegram_send_file, telegram_send_image).
	Protocol string
	// Log receives one line per event worth knowing (nil: discarded).
	Log Logger
	// EditInterval is the least time between two edits of the progress
	// message of a chat (default 1.5 s).
	EditInterval time.Duration
	Limits       Limits
	// Files resolves the paths the file tools are given (its CWD).
	Files tools.Config
}

// Logger receives log lines; *log.Logger is one.
type Logger interface {
	Printf(format string, v ...any)
}

// Runner is a standalone bot: one conversation per chat, each with its
// own Agent. Run it once.
type Runner struct {
	cfg Config
	log Logger
	lim Limits

	mu    sync.Mutex
	convs map[ChatID]*conversation
}

// New returns a Runner; it starts nothing.
func New(cfg Config) *Runner {
	cfg = cfg.withDefaults()
	return &Runner{cfg: cfg, log: cfg.Log, lim: cfg.Limits.withDefaults(), convs: map[ChatID]*conversation{}}
}

func (cfg Config) withDefaults() Config {
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if cfg.EditInterval <= 0 {
		cfg.EditInterval = 1500 * time.Millisecond
	}
	if cfg.Protocol == "" {
		cfg.Protocol = "Telegram"
	}
	return cfg
}

// Run polls the transport and serves the chats until ctx is done (it then
// returns nil) or the transport fails for good (it returns that error).
// Before it returns it stops running turns, sends what is left and closes
// every conversation's Agent. The conversation of the home chat is built
// first, so that an app that cannot start fails Run at once.
func (r *Runner) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer r.closeAll()
	var first Agent
	if home, ok := r.cfg.Transport.Home(); ok {
		c, err := r.conversation(ctx, home)
		if err != nil {
			return err
		}
		first = c.agent
	}
	if err := r.cfg.Transport.SetCommands(ctx, commands(first)); err != nil {
		r.log.Printf("publish the command menu: %v", err)
	}
	err := r.cfg.Transport.Poll(ctx, func(u Update) { r.dispatch(ctx, u) })
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (r *Runner) dispatch(ctx context.Context, u Update) {
	c, err := r.conversation(ctx, u.Chat)
	if err != nil {
		r.log.Printf("chat %s: start zut: %v", u.Chat, err)
		if _, serr := r.cfg.Transport.Send(ctx, u.Chat, Message{Plain: "⚠ zut could not start: " + firstLine(err.Error())}); serr != nil {
			r.log.Printf("chat %s: send: %v", u.Chat, serr)
		}
		return
	}
	c.handle(ctx, u)
}

// conversation returns the chat's conversation, starting it when needed.
func (r *Runner) conversation(ctx context.Context, chat ChatID) (*conversation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.convs[chat]; c != nil {
		return c, nil
	}
	c, err := r.newConversation(ctx, chat)
	if err != nil {
		return nil, err
	}
	r.convs[chat] = c
	r.log.Printf("chat %s: conversation started", chat)
	return c, nil
}

func (r *Runner) closeAll() {
	r.mu.Lock()
	convs := r.convs
	r.convs = map[ChatID]*conversation{}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}
