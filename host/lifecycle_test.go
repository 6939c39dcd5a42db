package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// TestHugeLine: a 20 MiB line disconnects the extension with a diagnostic
// (C12); the other extension keeps working.
func TestHugeLine(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "huge", "-huge-line", "-tools", "x1")
	goExt(t, f.global(), "fine", "-tools", "echo")
	h := f.start(t, f.config())
	line := f.rec.wait(t, "exited huge")
	if !strings.Contains(line, "longer than the 16777216-byte limit") {
		t.Errorf("Exited = %q, want the line-limit diagnostic", line)
	}
	if _, err := h.CallTool(context.Background(), "echo", nil); err != nil {
		t.Errorf("fine stopped working: %v", err)
	}
	if hasTool(h, "x1") {
		t.Errorf("huge's tool is still offered")
	}
}

// TestInvalidJSONMidStream: the bad line is logged and skipped; the
// extension stays connected (C12).
func TestInvalidJSONMidStream(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "messy", "-invalid-mid", "-tools", "echo")
	h := f.start(t, f.config())
	f.rec.wait(t, "notify messy info after invalid")
	if _, err := h.CallTool(context.Background(), "echo", nil); err != nil {
		t.Errorf("messy disconnected after invalid JSON: %v", err)
	}
	r := report(t, h.Diagnostics(), "messy")
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "skipped an invalid frame") {
		t.Errorf("warnings = %q, want the skipped frame", r.Warnings)
	}
	if !strings.Contains(readLog(t, LogPath(f.home, "messy")), `line starts "{this is not json"`) {
		t.Errorf("log lacks the invalid line")
	}
}

// TestQueueOverflow: an extension that never reads its stdin is
// disconnected when its queue overflows (C11), with a diagnostic.
func TestQueueOverflow(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "deaf", "-no-read", "-events", "assistant_message")
	cfg := f.config()
	cfg.Limits.QueueFrames = 16
	h := f.start(t, cfg)
	big := strings.Repeat("z", 8<<10)
	for i := 0; i < 200 && h.ext("deaf").isDying() == false; i++ {
		h.Emit(proto.Event{Name: proto.EventAssistantMessage, Text: big})
	}
	line := f.rec.wait(t, "exited deaf")
	if !strings.Contains(line, "not reading its stdin") || !strings.Contains(line, "queue limit 16 frames") {
		t.Errorf("Exited = %q, want the overflow diagnostic", line)
	}
}

// TestWriteTimeout: a write blocked past the write timeout disconnects
// (C11), and the call waiting on it fails at once.
func TestWriteTimeout(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "deaf", "-no-read", "-tools", "t")
	cfg := f.config()
	cfg.Timeouts.Write = 200 * time.Millisecond
	h := f.start(t, cfg)
	args, _ := json.Marshal(map[string]string{"blob": strings.Repeat("q", 1<<20)}) // more than a pipe holds
	_, err := h.CallTool(context.Background(), "t", args)
	var se *StoppedError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "blocked for 200ms") {
		t.Errorf("CallTool = %v, want a *StoppedError about the blocked write", err)
	}
}

// TestCancelWhileQueued: a tool_call cancelled while still queued is
// withdrawn, never reaches the extension, gets no tool_cancel, and the
// connection stays healthy (C11). The extension reads nothing until the
// test opens its gate, and a large event ahead of the call keeps the
// writer blocked, so the call is certainly still queued when cancelled.
func TestCancelWhileQueued(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	gate := t.TempDir() + "/gate"
	goExt(t, f.global(), "gated", "-read-gate", gate, "-tools", "slow,echo", "-caps", "tool_cancel", "-events", "assistant_message")
	cfg := f.config()
	cfg.Timeouts.Write = waitLimit
	h := f.start(t, cfg)
	e := h.ext("gated")
	queued := func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.qlen
	}
	h.Emit(proto.Event{Name: proto.EventAssistantMessage, Text: strings.Repeat("m", 1<<20)})
	for queued() != 0 { // the writer took the event and is blocked on it
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(ctx, "slow", nil)
		done <- err
	}()
	for queued() != 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	if n := queued(); n != 0 {
		t.Errorf("%d frames queued after the withdrawal, want 0", n)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatalf("connection unhealthy after a withdrawn call: %v", err)
	}
	if n := f.rec.count("notify gated info started"); n != 0 {
		t.Errorf("the withdrawn tool_call reached the extension")
	}
	if n := f.rec.count("tool_cancel"); n != 0 {
		t.Errorf("tool_cancel sent for a call that was never delivered")
	}
}

