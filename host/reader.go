package host

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// readLoop reads the extension's frames until its stdout ends or the
// connection dies: first the hello (C1..C3), then everything else.
func (e *extension) readLoop() {
	defer close(e.readerDone)
	r := proto.NewReader(e.p.stdout, proto.MaxLine)
	if !e.readHello(r) {
		return
	}
	for {
		f, err := r.Read()
		if err != nil {
			if e.isDying() || e.isStopping() {
				return
			}
			var (
				tooLong *proto.LineTooLongError
				unknown *proto.UnknownTypeError
				bad     *proto.InvalidFrameError
			)
			switch {
			case errors.As(err, &tooLong):
				e.die(fmt.Errorf("disconnected: line %d is longer than the %d-byte limit (C12)", tooLong.Line, tooLong.Limit))
				return
			case errors.As(err, &unknown):
				e.warn("skipped a frame of unknown type %q on line %d (C12)", unknown.Type, unknown.Line)
			case errors.As(err, &bad):
				e.warn("skipped an invalid frame (C12): %v", bad)
				if bad.ID != "" && isReply(bad.Type) {
					e.failCall(bad.ID, fmt.Errorf("extension %q sent an unusable %s: %v", e.name, bad.Type, bad.Err))
				}
			case errors.Is(err, io.EOF):
				e.wentAway(errors.New("closed its stdout"))
				return
			default:
				e.wentAway(fmt.Errorf("read its stdout: %w", err))
				return
			}
			continue
		}
		select {
		case e.activity <- struct{}{}:
		default:
		}
		e.handle(f)
	}
}

func isReply(typ string) bool {
	switch typ {
	case "tool_result", "command_response", "event_intercept_response",
		"command_completions", "editor_key_response", "render_tool_response", "render_message_response":
		return true
	}
	return false
}

// readHello reads the first frame, which must be a hello naming the
// manifest's extension with protocol version 2. It records the outcome in
// e.hello or e.helloErr and closes helloDone; it reports whether reading
// goes on.
func (e *extension) readHello(r *proto.Reader) bool {
	defer close(e.helloDone)
	f, err := r.Read()
	if err != nil {
		e.helloErr = e.helloReadError(err)
		return false
	}
	h, ok := f.(*proto.Hello)
	switch {
	case !ok:
		e.helloErr = fmt.Errorf("sent a %s frame before hello; the first frame on stdout must be hello (print logs to stderr)", f.Type())
	case h.ProtocolVersion != proto.ProtocolVersion:
		e.helloErr = fmt.Errorf("hello has protocol_version %d, but zut speaks protocol_version %d (C3)", h.ProtocolVersion, proto.ProtocolVersion)
	case h.Name != e.name:
		e.helloErr = fmt.Errorf("hello names the extension %q, but its manifest names it %q; make them equal (C2)", h.Name, e.name)
	}
	if e.helloErr != nil {
		return false
	}
	e.hello = h
	e.toolCancel = slices.Contains(h.Capabilities, proto.CapToolCancel)
	e.setCaps(h.Capabilities)
	e.p.logf("hello: version %q, capabilities %v", h.Version, h.Capabilities)
	return true
}

// helloReadError explains why no hello could be read.
func (e *extension) helloReadError(err error) error {
	var (
		tooLong *proto.LineTooLongError
		unknown *proto.UnknownTypeError
		bad     *proto.InvalidFrameError
	)
	switch {
	case errors.As(err, &tooLong):
		return fmt.Errorf("sent a line longer than %d bytes before hello", tooLong.Limit)
	case errors.As(err, &unknown):
		return fmt.Errorf("sent a frame of unknown type %q before hello; the first frame on stdout must be hello", unknown.Type)
	case errors.As(err, &bad):
		return fmt.Errorf("wrote something other than a hello frame on stdout (print logs to stderr): line %d: %v (line starts %q)", bad.Line, bad.Err, bad.Snippet)
	}
	if e.isDying() {
		return errors.New("stopped before hello")
	}
	// The output ended: say how the process ended, if it did.
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-e.p.done:
	case <-t.C:
	}
	if st := e.p.exitStatus(); st != "" {
		return fmt.Errorf("exited before sending hello (%s)", st)
	}
	if errors.Is(err, io.EOF) {
		return errors.New("closed its stdout before sending hello")
	}
	return fmt.Errorf("read hello: %w", err)
}

// handle acts on one frame after hello.
func (e *extension) handle(f proto.Frame) {
	cb := &e.h.cb
	switch f := f.(type) {
	case *proto.RegisterCommand:
		e.registerCommand(f)
	case *proto.RegisterTool:
		e.registerTool(f)
	case *proto.Subscribe:
		e.subscribe(f)
	case *proto.Ready:
		e.mu.Lock()
		first := !e.readySeen
		e.readySeen = true
		e.mu.Unlock()
		if first {
			close(e.readyCh)
		}
	case *proto.ToolResult:
		e.deliver(f.ID, f)
	case *proto.CommandResponse:
		e.deliver(f.ID, f)
	case *proto.EventInterceptResponse:
		e.deliver(f.ID, f)
	case *proto.Notify:
		if cb.Notify != nil {
			cb.Notify(e.name, normLevel(f.Level), f.Message)
		}
	case *proto.ClearNotes:
		if cb.ClearNotes != nil {
			cb.ClearNotes(e.name)
		}
	case *proto.Alert:
		if cb.Alert != nil {
			cb.Alert(e.name, f.Kind, f.Reason)
		}
	case *proto.Status:
		if f.Key == "" {
			e.warn("ignored a status frame without key")
		} else {
			e.showStatus(f)
		}
	case *proto.Widget:
		if f.ID == "" {
			e.warn("ignored a widget frame without id")
			return
		}
		// C18: above_input, below_input and right_bar for every extension;
		// the members of ui2 only with it (extension.widget).
		if cb.Widget != nil {
			cb.Widget(e.name, e.widget(f))
		}
	case *proto.WidgetClear:
		if cb.WidgetClear != nil {
			cb.WidgetClear(e.name, f.ID)
		}
	case *proto.Submit:
		if strings.TrimSpace(f.Text) != "" && cb.Submit != nil {
			cb.Submit(e.name, f.Text)
		}
	case *proto.SubmitSlash:
		text := strings.TrimSpace(f.Text)
		if !strings.HasPrefix(text, "/") || len(text) < 2 {
			e.warn("ignored submit_slash %q: the text must start with /name", f.Text)
		} else if cb.SubmitSlash != nil {
			cb.SubmitSlash(e.name, text)
		}
	case *proto.OpenPanel:
		e.h.openPanel(e, f.Panel)
	case *proto.PanelRender:
		e.h.renderPanel(e, f)
	case *proto.PanelClose:
		e.h.closePanelFrom(e, f.PanelID)
	case *proto.ShutdownAck:
		e.p.logf("shutdown acknowledged")
	default:
		if !e.handleAdded(f) {
			e.warn("skipped an unexpected %s frame; extensions do not send it", f.Type())
		}
	}
}

// normLevel maps a notify or status level onto info, success, warn or
// error.
func normLevel(level string) string {
	switch level {
	case proto.LevelSuccess, proto.LevelWarn, proto.LevelError:
		return level
	case "warning":
		return proto.LevelWarn
	}
	return proto.LevelInfo
}
