package ext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/zut-go/zut/proto"
)

// Capabilities the SDK advertises in hello for protocol v2: everything it
// implements, including tool_cancel, so that the host tells it of
// abandoned calls. The additions follow, when used (added.go).
var capabilities = []string{
	proto.CapCommands, proto.CapTools, proto.CapAlerts, proto.CapPanels, proto.CapToolCancel,
}

// shutdownGrace bounds how long RunIO waits for running handlers once the
// connection has ended. Handlers see their context cancelled; one that
// ignores it is left behind.
const shutdownGrace = time.Second

// Run serves the extension on os.Stdin and os.Stdout until the host sends
// shutdown or closes stdin, then returns. It points os.Stdout at os.Stderr
// first, so that stray prints go to the extension's log. When serving
// fails, Run writes the error to stderr and exits with status 1.
func (e *Extension) Run() {
	out := os.Stdout
	os.Stdout = os.Stderr
	if err := e.RunIO(context.Background(), os.Stdin, out); err != nil {
		e.Logf("%v", err)
		os.Exit(1)
	}
}

// RunIO is Run on r and w: it sends hello, waits for hello_ack, runs the
// OnHello functions, announces the registrations, sends ready, and then
// dispatches the host's frames until shutdown (answered with shutdown_ack)
// or the end of r; both return nil. Handlers still running then have
// their contexts cancelled and get up to one second to return.
//
// When ctx ends, handler contexts are cancelled and RunIO returns
// ctx.Err() as soon as a read of r returns; when r has a
// SetReadDeadline method (an *os.File pipe, a net.Conn) that read is
// interrupted at once. RunIO does not close r or w. One RunIO may run at a
// time for an Extension.
func (e *Extension) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	c, err := e.attach(ctx, w)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() {
		if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Now())
		}
	})
	defer stop()
	err = c.serve(ctx, proto.NewReader(r, proto.MaxLine))
	c.end()
	e.detach()
	return err
}

// attach makes c the extension's connection and sends hello.
func (e *Extension) attach(ctx context.Context, w io.Writer) (*conn, error) {
	cctx, cancel := context.WithCancel(ctx)
	c := &conn{
		e: e, ctx: cctx, cancel: cancel, w: w,
		subscribed: map[string]bool{}, intercepted: map[string]bool{},
		calls: map[string]context.CancelFunc{},
		wake:  make(chan struct{}, 1), quit: make(chan struct{}),
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c != nil {
		cancel()
		return nil, fmt.Errorf("run extension %q: it is already running; call Run or RunIO once at a time", e.name)
	}
	e.c, e.ended = c, false
	c.workers.Add(1)
	go c.serial()
	if err := c.write(proto.Hello{ProtocolVersion: proto.ProtocolVersion, Name: e.name, Version: e.version, Capabilities: e.helloCapabilitiesLocked()}); err != nil {
		e.c = nil
		c.end()
		return nil, fmt.Errorf("run extension %q: %w", e.name, err)
	}
	return c, nil
}

// detach forgets the ended connection; later one-way frames get ErrClosed.
func (e *Extension) detach() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.c, e.ended = nil, true
	e.early = nil
}

// conn is one connection to the host, from hello to its end. Its reader is
// the goroutine running serve; it owns the serial goroutine (events and
// panel keys, in order) and one goroutine per request, all joined by end.
type conn struct {
	e      *Extension
	ctx    context.Context // cancelled when the connection ends; parent of every call's
	cancel context.CancelFunc

	wmu    sync.Mutex
	w      io.Writer
	line   []byte
	werr   error // sticky write error
	closed bool  // shutdown_ack was sent, or the connection ended

	// Guarded by e.mu.
	acked       bool // hello_ack was read
	ready       bool // ready was sent: registrations go out at once
	subscribed  map[string]bool
	intercepted map[string]bool

	cmu   sync.Mutex
	calls map[string]context.CancelFunc // tool calls in flight, by id

	hc hostCalls // host requests in flight (added.go)

	workers sync.WaitGroup // the serial goroutine and the request goroutines

	qmu   sync.Mutex
	queue []func()
	wake  chan struct{} // the queue has work (cap 1)
	quit  chan struct{} // closed by end: the serial goroutine returns
}

