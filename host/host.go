package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/proto"
)

// Host runs a set of extensions. Its methods are safe for concurrent use.
// Start creates it; Close stops every extension process and must be
// called once the host is no longer needed, even after errors.
type Host struct {
	cfg Config
	t   Timeouts
	lim Limits
	cb  Callbacks

	life   sync.Mutex     // serialises loading, Reload and Close
	wg     sync.WaitGroup // one count per started extension, until its teardown ends
	closed bool           // guarded by life

	mu      sync.Mutex
	records []*record    // the last load, in discovery order
	exts    []*extension // the last load's extensions, in load order
	ix      index
	toolSig string
	cmdSig  string
	panel   panelSlot
	session *proto.Session
	states  map[string]json.RawMessage // replaced, never mutated (copy-on-write)
	hurry   chan struct{}              // closed to cut teardown grace periods short

	reqWG  sync.WaitGroup // goroutines serving host requests (add_request.go)
	render renderCache

	// subscribed is set once any extension has subscribed to an event
	// (and never cleared): until then Emit has no one to send to and
	// returns at once, without a lock (a streamed answer emits an event
	// for each delta).
	subscribed atomic.Bool
}

// record is what one load made of one discovered entry.
type record struct {
	entry Entry
	e     *extension // started and loaded
	err   error      // load error
}

// Start discovers the extensions of cfg and loads every enabled one
// concurrently, so that the slowest bounds startup (C1). One bad
// extension never fails Start: its problem is in Diagnostics. Start
// fails only when cfg is unusable. ctx bounds the loading only.
func Start(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.Home == "" {
		return nil, errors.New("start extension host: Config.Home is empty; pass the resolved $ZUT_HOME")
	}
	cfg.ExtDirs = append([]string(nil), cfg.ExtDirs...)
	h := &Host{
		cfg: cfg, t: cfg.Timeouts.withDefaults(), lim: cfg.Limits.withDefaults(), cb: cfg.Callbacks,
		hurry: make(chan struct{}), states: map[string]json.RawMessage{},
	}
	if cfg.Session != nil {
		s := *cfg.Session
		h.session = &s
	}
	h.life.Lock()
	defer h.life.Unlock()
	h.loadAll(ctx)
	return h, nil
}

// loadAll discovers and loads one generation of extensions. h.life held.
func (h *Host) loadAll(ctx context.Context) {
	entries := Discover(h.cfg.Home, h.cfg.CWD, h.cfg.ExtDirs)
	if h.cfg.OnlyExtDirs {
		entries = Discover("", "", h.cfg.ExtDirs)
	}
	ApplyTrust(entries, h.cfg.TrustProject)
	records := make([]*record, len(entries))
	var wg sync.WaitGroup
	for i, en := range entries {
		rec := &record{entry: en}
		records[i] = rec
		if en.Status() != StatusEnabled {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec.e, rec.err = h.load(ctx, en)
		}()
	}
	wg.Wait()
	var exts []*extension
	for _, rec := range records {
		if rec.e != nil {
			exts = append(exts, rec.e)
		}
	}
	h.mu.Lock()
	h.records, h.exts = records, exts
	h.mu.Unlock()
	h.rebuild()
}

