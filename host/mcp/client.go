package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// sink receives what a transport reads. Its methods are safe for
// concurrent use: HTTP transports deliver from several streams at once.
type sink interface {
	deliver(data []byte)      // one message or batch from the server
	lost(id int64, err error) // the answer to request id can no longer come
	gone(err error)           // nothing more can be received
	logf(format string, v ...any)
}

// transport moves messages between a Client and one server.
type transport interface {
	// send delivers m to the server; answers arrive through the sink.
	send(ctx context.Context, m outgoing) error
	// ready tells the transport the negotiated protocol version, after
	// initialize and before notifications/initialized.
	ready(version string)
	// reset forgets an expired HTTP session before a new initialize.
	reset()
	// close ends the connection and joins every goroutine it started.
	close() error
	// kind is "stdio", "http" or "sse".
	kind() string
}

// SamplingFunc answers a server's sampling/createMessage request: params
// is the request's params object; the result must be a CreateMessageResult
// object. An *RPCError is sent to the server as it is; other errors are
// sent as "refused" (CodeRefused). nil in ClientOptions means zut offers no
// sampling: the capability is not declared and such requests get "method
// not found".
type SamplingFunc func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)

// ClientOptions configure one connection.
type ClientOptions struct {
	Info        Implementation // zut's clientInfo
	InitTimeout time.Duration  // for initialize; 30s when zero
	Sampling    SamplingFunc
	// Elicitation answers a server's elicitation/create (form and URL
	// modes); nil declares no elicitation and refuses such requests.
	Elicitation ElicitFunc

	// Changed is called with "tools", "prompts" or "resources" when the
	// server says that list changed. Note reports a problem worth showing
	// to the user. Both run on the connection's reader goroutine and must
	// return promptly; they may be nil.
	Changed func(list string)
	Note    func(msg string)

	// Trace sees every message sent (out) and received, with the method
	// it belongs to (a response carries the method of its request). It is
	// meant for tests and debugging; it may be nil.
	Trace func(out bool, method string, data []byte)
}

// Client is one initialized connection to one MCP server. Its methods are
// safe for concurrent use. Close ends it; a Client whose server went away
// fails every request with a *StoppedError.
type Client struct {
	name string
	t    transport
	opts ClientOptions
	log  *logFile
	// ownsLog: Close closes the log too (set by Connect once started).
	ownsLog bool

	// Set by initialize, read-only afterwards (except during a session
	// renewal, which holds initMu).
	version      string
	server       Implementation
	caps         ServerCapabilities
	instructions string
	initMu       sync.Mutex
	generation   atomic.Int64 // counts initializations (HTTP session renewals)

	nextID   atomic.Int64
	mu       sync.Mutex
	pending  map[int64]*pendingCall
	incoming map[string]context.CancelFunc // server requests being served, by raw id
	err      error                         // why the connection ended
	dead     chan struct{}
	handlers sync.WaitGroup // goroutines serving server requests
	noted    map[string]bool
}

type pendingCall struct {
	method   string
	ch       chan callAnswer
	mu       sync.Mutex // held while progress runs, and to mark done
	done     bool
	progress func(Progress)
}

type callAnswer struct {
	result json.RawMessage
	err    error
}

func newClient(name string, t transport, log *logFile, opts ClientOptions) *Client {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = 30 * time.Second
	}
	return &Client{name: name, t: t, opts: opts, log: log,
		pending: map[int64]*pendingCall{}, incoming: map[string]context.CancelFunc{},
		dead: make(chan struct{}), noted: map[string]bool{}}
}

// Name is the server's name in zut's configuration.
func (c *Client) Name() string { return c.name }

// Version is the negotiated protocol revision.
func (c *Client) Version() string { return c.version }

// Server is the serverInfo the server sent.
func (c *Client) Server() Implementation { return c.server }

// Capabilities are the server's capabilities.
func (c *Client) Capabilities() ServerCapabilities { return c.caps }

// Instructions are the server's instructions for the model, or "".
func (c *Client) Instructions() string { return c.instructions }

// Transport is "stdio", "http" or "sse".
func (c *Client) Transport() string { return c.t.kind() }

// LogPath is the server's log file.
func (c *Client) LogPath() string { return c.log.path }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.dead }

// Err says why the connection ended, or nil while it is up.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: pending requests fail, the transport is
// closed (a stdio server is stopped, an HTTP session deleted) and every
// goroutine of the connection is joined.
func (c *Client) Close() error {
	c.fail(errClosed)
	var err error
	if c.t != nil {
		err = c.t.close()
	}
	c.handlers.Wait()
	if c.ownsLog {
		c.log.close()
	}
	return err
}

