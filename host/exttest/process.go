package exttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/procgroup"
)

// process is one running extension: its pipes, its stderr tally and the
// goroutines that drain stderr and reap it. start starts both goroutines;
// kill (or the process exiting) ends them, and wait joins them.
type process struct {
	cmd     *exec.Cmd
	pid     int
	stdin   *os.File // write end: the tester's frames
	stdout  *os.File // read end: the extension's frames
	cancel  context.CancelFunc
	startAt time.Time

	stderr     *tail    // what the extension wrote to stderr
	errR       *os.File // read end of stderr, owned by drainStderr until release
	stderrDone chan struct{}

	done   chan struct{} // closed once the process has been reaped
	state  *os.ProcessState
	werr   error
	exitAt time.Time

	stdinOnce sync.Once
}

// start runs the extension of m in its own directory and process group,
// with pipes for stdin, stdout and stderr. A bare exec name is looked up
// on PATH (C23).
func start(m *host.Manifest, env []string, maxStderr int) (*process, error) {
	path := m.ExecPath
	if path == "" {
		lp, err := exec.LookPath(m.Exec)
		if err != nil {
			return nil, fmt.Errorf("exec %q: not found on PATH; install it or use a path such as ./%s", m.Exec, m.Exec)
		}
		path = lp
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	// The context serves Cmd.Cancel only: cancelling it kills the whole
	// group, and WaitDelay bounds Wait after that.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := procgroup.Command(ctx, path, m.Args...)
	cmd.Dir = m.Dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The extension's own start: Start returns once the new process has
	// exec'd. Time the tester spent before (forking from a busy process)
	// is not the extension's.
	startAt := time.Now()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		cancel()
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", strings.Join(append([]string{path}, m.Args...), " "), err)
	}
	p := &process{
		cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, cancel: cancel, startAt: startAt,
		stderr: newTail(maxStderr), errR: errR, stderrDone: make(chan struct{}), done: make(chan struct{}),
	}
	go p.drainStderr()
	go p.reap()
	return p, nil
}

// reap is the only caller of cmd.Wait.
func (p *process) reap() {
	p.werr = p.cmd.Wait()
	p.state = p.cmd.ProcessState
	p.exitAt = time.Now()
	close(p.done)
}

