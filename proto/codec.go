package proto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// NewFrame returns a pointer to a new zero frame of the extension protocol,
// additions included, for the type name typ, or nil when typ names no
// frame of either direction. It is the default catalog of Reader.
func NewFrame(typ string) Frame {
	return newExtensionFrame([]byte(typ))
}

// extensionTypes lists the type names newExtensionFrame knows, for tests
// and diagnostics.
var extensionTypes = []string{
	"hello", "register_command", "register_tool", "subscribe", "ready",
	"tool_result", "event_intercept_response", "command_response", "submit",
	"submit_slash", "open_panel", "panel_render", "panel_close", "status",
	"widget", "widget_clear", "notify", "alert", "clear_notes", "shutdown_ack",
	"hello_ack", "command_invoked", "tool_call", "tool_cancel", "event",
	"event_intercept", "panel_key", "shutdown",
}

// newExtensionFrame is NewFrame on the bytes of the type name; a switch on
// string(b) does not allocate.
func newExtensionFrame(b []byte) Frame {
	switch string(b) {
	case "hello":
		return new(Hello)
	case "register_command":
		return new(RegisterCommand)
	case "register_tool":
		return new(RegisterTool)
	case "subscribe":
		return new(Subscribe)
	case "ready":
		return new(Ready)
	case "tool_result":
		return new(ToolResult)
	case "event_intercept_response":
		return new(EventInterceptResponse)
	case "command_response":
		return new(CommandResponse)
	case "submit":
		return new(Submit)
	case "submit_slash":
		return new(SubmitSlash)
	case "open_panel":
		return new(OpenPanel)
	case "panel_render":
		return new(PanelRender)
	case "panel_close":
		return new(PanelClose)
	case "status":
		return new(Status)
	case "widget":
		return new(Widget)
	case "widget_clear":
		return new(WidgetClear)
	case "notify":
		return new(Notify)
	case "alert":
		return new(Alert)
	case "clear_notes":
		return new(ClearNotes)
	case "shutdown_ack":
		return new(ShutdownAck)
	case "hello_ack":
		return new(HelloAck)
	case "command_invoked":
		return new(CommandInvoked)
	case "tool_call":
		return new(ToolCall)
	case "tool_cancel":
		return new(ToolCancel)
	case "event":
		return new(Event)
	case "event_intercept":
		return new(EventIntercept)
	case "panel_key":
		return new(PanelKey)
	case "shutdown":
		return new(Shutdown)
	}
	return newAddedFrame(b)
}

// Marshal returns the encoding of f as one JSON object with "type" first,
// without a trailing newline.
func Marshal(f Frame) ([]byte, error) {
	line, err := AppendFrame(nil, f)
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// AppendFrame appends the encoding of f and a newline to dst. HTML
// characters are not escaped.
func AppendFrame(dst []byte, f Frame) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	return appendFrame(dst, f, &buf, enc)
}

// appendFrame encodes f with enc, which writes into buf, and splices the
// type member in front of the encoded members.
func appendFrame(dst []byte, f Frame, buf *bytes.Buffer, enc *json.Encoder) ([]byte, error) {
	if f == nil {
		return dst, fmt.Errorf("encode frame: nil frame")
	}
	typ := f.Type()
	buf.Reset()
	if err := enc.Encode(f); err != nil {
		return dst, fmt.Errorf("encode %s frame: %w", typ, err)
	}
	body := bytes.TrimRight(buf.Bytes(), "\n")
	if len(body) < 2 || body[0] != '{' {
		return dst, fmt.Errorf("encode %s frame: encodes as %.20q, not a JSON object", typ, body)
	}
	dst = append(dst, `{"type":`...)
	dst = appendQuoted(dst, typ)
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:]...)
	} else {
		dst = append(dst, '}')
	}
	return append(dst, '\n'), nil
}

// appendQuoted appends s as a JSON string. Type names are plain ASCII, so
// the slow path is only for unusual names from other catalogs.
func appendQuoted(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// Unmarshal decodes one frame of the extension protocol from line, which
// holds one JSON object (a trailing newline is allowed). It returns the
// same typed errors as Reader.Read, with Line 0.
func Unmarshal(line []byte) (Frame, error) {
	return decode(line, 0, nil)
}

// A Writer encodes frames onto an io.Writer, exactly one line, and one
// Write call, per frame. It is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	buf  bytes.Buffer
	enc  *json.Encoder
	line []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	fw := &Writer{w: w}
	fw.enc = json.NewEncoder(&fw.buf)
	fw.enc.SetEscapeHTML(false)
	return fw
}

// Write encodes f and writes it as one line.
func (w *Writer) Write(f Frame) error {
	line, err := appendFrame(w.line[:0], f, &w.buf, w.enc)
	if err != nil {
		return err
	}
	w.line = line
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("write %s frame: %w", f.Type(), err)
	}
	if cap(w.line) > 64<<10 {
		// Do not keep a large frame's buffers alive; enc still points
		// at w.buf, which is reset in place.
		w.line = nil
		w.buf = bytes.Buffer{}
	}
	return nil
}

// marshalNoEscape is json.Marshal without HTML escaping, for the
// MarshalJSON methods of this package.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