// initialize performs the handshake (lifecycle: initialization).
func (c *Client) initialize(ctx context.Context) error {
	caps := map[string]any{}
	if c.opts.Sampling != nil {
		caps["sampling"] = map[string]any{}
	}
	if c.opts.Elicitation != nil {
		caps["elicitation"] = map[string]any{"form": map[string]any{}, "url": map[string]any{}}
	}
	params := initializeParams{ProtocolVersion: Versions[0], Capabilities: caps, ClientInfo: c.opts.Info}
	ctx, cancel := context.WithTimeout(ctx, c.opts.InitTimeout)
	defer cancel()
	raw, err := c.request(ctx, "initialize", params, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return fmt.Errorf("mcp server %q did not answer initialize within %v; check that it speaks MCP on %s (see its log)", c.name, c.opts.InitTimeout, c.t.kind())
		}
		return err
	}
	var res initializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return &CallError{Server: c.name, Method: "initialize", Err: fmt.Errorf("unusable result: %v", err)}
	}
	if !slices.Contains(Versions, res.ProtocolVersion) {
		return fmt.Errorf("mcp server %q speaks protocol version %q, but zut speaks %s; update the server or zut",
			c.name, res.ProtocolVersion, strings.Join(Versions, ", "))
	}
	c.version, c.caps, c.server, c.instructions = res.ProtocolVersion, res.Capabilities, res.ServerInfo, res.Instructions
	c.generation.Add(1)
	c.t.ready(res.ProtocolVersion)
	c.logf("initialized: protocol %s, server %s %s", res.ProtocolVersion, res.ServerInfo.Name, res.ServerInfo.Version)
	if err := c.notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	if l, ok := c.t.(listener); ok {
		l.awaitListen(ctx)
	}
	return nil
}

// listener is a transport with a stream for the messages a server starts
// that is opened after initialize; initialize waits for it to be open.
type listener interface {
	awaitListen(ctx context.Context)
}

// renew starts a new HTTP session after the old one expired, unless
// another request did so since generation gen.
func (c *Client) renew(ctx context.Context, gen int64) error {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	if c.generation.Load() != gen {
		return nil
	}
	c.logf("session expired; initializing a new one")
	c.t.reset()
	return c.initialize(ctx)
}

// request sends method and waits for its answer. When ctx ends first,
// the server is told the request is cancelled. progress, when not nil,
// receives the request's progress notifications.
func (c *Client) request(ctx context.Context, method string, params any, progress func(Progress)) (json.RawMessage, error) {
	for attempt := 0; ; attempt++ {
		gen := c.generation.Load()
		raw, err := c.requestOnce(ctx, method, params, progress)
		var expired sessionExpiredError
		if attempt == 0 && method != "initialize" && errors.As(err, &expired) {
			if rerr := c.renew(ctx, gen); rerr != nil {
				return nil, rerr
			}
			continue
		}
		return raw, err
	}
}

// sendFailGrace bounds the wait for a server's end after a write to it
// failed.
const sendFailGrace = 2 * time.Second

