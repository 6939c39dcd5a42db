package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/host/procgroup"
	"github.com/zut-go/zut/proto/regular"
)

// MaxLog caps an extension's log: 8 MiB, then it is rotated to
// <name>.log.1 (one older file kept; see regular.Log).
const MaxLog = regular.MaxLog

// errNoLog marks a spawn that failed because the log could not be opened.
var errNoLog = errors.New("open log")

// process is one running extension executable: its pipes, its log file
// and the goroutine that reaps it.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // write end; the host's frames go here
	stdout *os.File // read end; the extension's frames come from here
	cancel context.CancelFunc

	logMu sync.Mutex
	log   *regular.Log // the stderr log, capped (the child's stderr is copied into it)

	done   chan struct{} // closed once Wait has returned
	onExit func()        // called by the reaper after done is closed
	state  *os.ProcessState
	werr   error
}

// maxBusyStarts bounds the starts of an executable that is busy being
// written (about a second in all).
const maxBusyStarts = 10

// spawn starts the extension of m in its own directory and process group,
// with stdin and stdout pipes and stderr appended to logPath after a start
// marker, in the environment env (see Config.Env). A bare exec name is
// looked up on PATH (C23). The caller must
// eventually call terminate and wait for done.
func spawn(m *Manifest, logPath string, env []string, wrap func(*exec.Cmd) error, onExit func()) (*process, error) {
	path := m.ExecPath
	if path == "" {
		lp, err := exec.LookPath(m.Exec)
		if err != nil {
			return nil, fmt.Errorf("exec %q: not found on PATH (use a path such as ./%s for a file in the extension directory)", m.Exec, m.Exec)
		}
		path = lp
	}
	// The log holds what the extension printed, which may quote prompts
	// and output: only the user may read it.
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return nil, fmt.Errorf("%w: %v", errNoLog, err)
	}
	logf, err := regular.OpenLog(logPath, MaxLog)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoLog, err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		logf.Close()
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	// The context only serves Cmd.Cancel: cancelling it kills the whole
	// process group, and WaitDelay bounds Wait after that.
	ctx, cancel := context.WithCancel(context.Background())
	var cmd *exec.Cmd
	for attempt := 1; ; attempt++ {
		cmd = procgroup.Command(ctx, path, m.Args...)
		cmd.Dir = m.Dir
		cmd.Env = childEnv(env)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logf
		if wrap != nil {
			if err = wrap(cmd); err != nil {
				break
			}
		}
		err = cmd.Start()
		// A program just written (zut ext install, a build) may still be
		// open for writing in a process forked meanwhile: the kernel
		// refuses to run it for a moment (ETXTBSY). Try again, briefly.
		if !textBusy(err) || attempt == maxBusyStarts {
			break
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
	inR.Close()
	outW.Close()
	if err != nil {
		cancel()
		logf.Close()
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start: %w", err)
	}
	p := &process{cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, cancel: cancel, log: logf,
		done: make(chan struct{}), onExit: onExit}
	p.logf("started pid %d: %s", p.pid, strings.Join(append([]string{path}, m.Args...), " "))
	go p.wait()
	return p, nil
}

// wait reaps the process; it is the only caller of cmd.Wait.
func (p *process) wait() {
	p.werr = p.cmd.Wait()
	p.state = p.cmd.ProcessState
	close(p.done)
	if p.onExit != nil {
		p.onExit()
	}
}

// exited reports whether the process has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitStatus describes how the process ended ("exit status 3", "signal:
// killed"), or "" while it runs.
func (p *process) exitStatus() string {
	if !p.exited() {
		return ""
	}
	if p.state != nil {
		return p.state.String()
	}
	if p.werr != nil {
		return p.werr.Error()
	}
	return "exited"
}

// terminate ends the process group: SIGTERM, then SIGKILL after grace or
// as soon as hurry closes, and waits until the process is reaped. A
// process that already exited still gets its group killed, so that no
// child it left behind outlives it (C21).
func (p *process) terminate(grace time.Duration, hurry <-chan struct{}) {
	if !p.exited() {
		_ = procgroup.Terminate(p.pid)
		t := time.NewTimer(grace)
		select {
		case <-p.done:
		case <-t.C:
		case <-hurry:
		}
		t.Stop()
	}
	_ = procgroup.Kill(p.pid)
	p.cancel() // Cmd.Cancel, in case the group kill missed the leader
	<-p.done
	// SIGKILL is delivered asynchronously: give the rest of the group a
	// moment to be gone, so that callers can rely on it.
	procgroup.AwaitEmpty(p.pid, 100*time.Millisecond)
}

// logf appends one line from the host to the extension's log.
func (p *process) logf(format string, args ...any) {
	line := time.Now().UTC().Format(time.RFC3339) + " zut: " + fmt.Sprintf(format, args...)
	line = strings.TrimRight(line, "\n") + "\n"
	p.logMu.Lock()
	defer p.logMu.Unlock()
	if p.log != nil {
		_, _ = p.log.Write([]byte(line))
	}
}

// closeLog closes the host's handle on the log file.
func (p *process) closeLog() {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	if p.log != nil {
		p.log.Close()
		p.log = nil
	}
}

// errDeadline reports whether err is a write deadline expiring.
func errDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