// write encodes f and writes it as one line. After a write error every
// later write fails with it, and the handlers' contexts are cancelled:
// the host is gone.
func (c *conn) write(f proto.Frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.werr != nil {
		return c.werr
	}
	line, err := proto.AppendFrame(c.line[:0], f)
	if err != nil {
		return err
	}
	if _, err := c.w.Write(line); err != nil {
		c.werr = fmt.Errorf("write %s frame to the host: %w", f.Type(), err)
		c.cancel()
		return c.werr
	}
	if cap(line) <= 64<<10 {
		c.line = line
	} else {
		c.line = nil
	}
	return nil
}

// close makes later writes fail with ErrClosed.
func (c *conn) close() {
	c.wmu.Lock()
	c.closed = true
	c.wmu.Unlock()
}

// enqueue adds fn to the serial queue.
func (c *conn) enqueue(fn func()) {
	c.qmu.Lock()
	c.queue = append(c.queue, fn)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// serial runs queued functions in order until quit is closed; what is
// still queued then is dropped.
func (c *conn) serial() {
	defer c.workers.Done()
	for {
		select {
		case <-c.wake:
		case <-c.quit:
			return
		}
		for {
			c.qmu.Lock()
			if len(c.queue) == 0 {
				c.queue = nil
				c.qmu.Unlock()
				break
			}
			fn := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.qmu.Unlock()
			select {
			case <-c.quit:
				return
			default:
			}
			fn()
		}
	}
}

// goRequest runs fn on its own goroutine, joined by end.
// afterEvents runs fn on its own goroutine once every event that arrived
// before it has been handled, so that a request (a tool call, a command, an
// interceptor) sees the state those events restored, such as the session
// state of session_opened, while a slow request never holds up later
// events.
func (c *conn) afterEvents(fn func()) {
	c.enqueue(func() { c.goRequest(fn) })
}

func (c *conn) goRequest(fn func()) {
	c.workers.Add(1)
	go func() {
		defer c.workers.Done()
		fn()
	}()
}

// end cancels every handler, stops the serial goroutine and waits up to
// shutdownGrace for the handlers to return.
func (c *conn) end() {
	c.cancel()
	c.failHostCalls()
	close(c.quit)
	done := make(chan struct{})
	go func() {
		c.workers.Wait()
		close(done)
	}()
	t := time.NewTimer(shutdownGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.e.Logf("handlers still running %v after the connection ended; they ignore their context", shutdownGrace)
	}
	c.close()
}

// serve reads and dispatches the host's frames until shutdown, the end of
// the input, or ctx's end.
func (c *conn) serve(ctx context.Context, r *proto.Reader) error {
	for {
		f, err := r.Read()
		if err != nil {
			var (
				tooLong *proto.LineTooLongError
				unknown *proto.UnknownTypeError
				bad     *proto.InvalidFrameError
			)
			switch {
			case errors.As(err, &tooLong), errors.As(err, &unknown):
				c.e.Logf("%v", err)
				continue
			case errors.As(err, &bad):
				c.e.Logf("%v", err)
				c.answerBroken(bad)
				continue
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.Is(err, io.EOF):
				if !c.isAcked() {
					return fmt.Errorf("run extension %q: the host closed stdin before hello_ack", c.e.name)
				}
				return nil
			}
			return fmt.Errorf("run extension %q: read from the host: %w", c.e.name, err)
		}
		done, err := c.dispatch(f)
		if done || err != nil {
			return err
		}
	}
}

func (c *conn) isAcked() bool {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	return c.acked
}
