package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/proto"
)

// callSeq numbers correlation ids. C13 asks for ids unique within the
// host process, so the counter is shared by every Host.
var callSeq atomic.Uint64

func nextID() string { return strconv.FormatUint(callSeq.Add(1), 10) }

// How an extension's stop is reported (see teardown).
const (
	stopCrash  = iota // it went away on its own or was disconnected: Exited
	stopReload        // Reload: ClearChrome, no Exited
	stopClose         // Close: no callbacks
)

// extension is one loaded (or loading) extension process and its
// connection. Three goroutines serve it: readLoop (frames from the
// extension), writeLoop (the ordered queue to it) and the process's
// reaper, which calls exited. die ends the connection once; teardown,
// started by die, kills the process group, joins the loops and tells the
// rest of zut.
type extension struct {
	h     *Host
	entry Entry
	m     *Manifest
	name  string
	log   string
	p     *process

	// Set by readLoop before helloDone is closed; read-only afterwards.
	hello      *proto.Hello
	helloErr   error
	toolCancel bool // hello advertised tool_cancel (C6)

	helloDone  chan struct{} // closed when hello was read or reading it failed
	readyCh    chan struct{} // closed on the first ready frame
	activity   chan struct{} // a frame arrived (cap 1), for C5's quiet period
	wake       chan struct{} // the queue has frames (cap 1)
	dead       chan struct{} // closed by die
	readerDone chan struct{}
	writerDone chan struct{}

	mu        sync.Mutex
	commands  []*commandReg
	tools     []*toolReg
	events    map[string]bool
	intercept map[string]bool
	readySeen bool
	loaded    bool   // the load finished; registrations now go to the index
	status    string // StatusOK, StatusAutoReady or StatusReadyTimeout once loaded
	warnings  []string
	pending   map[string]*call
	queue     []*outFrame
	qhead     int
	qlen      int
	qbytes    int
	deadline  time.Time // write deadline of the frame being written
	dying     bool
	deathErr  error
	stopMode  int
	add       addState // additions beyond v2 (add.go)
}

// outFrame is one encoded frame in the write queue.
type outFrame struct {
	line      []byte
	toolCall  bool
	state     uint8
	cancelled bool // its call was abandoned while it was being written
	callID    string
}

const (
	frameQueued uint8 = iota
	frameWriting
	frameWritten
	frameWithdrawn
)

// call is one request waiting for its reply.
type call struct {
	id       string
	want     string // the reply frame type
	reply    chan reply
	out      *outFrame
	progress func(string) // tool_progress lines of a tool call (ui2), or nil
}

type reply struct {
	f   proto.Frame
	err error
}

func newExtension(h *Host, en Entry) *extension {
	return &extension{
		h: h, entry: en, m: en.Manifest, name: en.Manifest.Name,
		log:        LogPath(h.cfg.Home, en.Manifest.Name),
		helloDone:  make(chan struct{}),
		readyCh:    make(chan struct{}),
		activity:   make(chan struct{}, 1),
		wake:       make(chan struct{}, 1),
		dead:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		events:     map[string]bool{},
		intercept:  map[string]bool{},
		pending:    map[string]*call{},
	}
}

// send queues f, ignoring failure: a failed enqueue already disconnected
// the extension, which reports itself.
func (e *extension) send(f proto.Frame) { _, _ = e.enqueue(f, nil) }

// enqueue encodes f and appends it to the write queue (C11). When the
// queue would exceed its bounds the extension is disconnected. c, when
// set, is the call the frame belongs to.
func (e *extension) enqueue(f proto.Frame, c *call) (*outFrame, error) {
	line, err := proto.AppendFrame(nil, f)
	if err != nil {
		return nil, fmt.Errorf("send to extension %q: %w", e.name, err)
	}
	lim := e.h.lim
	if len(line) > lim.QueueBytes {
		return nil, fmt.Errorf("send to extension %q: %s frame of %d bytes exceeds the %d-byte queue", e.name, f.Type(), len(line), lim.QueueBytes)
	}
	e.mu.Lock()
	if e.dying {
		e.mu.Unlock()
		return nil, e.stoppedErr()
	}
	if e.qlen+1 > lim.QueueFrames || e.qbytes+len(line) > lim.QueueBytes {
		e.mu.Unlock()
		e.die(fmt.Errorf("disconnected: %d frames (%d bytes) wait to be written; the extension is not reading its stdin (queue limit %d frames or %d bytes, C11)",
			e.qlen, e.qbytes, lim.QueueFrames, lim.QueueBytes))
		return nil, e.stoppedErr()
	}
	of := &outFrame{line: line, toolCall: f.Type() == "tool_call"}
	if c != nil {
		c.out = of
		of.callID = c.id
	}
	e.queue = append(e.queue, of)
	e.qlen++
	e.qbytes += len(line)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return of, nil
}

