package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/zut-go/zut/proto"
)

// Additive capabilities beyond protocol v2. An extension asks for the ones
// it uses in its hello; the SDK adds them itself for what is registered
// before Run (an events2 event, a new interceptor, a shortcut, a renderer,
// an option ...). Methods called at run time that need one (Select,
// Print, Messages, ...) need it declared with Use before Run; otherwise
// they return a *CapabilityError.
const (
	CapHostRequests = proto.CapHostRequests // requests to the host: dialogs, session, model, tools, completions, options, app control
	CapEvents2      = proto.CapEvents2      // the lifecycle events added beyond v2
	CapIntercepts2  = proto.CapIntercepts2  // the interceptions added beyond v2
	CapUI2          = proto.CapUI2          // print, header, footer, shortcuts, editor keys, renderers, progress
)

// CapabilityError reports a method whose capability the extension did not
// declare before Run (Host false), or that the host does not offer (Host
// true).
type CapabilityError struct {
	Method     string
	Capability string
	Host       bool
}

func (e *CapabilityError) Error() string {
	if e.Host {
		return fmt.Sprintf("%s: the host does not offer the capability %q; use a zut that does", e.Method, e.Capability)
	}
	return fmt.Sprintf("%s: needs the capability %q; call e.Use(ext.%s) before Run", e.Method, e.Capability, capName(e.Capability))
}

func capName(c string) string {
	switch c {
	case CapHostRequests:
		return "CapHostRequests"
	case CapEvents2:
		return "CapEvents2"
	case CapIntercepts2:
		return "CapIntercepts2"
	}
	return "CapUI2"
}

// HostError is an error the host answered a request with.
type HostError struct {
	Method  string
	Message string // the host's message, for a person
}

func (e *HostError) Error() string { return e.Message }

// addState is what the extension registered through the additions.
// Guarded by Extension.mu.
type addState struct {
	caps          map[string]bool // declared before hello
	helloCaps     map[string]bool // sent in hello (fixed once Run starts)
	shortcuts     map[string]func()
	completions   map[string]func(prefix string) []string
	editorKeys    []string
	editorFn      func(EditorKey) EditorAction
	toolRenderers map[string]ToolRenderer
	msgRenderers  map[string]func(content string, width int) []string
	customs       map[string][]func(CustomEvent)
	intercepts    map[string][]interceptor
}

// interceptor applies one additive interceptor to a response; it reports
// whether the chain of the extension ends (handled, cancelled).
type interceptor func(f *proto.EventIntercept, r *proto.EventInterceptResponse) (stop bool)

// Use declares additive capabilities the extension uses at run time (for
// example CapHostRequests for Select in a command). Call it before Run.
func (e *Extension) Use(caps ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range caps {
		e.declareLocked(c)
	}
}

// declareLocked adds c to the capabilities of the next hello. e.mu held.
func (e *Extension) declareLocked(c string) {
	if e.add.caps == nil {
		e.add.caps = map[string]bool{}
	}
	e.add.caps[c] = true
	if e.c != nil && !e.add.helloCaps[c] {
		// Logf takes only logMu.
		e.Logf("capability %q is used after the hello was sent; declare it with Use before Run, or the host ignores what needs it", c)
	}
}

// helloCapabilities lists the capabilities of hello: protocol v2's, then
// the declared additions in the host's order. e.mu held.
func (e *Extension) helloCapabilitiesLocked() []string {
	caps := slices.Clone(capabilities)
	e.add.helloCaps = map[string]bool{}
	for _, c := range proto.HostCapabilities {
		if e.add.caps[c] {
			caps = append(caps, c)
			e.add.helloCaps[c] = true
		}
	}
	return caps
}

// needs reports a *CapabilityError when the capability c was not sent in
// hello or the host does not offer it. Before the handshake only the
// declaration is checked.
func (e *Extension) needs(method, c string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	declared := e.add.caps[c]
	if e.c != nil {
		declared = e.add.helloCaps[c]
	}
	if !declared {
		return &CapabilityError{Method: method, Capability: c}
	}
	if e.c != nil && e.c.acked && !slices.Contains(e.info.Capabilities, c) {
		return &CapabilityError{Method: method, Capability: c, Host: true}
	}
	return nil
}

