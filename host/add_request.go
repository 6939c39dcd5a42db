package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zut-go/zut/proto"
)

// Request is one host_request of an extension (capability host_requests)
// handed to Callbacks.HostRequest. Its methods are safe for concurrent
// use.
type Request struct {
	Extension string          // the extension's name
	ID        string          // the extension's own id for the request
	Method    string          // one of the proto.Method constants
	Params    json.RawMessage // the params object; {} when absent

	e      *extension
	cancel context.CancelFunc
	once   sync.Once
	done   chan struct{} // closed once answered
}

// Decode unmarshals Params into v; the error says what is wrong for the
// extension's author.
func (r *Request) Decode(v any) error {
	if err := json.Unmarshal(r.Params, v); err != nil {
		return fmt.Errorf("%s: params are not what the method takes: %v", r.Method, err)
	}
	return nil
}

// Stream sends one chunk of a streamed result as a host_stream frame. It
// does nothing once the request is answered.
func (r *Request) Stream(text string) {
	select {
	case <-r.done:
		return
	default:
	}
	r.e.send(proto.HostStream{ID: r.ID, Text: text})
}

// Respond answers the request: result (encoded as JSON; nil means {}) on
// success, err's message otherwise. Only the first answer counts; it
// reports whether this one did.
func (r *Request) Respond(result any, err error) bool {
	answered := false
	r.once.Do(func() {
		answered = true
		resp := proto.HostResponse{ID: r.ID}
		if err != nil {
			resp.Error = err.Error()
		} else if result != nil {
			b, merr := json.Marshal(result)
			if merr != nil {
				resp.Error = fmt.Sprintf("%s: encode the result: %v", r.Method, merr)
			} else {
				resp.Result = b
			}
		}
		r.e.mu.Lock()
		delete(r.e.add.requests, r.ID)
		r.e.add.answered = time.Now()
		r.e.mu.Unlock()
		close(r.done)
		r.cancel()
		r.e.send(resp)
	})
	return answered
}