// pop takes the next frame to write, skipping withdrawn ones. e.mu held.
func (e *extension) pop() *outFrame {
	for e.qhead < len(e.queue) {
		of := e.queue[e.qhead]
		e.queue[e.qhead] = nil
		e.qhead++
		if of.state == frameWithdrawn {
			continue
		}
		e.qlen--
		e.qbytes -= len(of.line)
		return of
	}
	e.queue, e.qhead = e.queue[:0], 0
	return nil
}

// writeLoop writes queued frames in order, each within the write timeout
// (C11). It exits when the extension dies.
func (e *extension) writeLoop() {
	defer close(e.writerDone)
	t := e.h.t
	for {
		select {
		case <-e.wake:
		case <-e.dead:
			return
		}
		for {
			e.mu.Lock()
			if e.dying {
				e.mu.Unlock()
				return
			}
			of := e.pop()
			if of == nil {
				e.mu.Unlock()
				break
			}
			of.state = frameWriting
			e.deadline = time.Now().Add(t.Write)
			_ = e.p.stdin.SetWriteDeadline(e.deadline)
			e.mu.Unlock()

			_, err := e.p.stdin.Write(of.line)

			e.mu.Lock()
			of.state = frameWritten
			cancelled, dying := of.cancelled, e.dying
			e.mu.Unlock()
			switch {
			case dying:
				return
			case err != nil && errDeadline(err) && cancelled:
				e.die(fmt.Errorf("disconnected: a cancelled tool_call frame was still being written %v later (C11)", t.WriteCancel))
				return
			case err != nil && errDeadline(err):
				e.die(fmt.Errorf("disconnected: writing one frame to its stdin blocked for %v (C11)", t.Write))
				return
			case err != nil:
				e.wentAway(fmt.Errorf("write to its stdin: %w", err))
				return
			}
			if cancelled && of.toolCall && e.toolCancel {
				e.send(proto.ToolCancel{ID: of.callID})
			}
		}
	}
}

// request sends the frame made by build (given a fresh id) and waits for
// the reply of type want, for at most timeout (0: no limit), ctx, or the
// extension's death (C14). An abandoned tool call is withdrawn from the
// queue, or cancelled with tool_cancel once delivered (C11).
func (e *extension) request(ctx context.Context, build func(id string) proto.Frame, want string, timeout time.Duration) (proto.Frame, error) {
	return e.requestCall(ctx, &call{want: want}, build, timeout)
}

