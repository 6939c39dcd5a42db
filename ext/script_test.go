package ext

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/zut-go/zut/proto"
)

var update = flag.Bool("update", false, "rewrite golden files")

// waitLimit bounds every wait for something that must happen; it guards
// against hangs and is not a timing assertion.
const waitLimit = 30 * time.Second

// scriptHost is a fake host driving an Extension through pipes, one frame
// at a time, and recording the transcript of every line exchanged.
type scriptHost struct {
	t      *testing.T
	in     *io.PipeWriter // host -> extension
	lines  chan []byte    // extension -> host, closed when RunIO has returned
	done   chan error     // RunIO's result
	log    *syncBuffer    // the SDK's diagnostics
	mu     sync.Mutex
	script strings.Builder
	ended  bool
	err    error
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startScript runs e.RunIO against a new scripted host. With oneByte the
// extension reads its input one byte per Read, so every frame is split at
// every byte boundary.
func startScript(t *testing.T, e *Extension, oneByte bool) *scriptHost {
	t.Helper()
	hostR, hostW := io.Pipe()
	extR, extW := io.Pipe()
	h := &scriptHost{t: t, in: hostW, lines: make(chan []byte, 64), done: make(chan error, 1), log: &syncBuffer{}}
	e.SetLogOutput(h.log)
	var r io.Reader = hostR
	if oneByte {
		r = iotest.OneByteReader(hostR)
	}
	go func() {
		err := e.RunIO(context.Background(), r, extW)
		extW.Close()
		hostR.Close()
		h.done <- err
	}()
	go func() {
		defer close(h.lines)
		rd := proto.NewReader(extR, 0)
		for {
			line, err := rd.ReadLine()
			if err != nil {
				return
			}
			h.lines <- bytes.Clone(line)
		}
	}()
	return h
}

// note adds a comment line to the transcript.
func (h *scriptHost) note(text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.script.WriteString("# " + text + "\n")
}

// send writes f to the extension.
func (h *scriptHost) send(f proto.Frame) {
	h.t.Helper()
	line, err := proto.Marshal(f)
	if err != nil {
		h.t.Fatalf("Marshal(%#v): %v", f, err)
	}
	h.sendRaw(string(line))
}

// sendRaw writes one line, as given, to the extension.
func (h *scriptHost) sendRaw(line string) {
	h.t.Helper()
	h.mu.Lock()
	h.script.WriteString("host " + line + "\n")
	h.mu.Unlock()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("write to extension: %v", err)
	}
}

// recv returns the next frame the extension wrote.
func (h *scriptHost) recv() proto.Frame {
	h.t.Helper()
	t := time.NewTimer(waitLimit)
	defer t.Stop()
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.t.Fatalf("extension stopped writing; transcript so far:\n%s", h.transcript())
		}
		h.mu.Lock()
		h.script.WriteString("ext  " + string(line) + "\n")
		h.mu.Unlock()
		f, err := proto.Unmarshal(line)
		if err != nil {
			h.t.Fatalf("Unmarshal(%q): %v", line, err)
		}
		return f
	case <-t.C:
		h.t.Fatalf("no frame from the extension within %v; transcript so far:\n%s", waitLimit, h.transcript())
	}
	return nil
}

// recvN reads n frames.
func (h *scriptHost) recvN(n int) {
	h.t.Helper()
	for range n {
		h.recv()
	}
}

// call sends f and returns the next frame.
func (h *scriptHost) call(f proto.Frame) proto.Frame {
	h.t.Helper()
	h.send(f)
	return h.recv()
}

// handshake sends hello_ack after reading hello, and reads frames up to
// and including ready.
func (h *scriptHost) handshake() {
	h.t.Helper()
	if f := h.recv(); f.Type() != "hello" {
		h.t.Fatalf("first frame = %s, want hello", f.Type())
	}
	h.send(testAck)
	for h.recv().Type() != "ready" {
	}
}

// ready runs the handshake and reads the two frames the demo queues for
// after ready, leaving one note in the transcript instead of them.
func (h *scriptHost) ready() {
	h.t.Helper()
	h.mu.Lock()
	mark := h.script.Len()
	h.mu.Unlock()
	h.handshake()
	h.recvN(2)
	h.mu.Lock()
	s := h.script.String()[:mark]
	h.script.Reset()
	h.script.WriteString(s + "# handshake, registrations and queued frames as in handshake.golden\n")
	h.mu.Unlock()
}

var testAck = proto.HelloAck{
	ProtocolVersion: 2, ZutVersion: "0.1.0", Provider: "anthropic", Model: "claude-test",
	CWD: "/work/project", ExtensionDir: "/home/u/.zut/extensions/demo", DataDir: "/home/u/.zut/extensions/demo",
	Session: &proto.Session{ID: "branch-1", ParentID: "root-1", Path: "/s/session.jsonl", CWD: "/work/project", ForkPoint: 4},
}

// end closes the extension's input and waits for RunIO and the end of
// its output; any frame left is a test failure.
func (h *scriptHost) end() error {
	h.t.Helper()
	h.in.Close()
	return h.wait()
}

// wait waits for RunIO to return and checks that the extension wrote
// nothing more.
func (h *scriptHost) wait() error {
	h.t.Helper()
	if h.ended {
		return h.err
	}
	t := time.NewTimer(waitLimit)
	defer t.Stop()
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				select {
				case h.err = <-h.done:
				case <-t.C:
					h.t.Fatalf("RunIO did not return within %v", waitLimit)
				}
				h.ended = true
				h.in.Close()
				return h.err
			}
			h.t.Errorf("unexpected frame after the script: %s", line)
		case <-t.C:
			h.t.Fatalf("extension output did not end within %v; transcript:\n%s", waitLimit, h.transcript())
		}
	}
}

// shutdown sends shutdown, expects shutdown_ack, and waits for RunIO.
func (h *scriptHost) shutdown() {
	h.t.Helper()
	if f := h.call(proto.Shutdown{}); f.Type() != "shutdown_ack" {
		h.t.Fatalf("reply to shutdown = %s, want shutdown_ack", f.Type())
	}
	if err := h.wait(); err != nil {
		h.t.Errorf("RunIO after shutdown = %v, want nil", err)
	}
}

func (h *scriptHost) transcript() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.script.String()
}

// checkGolden compares got with testdata/name.golden, or rewrites it with
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test ./ext -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("transcript %s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// checkNoLeak waits until the goroutine count is back to before.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
