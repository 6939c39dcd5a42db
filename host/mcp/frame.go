package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// MaxMessage is the largest JSON-RPC message zut accepts from a server, on
// any transport. A longer one ends the connection.
const MaxMessage = 16 << 20

// TooLongError reports a message (a stdio line or an SSE event) longer than
// the limit; the connection that carried it is closed.
type TooLongError struct {
	Limit int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("message longer than the %d-byte limit", e.Limit)
}

// lineReader splits a stdio stream into messages: one per line, without
// the line end. Blank lines are skipped. It is not safe for concurrent use.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line as a fresh slice. A last line
// without a newline is returned before io.EOF. A line longer than max is a
// *TooLongError; reading cannot go on after it.
func (l *lineReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > l.max+2 { // room for "\r\n"
			return nil, &TooLongError{Limit: l.max}
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			line = bytes.TrimRight(line, "\r\n")
			if len(line) > l.max {
				return nil, &TooLongError{Limit: l.max}
			}
			if len(bytes.TrimSpace(line)) == 0 {
				line = line[:0]
				continue
			}
			return line, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			line = bytes.TrimRight(line, "\r\n")
			if len(line) > l.max {
				return nil, &TooLongError{Limit: l.max}
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return nil, io.EOF
			}
			return line, nil
		default:
			return nil, err
		}
	}
}

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	Event string // "" means "message"
	Data  []byte
	ID    string // the last event ID after this event
	Retry int    // the stream's reconnection time in ms so far, or -1
}

// sseDecoder reads a text/event-stream as the WHATWG HTML standard
// describes it: lines end with CRLF, LF or CR; "data" lines join with LF;
// comments and unknown fields are ignored; an event is dispatched at a
// blank line, and one cut off by the end of the stream is dropped. No
// event, line or data may exceed max bytes. It is not safe for concurrent
// use.
type sseDecoder struct {
	r      *bufio.Reader
	max    int
	lastID string
	retry  int  // reconnection time in ms, -1 until a retry field sets it
	skipLF bool // the previous line ended with CR: a following LF is part of it
	first  bool // no byte read yet: a leading BOM is dropped
	line   []byte
}

func newSSEDecoder(r io.Reader, max int) *sseDecoder {
	return &sseDecoder{r: bufio.NewReaderSize(r, 32<<10), max: max, first: true, retry: -1}
}

// readLine returns the next line without its terminator; io.EOF ends a
// stream whose last line had no terminator (that line is dropped).
func (d *sseDecoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	for {
		b, err := d.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if d.first {
			d.first = false
			if b == 0xEF {
				if p, _ := d.r.Peek(2); len(p) == 2 && p[0] == 0xBB && p[1] == 0xBF {
					_, _ = d.r.Discard(2)
					continue
				}
			}
		}
		if d.skipLF {
			d.skipLF = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return d.line, nil
		case '\r':
			d.skipLF = true
			return d.line, nil
		}
		if len(d.line) >= d.max {
			return nil, &TooLongError{Limit: d.max}
		}
		d.line = append(d.line, b)
	}
}

// next returns the next event. Errors are io.EOF at the end of the
// stream, *TooLongError, or the reader's error.
func (d *sseDecoder) next() (sseEvent, error) {
	var (
		data    []byte
		hasData bool
		event   string
	)
	for {
		line, err := d.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !hasData {
				event = ""
				continue
			}
			return sseEvent{Event: event, Data: data, ID: d.lastID, Retry: d.retry}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			event = string(value)
		case "data":
			if len(data)+len(value)+1 > d.max {
				return sseEvent{}, &TooLongError{Limit: d.max}
			}
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				d.lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
				d.retry = n
			}
		}
	}
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
