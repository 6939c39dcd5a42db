package host

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/zut-go/zut/proto"
)

// The additions beyond protocol v2 are opt-in by capability (C6): an
// extension lists what it wants in hello.capabilities, the host answers
// with its own list in hello_ack.capabilities, and from then on the host
// sends an additive frame, event or interception only to an extension
// that asked for its capability. An additive frame from an extension that
// did not ask is ignored and written to its log and warnings.

// addState is what one extension asked for through the additions. Guarded
// by extension.mu; caps is set before helloDone is closed and read-only
// afterwards.
type addState struct {
	caps          map[string]bool
	warned        map[string]bool // frame types already warned about
	options       []proto.RegisterOption
	shortcuts     []proto.RegisterShortcut
	editorKeys    []string // normalised
	toolRenderers []proto.RegisterToolRenderer
	msgRenderers  []string
	requests      map[string]*Request // host requests in flight, by the extension's id
	answered      time.Time           // when the last host request was answered
}

// setCaps records the additive capabilities of hello.
func (e *extension) setCaps(caps []string) {
	e.add.caps = map[string]bool{}
	for _, c := range caps {
		if proto.IsAdditiveCapability(c) {
			e.add.caps[c] = true
		}
	}
}

// has reports whether the extension asked for the additive capability c.
func (e *extension) has(c string) bool { return e.add.caps[c] }

// ackCapabilities is hello_ack.capabilities: the host's additive
// capabilities, sent only to an extension that asked for at least one,
// so that the hello_ack of a plain v2 extension does not change.
func (e *extension) ackCapabilities() []string {
	if len(e.add.caps) == 0 {
		return nil
	}
	return slices.Clone(proto.HostCapabilities)
}

