package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxFrame bounds one SSE line or event (and one NDJSON line): past it the
// stream is rejected instead of growing memory without end.
const maxFrame = 64 << 20

// errFrameTooLarge reports an event larger than maxFrame (64 MiB; a
// constant message, so that no initialiser formats it at every start).
var errFrameTooLarge = errors.New("event larger than 64 MiB")

// frameReader yields the frames of a response body: SSE events, or the
// lines of an NDJSON body (name is then empty).
type frameReader interface {
	// next returns the next frame. name and data stay valid until the next
	// call. At the end of the body it returns io.EOF.
	next() (name, data []byte, err error)
	// buffered is next when the frame is whole in what has been read, in
	// the form nearly every frame has; it never reads (ok false: call
	// next, which may).
	buffered() (name, data []byte, ok bool)
}

// lineReader splits a byte stream into lines ended by LF, CRLF or a lone CR,
// the line breaks of the text/event-stream format. It keeps one buffer and
// returns slices of it, so reading a line allocates nothing once the buffer
// has grown to the longest line.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int // unread bytes are buf[start:end]
	eof        bool
	err        error // sticky read error other than io.EOF
	scanned    int   // bytes of buf[start:end] known to hold no line break
	crFree     int   // buf[start:crFree] is known to hold no CR (see noCR)
	first      bool  // the next line is the first: strip a UTF-8 BOM
	// terminated is false when the last line returned ended at EOF without
	// a line break (the body was probably cut).
	terminated bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, buf: make([]byte, 32<<10), first: true}
}

// line returns the next line without its line break. At the end of input it
// returns io.EOF; a last line without a break is returned first with
// terminated false.
func (l *lineReader) line() ([]byte, error) {
	for {
		avail := l.buf[l.start:l.end]
		if i := indexBreak(avail[l.scanned:]); i >= 0 {
			i += l.scanned
			if avail[i] == '\r' && i+1 == len(avail) && !l.eof && l.err == nil {
				// A CR at the end of the buffer: wait for the next byte to
				// tell CRLF from a lone CR.
				l.scanned = i
				if err := l.fill(); err != nil {
					return nil, err
				}
				continue
			}
			n := i + 1
			if avail[i] == '\r' && i+1 < len(avail) && avail[i+1] == '\n' {
				n++
			}
			line := avail[:i]
			l.start += n
			l.scanned = 0
			l.terminated = true
			return l.stripBOM(line), nil
		}
		l.scanned = len(avail)
		if l.eof || l.err != nil {
			if len(avail) == 0 {
				if l.err != nil {
					return nil, l.err
				}
				return nil, io.EOF
			}
			l.start = l.end
			l.scanned = 0
			l.terminated = false
			return l.stripBOM(avail), nil
		}
		if err := l.fill(); err != nil {
			return nil, err
		}
	}
}