// startRequest serves a host_request on a goroutine of its own, joined by
// Close. The request's context ends at its timeout or when the extension
// stops; either answers it with an error.
func (h *Host) startRequest(e *extension, f *proto.HostRequest) {
	params := f.Params
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{}`)
	}
	timeout := h.t.HostRequest
	if proto.UIKind(f.Method) != "" {
		timeout = h.t.UI
		var p struct {
			TimeoutMS int64 `json:"timeout_ms"`
		}
		if json.Unmarshal(params, &p) == nil && p.TimeoutMS > 0 {
			timeout = time.Duration(p.TimeoutMS) * time.Millisecond
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	r := &Request{Extension: e.name, ID: f.ID, Method: f.Method, Params: params, e: e, cancel: cancel, done: make(chan struct{})}
	e.mu.Lock()
	if e.dying {
		e.mu.Unlock()
		cancel()
		return
	}
	if f.ID == "" || e.add.requests[f.ID] != nil {
		e.mu.Unlock()
		cancel()
		e.warn("host_request %q with id %q: the id is empty or already in flight", f.Method, f.ID)
		e.send(proto.HostResponse{ID: f.ID, Error: fmt.Sprintf("%s: the id %q is empty or already used by a request in flight; give each request its own id", f.Method, f.ID)})
		return
	}
	if e.add.requests == nil {
		e.add.requests = map[string]*Request{}
	}
	e.add.requests[f.ID] = r
	e.mu.Unlock()

	// Both goroutines end by the time the request is answered, timed out
	// or abandoned; Close joins them.
	h.reqWG.Add(2)
	go func() {
		defer h.reqWG.Done()
		<-ctx.Done()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && proto.UIKind(r.Method) == "" {
			r.Respond(nil, fmt.Errorf("%s: no answer within %v; the request was abandoned", r.Method, timeout))
		}
	}()
	go func() {
		defer h.reqWG.Done()
		h.serve(ctx, r)
	}()
}

// serve dispatches one request: dialogs to the UI, custom events here,
// the rest to Callbacks.HostRequest.
func (h *Host) serve(ctx context.Context, r *Request) {
	switch {
	case proto.UIKind(r.Method) != "":
		h.dialog(ctx, r)
	case r.Method == proto.MethodAppNotifyCustom:
		var p proto.CustomParams
		if err := r.Decode(&p); err != nil {
			r.Respond(nil, err)
			return
		}
		if p.Name == "" {
			r.Respond(nil, errors.New("app.notify_custom: name is empty; name the custom event"))
			return
		}
		h.EmitCustom(r.Extension, p.Name, p.Data)
		r.Respond(nil, nil)
	case h.cb.HostRequest != nil:
		h.cb.HostRequest(ctx, r)
	default:
		r.Respond(nil, fmt.Errorf("%s: not available in this mode of zut", r.Method))
	}
}

// cancelRequests ends the requests in flight of a dying extension; their
// answers go nowhere.
func (e *extension) cancelRequests() {
	e.mu.Lock()
	reqs := e.add.requests
	e.add.requests = nil
	e.mu.Unlock()
	for _, r := range reqs {
		r.once.Do(func() { close(r.done) })
		r.cancel()
	}
}

// awaitingHost reports whether the extension waits for the answer to a
// host request, and when it last got one; time spent waiting does not
// count against the deadlines of the host's requests to it (a command
// that asks the user a question waits for the answer, then has its whole
// timeout again).
func (e *extension) awaitingHost() (waiting bool, answered time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.add.requests) > 0, e.add.answered
}

// EmitCustom sends the custom event name with data, from the extension
// from, to every other extension subscribed to custom events (capability
// events2). Safe for concurrent use.
func (h *Host) EmitCustom(from, name string, data json.RawMessage) {
	ev := proto.Event{Name: proto.EventCustom, CustomName: name, Data: data, From: from}
	h.mu.Lock()
	exts := h.liveLocked()
	h.mu.Unlock()
	for _, e := range exts {
		if e.name == from {
			continue
		}
		e.mu.Lock()
		sub := e.events[proto.EventCustom]
		e.mu.Unlock()
		if sub {
			e.send(ev)
		}
	}
}

// dialog serves ui.select, ui.confirm, ui.input and ui.overlay through
// Callbacks.UIRequest.
func (h *Host) dialog(ctx context.Context, r *Request) {
	kind := proto.UIKind(r.Method)
	var req proto.UIRequest
	if err := r.Decode(&req); err != nil {
		r.Respond(nil, err)
		return
	}
	if err := checkDialog(kind, &req); err != nil {
		r.Respond(nil, fmt.Errorf("%s: %v", r.Method, err))
		return
	}
	req.ID, req.Kind = nextID(), kind
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMS = max(time.Until(dl).Milliseconds(), 1)
	}
	answers := make(chan proto.UIResponse, 1)
	var once sync.Once
	answer := func(resp proto.UIResponse) { once.Do(func() { answers <- resp }) }
	if h.cb.UIRequest == nil {
		answer(proto.CancelledAnswer())
	} else {
		h.cb.UIRequest(r.Extension, req, answer)
	}
	select {
	case resp := <-answers:
		r.Respond(dialogResult(req, resp), nil)
	case <-ctx.Done():
		once.Do(func() {}) // later answers are ignored
		r.Respond(dialogResult(req, proto.CancelledAnswer()), nil)
		if h.cb.UIRequestDone != nil {
			h.cb.UIRequestDone(r.Extension, req.ID)
		}
	}
}

// checkDialog validates the params of a dialog.
func checkDialog(kind string, req *proto.UIRequest) error {
	switch kind {
	case proto.UISelect:
		if len(req.Options) == 0 {
			return errors.New("options is empty; give at least one option")
		}
	case proto.UIOverlay:
		if req.Title == "" && req.Text == "" {
			return errors.New("title and text are both empty; give the overlay something to show")
		}
		switch req.Anchor {
		case "", proto.AnchorCenter, proto.AnchorTop, proto.AnchorBottom:
		default:
			req.Anchor = proto.AnchorCenter
		}
	}
	return nil
}

// dialogResult turns the UI's answer into the method's result. A
// cancelled dialog returns the default value, cancelled.
func dialogResult(req proto.UIRequest, resp proto.UIResponse) any {
	var s string
	_ = json.Unmarshal(resp.Value, &s)
	switch req.Kind {
	case proto.UISelect:
		if resp.Cancelled {
			def := req.DefaultString()
			return proto.SelectResult{Value: def, Index: slices.Index(req.Options, def), Cancelled: true}
		}
		if resp.Index != nil && *resp.Index >= 0 && *resp.Index < len(req.Options) {
			return proto.SelectResult{Value: req.Options[*resp.Index], Index: *resp.Index}
		}
		if i := slices.Index(req.Options, s); i >= 0 {
			return proto.SelectResult{Value: s, Index: i}
		}
		def := req.DefaultString()
		return proto.SelectResult{Value: def, Index: slices.Index(req.Options, def), Cancelled: true}
	case proto.UIConfirm:
		if resp.Cancelled {
			return proto.ConfirmResult{Value: req.DefaultBool(), Cancelled: true}
		}
		var yes bool
		if json.Unmarshal(resp.Value, &yes) != nil {
			return proto.ConfirmResult{Value: req.DefaultBool(), Cancelled: true}
		}
		return proto.ConfirmResult{Value: yes}
	case proto.UIInput:
		if resp.Cancelled || resp.Value == nil {
			return proto.InputResult{Value: req.DefaultString(), Cancelled: true}
		}
		return proto.InputResult{Value: s}
	default: // overlay
		if resp.Cancelled {
			return proto.OverlayResult{Index: -1, Cancelled: true}
		}
		if resp.Index != nil && *resp.Index >= 0 && *resp.Index < len(req.Actions) {
			return proto.OverlayResult{Action: req.Actions[*resp.Index], Index: *resp.Index}
		}
		if i := slices.Index(req.Actions, resp.Action); i >= 0 {
			return proto.OverlayResult{Action: resp.Action, Index: i}
		}
		if len(req.Actions) == 0 {
			// An overlay without actions is dismissed, not answered.
			return proto.OverlayResult{Index: -1}
		}
		return proto.OverlayResult{Index: -1, Cancelled: true}
	}
}
