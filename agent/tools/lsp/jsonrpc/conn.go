package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// ErrClosed is the error of calls on a connection closed by its owner.
var ErrClosed = errors.New("connection closed")

// Options configure a Conn. Every field may be left zero.
type Options struct {
	// MaxFrame bounds the body of one incoming message; DefaultMaxFrame
	// when zero.
	MaxFrame int
	// Request answers a request of the peer. It runs on a goroutine of its
	// own, with a context that ends when the connection does; it returns
	// the result to encode, or an error (an *Error picks the code, any
	// other error is sent as InternalError). Nil answers MethodNotFound.
	Request func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// Notification handles a notification of the peer. It runs on the
	// reading goroutine, in arrival order, and must not block.
	Notification func(method string, params json.RawMessage)
	// CancelMethod is the notification sent when a Call's context ends
	// before its answer, with params {"id": <id>}; "$/cancelRequest" in
	// the LSP. Empty sends nothing.
	CancelMethod string
}

// Conn is one JSON-RPC connection over a byte stream pair. It owns a
// reading goroutine, a writing goroutine and one goroutine per request of
// the peer being answered; Close joins them all. Writes go out in the
// order they were made. A Conn is safe for concurrent use.
type Conn struct {
	opts Options
	r    io.ReadCloser
	w    io.WriteCloser

	out  chan []byte   // frames to write, in order
	done chan struct{} // closed when the connection ends
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan *incoming
	err     error // why the connection ended; set once, before done closes
}

// NewConn starts a connection reading frames from r and writing them to w.
// Close closes both, which must unblock a pending Read or Write (pipes,
// os.Pipe files and sockets do).
func NewConn(r io.ReadCloser, w io.WriteCloser, opts Options) *Conn {
	c := &Conn{
		opts:    opts,
		r:       r,
		w:       w,
		out:     make(chan []byte, 128),
		done:    make(chan struct{}),
		pending: map[int64]chan *incoming{},
	}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c
}

// Done is closed when the connection has ended, by Close or because the
// stream failed; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (io.EOF when the peer closed its
// end cleanly), or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection, closes both streams and waits for every
// goroutine of the connection. Pending calls fail with ErrClosed.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	c.r.Close()
	c.w.Close()
	c.wg.Wait()
	return nil
}

// fail ends the connection with err, unless it has ended already.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.pending = map[int64]chan *incoming{}
	close(c.done)
	c.stop()
}

// Call sends a request and waits for its answer, decoding the result into
// result (which may be nil to ignore it). An error answer is returned as
// an *Error. When ctx ends first, Call sends the cancel notification and
// returns ctx.Err(); when the connection ends first, it returns an error
// wrapping the cause.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("encode %s params: %v", method, err)
	}
	id := c.nextID.Add(1)
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: &id, Method: method, Params: p})
	if err != nil {
		return fmt.Errorf("encode %s: %v", method, err)
	}
	ch := make(chan *incoming, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.endedError()
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(ctx, body); err != nil {
		c.forget(id)
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 && string(m.Result) != "null" {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("decode %s result: %v", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		if c.opts.CancelMethod != "" {
			if b, err := json.Marshal(request{JSONRPC: "2.0", Method: c.opts.CancelMethod, Params: json.RawMessage(fmt.Sprintf(`{"id":%d}`, id))}); err == nil {
				c.trySend(b)
			}
		}
		return ctx.Err()
	case <-c.done:
		return c.endedError()
	}
}

// Notify sends a notification. It returns once the message is queued; a
// failure to write it ends the connection.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	p, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("encode %s params: %v", method, err)
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", Method: method, Params: p})
	if err != nil {
		return fmt.Errorf("encode %s: %v", method, err)
	}
	return c.send(ctx, body)
}

// endedError wraps the cause the connection ended with.
func (c *Conn) endedError() error {
	err := c.Err()
	if err == ErrClosed {
		return ErrClosed
	}
	if err == io.EOF {
		return fmt.Errorf("connection closed by the peer: %w", err)
	}
	return fmt.Errorf("connection failed: %w", err)
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// send queues one frame body for the writer.
func (c *Conn) send(ctx context.Context, body []byte) error {
	select {
	case <-c.done:
		return c.endedError()
	default:
	}
	select {
	case c.out <- body:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return c.endedError()
	}
}

// trySend queues a frame body when there is room, else drops it.
func (c *Conn) trySend(body []byte) {
	select {
	case c.out <- body:
	default:
	}
}

// writeLoop writes queued frames until the connection ends or a write
// fails.
func (c *Conn) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case body := <-c.out:
			if err := Write(c.w, body); err != nil {
				c.fail(fmt.Errorf("write: %w", err))
				return
			}
		case <-c.done:
			return
		}
	}
}

// readLoop reads and dispatches frames until the stream ends or fails.
func (c *Conn) readLoop() {
	defer c.wg.Done()
	fr := NewReader(c.r, c.opts.MaxFrame)
	for {
		body, err := fr.Read()
		if err != nil {
			c.fail(err)
			return
		}
		m, k, err := decode(body)
		if err != nil {
			c.fail(err)
			return
		}
		switch k {
		case kindResponse:
			c.deliver(m)
		case kindNotification:
			if c.opts.Notification != nil {
				c.opts.Notification(m.Method, m.Params)
			}
		case kindRequest:
			c.wg.Add(1)
			go c.answer(m)
		}
	}
}

// deliver hands a response to the call waiting for it; answers to calls
// given up on are dropped.
func (c *Conn) deliver(m *incoming) {
	var id int64
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		ch <- m
	}
}

// answer runs the request handler for one request of the peer and sends
// the response.
func (c *Conn) answer(m *incoming) {
	defer c.wg.Done()
	var result any
	err := &Error{Code: MethodNotFound, Message: "method not found: " + m.Method}
	if c.opts.Request != nil {
		var herr error
		result, herr = c.opts.Request(c.ctx, m.Method, m.Params)
		switch e := herr.(type) {
		case nil:
			err = nil
		case *Error:
			err = e
		default:
			err = &Error{Code: InternalError, Message: herr.Error()}
		}
	}
	resp := response{JSONRPC: "2.0", ID: m.ID, Error: err}
	if err == nil {
		raw, merr := encodeParams(result)
		if merr != nil {
			resp.Error = &Error{Code: InternalError, Message: "encode result: " + merr.Error()}
		} else if raw == nil {
			resp.Result = json.RawMessage("null")
		} else {
			resp.Result = raw
		}
	}
	body, merr := json.Marshal(resp)
	if merr != nil {
		return
	}
	c.send(c.ctx, body)
}