func (l *lineReader) stripBOM(line []byte) []byte {
	if l.first {
		l.first = false
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line
}

// fill reads more input, compacting or growing the buffer as needed.
func (l *lineReader) fill() error {
	if l.start > 0 && (l.end == len(l.buf) || l.start == l.end) {
		n := copy(l.buf, l.buf[l.start:l.end])
		l.crFree = max(l.crFree-l.start, 0)
		l.start, l.end = 0, n
	}
	if l.end == len(l.buf) {
		if len(l.buf) >= maxFrame {
			return errFrameTooLarge
		}
		nb := make([]byte, min(2*len(l.buf), maxFrame))
		l.end = copy(nb, l.buf[l.start:l.end])
		l.crFree = max(l.crFree-l.start, 0)
		l.start = 0
		l.buf = nb
	}
	for range 100 {
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				l.eof = true
			} else {
				l.err = err
			}
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	l.err = io.ErrNoProgress
	return nil
}

// indexBreak returns the index of the first CR or LF in b, or -1.
func indexBreak(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// sseReader decodes a text/event-stream body into events: "event" names the
// event, "data" lines are joined with LF, comments (lines starting with ':')
// and the "id" and "retry" fields are skipped.
//
// It differs from the WHATWG algorithm in one lenient way: at the end of the
// body an event lacking its closing blank line is still dispatched (several
// servers end with "data: [DONE]\n", some without the line break). A last
// line without a line break counts only when it is a data line holding whole
// JSON or [DONE]; anything else there was cut, and its event is dropped so a
// truncated event is never mistaken for a whole one.
type sseReader struct {
	lines *lineReader
	name  []byte
	data  []byte
}

func sseFrames(r io.Reader) frameReader { return newSSEReader(r) }

func ndjsonFrames(r io.Reader) frameReader { return newNDJSONReader(r) }

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{lines: newLineReader(r)}
}

func (s *sseReader) buffered() (name, data []byte, ok bool) { return s.lines.event() }

func (s *sseReader) next() (name, data []byte, err error) {
	if name, data, ok := s.lines.event(); ok {
		return name, data, nil
	}
	s.name = s.name[:0]
	s.data = s.data[:0]
	hasData := false
	for {
		line, err := s.lines.line()
		if err != nil {
			if err == io.EOF && hasData {
				return s.name, s.data, nil
			}
			return nil, nil, err
		}
		if !s.lines.terminated && !wholeDataLine(line) {
			// A line cut by the end of the body: drop it with its event.
			hasData = false
			continue
		}
		if len(line) == 0 {
			if hasData {
				return s.name, s.data, nil
			}
			s.name = s.name[:0]
			continue
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
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > maxFrame {
				return nil, nil, errFrameTooLarge
			}
			s.data = append(s.data, value...)
			hasData = true
		case "event":
			s.name = append(s.name[:0], value...)
		}
	}
}

// event takes the next event off the buffer when it is there whole in the
// form every API writes, an optional "event: NAME" line, one "data: DATA"
// line and the blank line, each ended by LF alone: name and data then
// point into the buffer (valid until the next read), with nothing copied
// and each line looked at once. Any other form, or an event not in the
// buffer yet, is left to the line by line reading (ok false, nothing
// taken).
func (l *lineReader) event() (name, data []byte, ok bool) {
	if l.first || l.scanned != 0 {
		return nil, nil, false
	}
	b := l.buf[l.start:l.end]
	i := 0
	if hasPrefix(b, "event: ") {
		n := bytes.IndexByte(b, '\n')
		if n < 0 {
			return nil, nil, false
		}
		name, i = b[len("event: "):n], n+1
	}
	if !hasPrefix(b[i:], "data: ") {
		return nil, nil, false
	}
	n := bytes.IndexByte(b[i:], '\n')
	if n < 0 || i+n+1 >= len(b) || b[i+n+1] != '\n' {
		return nil, nil, false
	}
	end := i + n + 2 // past the blank line
	if !l.noCR(end) {
		return nil, nil, false
	}
	data = b[i+len("data: ") : i+n]
	l.start += end
	l.terminated = true
	return name, data, true
}

// bufferedLine takes the next line off the buffer when it is there whole,
// ended by LF alone, and holds more than white space (the lines an NDJSON
// body is made of); otherwise it leaves it to line (ok false, nothing
// taken).
func (l *lineReader) bufferedLine() (line []byte, ok bool) {
	if l.first || l.scanned != 0 {
		return nil, false
	}
	b := l.buf[l.start:l.end]
	n := bytes.IndexByte(b, '\n')
	if n < 0 || !l.noCR(n) || len(bytes.TrimSpace(b[:n])) == 0 {
		return nil, false
	}
	l.start += n + 1
	l.terminated = true
	return b[:n], true
}

// noCR reports whether the next n unread bytes hold no CR. The buffer is
// searched for CRs once, not once per event: crFree marks how far it is
// known to hold none (the first CR, or the end of what has been read).
func (l *lineReader) noCR(n int) bool {
	if l.crFree < l.start {
		l.crFree = l.start
	}
	if l.start+n > l.crFree {
		if k := bytes.IndexByte(l.buf[l.crFree:l.end], '\r'); k >= 0 {
			l.crFree += k
		} else {
			l.crFree = l.end
		}
	}
	return l.start+n <= l.crFree
}

// wholeDataLine reports whether an unterminated last line is a complete
// data line.
func wholeDataLine(line []byte) bool {
	v, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return false
	}
	v = bytes.TrimSpace(v)
	return string(v) == "[DONE]" || (len(v) > 0 && json.Valid(v))
}

// ndjsonReader yields the non-blank lines of a newline-delimited JSON body
// (Ollama's native API). A last line without a line break is kept only when
// it is whole JSON; otherwise the body was cut and the line is dropped.
type ndjsonReader struct {
	lines *lineReader
}

func newNDJSONReader(r io.Reader) *ndjsonReader {
	return &ndjsonReader{lines: newLineReader(r)}
}

func (n *ndjsonReader) buffered() (name, data []byte, ok bool) {
	line, ok := n.lines.bufferedLine()
	return nil, line, ok
}

func (n *ndjsonReader) next() (name, data []byte, err error) {
	for {
		line, err := n.lines.line()
		if err != nil {
			return nil, nil, err
		}
		if !n.lines.terminated && !json.Valid(line) {
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return nil, line, nil
	}
}