// capabilities lists the additive capabilities the extension asked for,
// sorted, for diagnostics.
func (e *extension) capabilities() []string {
	var out []string
	for c := range e.add.caps {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// allowed reports whether the extension may send the additive frame f;
// when not, it is logged and warned about once per frame type.
func (e *extension) allowed(f proto.Frame) bool {
	c := proto.AddedFrameCapability(f.Type())
	if c == "" || e.has(c) {
		return true
	}
	e.mu.Lock()
	if e.add.warned == nil {
		e.add.warned = map[string]bool{}
	}
	first := !e.add.warned[f.Type()]
	e.add.warned[f.Type()] = true
	e.mu.Unlock()
	if first {
		e.warn("ignored a %s frame: it needs the capability %q, which the hello did not list (C6)", f.Type(), c)
	} else {
		e.p.logf("ignored a %s frame: capability %q not listed in hello (C6)", f.Type(), c)
	}
	return false
}

// handleAdded acts on an additive frame. It reports false for a frame
// type that is not an addition.
func (e *extension) handleAdded(f proto.Frame) bool {
	if proto.AddedFrameCapability(f.Type()) == "" {
		return false
	}
	if !e.allowed(f) {
		return true
	}
	h := e.h
	cb := &h.cb
	switch f := f.(type) {
	case *proto.HostRequest:
		h.startRequest(e, f)
	case *proto.RegisterOption:
		e.registerOption(f)
	case *proto.ToolProgress:
		e.progress(f)
	case *proto.Print:
		if cb.Print != nil {
			p := *f
			p.Style = normStyle(p.Style)
			cb.Print(e.name, p)
		}
	case *proto.Header:
		if cb.Header != nil {
			cb.Header(e.name, *f)
		}
	case *proto.HeaderClear:
		if cb.Header != nil {
			cb.Header(e.name, proto.Header{})
		}
	case *proto.Footer:
		if cb.Footer != nil {
			cb.Footer(e.name, *f)
		}
	case *proto.FooterClear:
		if cb.Footer != nil {
			cb.Footer(e.name, proto.Footer{})
		}
	case *proto.UIVisibility:
		if cb.UIVisibility != nil {
			cb.UIVisibility(e.name, *f)
		}
	case *proto.RegisterShortcut:
		e.registerShortcut(f)
	case *proto.SetEditor:
		e.setEditor(f.Keys)
	case *proto.ResetEditor:
		e.setEditor(nil)
	case *proto.RegisterToolRenderer:
		e.registerToolRenderer(f)
	case *proto.RegisterMessageRenderer:
		e.registerMessageRenderer(f)
	case *proto.CommandCompletions:
		e.deliver(f.ID, f)
	case *proto.EditorKeyResponse:
		e.deliver(f.ID, f)
	case *proto.RenderToolResponse:
		e.deliver(f.ID, f)
	case *proto.RenderMessageResponse:
		e.deliver(f.ID, f)
	default:
		e.warn("skipped an unexpected %s frame; extensions do not send it", f.Type())
	}
	return true
}

// normStyle maps a print style onto plain, info, error or block.
func normStyle(s string) string {
	switch s {
	case proto.PrintInfo, proto.PrintError, proto.PrintBlock:
		return s
	}
	return proto.PrintPlain
}

// widget returns the widget as the UI gets it. Every v2 extension may
// place it above_input, below_input or right_bar (extensions written for
// the original host use right_bar without any capability); an empty or
// unknown position resolves to above_input, as the spec says (C18). The
// additive members (priority, markdown, border_color, no_border) reach the
// UI only from an extension with ui2.
func (e *extension) widget(f *proto.Widget) proto.Widget {
	w := *f
	if w.Position != proto.WidgetBelowInput && w.Position != proto.WidgetRightBar {
		w.Position = proto.WidgetAboveInput
	}
	if !e.has(proto.CapUI2) {
		return proto.Widget{ID: w.ID, Position: w.Position, Title: w.Title, Lines: w.Lines}
	}
	return w
}

// showStatus shows a status item, with its priority for an extension with
// ui2.
func (e *extension) showStatus(f *proto.Status) {
	cb := &e.h.cb
	if f.Priority != 0 && e.has(proto.CapUI2) && cb.StatusPriority != nil {
		cb.StatusPriority(e.name, f.Key, f.Priority)
	}
	if cb.Status != nil {
		cb.Status(e.name, f.Key, normLevel(f.Level), f.Text)
	}
}

// uiChanged tells the UI that an additive registration changed.
func (h *Host) uiChanged() {
	if h.cb.UIChanged != nil {
		h.cb.UIChanged()
	}
}

// emitShutdown sends session_shutdown (events2) to its subscribers before
// Close stops them; the write queue keeps it ahead of shutdown (C11). It
// is sent only while a session is active.
func (h *Host) emitShutdown() {
	h.mu.Lock()
	active := h.session != nil
	h.mu.Unlock()
	if active {
		h.Emit(proto.Event{Name: proto.EventSessionShutdown})
	}
}

// waitRequests joins the goroutines serving host requests; the
// extensions are stopped, so every request has been cancelled. A
// HostRequest callback that ignores its context is waited for until ctx
// ends.
func (h *Host) waitRequests(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		h.reqWG.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// forgetUI drops the render cache and tells the UI when a stopped
// extension held additive UI registrations.
func (h *Host) forgetUI(e *extension) {
	e.mu.Lock()
	held := len(e.add.shortcuts)+len(e.add.editorKeys)+len(e.add.toolRenderers)+len(e.add.msgRenderers)+len(e.add.options) > 0
	e.mu.Unlock()
	if held {
		h.clearRenderCache()
		h.uiChanged()
	}
}

// CallToolProgress is CallTool with progress: the lines the extension
// reports with tool_progress (ui2) while the call runs are passed to
// progress, on the host's reader goroutine; progress must not block.
func (h *Host) CallToolProgress(ctx context.Context, name string, args json.RawMessage, progress func(text string)) (ToolResult, error) {
	return h.callTool(ctx, name, args, progress)
}
