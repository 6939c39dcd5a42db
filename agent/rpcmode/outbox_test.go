package rpcmode

import (
	"context"
	"errors"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

func TestRPCOutboxWritesInOrder(t *testing.T) {
	var buf syncBuffer
	o := newRPCOutbox(&buf, rpcLimits{QueueFrames: 1000, QueueBytes: 1 << 20})
	go o.run()
	var want strings.Builder
	for i := range 500 {
		line := fmt.Sprintf("{\"n\":%d}\n", i)
		o.send([]byte(line))
		want.WriteString(line)
	}
	o.close()
	<-o.done
	if o.failure() != nil {
		t.Fatalf("failure() = %v, want nil", o.failure())
	}
	select {
	case <-o.drained:
	default:
		t.Fatalf("drained not closed after run returned cleanly")
	}
	if got := buf.String(); got != want.String() {
		t.Errorf("output = %.80q..., want the 500 lines in order", got)
	}
	o.send([]byte("late\n"))
	if strings.Contains(buf.String(), "late") {
		t.Errorf("a line sent after close was written")
	}
}

// blockedWriter blocks every Write until release is closed.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return 0, errors.New("released")
}

func TestRPCOutboxOverflow(t *testing.T) {
	tests := []struct {
		name   string
		lim    rpcLimits
		sends  int
		length int
	}{
		{"frames", rpcLimits{QueueFrames: 10, QueueBytes: 1 << 20}, 50, 10},
		{"bytes", rpcLimits{QueueFrames: 1000, QueueBytes: 100}, 50, 10},
		{"a big line is accepted below the limit, the next is not", rpcLimits{QueueFrames: 1000, QueueBytes: 100}, 3, 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := blockedWriter{release: make(chan struct{})}
			o := newRPCOutbox(w, tc.lim)
			go o.run()
			line := []byte(strings.Repeat("x", tc.length-1) + "\n")
			for range tc.sends {
				o.send(line)
			}
			select {
			case <-o.dead:
			default:
				t.Fatalf("dead not closed after %d sends over the limits %+v", tc.sends, tc.lim)
			}
			var ov *overflowError
			if err := o.failure(); !errors.As(err, &ov) {
				t.Fatalf("failure() = %v, want *overflowError", err)
			}
			o.mu.Lock()
			frames, bytes := o.frames, o.bytes
			o.mu.Unlock()
			if frames > tc.lim.QueueFrames || (frames > 1 && bytes-tc.length >= tc.lim.QueueBytes) {
				t.Errorf("queue holds %d lines, %d bytes; limits %+v", frames, bytes, tc.lim)
			}
			if msg := o.failure().Error(); !strings.Contains(msg, "stopped reading stdout") {
				t.Errorf("error %q does not say the client stopped reading", msg)
			}
			close(w.release)
			<-o.done
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, io.ErrClosedPipe }

func TestRPCOutboxWriteError(t *testing.T) {
	o := newRPCOutbox(failingWriter{}, defaultRPCLimits)
	go o.run()
	o.send([]byte("{}\n"))
	<-o.done
	if err := o.failure(); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("failure() = %v, want one wrapping %v", err, io.ErrClosedPipe)
	}
}

// TestRPCBackpressure runs RPC mode with a client that never reads
// stdout: the events of a long answer overflow the bounded queue, and zut
// says so on stderr and returns an error (exit status 1) instead of
// growing without bound. Everything it started ends.
func TestRPCBackpressure(t *testing.T) {
	before := runtime.NumGoroutine()
	model := providertest.NewServer(providertest.Reply{Text: strings.Repeat("word ", 2000), Chunks: 2000})
	defer model.Close()
	home := t.TempDir()
	lim := defaultRPCLimits
	lim.QueueFrames = 64
	lim.Drain = time.Second
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	e := &app.Env{Stdin: inR, Stdout: outW, Stderr: &stderr, Getenv: func(k string) string {
		return map[string]string{"ZUT_HOME": home, "ANTHROPIC_API_KEY": "k"}[k]
	}}
	o, err := app.ParseOptions([]string{"--mode", "rpc", "--provider", "anthropic", "--model", "claude-sonnet-4-6",
		"--base-url", model.URL, "--no-extensions", "--no-context-files", "--no-skills"}, &stderr, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serveRPC(context.Background(), e, o, lim) }()
	// The pipe holds nothing: the first write blocks until the queue
	// overflows.
	if _, err := io.WriteString(inW, `{"type":"prompt","id":1,"message":"talk"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(rpcWait):
		t.Fatalf("serveRPC did not return within %v with a client that does not read", rpcWait)
	}
	var ov *overflowError
	if !errors.As(runErr, &ov) {
		t.Fatalf("serveRPC = %v, want *overflowError", runErr)
	}
	if code := app.ExitCode(runErr, &stderr); code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "stopped reading stdout") {
		t.Errorf("stderr = %q, want the reason", stderr.String())
	}
	// The client goes away: the blocked writer and reader return, and so
	// do the HTTP client's connections once the model server closes.
	outR.Close()
	inW.Close()
	model.Close()
	waitGoroutines(t, before)
}

// waitGoroutines waits until no more goroutines run than before (with a
// bound, for goroutines that are still returning).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines run, %d before:\n%s", n, before, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRPCNoLeaks runs a session with an extension, a prompt with a tool
// call and an unanswered dialog to the end of stdin, and checks that
// every goroutine zut started has returned.
func TestRPCNoLeaks(t *testing.T) {
	builds := newRPCBuilds(t)
	if _, err := builds.copy("rpcext", t.TempDir()); err != nil { // build before counting
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	r := newRPCRun(t, builds, []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "t1", Name: "shout", Args: `{"text":"hi"}`}}},
		{Text: "HI."},
	})
	r.script(parseRPCArchive([]byte(`args -e $EXT/rpcext
send {"type":"prompt","id":1,"message":"shout hi"}
wait done
post {"type":"run_command","id":2,"name":"ask"}
wait ext_ui_request
close
`)))
	if got := r.exitStatus(); got != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", got, r.stderr)
	}
	r.model.Close()
	waitGoroutines(t, before)
}
