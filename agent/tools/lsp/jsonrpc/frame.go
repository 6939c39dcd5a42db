// Package jsonrpc owns the wire of a language server connection: JSON-RPC
// 2.0 messages framed by a "Content-Length" header, as the Language
// Server Protocol's base protocol frames them, and Conn, one connection
// that correlates calls with their answers and dispatches what the peer
// sends unasked.
//
// It is written over the standard library only; every read is bounded.
package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxFrame bounds the body of one message when no other bound is
// given: 64 MiB.
const DefaultMaxFrame = 64 << 20

// maxHeader bounds the header part of one frame.
const maxHeader = 8 << 10

// FrameError is a frame that could not be read: a malformed header or a
// body over the bound. The stream cannot be resynchronised after one.
type FrameError struct {
	// Reason says what was wrong, in words.
	Reason string
	// Size is the announced body size when it was over the bound, else 0.
	Size int64
	// Max is the bound that Size exceeded.
	Max int
}

func (e *FrameError) Error() string { return "read frame: " + e.Reason }

// Reader reads frames from a stream. It is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	max int
}

// NewReader returns a Reader of r whose frame bodies may be at most
// maxFrame bytes (DefaultMaxFrame when maxFrame <= 0).
func NewReader(r io.Reader, maxFrame int) *Reader {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), max: maxFrame}
}

// Read returns the body of the next frame. At a clean end of the stream,
// before any byte of a frame, it returns io.EOF; a stream that ends inside
// a frame is io.ErrUnexpectedEOF; a bad header or an oversized body is a
// *FrameError.
func (r *Reader) Read() ([]byte, error) {
	length := int64(-1)
	headerBytes := 0
	first := true
	var seen []string // the header lines, for the error when they make no header
	for {
		line, err := r.line(maxHeader - headerBytes)
		if err != nil {
			if err == io.EOF && first && line == "" {
				return nil, io.EOF
			}
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		headerBytes += len(line) + 1
		first = false
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		if len(seen) < 3 {
			seen = append(seen, clip(line, 60))
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, &FrameError{Reason: fmt.Sprintf("malformed header line %q; the peer may be printing text (logs?) on its standard output", clip(line, 80))}
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and unknown fields are allowed
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return nil, &FrameError{Reason: fmt.Sprintf("bad Content-Length %q", clip(strings.TrimSpace(value), 40))}
		}
		if length >= 0 && n != length {
			return nil, &FrameError{Reason: fmt.Sprintf("two different Content-Length fields (%d and %d)", length, n)}
		}
		length = n
	}
	if length < 0 {
		return nil, &FrameError{Reason: fmt.Sprintf("header has no Content-Length field (read %q); the peer may be printing text on its standard output", strings.Join(seen, "\n"))}
	}
	if length > int64(r.max) {
		return nil, &FrameError{Reason: fmt.Sprintf("message of %s is over the %s limit", size(length), size(int64(r.max))), Size: length, Max: r.max}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.br, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// line reads one header line without its "\n", refusing lines longer than
// room. At the end of the stream it returns what it read and io.EOF.
func (r *Reader) line(room int) (string, error) {
	var b []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(b)+len(chunk) > room {
			return "", &FrameError{Reason: fmt.Sprintf("header is over %s; the peer is not speaking the LSP base protocol (it may be printing text on its standard output)", size(maxHeader))}
		}
		b = append(b, chunk...)
		switch {
		case err == nil:
			return string(b[:len(b)-1]), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return string(b), err
		}
	}
}

// Write writes body as one frame to w, in one call to w.Write.
func Write(w io.Writer, body []byte) error {
	head := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	buf := make([]byte, 0, len(head)+len(body))
	buf = append(buf, head...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}

// clip shortens s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// size prints a byte count: 812 B, 50 KiB, 64 MiB.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
