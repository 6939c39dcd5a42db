package rpcmode

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/zut-go/zut/proto"
)

// rpcDialogs holds the extension dialogs (ui.select, ui.confirm, ui.input,
// ui.overlay) forwarded to the client as ext_ui_request events and not yet
// answered. The host owns the timeout: when it passes, the host answers
// the extension with the default and calls UIRequestDone. Safe for
// concurrent use.
type rpcDialogs struct {
	mu      sync.Mutex
	pending map[string]*rpcDialog
	closed  bool // no client can answer any more
}

type rpcDialog struct {
	ext    string
	req    proto.UIRequest
	answer func(proto.UIResponse)
}

// UIRequest forwards a dialog to the client. After the end of stdin it is
// declined at once: nobody is left to answer.
func (u *rpcUI) UIRequest(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
	d := &u.dialogs
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		answer(proto.CancelledAnswer())
		return
	}
	if d.pending == nil {
		d.pending = map[string]*rpcDialog{}
	}
	d.pending[req.ID] = &rpcDialog{ext: ext, req: req, answer: answer}
	d.mu.Unlock()
	u.s.event(proto.RPCExtUIRequest{
		RequestID: req.ID, Extension: ext, Kind: req.Kind, Title: req.Title, Message: req.Message,
		Options: req.Options, Default: req.Default, Placeholder: req.Placeholder, Text: req.Text,
		Markdown: req.Markdown, Actions: req.Actions, Width: req.Width, MaxHeight: req.MaxHeight,
		Anchor: req.Anchor, BorderColor: req.BorderColor, TimeoutMS: req.TimeoutMS,
	})
}

// UIRequestDone tells the client that the dialog id timed out or its
// extension stopped.
func (u *rpcUI) UIRequestDone(ext, id string) {
	d := &u.dialogs
	d.mu.Lock()
	_, ok := d.pending[id]
	delete(d.pending, id)
	d.mu.Unlock()
	if ok {
		u.s.event(proto.RPCExtUIRequestClosed{RequestID: id, Extension: ext})
	}
}

// closeAll declines every pending dialog and every later one.
func (u *rpcUI) closeAll() {
	d := &u.dialogs
	d.mu.Lock()
	d.closed = true
	pending := d.pending
	d.pending = nil
	d.mu.Unlock()
	for _, p := range pending {
		p.answer(proto.CancelledAnswer())
	}
}

// answer takes the client's answer to a pending dialog and returns the
// function that delivers it to the extension; the caller replies to the
// command first, so that the reply comes before anything the extension
// does next. A wrong answer leaves the dialog pending so that the client
// can answer again.
func (u *rpcUI) answer(c *proto.RPCExtUIResponse) (deliver func(), err error) {
	d := &u.dialogs
	d.mu.Lock()
	p, ok := d.pending[c.RequestID]
	d.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no pending ext_ui_request %q: it was answered already, timed out, or never sent", c.RequestID)
	}
	resp, err := dialogAnswer(p.req, c)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	_, still := d.pending[c.RequestID]
	delete(d.pending, c.RequestID)
	d.mu.Unlock()
	if !still {
		return nil, fmt.Errorf("ext_ui_request %q timed out before the answer arrived; the extension got the default", c.RequestID)
	}
	return func() { p.answer(resp) }, nil
}

// dialogAnswer checks the client's answer against the dialog's kind and
// converts it.
func dialogAnswer(req proto.UIRequest, c *proto.RPCExtUIResponse) (proto.UIResponse, error) {
	if c.Cancelled {
		return proto.CancelledAnswer(), nil
	}
	switch req.Kind {
	case proto.UISelect:
		return pick(req.Options, c.Value, c.Index, "option", func(v string, i int) proto.UIResponse { return proto.SelectAnswer(v, i) })
	case proto.UIOverlay:
		if c.Action != "" {
			c.Value, _ = json.Marshal(c.Action)
		}
		return pick(req.Actions, c.Value, c.Index, "action", func(v string, i int) proto.UIResponse { return proto.OverlayAnswer(v, i) })
	case proto.UIConfirm:
		var yes bool
		if err := json.Unmarshal(c.Value, &yes); err != nil {
			return proto.UIResponse{}, fmt.Errorf(`a confirm takes "value": true or false (or "cancelled": true)`)
		}
		return proto.ConfirmAnswer(yes), nil
	case proto.UIInput:
		var text string
		if err := json.Unmarshal(c.Value, &text); err != nil {
			return proto.UIResponse{}, fmt.Errorf(`an input takes "value": the text as a string (or "cancelled": true)`)
		}
		return proto.InputAnswer(text), nil
	}
	// A kind this zut does not know: pass the answer through unchecked.
	return proto.UIResponse{Value: c.Value, Index: c.Index, Action: c.Action}, nil
}

// pick resolves a choice among items given by value, by index, or both
// (then they must agree).
func pick(items []string, value json.RawMessage, index *int, what string, build func(string, int) proto.UIResponse) (proto.UIResponse, error) {
	i := -1
	if len(value) > 0 {
		var v string
		if err := json.Unmarshal(value, &v); err != nil {
			return proto.UIResponse{}, fmt.Errorf(`"value" must be one of the %ss as a string`, what)
		}
		i = slices.Index(items, v)
		if i < 0 {
			return proto.UIResponse{}, fmt.Errorf("%q is not one of the %ss %q", v, what, items)
		}
	}
	if index != nil {
		if *index < 0 || *index >= len(items) {
			return proto.UIResponse{}, fmt.Errorf("index %d is out of range: there are %d %ss", *index, len(items), what)
		}
		if i >= 0 && i != *index {
			return proto.UIResponse{}, fmt.Errorf("value %q and index %d name different %ss", items[i], *index, what)
		}
		i = *index
	}
	if i < 0 {
		return proto.UIResponse{}, fmt.Errorf(`answer with "value" (one of the %ss), "index", or "cancelled": true`, what)
	}
	return build(items[i], i), nil
}
