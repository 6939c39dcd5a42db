package interactive

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"

	"github.com/zut-go/zut/provider/providertest"
	"github.com/zut-go/zut/tui/vt"
)

// update rewrites the golden files under testdata.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// uiClock is the fixed time of UI tests: spinners stand still and
// elapsed times read 0s.
var uiClock = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// lockedVT is a virtual terminal shared by the UI goroutine (writing) and
// the test (reading).
type lockedVT struct {
	mu      sync.Mutex
	t       *vt.Terminal
	written int64
}

func (l *lockedVT) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written += int64(len(p))
	return l.t.Write(p)
}

// bytes returns how much zut wrote so far.
func (l *lockedVT) bytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

// uiHarness runs the real UI loop (runUI) on pipes and a virtual
// terminal, against a scripted model server.
type uiHarness struct {
	t      testing.TB
	term   *lockedVT
	in     *io.PipeWriter
	ui     *ui
	srv    *providertest.Server
	home   string // $HOME and the parent of the project directory
	zut    string // $ZUT_HOME
	done   chan error
	frames chan struct{}
	stderr strings.Builder
	exited bool
	err    error
}

// uiOptions configure a harness.
type uiOptions struct {
	width, height int
	replies       []providertest.Reply
	args          []string // extra flags
	profile       ansi.Profile
	setup         func(h *uiHarness) // before zut starts: files in home
	reflow        bool
	extensions    bool              // load extensions (default: --no-extensions)
	base          string            // the home directory of an earlier harness, to reuse
	background    string            // answer zut's terminal queries, with this background (OSC 11)
	vars          map[string]string // more environment variables
	// decide, when set, answers each request instead of replies.
	decide func(providertest.Recorded) providertest.Reply
}