// hostCalls are the host requests in flight on a connection.
type hostCalls struct {
	mu    sync.Mutex
	seq   int
	calls map[string]*hostCall
}

// hostCall is one request waiting for its host_response; stream chunks
// queue up for the waiting goroutine, which runs the chunk callback.
type hostCall struct {
	mu     sync.Mutex
	chunks []string
	resp   *proto.HostResponse
	err    error
	wake   chan struct{} // cap 1
}

func (hc *hostCall) signal() {
	select {
	case hc.wake <- struct{}{}:
	default:
	}
}

// request sends a host_request and waits for its response, passing
// streamed chunks to onChunk (when set) on the calling goroutine. The
// result is decoded into out (when set).
func (e *Extension) request(ctx context.Context, method string, params, out any, onChunk func(string)) error {
	if err := e.needs(method, CapHostRequests); err != nil {
		return err
	}
	e.mu.Lock()
	c := e.c
	ready := c != nil && c.ready
	e.mu.Unlock()
	if !ready {
		if c == nil {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		return fmt.Errorf("%s: the handshake with the host has not finished; call it from a handler, after Run started", method)
	}
	raw := json.RawMessage(`{}`)
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
		raw = b
	}
	hc := &hostCall{wake: make(chan struct{}, 1)}
	c.hc.mu.Lock()
	if c.hc.calls == nil {
		c.hc.calls = map[string]*hostCall{}
	}
	c.hc.seq++
	id := "h" + strconv.Itoa(c.hc.seq)
	c.hc.calls[id] = hc
	c.hc.mu.Unlock()
	forget := func() {
		c.hc.mu.Lock()
		delete(c.hc.calls, id)
		c.hc.mu.Unlock()
	}
	if err := c.write(proto.HostRequest{ID: id, Method: method, Params: raw}); err != nil {
		forget()
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		select {
		case <-hc.wake:
		case <-ctx.Done():
			forget()
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		hc.mu.Lock()
		chunks, resp, err := hc.chunks, hc.resp, hc.err
		hc.chunks = nil
		hc.mu.Unlock()
		if onChunk != nil {
			for _, s := range chunks {
				e.guard(method+" chunk callback", func() { onChunk(s) })
			}
		}
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", method, err)
		case resp == nil:
			continue
		case resp.Error != "":
			return &HostError{Method: method, Message: resp.Error}
		case out != nil:
			if err := json.Unmarshal(resp.Result, out); err != nil {
				return fmt.Errorf("%s: decode the host's result: %w", method, err)
			}
		}
		return nil
	}
}

// hostResponse delivers a host_response or host_stream to its call.
func (c *conn) hostResponse(id string, resp *proto.HostResponse, chunk *string) {
	c.hc.mu.Lock()
	hc := c.hc.calls[id]
	if hc != nil && resp != nil {
		delete(c.hc.calls, id)
	}
	c.hc.mu.Unlock()
	if hc == nil {
		c.e.Logf("ignored a host answer for request %q: nothing waits for it", id)
		return
	}
	hc.mu.Lock()
	if resp != nil {
		hc.resp = resp
	} else {
		hc.chunks = append(hc.chunks, *chunk)
	}
	hc.mu.Unlock()
	hc.signal()
}

// failHostCalls ends every request in flight when the connection ends.
func (c *conn) failHostCalls() {
	c.hc.mu.Lock()
	calls := c.hc.calls
	c.hc.calls = nil
	c.hc.mu.Unlock()
	for _, hc := range calls {
		hc.mu.Lock()
		hc.err = ErrClosed
		hc.mu.Unlock()
		hc.signal()
	}
}

// sendAdded writes a one-way frame of an addition after checking that its
// capability was declared.
func (e *Extension) sendAdded(method, c string, f proto.Frame) error {
	if err := e.needs(method, c); err != nil {
		return err
	}
	return e.send(f)
}
