package rpcmode

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zut-go/zut/proto"
)

// rpcLimits bound what RPC mode holds for a client that does not keep up.
type rpcLimits struct {
	// QueueFrames and QueueBytes bound the lines waiting to be written to
	// stdout, the one being written included. A line that comes when
	// either bound is reached ends zut (a client that stops reading must
	// not make it use unbounded memory). A line is accepted below the
	// bounds whatever its size, so a large response (get_messages with
	// images) does not end zut while a few events wait; memory stays
	// below QueueBytes plus one line.
	QueueFrames int
	QueueBytes  int
	// MaxLine is the longest command line accepted.
	MaxLine int
	// MaxQueued is how many prompts and compactions may wait behind the
	// running one.
	MaxQueued int
	// Drain bounds the wait, at the end, for the client to read what is
	// still queued.
	Drain time.Duration
}

var defaultRPCLimits = rpcLimits{
	QueueFrames: 16384,
	QueueBytes:  64 << 20,
	MaxLine:     proto.MaxLine,
	MaxQueued:   64,
	Drain:       10 * time.Second,
}

// overflowError ends RPC mode when the client stops reading stdout.
type overflowError struct {
	frames, bytes int
}

func (e *overflowError) Error() string {
	return fmt.Sprintf("rpc: the client stopped reading stdout: %d lines (%d KiB) are waiting, over the limit; exiting so that memory stays bounded — read zut's stdout continuously",
		e.frames, e.bytes>>10)
}

// rpcOutbox is the only writer of stdout in RPC mode: send queues a line
// from any goroutine without blocking, and one writer goroutine (run)
// writes the lines in order. The queue is bounded (rpcLimits); overflowing
// it or failing to write is fatal and closes dead. Safe for concurrent
// use.
type rpcOutbox struct {
	w         io.Writer
	maxFrames int
	maxBytes  int

	mu      sync.Mutex
	cond    *sync.Cond // signals queue growth and closing to run
	queue   [][]byte
	frames  int // queued and being written
	bytes   int
	closed  bool
	err     error         // the first failure
	dead    chan struct{} // closed on the first failure
	done    chan struct{} // closed when run returns
	drained chan struct{} // closed when run has written everything after close
}

func newRPCOutbox(w io.Writer, lim rpcLimits) *rpcOutbox {
	o := &rpcOutbox{w: w, maxFrames: lim.QueueFrames, maxBytes: lim.QueueBytes,
		dead: make(chan struct{}), done: make(chan struct{}), drained: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// frame encodes f and queues it.
func (o *rpcOutbox) frame(f proto.Frame) {
	line, err := proto.AppendFrame(nil, f)
	if err != nil {
		// Frames are built by zut; an encoding failure is a bug. Say so on
		// the wire rather than dropping the line silently.
		line, _ = proto.AppendFrame(nil, proto.RPCResponse{Command: f.Type(), Error: "internal error: " + err.Error()})
	}
	o.send(line)
}

// send queues line, which ends with a newline. After a failure or close
// it drops the line.
func (o *rpcOutbox) send(line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.err != nil {
		return
	}
	if o.frames > 0 && (o.frames >= o.maxFrames || o.bytes >= o.maxBytes) {
		o.failLocked(&overflowError{frames: o.frames + 1, bytes: o.bytes + len(line)})
		return
	}
	o.queue = append(o.queue, line)
	o.frames++
	o.bytes += len(line)
	o.cond.Signal()
}

func (o *rpcOutbox) failLocked(err error) {
	if o.err == nil {
		o.err = err
		close(o.dead)
		o.cond.Signal()
	}
}

// failure returns the first failure, or nil.
func (o *rpcOutbox) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// close stops accepting lines; run writes what is queued and returns.
func (o *rpcOutbox) close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Signal()
	o.mu.Unlock()
}

// run writes queued lines until close has been called and the queue is
// empty, or until a failure. It is the writer goroutine; done is closed
// when it returns.
func (o *rpcOutbox) run() {
	defer close(o.done)
	bw := bufio.NewWriterSize(o.w, 64<<10)
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closed && o.err == nil {
			o.cond.Wait()
		}
		if o.err != nil {
			o.mu.Unlock()
			return
		}
		batch := o.queue
		o.queue = nil
		if len(batch) == 0 { // closed and empty
			o.mu.Unlock()
			close(o.drained)
			return
		}
		o.mu.Unlock()

		n := 0
		var err error
		for _, line := range batch {
			if _, err = bw.Write(line); err != nil {
				break
			}
			n += len(line)
		}
		if err == nil {
			err = bw.Flush()
		}
		o.mu.Lock()
		o.frames -= len(batch)
		o.bytes -= n
		if err != nil {
			o.failLocked(fmt.Errorf("rpc: write to stdout: %w (the client closed its end)", err))
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
	}
}
