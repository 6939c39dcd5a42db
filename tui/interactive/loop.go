package interactive

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/botmode"
	"github.com/zut-go/zut/tui/ansi"

	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/tui"
)

// frameInterval is the shortest time between two frames while text
// streams (about 60 frames a second); keys are drawn at once.
const frameInterval = 16 * time.Millisecond

// screenWriter is what the UI draws through: a tui.Screen on a terminal,
// or a plainScreen for dumb terminals and pipes.
type screenWriter interface {
	Commit(lines ...string)
	Render(live []string, cursorRow, cursorCol int) error
	Clear() error
	Resize(width, height int)
	Invalidate()
}

// inbox carries work for the UI goroutine from every other goroutine:
// agent events, extension callbacks, finished background jobs. Posting
// never blocks, so no goroutine can deadlock with the UI loop.
type inbox struct {
	mu   sync.Mutex
	fns  []func(*ui)
	wake chan struct{}
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// post queues fn to run on the UI goroutine.
func (b *inbox) post(fn func(*ui)) {
	b.mu.Lock()
	b.fns = append(b.fns, fn)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take returns the queued work.
func (b *inbox) take() []func(*ui) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fns := b.fns
	b.fns = nil
	return fns
}

// ui is the interactive session: the one goroutine that owns the screen,
// the chat view, the editor and the state of the conversation as the user
// sees it. Everything else reaches it through its inbox.
type ui struct {
	ctx    context.Context
	cancel context.CancelFunc
	env    *app.Env
	opts   app.Options
	cfg    uiConfig
	home   string
	st     app.Settings
	app    *app.App
	term   *tui.Terminal
	screen screenWriter
	chat   *tui.Chat
	ed     *tui.Editor
	hist   *tui.History
	themes *ansi.ThemeSet
	theme  *ansi.Theme
	caps   tui.Caps
	plain  bool
	inbox  *inbox
	now    func() time.Time

	width, height int
	pending       []tui.Event // input read before the loop started

	// loop state
	quit       bool
	exitErr    error
	dirty      bool
	lastFrame  time.Time
	frameTimer *time.Timer
	frameArmed bool
	ticker     *time.Ticker
	flashTimer *time.Timer
	flashUntil time.Time
	suspended  bool
	focused    bool

	// conversation state
	busy      bool // a prompt runs
	turn      turnStats
	queue     []queued
	steers    []string // steering sent, not yet seen as a user message
	job       *job     // compaction, reload, a shell command: one at a time
	reloading bool     // the extensions reload: the app\'s skills and tools change
	// extCommands counts the extension commands waiting for their answer;
	// a reload an extension asks for (app.reload_extensions) waits for
	// them (reloadAfter), so that no command loses its answer.
	extCommands int
	reloadAfter bool
	// headers are the headers of calls, from their arguments (toolHeader).
	headers   map[string]string
	ov        overlay   // the top of ovs
	ovs       []overlay // open dialogs, newest last
	btw       *btwState
	shellCtx  []string       // !cmd outputs to send with the next prompt
	withShell map[string]int // prompts sent with shell output: how many commands
	lastCtrlC time.Time
	answer    string // the last answer, for /copy
	files     *tui.FileIndex

	// extension additions (interactive_additions.go)
	visibility  map[string]proto.UIVisibility
	hideHint    bool
	hideStartup bool
	statusPrio  map[string]int
	shortcuts   map[string]bool
	editorKeys  map[string]bool
	released    string // the extension the terminal is handed to
	toolArgs    map[string]json.RawMessage

	// costBase is the cost saved in the session before this run.
	costBase float64
	// early are notes from before the startup header was shown (settings
	// and theme problems, the app's warnings): they go below it.
	early       []tui.Note
	headerShown bool

	work *workView // the plan, the goal, subagents (work.go)

	jobs sync.WaitGroup // every goroutine the UI starts

	// mirror shows the conversation in a Telegram chat (/telegram); the
	// agent's goroutine reads it for every event.
	mirror     atomic.Pointer[botmode.Mirror]
	mirrorBusy bool // a /telegram connect is under way
}

// turnStats is what the activity line shows of the running prompt.
type turnStats struct {
	start     time.Time
	streamed  int // bytes of text and arguments streamed
	input     int
	output    int
	haveUsage bool
	retryAt   time.Time
	retry     string
	cost      float64
	ctxTokens int // input tokens of the latest request: the context in use
}

// job is a background operation the activity line shows.
type job struct {
	label  string
	start  time.Time
	cancel context.CancelFunc
}

func newUI(ctx context.Context, e *app.Env, o app.Options, cfg uiConfig, home string, st app.Settings, profile ansi.Profile, caps tui.Caps, plain bool, width, height int) *ui {
	ctx, cancel := context.WithCancel(ctx)
	u := &ui{ctx: ctx, cancel: cancel, env: e, opts: o, cfg: cfg, home: home, st: st, caps: caps, plain: plain,
		inbox: newInbox(), now: cfg.now, width: width, height: height, focused: true}
	u.themes = ansi.NewThemeSet()
	thinking, _ := tui.ParseThinkingMode(st.Thinking)
	u.theme = u.pickTheme()
	u.chat = tui.NewChat(width, height, tui.ChatOptions{Theme: u.theme, Profile: profile, Hyperlinks: hyperlinks(e.Getenv, profile), Thinking: thinking})
	hist, err := tui.OpenHistory(historyPath(home), st.HistorySize)
	if err != nil {
		u.chat.AddNotice("warn", "", fmt.Sprintf("%v; prompts of this session are not saved", err))
		hist, _ = tui.OpenHistory("", st.HistorySize)
	}
	u.hist = hist
	u.ed = &tui.Editor{History: hist, PasteLines: st.PasteLines, PasteChars: st.PasteChars}
	u.chat.Editor = u.ed
	if plain {
		u.screen = newPlainScreen(cfg.out)
	} else {
		sc := tui.NewScreen(cfg.out, width, height)
		sc.SetSyncOutput(caps.SyncOutput)
		sc.SetReflow(tui.DetectReflow(e.Getenv))
		u.screen = sc
	}
	u.setPlaceholder()
	return u
}

// hyperlinks reports whether links can be OSC 8 hyperlinks, which show
// only their text: only where the terminal is known to support them.
// Elsewhere (tmux 3.3 and screen drop them, the Linux console shows them
// as garbage) the markdown renderer prints the URL after the text.
func hyperlinks(getenv func(string) string, p ansi.Profile) bool {
	term := getenv("TERM")
	switch {
	case p == ansi.ProfileNone, term == "linux", getenv("TMUX") != "", strings.HasPrefix(term, "screen"), strings.HasPrefix(term, "tmux"):
		return false
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "vscode", "ghostty", "Tabby", "rio":
		return true
	}
	if v, err := strconv.Atoi(getenv("VTE_VERSION")); err == nil && v >= 5000 {
		return true // GNOME Terminal, Tilix, Terminator ...
	}
	return strings.Contains(term, "kitty") || getenv("KITTY_WINDOW_ID") != "" ||
		strings.HasPrefix(term, "foot") || term == "alacritty" || term == "xterm-ghostty" ||
		getenv("WT_SESSION") != "" || getenv("KONSOLE_VERSION") != ""
}

// setPlaceholder sets the editor's hint for the current state.
func (u *ui) setPlaceholder() {
	muted := u.theme.Style(ansi.RoleDim)
	p := u.chat.Options().Profile
	u.ed.PlaceholderStyle = func(s string) string { return muted.Render(p, s) }
	switch {
	case u.hideHint:
		u.ed.Placeholder = ""
	case u.busy:
		u.ed.Placeholder = "enter queues a follow-up · alt+enter steers · esc interrupts"
	default:
		u.ed.Placeholder = "ask anything · / commands · @ files · ! shell"
	}
}

// loop runs until the user exits, the input ends or ctx is cancelled.
func (u *ui) loop() error {
	for _, ev := range u.pending {
		u.input(ev)
	}
	u.pending = nil
	u.render(true)
	events := u.term.Events()
	for !u.quit {
		var frameC, tickC, flashC <-chan time.Time
		if u.frameArmed {
			frameC = u.frameTimer.C
		}
		if u.ticker != nil {
			tickC = u.ticker.C
		}
		if u.flashTimer != nil {
			flashC = u.flashTimer.C
		}
		urgent := false
		select {
		case <-u.ctx.Done():
			u.quit = true
			if u.exitErr == nil {
				u.exitErr = app.ErrAborted
			}
		case ev, ok := <-events:
			if !ok {
				u.quit = true
				break
			}
			u.input(ev)
			// Take what else arrived before drawing: a paste split in
			// reads, keys typed fast.
			for more := true; more && !u.quit; {
				select {
				case ev, ok := <-events:
					if !ok {
						u.quit = true
						break
					}
					u.input(ev)
				default:
					more = false
				}
			}
			urgent = true
		case <-u.inbox.wake:
			for _, fn := range u.inbox.take() {
				fn(u)
			}
		case <-frameC:
			u.frameArmed = false
		case <-tickC:
			u.dirty = true
		case <-flashC:
			u.flashTimer = nil
			u.chat.SetFlash(nil)
			u.dirty = true
		}
		u.updateTicker()
		u.schedule(urgent)
	}
	if u.exitErr == errQuit || u.exitErr == app.ErrAborted && u.ctx.Err() == nil {
		return nil
	}
	return u.exitErr
}

// schedule draws now when the change is urgent (a key) or a frame
// interval has passed since the last frame; otherwise it arms the frame
// timer. With nothing to draw it arms nothing, so an idle UI never wakes.
func (u *ui) schedule(urgent bool) {
	if !u.dirty || u.suspended || u.released != "" {
		return
	}
	since := u.realNow().Sub(u.lastFrame)
	if urgent || since >= frameInterval {
		u.render(false)
		return
	}
	if !u.frameArmed {
		if u.frameTimer == nil {
			u.frameTimer = time.NewTimer(frameInterval - since)
		} else {
			u.frameTimer.Reset(frameInterval - since)
		}
		u.frameArmed = true
	}
}

// realNow is the wall clock of the frame pacing (never the test clock).
func (u *ui) realNow() time.Time { return time.Now() }

// render draws a frame; force draws even when nothing changed.
func (u *ui) render(force bool) {
	if u.suspended || u.released != "" || (!u.dirty && !force) {
		return
	}
	u.dirty = false
	u.lastFrame = u.realNow()
	if u.frameArmed {
		// This frame is the one the timer waited for.
		u.frameTimer.Stop()
		u.frameArmed = false
	}
	u.updateActivity()
	u.updateFooter()
	if ps, ok := u.screen.(*plainScreen); ok {
		ps.wait = u.app != nil && !u.busy && u.job == nil && u.ov == nil && !u.quit
	}
	f := u.chat.Frame(u.now())
	if len(f.Commit) > 0 {
		u.screen.Commit(f.Commit...)
	}
	if err := u.screen.Render(f.Live, f.CursorRow, f.CursorCol); err != nil {
		// The terminal is gone: nothing more can be shown.
		u.quit = true
		if u.exitErr == nil {
			u.exitErr = fmt.Errorf("write to the terminal: %w", err)
		}
	}
	if u.cfg.frameHook != nil {
		u.cfg.frameHook()
	}
}

// animating reports whether something on screen moves by itself: the
// spinner of a running prompt, job, tool or side question.
func (u *ui) animating() bool {
	if act := u.chat.Activity(); act != nil && act.Waiting {
		return u.btw != nil && !u.btw.done
	}
	return u.chat.Activity() != nil || (u.btw != nil && !u.btw.done)
}

// updateTicker runs the spinner's ticker only while something animates.
func (u *ui) updateTicker() {
	want := u.animating() && !u.suspended
	switch {
	case want && u.ticker == nil:
		iv := u.theme.Spinner.Interval
		if iv <= 0 {
			iv = 80 * time.Millisecond
		}
		u.ticker = time.NewTicker(iv)
	case !want && u.ticker != nil:
		u.ticker.Stop()
		u.ticker = nil
	}
}

// flash shows temporary status lines for d.
func (u *ui) flash(d time.Duration, lines ...tui.Note) {
	if u.plain {
		for _, n := range lines {
			u.chat.AddNotice(n.Level, n.Source, n.Text)
		}
		u.dirty = true
		return
	}
	u.chat.SetFlash(lines)
	if u.flashTimer != nil {
		u.flashTimer.Stop()
	}
	u.flashTimer = time.NewTimer(d)
	u.dirty = true
}

// shutdown ends everything the UI started, then clears the live region,
// leaving the transcript in the scrollback.
func (u *ui) shutdown() {
	// A draft left in the editor is kept in the history for next time.
	if draft := u.ed.Value(); strings.TrimSpace(draft) != "" {
		u.hist.Add(draft)
	}
	if u.app != nil {
		u.app.Agent().Abort()
	}
	if u.job != nil && u.job.cancel != nil {
		u.job.cancel()
	}
	if u.btw != nil && u.btw.cancel != nil {
		u.btw.cancel()
	}
	u.cancelOverlays()
	u.cancel()
	if m := u.mirror.Swap(nil); m != nil {
		u.goJob(func() { m.Close() })
	}
	done := make(chan struct{})
	go func() { u.jobs.Wait(); close(done) }()
	// Keep running posted work (it never blocks) until every goroutine
	// the UI started has returned.
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-u.inbox.wake:
			for _, fn := range u.inbox.take() {
				fn(u)
			}
		}
	}
	for _, fn := range u.inbox.take() {
		fn(u)
	}
	if u.ticker != nil {
		u.ticker.Stop()
	}
	u.chat.SetActivity(nil)
	u.chat.SetOverlay(nil)
	f := u.chat.Frame(u.now())
	if len(f.Commit) > 0 {
		u.screen.Commit(f.Commit...)
	}
	u.screen.Clear()
}

// goJob runs fn on a goroutine the UI waits for at exit.
func (u *ui) goJob(fn func()) {
	u.jobs.Add(1)
	go func() {
		defer u.jobs.Done()
		fn()
	}()
}
