package python

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/tools"
)

// driver is the Python program that runs the code; see driver.py.
//
//go:embed driver.py
var driver string

// Timings of the interpreter's life.
const (
	startTimeout = 60 * time.Second       // from exec to the driver's ready line
	drainWait    = 500 * time.Millisecond // reading on after the interpreter died
	markerWait   = 2 * time.Second        // for the output markers after a result
	maxLine      = 1 << 20                // longest line on the result pipe
)

// Caps of what is kept of each output stream (head, tail).
const (
	stdoutHead, stdoutTail = 24 << 10, 8 << 10
	stderrHead, stderrTail = 8 << 10, 4 << 10
)

// reply is one line the driver writes on the result pipe.
type reply struct {
	ID          *int64  `json:"id"`
	Ready       bool    `json:"ready"`
	Version     string  `json:"version"`
	Value       *string `json:"value"`
	Traceback   *string `json:"traceback"`
	Exception   *string `json:"exception"`
	Interrupted bool    `json:"interrupted"`
}

// interp is one running interpreter and the goroutines that read it: one
// per output pipe, one for the result pipe and one waiting for the
// process. stop ends them all and reaps the process group.
type interp struct {
	cmd            *exec.Cmd
	req            *os.File // requests: our write end
	res, out, errs *os.File // our read ends
	stdout, stderr *stream
	replies        chan reply
	quit           chan struct{}     // closed by stop: the result reader gives up
	exited         chan struct{}     // closed when the process was reaped
	waitErr        error             // the process's exit, valid once exited is closed
	conf           *sandbox.Confined // the sandbox it runs in (nil: none)
	gen            uint64            // the sandbox's generation when it started
	readers        sync.WaitGroup
	version        string
	nextID         int64
	stopOnce       sync.Once
}

// start runs the driver with python in dir and waits for its ready line.
// With sb set, the interpreter runs in the sandbox in force.
func start(ctx context.Context, python, dir string, env []string, sb tools.Sandbox) (*interp, error) {
	var files []*os.File // every pipe end, closed on failure
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fail := func(err error) (*interp, error) {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	reqR, reqW, err := pipe()
	if err != nil {
		return fail(fmt.Errorf("python: create pipe: %v", err))
	}
	resR, resW, err := pipe()
	if err != nil {
		return fail(fmt.Errorf("python: create pipe: %v", err))
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(fmt.Errorf("python: create pipe: %v", err))
	}
	errR, errW, err := pipe()
	if err != nil {
		return fail(fmt.Errorf("python: create pipe: %v", err))
	}
	cmd := exec.Command(python, "-u", "-c", driver, "3", "4")
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), env...), "PYTHONUNBUFFERED=1", "PYTHONIOENCODING=utf-8")
	cmd.Stdout, cmd.Stderr = outW, errW // stdin stays nil: /dev/null
	cmd.ExtraFiles = []*os.File{reqR, resW}
	tools.SetProcessGroup(cmd)
	var conf *sandbox.Confined
	var gen uint64
	if sb != nil {
		gen = sb.Generation()
		if conf, err = sb.Confine(cmd); err != nil {
			return fail(fmt.Errorf("python: %v", err))
		}
	}
	if err := cmd.Start(); err != nil {
		conf.Close()
		return fail(fmt.Errorf("python: start %s: %v", python, unwrap(err)))
	}
	for _, f := range []*os.File{reqR, resW, outW, errW} { // the child holds them now
		f.Close()
	}
	ip := &interp{cmd: cmd, req: reqW, res: resR, out: outR, errs: errR,
		stdout: newStream(stdoutHead, stdoutTail), stderr: newStream(stderrHead, stderrTail),
		replies: make(chan reply, 1), quit: make(chan struct{}), exited: make(chan struct{}), conf: conf, gen: gen}
	ip.readers.Add(3)
	go func() { defer ip.readers.Done(); ip.stdout.read(outR) }()
	go func() { defer ip.readers.Done(); ip.stderr.read(errR) }()
	go func() { defer ip.readers.Done(); ip.readReplies() }()
	go func() { ip.waitErr = cmd.Wait(); close(ip.exited) }() // ends when the process exits

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case r := <-ip.replies:
		if !r.Ready {
			ip.stop()
			return nil, fmt.Errorf("python: %s did not start the driver (its first line was not the ready line); check that it is Python 3.8 or newer", python)
		}
		ip.version = r.Version
		return ip, nil
	case <-ip.exited:
		ip.drain()
		ip.stop()
		msg := strings.TrimSpace(lastLines(ip.stderr.finish(), 6))
		if msg == "" {
			msg = "no error output"
		}
		return nil, fmt.Errorf("python: %s exited during startup (%s): %s; zut needs Python 3.8 or newer", python, exitText(ip.waitErr), msg)
	case <-timer.C:
		ip.stop()
		return nil, fmt.Errorf("python: %s did not start within %s; it was killed", python, startTimeout)
	case <-ctx.Done():
		ip.stop()
		return nil, errors.New("python: aborted while starting the interpreter")
	}
}