// TestCancelWhileWriting: a cancelled tool_call whose frame is being
// written gets WriteCancel to finish, then the extension is disconnected
// (C11). The extension reads nothing, so the large frame cannot finish.
func TestCancelWhileWriting(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	gate := t.TempDir() + "/gate" // never opened
	goExt(t, f.global(), "stuck", "-read-gate", gate, "-tools", "slow", "-caps", "tool_cancel")
	cfg := f.config()
	cfg.Timeouts.Write = waitLimit
	h := f.start(t, cfg)
	e := h.ext("stuck")
	args, _ := json.Marshal(map[string]string{"blob": strings.Repeat("w", 1<<20)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(ctx, "slow", args)
		done <- err
	}()
	for { // wait until the writer has taken the frame
		e.mu.Lock()
		writing := false
		for _, c := range e.pending {
			writing = c.out != nil && c.out.state == frameWriting
		}
		e.mu.Unlock()
		if writing {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	line := f.rec.wait(t, "exited stuck")
	if !strings.Contains(line, "cancelled tool_call frame was still being written 250ms later") {
		t.Errorf("Exited = %q, want the cancelled-write diagnostic", line)
	}
}

// TestShutdownStubborn: an extension that ignores shutdown and SIGTERM is
// killed, and its child too (C21).
func TestShutdownStubborn(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "mule", "-ignore-term", "-child")
	cfg := f.config()
	cfg.Timeouts.Shutdown = 200 * time.Millisecond
	cfg.Timeouts.Kill = 200 * time.Millisecond
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	line := f.rec.wait(t, "notify mule info child ")
	child, _ := strconv.Atoi(strings.TrimPrefix(line, "notify mule info child "))
	pid := h.ext("mule").p.pid
	closeHost(t, h)
	if alive(pid) {
		t.Errorf("extension process %d survived Close", pid)
	}
	waitGone(t, child) // killed with its group; reaping it is init's job

	log := readLog(t, LogPath(f.home, "mule"))
	if !strings.Contains(log, "no exit within 200ms of shutdown") {
		t.Errorf("log lacks the shutdown timeout:\n%s", log)
	}
	if f.rec.count("exited") != 0 || f.rec.count("clear_chrome") != 0 {
		t.Errorf("Close called callbacks: %s", f.rec.dump())
	}
}

// TestCloseWithContext: an expired ctx skips the grace periods but Close
// still reaps every process.
func TestCloseWithContext(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "mule", "-ignore-term")
	cfg := f.config()
	cfg.Timeouts.Shutdown = time.Hour
	cfg.Timeouts.Kill = time.Hour
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	pid := h.ext("mule").p.pid
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("process %d survived Close", pid)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	if _, err := h.CallTool(context.Background(), "x", nil); err == nil {
		t.Errorf("CallTool after Close = nil error")
	}
	if _, err := h.Reload(context.Background()); err == nil {
		t.Errorf("Reload after Close = nil error")
	}
}

// TestReload: everything restarts, --ext directories included; old chrome
// is cleared and the registries are rebuilt.
func TestReload(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	dev := goExt(t, t.TempDir(), "dev", "-tools", "devtool")
	goExt(t, f.global(), "inst", "-tools", "insttool")
	h := f.start(t, f.config(dev))
	before := h.pids()
	goExt(t, f.project(), "newcomer", "-tools", "newtool")
	reports, err := h.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if r.Status != StatusOK {
			t.Errorf("after reload %s is %q: %s", r.Name, r.Status, r.Error)
		}
	}
	if len(reports) != 3 {
		t.Errorf("Reload returned %d reports, want 3", len(reports))
	}
	for _, p := range before {
		waitGone(t, p)
	}
	f.rec.wait(t, "clear_chrome dev")
	f.rec.wait(t, "clear_chrome inst")
	if f.rec.count("exited") != 0 {
		t.Errorf("Reload reported extensions as exited: %s", f.rec.dump())
	}
	for _, tool := range []string{"devtool", "insttool", "newtool"} {
		if _, err := h.CallTool(context.Background(), tool, nil); err != nil {
			t.Errorf("CallTool(%s) after reload: %v", tool, err)
		}
	}
}

// TestDoctor checks the doctor's JSON names and that a hanging extension
// ends as an error.
func TestDoctor(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "good", "-commands", "hi", "-tools", "t")
	goExt(t, f.global(), "hang", "-no-hello")
	os.MkdirAll(f.global()+"/broken", 0o755)
	os.WriteFile(f.global()+"/broken/extension.json", []byte("nope"), 0o644)
	cfg := f.config()
	cfg.Timeouts.Hello = 2 * time.Second
	reports, err := Doctor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(reports)
	var generic []map[string]any
	json.Unmarshal(b, &generic)
	for _, key := range []string{"name", "dir", "scope", "status", "commands", "tools", "warnings", "error", "log"} {
		for _, r := range generic {
			if _, ok := r[key]; !ok {
				t.Errorf("doctor JSON of %v lacks %q", r["name"], key)
			}
		}
	}
	want := map[string]string{"good": StatusOK, "hang": StatusError, "broken": StatusError}
	for name, st := range want {
		if r := report(t, reports, name); r.Status != st {
			t.Errorf("doctor status of %s = %q, want %q (%s)", name, r.Status, st, r.Error)
		}
	}
	g := report(t, reports, "good")
	if len(g.Commands) != 1 || g.Commands[0] != (Registration{"hi", StateActive}) || g.Version != "1.0.0" || g.Language != "go" {
		t.Errorf("doctor report of good = %+v", g)
	}
}

func TestStartNeedsHome(t *testing.T) {
	if _, err := Start(context.Background(), Config{}); err == nil {
		t.Errorf("Start(Config{}) = nil error, want one about Home")
	}
}