// requestCall is request for a prepared call c (its want and progress
// set). The deadline of a command, tool call or interception does not
// expire while the extension waits for the answer to a host request of
// its own (a command asking the user a question), and restarts in full
// when the answer arrives.
func (e *extension) requestCall(ctx context.Context, c *call, build func(id string) proto.Frame, timeout time.Duration) (proto.Frame, error) {
	want := c.want
	c.id, c.reply = nextID(), make(chan reply, 1)
	e.mu.Lock()
	if e.dying {
		e.mu.Unlock()
		return nil, e.stoppedErr()
	}
	e.pending[c.id] = c
	e.mu.Unlock()
	if _, err := e.enqueue(build(c.id), c); err != nil {
		e.mu.Lock()
		delete(e.pending, c.id)
		e.mu.Unlock()
		return nil, err
	}
	var expired <-chan time.Time
	var timer *time.Timer
	if timeout > 0 {
		timer = time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	for {
		select {
		case r := <-c.reply:
			return r.f, r.err
		case <-ctx.Done():
			e.abandon(c)
			return nil, ctx.Err()
		case <-expired:
			if patient(want) {
				waiting, answered := e.awaitingHost()
				if waiting {
					timer.Reset(timeout)
					continue
				}
				if since := time.Since(answered); since < timeout {
					timer.Reset(timeout - since)
					continue
				}
			}
			e.abandon(c)
			return nil, &TimeoutError{Extension: e.name, Frame: want, After: timeout}
		}
	}
}

// patient reports whether a request waiting for the reply want is
// extended while the extension waits for a host request's answer.
func patient(want string) bool {
	switch want {
	case "tool_result", "command_response", "event_intercept_response":
		return true
	}
	return false
}

// abandon stops waiting for c. A reply that raced in is dropped (the host
// ignores late results).
func (e *extension) abandon(c *call) {
	e.mu.Lock()
	if _, ok := e.pending[c.id]; !ok {
		e.mu.Unlock()
		return
	}
	delete(e.pending, c.id)
	of, delivered := c.out, false
	switch of.state {
	case frameQueued:
		of.state = frameWithdrawn
		e.qlen--
		e.qbytes -= len(of.line)
	case frameWriting:
		if of.toolCall {
			of.cancelled = true
			if d := time.Now().Add(e.h.t.WriteCancel); d.Before(e.deadline) {
				e.deadline = d
				_ = e.p.stdin.SetWriteDeadline(d)
			}
		}
	case frameWritten:
		delivered = true
	}
	e.mu.Unlock()
	if delivered && of.toolCall && e.toolCancel {
		e.send(proto.ToolCancel{ID: c.id})
	}
}

// deliver hands a reply frame to the call waiting for id.
func (e *extension) deliver(id string, f proto.Frame) {
	e.mu.Lock()
	c := e.pending[id]
	delete(e.pending, id)
	e.mu.Unlock()
	switch {
	case c == nil:
		e.p.logf("ignored %s for id %q: nothing waits for it (late, cancelled or unknown id)", f.Type(), id)
	case c.want != f.Type():
		c.reply <- reply{err: fmt.Errorf("extension %q answered a request with %s, want %s", e.name, f.Type(), c.want)}
	default:
		c.reply <- reply{f: f}
	}
}

// failCall fails the call waiting for id with err, when there is one.
func (e *extension) failCall(id string, err error) bool {
	e.mu.Lock()
	c := e.pending[id]
	delete(e.pending, id)
	e.mu.Unlock()
	if c != nil {
		c.reply <- reply{err: err}
	}
	return c != nil
}

// die ends the connection with reason, once: every pending call fails at
// once (C14), the pipes close, and teardown runs in the background.
func (e *extension) die(reason error) {
	e.mu.Lock()
	if e.dying {
		e.mu.Unlock()
		return
	}
	e.dying = true
	e.deathErr = reason
	pending := e.pending
	e.pending = map[string]*call{}
	e.queue, e.qhead, e.qlen, e.qbytes = nil, 0, 0, 0
	close(e.dead)
	e.mu.Unlock()

	e.p.logf("connection closed: %v", reason)
	e.cancelRequests()
	stopped := e.stoppedErr()
	for _, c := range pending {
		c.reply <- reply{err: stopped}
	}
	e.p.stdin.Close()
	e.p.stdout.Close()
	go e.h.teardown(e)
}

// wentAway ends the connection after a sign that the extension left (end
// of its stdout, a broken pipe, its exit). It first lets the reader drain
// what the extension wrote and the reaper collect its exit status, briefly,
// so that a reply written just before exit is still delivered and the
// reason names the exit status.
func (e *extension) wentAway(cause error) {
	t := time.NewTimer(500 * time.Millisecond)
	defer t.Stop()
	select {
	case <-e.p.done:
	case <-e.dead:
		return
	case <-t.C:
	}
	if st := e.p.exitStatus(); st != "" {
		e.die(errors.New(st))
		return
	}
	e.die(cause)
}

// drainGrace bounds the wait, once an extension's process has exited, for
// the reader to deliver what it wrote last (a note, its shutdown_ack). The
// pipe ends at once unless a child it left behind holds it open; the
// bound is generous so that a loaded machine does not lose those frames.
const drainGrace = time.Second

// exited is called by the reaper once the process is gone.
func (e *extension) exited() {
	if e.isStopping() {
		return
	}
	t := time.NewTimer(drainGrace)
	defer t.Stop()
	select {
	case <-e.readerDone:
	case <-t.C:
	}
	e.die(errors.New(e.p.exitStatus()))
}

// stoppedErr is the error calls on a dead extension get.
func (e *extension) stoppedErr() error {
	e.mu.Lock()
	reason := e.deathErr
	e.mu.Unlock()
	if reason == nil {
		reason = errors.New("stopped")
	}
	return &StoppedError{Extension: e.name, Log: e.log, Err: reason}
}

// isStopping reports whether stop runs (it is only ever called to reload
// or close); then stop, not the reader or the reaper, ends the connection.
func (e *extension) isStopping() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopMode != stopCrash
}

// isDying reports whether die has run.
func (e *extension) isDying() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dying
}

// warn records a problem for doctor and writes it to the extension's log.
func (e *extension) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	e.p.logf("%s", msg)
	e.mu.Lock()
	if len(e.warnings) < 50 {
		e.warnings = append(e.warnings, msg)
	}
	e.mu.Unlock()
}