// startUI starts zut's UI in a fresh home and project directory. The
// project is $HOME/proj, so that paths show as ~/proj.
func startUI(t testing.TB, o uiOptions) *uiHarness {
	t.Helper()
	if o.width == 0 {
		o.width, o.height = 80, 24
	}
	base := o.base
	if base == "" {
		base = t.TempDir()
	}
	proj := filepath.Join(base, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	h := &uiHarness{t: t, home: base, zut: filepath.Join(base, "zuthome"), done: make(chan error, 1), frames: make(chan struct{}, 1)}
	h.srv = providertest.NewServer(o.replies...)
	if o.decide != nil {
		h.srv = providertest.NewServerFunc(o.decide)
	}
	t.Cleanup(h.srv.Close)
	if o.setup != nil {
		o.setup(h)
	}
	vterm := vt.New(o.width, o.height)
	vterm.Reflow = o.reflow
	h.term = &lockedVT{t: vterm}
	inR, inW := io.Pipe()
	h.in = inW
	if o.background != "" {
		// Answer the capability queries as a terminal does, in order.
		vterm.Background = o.background
		replies := make(chan string, 16)
		vterm.Respond = func(r string) { replies <- r }
		go func() {
			for r := range replies {
				if _, err := io.WriteString(inW, r); err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() { close(replies) })
	}
	vars := map[string]string{
		"ZUT_HOME": h.zut, "HOME": base, "TERM": "xterm-256color",
		"ANTHROPIC_API_KEY": "test-key",
	}
	for k, v := range o.vars {
		vars[k] = v
	}
	e := &app.Env{Stdin: inR, Stdout: h.term, Stderr: &h.stderr, Getenv: func(k string) string { return vars[k] }}
	args := []string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", h.srv.URL}
	if !o.extensions {
		args = append(args, "--no-extensions")
	}
	args = append(args, o.args...)
	opts, err := app.ParseOptions(args, io.Discard, nil)
	if err != nil {
		t.Fatalf("app.ParseOptions(%q) = %v", args, err)
	}
	profile := o.profile
	started := make(chan *ui, 1)
	cfg := uiConfig{
		in: inR, out: h.term, width: o.width, height: o.height, now: func() time.Time { return uiClock },
		profile: &profile,
		probe:   probeFor(o.background),
		frameHook: func() {
			select {
			case h.frames <- struct{}{}:
			default:
			}
		},
		started: func(u *ui) { started <- u },
	}
	before := runtime.NumGoroutine()
	go func() { h.done <- runUI(context.Background(), e, opts, cfg) }()
	select {
	case h.ui = <-started:
	case err := <-h.done:
		t.Fatalf("runUI ended before its loop started: %v\nstderr: %s", err, h.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("runUI did not start within 60s")
	}
	t.Cleanup(func() {
		h.stop()
		h.srv.Close()
		h.checkGoroutines(before)
	})
	return h
}

// screen returns what the terminal shows as text: the last screenful of
// rows written, or all of them with the scrollback when all is set. It
// does not depend on how far the terminal scrolled (see vt.Content).
func (h *uiHarness) screen(all bool) string {
	h.term.mu.Lock()
	defer h.term.mu.Unlock()
	rows := 0
	if !all {
		_, rows = h.term.t.Size()
	}
	return h.term.t.Content(rows)
}

// styled returns the screen with style annotations.
func (h *uiHarness) styled() string {
	h.term.mu.Lock()
	defer h.term.mu.Unlock()
	return h.term.t.Dump(false, true)
}

// waitFor waits until cond holds for the screen, failing after 60s with
// the screen as it is.
func (h *uiHarness) waitFor(what string, cond func(screen string) bool) {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		s := h.screen(true)
		if cond(s) {
			return
		}
		select {
		case <-h.frames:
		case <-time.After(20 * time.Millisecond):
		case err := <-h.done:
			h.exited, h.err = true, err
			h.t.Fatalf("zut exited (%v) while waiting for %s; screen:\n%s\nstderr: %s", err, what, s, h.stderr.String())
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
	}
}

// waitText waits until the screen or scrollback shows text.
func (h *uiHarness) waitText(text string) {
	h.t.Helper()
	h.waitFor(strings.TrimSpace(text), func(s string) bool { return strings.Contains(s, text) })
}

// idle waits until zut has drawn everything it was given: no prompt,
// nothing posted, and a frame drawn after that.
func (h *uiHarness) idle() {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res := make(chan bool, 1)
		h.ui.inbox.post(func(u *ui) {
			u.dirty = true
			res <- !u.busy && u.job == nil && len(u.inbox.fns) == 0
		})
		select {
		case ok := <-res:
			if ok {
				// One more round trip so the frame after it is drawn.
				h.sync()
				return
			}
		case err := <-h.done:
			h.exited, h.err = true, err
			h.t.Fatalf("zut exited: %v", err)
		case <-time.After(60 * time.Second):
			h.t.Fatal("the UI loop did not answer within 60s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("zut stayed busy; screen:\n%s", h.screen(false))
}

// sync waits until the UI loop has run everything posted so far and drawn
// a frame.
func (h *uiHarness) sync() {
	h.t.Helper()
	done := make(chan struct{})
	h.ui.inbox.post(func(u *ui) { u.dirty = true; u.render(true); close(done) })
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		h.t.Fatal("the UI loop did not answer within 60s")
	}
}

// do runs fn on the UI goroutine and waits for it.
func (h *uiHarness) do(fn func(u *ui)) {
	h.t.Helper()
	done := make(chan struct{})
	h.ui.inbox.post(func(u *ui) { fn(u); u.dirty = true; close(done) })
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		h.t.Fatal("the UI loop did not answer within 60s")
	}
	h.sync()
}

// send writes raw terminal input.
func (h *uiHarness) send(s string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, s); err != nil {
		h.t.Fatalf("write keys: %v", err)
	}
}

// typeText sends text one rune at a time, as typing does.
func (h *uiHarness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(string(r))
	}
}

// enter types text and presses Enter.
func (h *uiHarness) enter(text string) {
	h.t.Helper()
	h.typeText(text)
	h.send("\r")
}

// submit enters text, waits until want shows, and waits for the UI to be
// idle: one exchange of a conversation or one command.
func (h *uiHarness) submit(text, want string) {
	h.t.Helper()
	h.enter(text)
	h.waitText(want)
	h.idle()
}

// needPython skips the test when python3 is not on PATH; why says what
// of the test is written in Python.
func needPython(t testing.TB, why string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; " + why)
	}
}