// readReplies decodes the result pipe line by line until it ends or stop
// is called.
func (ip *interp) readReplies() {
	br := bufio.NewReaderSize(ip.res, 64<<10)
	for {
		line, err := readLine(br)
		if err != nil {
			return
		}
		var r reply
		if json.Unmarshal(line, &r) != nil {
			continue // not the driver's: ignore it
		}
		select {
		case ip.replies <- r:
		case <-ip.quit:
			return
		}
	}
}

// readLine reads one line of at most maxLine bytes; the rest of a longer
// line is dropped.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) <= maxLine {
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(line) == 0 {
			return nil, err
		}
		return line, nil
	}
}

// send writes a request; a write that cannot finish before deadline (the
// driver is stuck) fails.
func (ip *interp) send(code, marker string, deadline time.Time) (int64, error) {
	ip.nextID++
	b, err := json.Marshal(map[string]any{"id": ip.nextID, "code": code, "marker": marker})
	if err != nil {
		return 0, err
	}
	ip.req.SetWriteDeadline(deadline)
	_, err = ip.req.Write(append(b, '\n'))
	return ip.nextID, err
}

// interrupt sends SIGINT to the interpreter (not its group: a child the
// code waits for is the code's business).
func (ip *interp) interrupt() { ip.cmd.Process.Signal(os.Interrupt) }

// drain waits a moment for the output pipes to reach their end after the
// interpreter died (a child it forked may hold them open).
func (ip *interp) drain() {
	t := time.NewTimer(drainWait)
	defer t.Stop()
	for _, ch := range []<-chan struct{}{ip.stdout.eof, ip.stderr.eof} {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// stop kills the interpreter's process group, reaps it, joins the
// readers and closes its sandbox. It is safe to call more than once.
func (ip *interp) stop() {
	ip.stopOnce.Do(func() {
		ip.req.Close() // the driver sees the end of its requests
		tools.SignalGroup(ip.cmd, true)
		<-ip.exited
		close(ip.quit)
		// Output pipes held by a process that left the group end now.
		for _, f := range []*os.File{ip.res, ip.out, ip.errs} {
			f.SetReadDeadline(time.Now().Add(drainWait))
		}
		ip.readers.Wait()
		for _, f := range []*os.File{ip.res, ip.out, ip.errs} {
			f.Close()
		}
		ip.conf.Close() // its proxy, under a proxy network
	})
}

// exitText words how a process ended: "status 3" or "signal SIGKILL".
func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if sig := tools.ExitSignal(ee.ProcessState); sig != "" {
			return "killed by signal " + sig
		}
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// lastLines is the end of a captured stream, at most n lines.
func lastLines(c *capBuf, n int) string {
	s, _ := c.text()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