// load starts one extension and runs its handshake (C1..C5).
func (h *Host) load(ctx context.Context, en Entry) (*extension, error) {
	e := newExtension(h, en)
	lerr := func(err error) *LoadError {
		return &LoadError{Name: e.name, Dir: e.m.Dir, Exec: e.m.Exec, Language: e.m.Language, Log: e.log, Err: err}
	}
	p, err := spawn(e.m, e.log, h.cfg.Env, h.cfg.WrapCommand, e.exited)
	if err != nil {
		le := lerr(err)
		if p == nil && errors.Is(err, errNoLog) {
			le.Log = ""
		}
		return nil, le
	}
	e.p = p
	h.wg.Add(1) // released by teardown
	go e.readLoop()
	go e.writeLoop()

	fail := func(err error) (*extension, error) {
		e.die(err)
		return nil, lerr(err)
	}
	helloT := time.NewTimer(h.t.Hello)
	defer helloT.Stop()
	extended := 0
	probe := newBusyProbe(e.p.pid)
hello:
	for {
		select {
		case <-e.helloDone:
			if e.helloErr != nil {
				return fail(e.helloErr)
			}
			break hello
		case <-helloT.C:
			// A process kept waiting for a CPU or the disk has not had
			// its 5 s (C1): wait once more, a few times at most.
			if extended < maxExtensions && probe.busy() {
				extended++
				helloT.Reset(h.t.Hello)
				continue
			}
			return fail(fmt.Errorf("sent no hello within %v (C1); the first line on stdout must be a hello frame", h.t.Hello))
		case <-ctx.Done():
			return fail(fmt.Errorf("stopped before hello: %w", ctx.Err()))
		}
	}

	h.mu.Lock()
	session := h.session
	h.mu.Unlock()
	e.send(proto.HelloAck{
		ProtocolVersion: proto.ProtocolVersion, ZutVersion: h.cfg.ZutVersion,
		Provider: h.cfg.Provider, Model: h.cfg.Model, CWD: h.cfg.CWD,
		ExtensionDir: e.m.Dir, DataDir: e.m.Dir, Session: session,
		Capabilities: e.ackCapabilities(),
	})

	// The registration window (C4, C5): registrations are read as they
	// come, before or after hello_ack; ready closes the window, 250 ms of
	// quiet counts as ready, and 3 s of registering gives up waiting.
	quiet := time.NewTimer(h.t.Quiet)
	defer quiet.Stop()
	deadline := time.NewTimer(h.t.Ready)
	defer deadline.Stop()
	status := ""
	for status == "" {
		select {
		case <-e.readyCh:
			status = StatusOK
		case <-e.activity:
			quiet.Reset(h.t.Quiet)
		case <-quiet.C:
			// Quiet means waiting for input: an extension that is only
			// waiting for a CPU is not done registering.
			if probe.busy() {
				quiet.Reset(h.t.Quiet)
				continue
			}
			status = StatusAutoReady
		case <-deadline.C:
			status = StatusReadyTimeout
		case <-e.dead:
			return nil, lerr(fmt.Errorf("stopped during registration: %v", e.stoppedErr().(*StoppedError).Err))
		case <-ctx.Done():
			return fail(fmt.Errorf("stopped during registration: %w", ctx.Err()))
		}
	}
	e.mu.Lock()
	e.loaded, e.status = true, status
	e.mu.Unlock()
	switch status {
	case StatusAutoReady:
		e.p.logf("no ready frame; treated as ready after %v of quiet (C5)", h.t.Quiet)
	case StatusReadyTimeout:
		e.warn("still registering %v after hello_ack without ready; startup went on (C5)", h.t.Ready)
	}
	return e, nil
}

// maxExtensions bounds how many times the hello deadline is extended for
// an extension that waits for a CPU.
const maxExtensions = 3

// liveLocked returns the extensions of the current load that are still
// connected, in load order. h.mu held.
func (h *Host) liveLocked() []*extension {
	out := make([]*extension, 0, len(h.exts))
	for _, e := range h.exts {
		if !e.isDying() {
			out = append(out, e)
		}
	}
	return out
}

// teardown runs once per extension, started by die: it ends the process
// group (C21), joins the loops, removes the extension from the index and
// the panel slot, and tells the callbacks (C20).
func (h *Host) teardown(e *extension) {
	defer h.wg.Done()
	h.mu.Lock()
	hurry := h.hurry
	h.mu.Unlock()
	e.p.terminate(h.t.Kill, hurry)
	<-e.readerDone
	<-e.writerDone
	e.p.closeLog()

	e.mu.Lock()
	mode, loaded, reason := e.stopMode, e.loaded, e.deathErr
	e.mu.Unlock()
	h.mu.Lock()
	if h.panel.e == e {
		h.panel = panelSlot{}
	}
	h.mu.Unlock()
	h.forgetUI(e)
	if !loaded || mode == stopClose {
		h.rebuild()
		return
	}
	if h.cb.ClearChrome != nil {
		h.cb.ClearChrome(e.name)
	}
	if mode == stopCrash && h.cb.Exited != nil {
		h.cb.Exited(e.name, &StoppedError{Extension: e.name, Log: e.log, Err: reason}, e.log)
	}
	if mode == stopCrash {
		h.reindex()
	} else {
		h.rebuild()
	}
}

