package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/host/procgroup"
)

// stdioTransport runs a server as a child process in its own process
// group and exchanges newline-delimited JSON-RPC over its stdin and
// stdout; the child's stderr goes to the server's log.
type stdioTransport struct {
	name   string
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File
	stdout *os.File
	cancel context.CancelFunc
	log    *logFile
	sink   sink

	writeMu sync.Mutex
	closeMu sync.Once

	exited     chan struct{} // closed once the child is reaped
	readerDone chan struct{}
	waitErr    error

	grace, kill time.Duration // close: stdin closed → SIGTERM → SIGKILL
}

// writeTimeout bounds one message write: a server that stops reading its
// stdin is disconnected after it.
const writeTimeout = 10 * time.Second

func startStdio(cfg ServerConfig, project string, env []string, wrap func(*exec.Cmd) error, log *logFile, s sink) (*stdioTransport, error) {
	path := cfg.Command
	if !strings.ContainsRune(path, os.PathSeparator) {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, fmt.Errorf("start mcp server %q: command %q not found on PATH; install it or give its full path", cfg.Name, cfg.Command)
		}
		path = lp
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("start mcp server %q: command %q not found; check \"command\" in %s", cfg.Name, cfg.Command, cfg.File)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start mcp server %q: %w", cfg.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start mcp server %q: %w", cfg.Name, err)
	}
	// The context only serves Cmd.Cancel: cancelling it kills the group,
	// and WaitDelay bounds Wait after that.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := procgroup.Command(ctx, path, cfg.Args...)
	cmd.Dir = cfg.Dir
	if cmd.Dir == "" {
		cmd.Dir = project
	}
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append([]string(nil), cmd.Env...)
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if f := log.file(); f != nil {
		cmd.Stderr = f
	}
	if wrap != nil {
		err = wrap(cmd)
	}
	if err == nil {
		err = cmd.Start()
	}
	inR.Close()
	outW.Close()
	if err != nil {
		cancel()
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start mcp server %q: %w", cfg.Name, err)
	}
	t := &stdioTransport{name: cfg.Name, cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, cancel: cancel,
		log: log, sink: s, exited: make(chan struct{}), readerDone: make(chan struct{}),
		grace: 2 * time.Second, kill: time.Second}
	log.printf("started pid %d: %s", t.pid, strings.Join(append([]string{path}, cfg.Args...), " "))
	go t.wait()
	go t.read()
	return t, nil
}

func (t *stdioTransport) kind() string    { return "stdio" }
func (t *stdioTransport) ready(string)    {}
func (t *stdioTransport) reset()          {}
func (t *stdioTransport) exitedNow() bool { return isClosed(t.exited) }

// wait reaps the child; it is the only caller of cmd.Wait.
func (t *stdioTransport) wait() {
	t.waitErr = t.cmd.Wait()
	close(t.exited)
}

// read delivers each line of the child's stdout until it ends.
func (t *stdioTransport) read() {
	defer close(t.readerDone)
	r := newLineReader(t.stdout, MaxMessage)
	for {
		line, err := r.next()
		if err != nil {
			var tooLong *TooLongError
			switch {
			case errors.As(err, &tooLong):
				t.sink.gone(fmt.Errorf("it sent a message longer than %d MiB, so zut disconnected it", tooLong.Limit>>20))
				t.stop()
			default:
				t.sink.gone(t.exitCause())
			}
			return
		}
		t.sink.deliver(line)
	}
}

// exitCause describes why stdout ended: the exit status when the child
// exits within a few seconds (a loaded machine can be slow to reap), else
// "closed its stdout".
func (t *stdioTransport) exitCause() error {
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-t.exited:
	case <-timer.C:
		return errors.New("it closed its stdout")
	}
	st := t.cmd.ProcessState
	switch {
	case st == nil && t.waitErr != nil:
		return fmt.Errorf("it exited: %v", t.waitErr)
	case st == nil:
		return errors.New("it exited")
	case st.Success():
		return errors.New("it exited with status 0")
	}
	return fmt.Errorf("it exited (%s)", st.String())
}

func (t *stdioTransport) send(ctx context.Context, m outgoing) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	deadline := time.Now().Add(writeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = t.stdin.SetWriteDeadline(deadline)
	buf := make([]byte, 0, len(m.data)+1)
	buf = append(append(buf, m.data...), '\n')
	if _, err := t.stdin.Write(buf); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = errors.New("it stopped reading its stdin, so zut disconnected it")
			t.sink.gone(err)
			go t.stop()
			return err
		}
		if t.exitedNow() || errors.Is(err, os.ErrClosed) {
			return errors.New("it is not running")
		}
		return fmt.Errorf("write to its stdin: %w", err)
	}
	return nil
}

// stop kills the process group at once (after a protocol violation).
func (t *stdioTransport) stop() {
	_ = procgroup.Kill(t.pid)
	t.cancel()
}

// close shuts the server down as the lifecycle says for stdio: close its
// stdin, wait, SIGTERM its group, wait, SIGKILL; then reap it and join the
// reader. The group is killed even when the leader already exited, so
// that no child it left behind outlives zut.
func (t *stdioTransport) close() error {
	t.closeMu.Do(func() {
		t.writeMu.Lock()
		t.stdin.Close()
		t.writeMu.Unlock()
		if !t.waitFor(t.grace) {
			_ = procgroup.Terminate(t.pid)
			t.log.printf("sent SIGTERM to pid %d", t.pid)
			if !t.waitFor(t.kill) {
				t.log.printf("sent SIGKILL to pid %d", t.pid)
			}
		}
		_ = procgroup.Kill(t.pid)
		t.cancel()
		<-t.exited
		t.stdout.Close()
		<-t.readerDone
		procgroup.AwaitEmpty(t.pid, 100*time.Millisecond)
		t.log.printf("stopped pid %d", t.pid)
	})
	return nil
}

func (t *stdioTransport) waitFor(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.exited:
		return true
	case <-timer.C:
		return false
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