// rawPy is the source of a raw Python extension (no SDK) named name that
// declares caps: it sends hello, runs the lines of onHello when hello_ack
// comes and then sends ready, handles every other frame with the elif
// branches of handlers (each testing m["type"]), and acknowledges
// shutdown. onHello and handlers are written without the loop's
// indentation; json, os and sys are imported, emit sends a frame.
func rawPy(name string, caps []string, onHello, handlers string) string {
	indent := func(src, by string) string {
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
			if l != "" {
				b.WriteString(by + l)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if caps == nil {
		caps = []string{}
	}
	hello, _ := json.Marshal(map[string]any{"type": "hello", "protocol_version": 2, "name": name, "capabilities": caps})
	return "#!/usr/bin/env python3\n" +
		"import json, os, sys\n" +
		"def emit(o):\n" +
		"    sys.stdout.write(json.dumps(o) + \"\\n\"); sys.stdout.flush()\n" +
		"emit(" + string(hello) + ")\n" + // this JSON is Python too
		"for line in sys.stdin:\n" +
		"    m = json.loads(line)\n" +
		"    if m[\"type\"] == \"hello_ack\":\n" +
		indent(onHello, "        ") +
		"        emit({\"type\": \"ready\"})\n" +
		indent(handlers, "    ") +
		"    elif m[\"type\"] == \"shutdown\":\n" +
		"        emit({\"type\": \"shutdown_ack\"}); break\n"
}

// writeRawExt writes the extension name into dir: its program prog (src,
// executable) and an extension.json that runs it.
func writeRawExt(t testing.TB, dir, name, prog, src string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, prog), []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(map[string]string{"name": name, "exec": "./" + prog})
	if err := os.WriteFile(filepath.Join(dir, "extension.json"), m, 0o644); err != nil {
		t.Fatal(err)
	}
}

// resize changes the virtual terminal's size and tells zut, as SIGWINCH
// would.
func (h *uiHarness) resize(w, ht int) {
	h.t.Helper()
	h.term.mu.Lock()
	h.term.t.Resize(w, ht)
	h.term.mu.Unlock()
	h.do(func(u *ui) { u.resize(w, ht) })
}

// stop ends zut (closing its input) and waits for it.
func (h *uiHarness) stop() error {
	if h.exited {
		return h.err
	}
	h.in.Close()
	select {
	case h.err = <-h.done:
	case <-time.After(60 * time.Second):
		h.t.Fatal("zut did not exit within 60s of its input closing")
	}
	h.exited = true
	return h.err
}

// wait waits for zut to exit by itself.
func (h *uiHarness) wait() error {
	h.t.Helper()
	if h.exited {
		return h.err
	}
	select {
	case h.err = <-h.done:
	case <-time.After(60 * time.Second):
		h.t.Fatalf("zut did not exit; screen:\n%s", h.screen(false))
	}
	h.exited = true
	return h.err
}

// checkGoroutines fails when goroutines started during the test are still
// running a while after zut returned.
func (h *uiHarness) checkGoroutines(before int) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			h.t.Errorf("%d goroutines left after zut exited (%d before):\n%s", n-before, before, buf)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// golden compares got with testdata/name.golden, or rewrites it with
// -update.
func uiGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(uiGoldenDir, name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test -run %s -update-tui to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("screen %s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// uiGoldenDir is where the screen goldens live; an absolute path, since
// the tests change directory.
var uiGoldenDir = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "testdata")
}()

// probeFor is how long zut waits for its terminal queries in a harness:
// only when the virtual terminal answers them.
func probeFor(background string) time.Duration {
	if background == "" {
		return 0
	}
	return 5 * time.Second
}