// stop shuts e down gracefully (C21): shutdown, then up to the shutdown
// timeout for it to exit, then die, whose teardown sends SIGTERM and
// SIGKILL. ctx's end skips the wait. Once the process has exited, the
// reader gets a moment to take what it wrote last (its shutdown_ack).
func (e *extension) stop(ctx context.Context, mode int) {
	e.mu.Lock()
	e.stopMode = mode
	dying := e.dying
	e.mu.Unlock()
	if !dying {
		e.awaitAnswers(ctx)
		e.send(proto.Shutdown{})
		t := time.NewTimer(e.h.t.Shutdown)
		select {
		case <-e.p.done:
			t.Reset(drainGrace)
			select {
			case <-e.readerDone:
			case <-t.C:
			case <-ctx.Done():
			}
		case <-t.C:
			e.p.logf("no exit within %v of shutdown; terminating (C21)", e.h.t.Shutdown)
		case <-ctx.Done():
		}
		t.Stop()
	}
	e.die(errors.New("shut down by zut"))
}

// answerGrace bounds how long a stop waits for the extension's host
// requests in flight to be answered before it sends shutdown.
const answerGrace = time.Second

// awaitAnswers waits, up to answerGrace or ctx's end, until the host
// requests e has in flight are answered, so that an answer goes out
// before the shutdown: a request whose work is done (app.send has queued
// its prompt, and that prompt has run) may not have been answered yet.
// Dialogs are not waited for: no one is left to answer them.
func (e *extension) awaitAnswers(ctx context.Context) {
	e.mu.Lock()
	var pending []chan struct{}
	for _, r := range e.add.requests {
		if proto.UIKind(r.Method) == "" {
			pending = append(pending, r.done)
		}
	}
	e.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	t := time.NewTimer(answerGrace)
	defer t.Stop()
	for _, done := range pending {
		select {
		case <-done:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// stopAll stops the current generation concurrently and waits until every
// process ever started by h is reaped. When ctx ends first, grace periods
// are cut short and the processes are killed; stopAll still waits for
// them to be reaped.
func (h *Host) stopAll(ctx context.Context, mode int) {
	h.mu.Lock()
	exts := h.exts
	h.exts = nil
	h.panel = panelSlot{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range exts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.stop(ctx, mode)
		}()
	}
	// Extensions that failed to load or already died are torn down too.
	done := make(chan struct{})
	go func() {
		wg.Wait()
		h.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		h.mu.Lock()
		close(h.hurry)
		h.mu.Unlock()
		<-done
		h.mu.Lock()
		h.hurry = make(chan struct{})
		h.mu.Unlock()
	}
	h.rebuild()
}

// Close stops every extension (C21) and returns once all their processes
// are reaped. While a session is active, extensions subscribed to
// session_shutdown (events2) get it first. When ctx ends before they exit they are killed. Calls in
// flight fail with a *StoppedError. Callbacks are not called. Close is
// idempotent.
func (h *Host) Close(ctx context.Context) error {
	h.life.Lock()
	defer h.life.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.emitShutdown()
	h.stopAll(ctx, stopClose)
	h.waitRequests(ctx)
	return nil
}

// Reload stops every extension, discovers and loads again with the same
// configuration, --ext directories included, and returns the new
// diagnostics. The stopped extensions' chrome is cleared through
// Callbacks.ClearChrome, then ToolsChanged and CommandsChanged are called.
func (h *Host) Reload(ctx context.Context) ([]Report, error) {
	h.life.Lock()
	defer h.life.Unlock()
	if h.closed {
		return nil, errors.New("reload extensions: the extension host is closed")
	}
	h.stopAll(ctx, stopReload)
	h.loadAll(ctx)
	if h.cb.ToolsChanged != nil {
		h.cb.ToolsChanged()
	}
	if h.cb.CommandsChanged != nil {
		h.cb.CommandsChanged()
	}
	return h.Diagnostics(), nil
}
