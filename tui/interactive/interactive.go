// Package interactive is zut's interactive mode: the terminal UI controller.
// It owns the screen (one loop goroutine draws; every other goroutine posts
// to its inbox), turns keys into editor actions, slash commands and
// prompts for the app, shows agent events in the chat view of package tui,
// and implements app.UI for extension chrome, panels and dialogs.
package interactive

import (
	"context"
	"errors"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zut-go/zut/tui"
)

// Run runs the terminal UI on the process's terminal.
func Run(ctx context.Context, e *app.Env, o app.Options) error {
	return runUI(ctx, e, o, uiConfig{in: e.Stdin, out: e.Stdout, probe: 400 * time.Millisecond})
}

// uiConfig is what runUI needs beyond the environment and the flags.
// Tests give pipes and a virtual terminal, a size and a fixed clock.
type uiConfig struct {
	in  io.Reader
	out io.Writer
	// width and height override the terminal's size (0: ask it).
	width, height int
	// probe is how long to wait for the terminal to answer the
	// capability queries; 0 skips them.
	probe time.Duration
	// now is the clock of the spinner and elapsed times; time.Now when nil.
	now func() time.Time
	// profile overrides the colour profile detected from the environment.
	profile *ansi.Profile
	// frameHook, when set, is called on the UI goroutine after every frame
	// written (tests wait on it).
	frameHook func()
	// started, when set, is called on the UI goroutine once the loop is
	// about to run (tests keep the ui to post work to it).
	started func(*ui)
	// plainEcho makes a plain screen on pipes act as on a cooked
	// terminal, which echoes the lines typed (tests).
	plainEcho bool
}

// runUI sets up the terminal, the app and the UI loop, runs the loop until
// the user exits, then tears everything down in order: the loop's
// goroutines, the screen, the terminal, the extensions.
func runUI(ctx context.Context, e *app.Env, o app.Options, cfg uiConfig) error {
	home := e.Home()
	st, stErr := app.LoadSettings(home)
	if cfg.now == nil {
		cfg.now = time.Now
	}

	term := tui.NewTerminal(cfg.in, cfg.out)
	profile := tui.DetectProfile(e.Getenv, term.IsTerminal())
	if cfg.profile != nil {
		profile = *cfg.profile
	}
	// A dumb terminal cannot move the cursor, and output that is not a
	// terminal cannot be redrawn: zut then writes the transcript as lines
	// and reads whole lines.
	plain := profile == ansi.ProfileNone && (e.Getenv("TERM") == "dumb" || !term.IsTerminal()) && cfg.profile == nil
	term.Cooked = plain
	if err := term.Start(); err != nil {
		return err
	}
	defer term.Close()
	var caps tui.Caps
	var early []tui.Event
	// Tests (which set the profile) probe their virtual terminal too.
	if cfg.probe > 0 && (term.IsTerminal() || cfg.profile != nil) && !plain {
		c, evs, err := term.Probe(ctx, cfg.probe)
		if err != nil && ctx.Err() != nil {
			return app.ErrAborted
		}
		caps, early = c, evs
	}
	width, height := term.Size()
	if cfg.width > 0 {
		width, height = cfg.width, cfg.height
	}

	u := newUI(ctx, e, o, cfg, home, st, profile, caps, plain, width, height)
	defer u.cancel()
	if ps, ok := u.screen.(*plainScreen); ok {
		ps.echo = term.IsTerminal() || cfg.plainEcho
	}
	if stErr != nil {
		u.earlyNote("warn", stErr.Error())
	}
	if !plain {
		modes := tui.Modes{BracketedPaste: true, Focus: true}
		if caps.KittyKeyboard {
			modes.KittyFlags = 1
		} else {
			modes.ModifyOtherKeys = true
		}
		term.SetModes(modes)
	}
	u.term = term
	u.pending = append(u.pending, early...)

	// Extensions may take a few seconds to start: say so.
	u.chat.SetActivity(&tui.Activity{Label: "Starting", Since: u.now()})
	u.render(true)

	if app.ConsentNeeded(home, o) {
		// zut run's agent: nothing of it runs before the user agrees.
		ok, err := u.askConsent()
		if err != nil || !ok {
			u.screen.Clear()
			if err == nil {
				err = fmt.Errorf("run agent %s: not run: you did not consent to its permissions", o.Agent.Manifest.Name)
			}
			return err
		}
		o.AgentYes = true // consented just now (remembered unless that failed)
		u.opts = o
		u.chat.SetActivity(&tui.Activity{Label: "Starting", Since: u.now()})
		u.render(true)
	}

	// The app writes warnings to stderr, which is this terminal: route
	// them into the chat instead.
	ae := *e
	ae.Stderr = &noticeWriter{post: u.inbox.post}
	a, err := app.New(ctx, &ae, o, app.Frontend{UI: u.bridge(), Emit: u.emit, Interactive: true, StartWithoutModel: true})
	if err != nil {
		u.screen.Clear()
		if ctx.Err() != nil {
			return app.ErrAborted
		}
		return err
	}
	defer a.Close()
	u.app = a
	u.useInteractiveAgent()
	u.chat.SetActivity(nil)
	u.loadThemes(false)
	u.applyTheme()
	a.Start()
	// Apply what extensions sent while they started (notes, visibility).
	for _, fn := range u.inbox.take() {
		fn(u)
	}
	u.refreshKeys()
	u.showHeader()
	// zut -r without an id opens the picker before anything is shown: the
	// conversation chosen is the one printed (the latest was printed first).
	pick := o.ResumeSet && o.Resume == ""
	if !pick {
		u.replay()
		u.restoreUsage()
	}
	u.askTrust()
	if pick {
		u.openSessions(true)
	}
	if p := strings.TrimSpace(strings.Join(o.Prompt, " ")); p != "" {
		u.submit(p)
	}

	if cfg.started != nil {
		cfg.started(u)
	}
	err = u.loop()
	u.shutdown()
	term.Close()
	if msg := u.exitMessage(); msg != "" && u.exitErr != app.ErrAborted {
		io.WriteString(cfg.out, msg)
	}
	return err
}