func (c *Client) requestOnce(ctx context.Context, method string, params any, progress func(Progress)) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	if progress != nil {
		params = withProgressToken(params, id)
	}
	data, err := encode(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	pc := &pendingCall{method: method, ch: make(chan callAnswer, 1), progress: progress}
	c.mu.Lock()
	if c.err != nil {
		err := c.stopped(c.err)
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = pc
	c.mu.Unlock()
	defer func() {
		pc.mu.Lock()
		pc.done = true
		pc.mu.Unlock()
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	c.trace(true, method, data)
	if err := c.t.send(ctx, outgoing{data: data, id: id, method: method}); err != nil {
		if ctx.Err() != nil {
			return nil, c.cancelled(ctx, id, method)
		}
		var expired sessionExpiredError
		if errors.As(err, &expired) {
			return nil, err
		}
		// A write that fails (a broken pipe) usually means the server is
		// exiting: wait a moment for the end, so that the error says how
		// it ended (its exit status) rather than how the write failed.
		end := time.NewTimer(sendFailGrace)
		defer end.Stop()
		select {
		case <-c.dead:
			return nil, c.stopped(c.Err())
		case <-end.C:
		case <-ctx.Done():
		}
		return nil, &CallError{Server: c.name, Method: method, Err: err}
	}
	select {
	case a := <-pc.ch:
		return a.result, a.err
	case <-c.dead:
		select { // an answer that came just before the end still counts
		case a := <-pc.ch:
			return a.result, a.err
		default:
		}
		return nil, c.stopped(c.Err())
	case <-ctx.Done():
		return nil, c.cancelled(ctx, id, method)
	}
}

// cancelled tells the server that request id is abandoned and returns the
// error for the caller.
func (c *Client) cancelled(ctx context.Context, id int64, method string) error {
	if method != "initialize" { // lifecycle: initialize must not be cancelled
		reason := "cancelled by the user"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "timed out in zut"
		}
		nctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = c.notify(nctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
		cancel()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("mcp server %q: %s: %w", c.name, method, context.DeadlineExceeded)
	}
	return &CancelledError{Server: c.name, Method: method}
}

// notify sends a notification.
func (c *Client) notify(ctx context.Context, method string, params any) error {
	data, err := encode(notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return err
	}
	if err := c.Err(); err != nil {
		return c.stopped(err)
	}
	c.trace(true, method, data)
	if err := c.t.send(ctx, outgoing{data: data, method: method}); err != nil {
		return &CallError{Server: c.name, Method: method, Err: err}
	}
	return nil
}

// withProgressToken adds _meta.progressToken to a params object.
func withProgressToken(params any, id int64) any {
	m := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = id
	m["_meta"] = meta
	return m
}

func (c *Client) stopped(err error) error {
	if err == nil {
		err = errors.New("connection ended")
	}
	return &StoppedError{Server: c.name, Log: c.log.path, Err: err}
}

// fail ends the connection with err (the first cause wins) and fails every
// pending request.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.dead)
	for _, cancel := range c.incoming {
		cancel()
	}
	c.mu.Unlock()
	if !errors.Is(err, errClosed) {
		c.logf("connection ended: %v", err)
	}
}

func (c *Client) trace(out bool, method string, data []byte) {
	if c.opts.Trace != nil {
		c.opts.Trace(out, method, data)
	}
}

func (c *Client) logf(format string, v ...any) { c.log.printf(format, v...) }

// note reports a problem once per kind to the user, and always to the log.
func (c *Client) note(kind, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	c.logf("%s", msg)
	c.mu.Lock()
	seen := c.noted[kind]
	c.noted[kind] = true
	c.mu.Unlock()
	if !seen && c.opts.Note != nil {
		c.opts.Note(msg)
	}
}

// The sink, called by the transport.

func (c *Client) gone(err error) { c.fail(err) }

func (c *Client) lost(id int64, err error) {
	c.mu.Lock()
	pc := c.pending[id]
	c.mu.Unlock()
	if pc != nil {
		select {
		case pc.ch <- callAnswer{err: &CallError{Server: c.name, Method: pc.method, Err: err}}:
		default:
		}
	}
}

func (c *Client) deliver(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' { // a JSON-RPC batch (2025-03-26)
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			c.note("malformed", "mcp server %q sent a message that is not JSON (%v); skipped it: %s", c.name, err, clip(data, 120))
			return
		}
		for _, m := range batch {
			c.handle(m)
		}
		return
	}
	c.handle(data)
}

func (c *Client) handle(data []byte) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		c.note("malformed", "mcp server %q sent a message that is not JSON (%v); skipped it: %s", c.name, err, clip(data, 120))
		return
	}
	if w.JSONRPC != "2.0" {
		c.note("malformed", "mcp server %q sent a message without \"jsonrpc\": \"2.0\"; skipped it: %s", c.name, clip(data, 120))
		return
	}
	switch w.kind() {
	case kindResponse:
		c.answer(&w, data)
	case kindRequest:
		c.trace(false, w.Method, data)
		c.serve(&w)
	case kindNotification:
		c.trace(false, w.Method, data)
		c.notification(&w)
	default:
		c.note("malformed", "mcp server %q sent a JSON-RPC message that is neither request, notification nor response; skipped it: %s", c.name, clip(data, 120))
	}
}