// drainStderr reads stderr until every writer has closed it, or release
// closes it.
func (p *process) drainStderr() {
	defer close(p.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.errR.Read(buf)
		p.stderr.write(buf[:n])
		if err != nil {
			return
		}
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

// status says how the process ended ("exit status 3", "signal: killed"),
// or "" while it runs.
func (p *process) status() string {
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

// closeStdin closes the tester's end of stdin: the extension reads EOF.
func (p *process) closeStdin() {
	p.stdinOnce.Do(func() { p.stdin.Close() })
}

// waitExit waits up to d of the extension's own time (see deadline) for
// the process to exit and reports whether it did.
func (p *process) waitExit(ctx context.Context, d time.Duration) bool {
	dl := p.deadline(time.Now(), d)
	t := time.NewTimer(min(d, sampleEvery))
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return true
		case <-t.C:
			if left := dl.left(); left > 0 {
				t.Reset(min(max(left, 5*time.Millisecond), sampleEvery))
				continue
			}
		case <-ctx.Done():
		}
		return p.exited()
	}
}

// maxStretch bounds how much longer than a deadline, in wall time, the
// tester waits for an extension that is kept from the CPU.
const maxStretch = 60 * time.Second

// deadline is a deadline in the extension's own time: the wall time since
// start minus the time the extension's processes spent waiting for a CPU
// meanwhile. A correct extension on a loaded machine waits for the CPU,
// not for itself, and so does not miss a deadline for it; the wall time is
// still bounded by d + maxStretch. The wait is the larger of two
// measures: the threads' schedstat run delay (complete once a thread has
// run) and the time sample saw the extension runnable while it got less
// than half a CPU (a wait still going on). Where the system does not say,
// it is wall time. A deadline is used by one goroutine.
type deadline struct {
	pid   int
	start time.Time
	d     time.Duration

	w0      time.Duration // the run delay at start
	known   bool          // the system reports the counters
	starved time.Duration // waits seen by sample
	lastCPU time.Duration
	lastAt  time.Time
}

// sampleEvery is how often the waits that look at a deadline sample it.
const sampleEvery = 25 * time.Millisecond

// deadline returns the deadline d from start. A start at or before the
// process's start counts all of its waiting.
func (p *process) deadline(start time.Time, d time.Duration) *deadline {
	dl := &deadline{pid: p.pid, start: start, d: d}
	cpu, w, _, ok := sched(p.pid)
	dl.known = ok
	if start.After(p.startAt) {
		dl.w0 = w
	}
	dl.lastCPU, dl.lastAt = cpu, time.Now()
	return dl
}

// sample looks at the extension once: the time since the last look
// counts as waiting when it is runnable and got less than half a CPU.
func (dl *deadline) sample() {
	cpu, _, run, ok := sched(dl.pid)
	now := time.Now()
	if ok && run && cpu-dl.lastCPU < now.Sub(dl.lastAt)/2 {
		dl.starved += now.Sub(dl.lastAt)
	}
	dl.lastCPU, dl.lastAt = cpu, now
}

// own returns the extension's own time since the start.
func (dl *deadline) own() time.Duration {
	wall := time.Since(dl.start)
	if !dl.known {
		return wall
	}
	wait := dl.starved
	if _, w, _, ok := sched(dl.pid); ok && w-dl.w0 > wait {
		wait = w - dl.w0
	}
	return max(0, wall-wait)
}

// left samples the extension and returns how much of the deadline is
// left, 0 once it has passed.
func (dl *deadline) left() time.Duration {
	dl.sample()
	if time.Since(dl.start) >= dl.d+maxStretch {
		return 0
	}
	if own := dl.own(); own < dl.d {
		return dl.d - own
	}
	return 0
}

// stop ends the process group the way zut does (C21): SIGTERM, SIGKILL
// after grace, and waits until the process is reaped. A process that has
// already exited still gets its group killed so that nothing it started
// outlives the test.
func (p *process) stop(grace time.Duration) {
	p.closeStdin()
	if !p.exited() {
		_ = procgroup.Terminate(p.pid)
		t := time.NewTimer(grace)
		select {
		case <-p.done:
		case <-t.C:
		}
		t.Stop()
	}
	_ = procgroup.Kill(p.pid)
	p.cancel()
	<-p.done
	procgroup.AwaitEmpty(p.pid, 200*time.Millisecond)
}

// release closes the tester's pipe ends and joins the stderr drain. The
// process must have been stopped. A process outside the group (one that
// called setsid) may still hold stderr open: the drain gets a second to
// take what is left, then its pipe is closed under it.
func (p *process) release() {
	p.closeStdin()
	p.stdout.Close()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
	p.errR.Close()
	<-p.stderrDone
}

// leftovers waits up to d for the process group to empty after the
// leader exited and returns the members still there (C21).
func (p *process) leftovers(d time.Duration) []member {
	deadline := time.Now().Add(d)
	for {
		if !procgroup.Alive(p.pid) {
			return nil
		}
		if time.Now().After(deadline) {
			ms := groupMembers(p.pid)
			if len(ms) == 0 {
				ms = []member{{PID: 0, Command: "(unknown process of the group)"}}
			}
			return ms
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tail keeps the first bytes an extension wrote to stderr, up to a bound,
// and counts them all.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total atomic.Int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) write(b []byte) {
	t.total.Add(int64(len(b)))
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - len(t.buf); room > 0 {
		t.buf = append(t.buf, b[:min(room, len(b))]...)
	}
}

// last returns up to n bytes of the end of what was kept, whole lines.
func (t *tail) last(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > n {
		b = b[len(b)-n:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}