// noticeWriter turns what the app writes to stderr into notices in the
// chat, one per line.
type noticeWriter struct {
	post func(func(*ui))
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	text := strings.TrimSpace(string(p))
	if text != "" {
		text = strings.TrimPrefix(text, "zut: ")
		level := "info"
		if strings.HasPrefix(text, "warning: ") {
			level, text = "warn", strings.TrimPrefix(text, "warning: ")
		}
		w.post(func(u *ui) { u.earlyNote(level, text); u.dirty = true })
	}
	return len(p), nil
}

// earlyNote adds a note of zut's, or keeps it for below the startup
// header while that is not shown yet.
func (u *ui) earlyNote(level, text string) {
	if u.headerShown {
		u.chat.AddNotice(level, "", text)
		return
	}
	u.early = append(u.early, tui.Note{Level: level, Text: text})
}

// historyPath is where submitted prompts are kept.
func historyPath(home string) string { return filepath.Join(home, "history.jsonl") }

// isExit reports whether err ends the UI without an error message.
func isExit(err error) bool { return err == nil || errors.Is(err, errQuit) }

// errQuit ends the UI loop normally.
var errQuit = errors.New("quit")

// exitMessage is printed after the UI is gone: how to come back to the
// session.
func (u *ui) exitMessage() string {
	if u.app == nil || u.app.Session() == nil || u.app.Session().Path() == "" || u.app.Session().Len() == 0 {
		return ""
	}
	return fmt.Sprintf("zut -r %s resumes this session\n", u.app.Session().ID())
}

// stdoutFile returns the process's terminal for programs run in the
// foreground (the external editor), when the UI runs on one.
func (u *ui) ttyFiles() (in, out *os.File, ok bool) {
	fi, ok1 := u.cfg.in.(*os.File)
	fo, ok2 := u.cfg.out.(*os.File)
	return fi, fo, ok1 && ok2
}