func (c *Client) answer(w *wire, data []byte) {
	id, ok := intID(w.ID)
	c.mu.Lock()
	pc := c.pending[id]
	c.mu.Unlock()
	if !ok || pc == nil {
		if w.Error != nil && len(w.ID) == 0 {
			c.logf("error without id from the server: %v", w.Error)
		} else {
			c.logf("answer to no pending request (id %s); ignored", w.ID)
		}
		return
	}
	c.trace(false, pc.method, data)
	a := callAnswer{result: w.Result}
	if w.Error != nil {
		a = callAnswer{err: &CallError{Server: c.name, Method: pc.method, Err: w.Error}}
	} else if len(w.Result) == 0 || string(w.Result) == "null" {
		a = callAnswer{err: &CallError{Server: c.name, Method: pc.method, Err: errors.New("the answer has no result object")}}
	}
	select {
	case pc.ch <- a:
	default:
	}
}

func (c *Client) notification(w *wire) {
	switch w.Method {
	case "notifications/progress":
		var p progressParams
		if json.Unmarshal(w.Params, &p) != nil {
			return
		}
		id, ok := intID(p.ProgressToken)
		if !ok {
			return
		}
		c.mu.Lock()
		pc := c.pending[id]
		c.mu.Unlock()
		if pc == nil || pc.progress == nil {
			return
		}
		pr := Progress{Progress: p.Progress, Message: p.Message}
		if p.Total != nil {
			pr.Total = *p.Total
		}
		pc.mu.Lock()
		if !pc.done {
			pc.progress(pr)
		}
		pc.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(w.Params, &p) == nil {
			c.mu.Lock()
			cancel := c.incoming[string(bytes.TrimSpace(p.RequestID))]
			c.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		list := strings.TrimSuffix(strings.TrimPrefix(w.Method, "notifications/"), "/list_changed")
		c.logf("the %s list changed", list)
		if c.opts.Changed != nil {
			c.opts.Changed(list)
		}
	case "notifications/elicitation/complete":
		c.logf("the server says a URL elicitation is complete: %s", clip(w.Params, 200))
	case "notifications/message":
		var p struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(w.Params, &p) == nil {
			var s string
			if json.Unmarshal(p.Data, &s) != nil {
				s = string(p.Data)
			}
			c.logf("server log [%s] %s %s", p.Level, p.Logger, clip([]byte(s), 2000))
		}
	default:
		c.logf("notification %s ignored", w.Method)
	}
}

// serve answers a request from the server on a goroutine of its own.
func (c *Client) serve(w *wire) {
	key := string(bytes.TrimSpace(w.ID))
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		cancel()
		return
	}
	c.incoming[key] = cancel
	c.handlers.Add(1)
	c.mu.Unlock()
	id, method, params := w.ID, w.Method, w.Params
	go func() {
		defer c.handlers.Done()
		defer func() {
			c.mu.Lock()
			delete(c.incoming, key)
			c.mu.Unlock()
			cancel()
		}()
		result, rerr := c.serverRequest(ctx, method, params)
		var msg any
		if rerr != nil {
			msg = errorResponse{JSONRPC: "2.0", ID: id, Error: rerr}
		} else {
			msg = resultResponse{JSONRPC: "2.0", ID: id, Result: result}
		}
		data, err := encode(msg)
		if err != nil {
			return
		}
		if ctx.Err() != nil && c.Err() != nil {
			return
		}
		c.trace(true, method, data)
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		if err := c.t.send(sctx, outgoing{data: data, method: method}); err != nil {
			c.logf("answer %s: %v", method, err)
		}
	}()
}

func (c *Client) serverRequest(ctx context.Context, method string, params json.RawMessage) (any, *RPCError) {
	switch method {
	case "ping":
		return struct{}{}, nil
	case "sampling/createMessage":
		if c.opts.Sampling == nil {
			c.note("sampling", "mcp server %q asked zut to sample the model (sampling/createMessage); zut does not offer sampling, so it refused", c.name)
			return nil, &RPCError{Code: CodeMethodNotFound, Message: "zut does not offer sampling/createMessage"}
		}
		res, err := c.opts.Sampling(ctx, c.name, params)
		if err != nil {
			var rpc *RPCError
			if errors.As(err, &rpc) {
				return nil, rpc
			}
			return nil, &RPCError{Code: CodeRefused, Message: err.Error()}
		}
		return res, nil
	case "elicitation/create":
		return c.elicit(ctx, params)
	case "roots/list":
		return nil, &RPCError{Code: CodeMethodNotFound, Message: "zut does not offer roots/list; give the server its directories in its arguments"}
	}
	c.logf("request %s refused: not supported", method)
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.request(ctx, "ping", nil, nil)
	return err
}

func clip(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return fmt.Sprintf("%q", s)
}
