package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// initialBuffer is the Reader's buffer size while lines are short. An
// idle connection costs no more than this; a longer line grows the buffer
// up to the line limit, and it shrinks back on the next read.
const initialBuffer = 4 << 10

// A Reader reads frames, one JSON object per line, from an io.Reader.
// Blank lines are skipped and unknown members ignored. A line longer than
// the limit is reported as a *LineTooLongError without ever being held in
// memory; the next Read resumes after it. An unknown "type" is an
// *UnknownTypeError and a line that is not a valid frame an
// *InvalidFrameError; both leave the Reader usable. Any other error comes
// from the underlying reader (io.EOF at the end) and is returned again on
// every later call.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	// New returns a new zero frame, as a pointer, for a type name, or nil
	// when the name is unknown. Nil means NewFrame, the extension
	// protocol. Set it before the first Read.
	New func(typ string) Frame

	r       io.Reader
	max     int
	small   int // size of buf while lines are short
	buf     []byte
	start   int   // first unread byte of buf
	end     int   // end of the data in buf
	scanned int   // bytes after start already known to hold no newline
	line    int   // number of the last line returned or skipped
	skip    bool  // the rest of an oversize line is still to be discarded
	err     error // sticky error of r
}

// NewReader returns a Reader of r that accepts lines up to max bytes; max
// <= 0 means MaxLine.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxLine
	}
	small := min(initialBuffer, max+1)
	return &Reader{r: r, max: max, small: small, buf: make([]byte, small)}
}

// Line returns the number of the line last read, counting from 1 and
// including blank lines.
func (r *Reader) Line() int { return r.line }

// Read returns the next frame. See Reader for its errors.
func (r *Reader) Read() (Frame, error) {
	line, err := r.ReadLine()
	if err != nil {
		return nil, err
	}
	return decode(line, r.line, r.New)
}

// ReadLine returns the next non-blank line without its line ending. The
// slice is valid until the next call. Its errors are those of Read except
// the decoding ones.
func (r *Reader) ReadLine() ([]byte, error) {
	for {
		line, err := r.next()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// next returns the next line, blank or not.
func (r *Reader) next() ([]byte, error) {
	r.shrink()
	if r.skip {
		if err := r.discard(); err != nil {
			return nil, err
		}
	}
	zeroReads := 0
	for {
		if i := bytes.IndexByte(r.buf[r.start+r.scanned:r.end], '\n'); i >= 0 {
			n := r.scanned + i
			line := r.buf[r.start : r.start+n]
			r.start += n + 1
			r.scanned = 0
			r.line++
			return bytes.TrimSuffix(line, []byte{'\r'}), nil
		}
		r.scanned = r.end - r.start
		if r.scanned > r.max {
			r.skip = true
			r.line++
			r.start, r.end, r.scanned = 0, 0, 0
			return nil, r.tooLong()
		}
		if r.err != nil {
			if r.end > r.start { // a last line without a newline
				line := r.buf[r.start:r.end]
				r.start, r.scanned = r.end, 0
				r.line++
				return bytes.TrimSuffix(line, []byte{'\r'}), nil
			}
			return nil, r.err
		}
		r.makeRoom()
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		r.err = err
		if n == 0 && err == nil {
			if zeroReads++; zeroReads >= 100 {
				r.err = io.ErrNoProgress
			}
		}
	}
}

// discard drops input up to and including the next newline.
func (r *Reader) discard() error {
	for {
		if i := bytes.IndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			r.start += i + 1
			r.skip = false
			return nil
		}
		r.start, r.end, r.scanned = 0, 0, 0
		if r.err != nil {
			return r.err
		}
		n, err := r.r.Read(r.buf)
		r.end, r.err = n, err
	}
}

// makeRoom moves unread data to the front of buf and grows buf, up to the
// line limit plus one byte, when it is full.
func (r *Reader) makeRoom() {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end < len(r.buf) {
		return
	}
	size := min(2*len(r.buf), r.max+1)
	nb := make([]byte, size)
	copy(nb, r.buf[:r.end])
	r.buf = nb
}

// shrink gives back a buffer grown for a long line once the unread data
// fits the initial size.
func (r *Reader) shrink() {
	if len(r.buf) <= r.small || r.end-r.start > r.small {
		return
	}
	nb := make([]byte, r.small)
	r.end = copy(nb, r.buf[r.start:r.end])
	r.start = 0
	r.buf = nb
}

// tooLong reports the oversize line just passed and gives back the
// buffer grown for it.
func (r *Reader) tooLong() error {
	if len(r.buf) > r.small {
		r.buf = make([]byte, r.small)
	}
	return &LineTooLongError{Line: r.line, Limit: r.max}
}

// decode picks the frame struct by the "type" member of line and decodes
// line into it. newFrame nil means the extension protocol.
func decode(line []byte, lineNo int, newFrame func(string) Frame) (Frame, error) {
	typ, ok := peekType(line)
	if !ok {
		var probe struct {
			Type *string `json:"type"`
		}
		if err := json.Unmarshal(line, &probe); err != nil {
			return nil, invalid(line, lineNo, "", err)
		}
		if probe.Type == nil {
			return nil, invalid(line, lineNo, "", errors.New(`no "type" member`))
		}
		typ = []byte(*probe.Type)
	}
	var f Frame
	if newFrame != nil {
		f = newFrame(string(typ))
	} else {
		f = newExtensionFrame(typ)
	}
	if f == nil {
		if err := json.Unmarshal(line, new(struct{})); err != nil {
			return nil, invalid(line, lineNo, string(typ), err)
		}
		return nil, &UnknownTypeError{Line: lineNo, Type: string(typ)}
	}
	if err := json.Unmarshal(line, f); err != nil {
		return nil, invalid(line, lineNo, string(typ), err)
	}
	return f, nil
}

func invalid(line []byte, lineNo int, typ string, err error) *InvalidFrameError {
	const max = 64
	snippet := line
	if len(snippet) > max {
		snippet = snippet[:max]
	}
	return &InvalidFrameError{Line: lineNo, Type: typ, ID: peekID(line), Snippet: string(snippet), Err: err}
}

// LineTooLongError reports a line over the Reader's limit (C12). The line
// was discarded without being buffered whole.
type LineTooLongError struct {
	Line  int // line number
	Limit int // the limit in bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("read frame: line %d is longer than the %d-byte limit", e.Line, e.Limit)
}

// UnknownTypeError reports a valid JSON object whose "type" names no known
// frame. The line was skipped.
type UnknownTypeError struct {
	Line int
	Type string
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("read frame: line %d: unknown frame type %q, skipped", e.Line, e.Type)
}

// InvalidFrameError reports a line that is not a frame: not JSON, not an
// object, without a string "type", or with a member of the wrong type.
// Type and ID are filled when they could be read, so that a broken reply
// can still be matched to its request. The line was skipped.
type InvalidFrameError struct {
	Line    int
	Type    string
	ID      string
	Snippet string // the start of the line, for diagnostics
	Err     error
}

func (e *InvalidFrameError) Error() string {
	what := "frame"
	if e.Type != "" {
		what = e.Type + " frame"
	}
	return fmt.Sprintf("read %s: line %d: %v (line starts %q), skipped", what, e.Line, e.Err, e.Snippet)
}

func (e *InvalidFrameError) Unwrap() error { return e.Err }
