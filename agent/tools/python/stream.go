package python

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent/tools"
)

// capBuf keeps the head and the tail of a stream in bounded memory and
// counts what it was given.
type capBuf struct {
	headMax, tailMax int
	head, tail       []byte
	total, newlines  int64
}

func newCapBuf(headMax, tailMax int) *capBuf {
	return &capBuf{headMax: headMax, tailMax: tailMax}
}

func (c *capBuf) write(p []byte) {
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if room := c.headMax - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
}

// text renders the stream: whole when it fits, else its head and tail
// around a line that says how much was left out. Invalid UTF-8 (a
// character cut by the caps, or bytes the code wrote) becomes U+FFFD.
func (c *capBuf) text() (s string, cut bool) {
	if int64(len(c.head)) == c.total {
		return strings.ToValidUTF8(string(c.head), "\uFFFD"), false
	}
	head := c.head
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1] // end the head at a line end when one is near
	}
	tail := c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 && int64(len(c.head)+len(c.tail)) < c.total {
		tail = tail[i+1:] // start the tail at a line start
	}
	omitted := c.total - int64(len(head)) - int64(len(tail))
	lines := c.newlines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %s omitted", tools.FormatSize(omitted))
	if lines > 0 {
		fmt.Fprintf(&b, ", %s", tools.Plural(int(lines), "line"))
	}
	fmt.Fprintf(&b, "; %s in all ...]\n", tools.FormatSize(c.total))
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD"), true
}

// tailText is the last few lines of the stream, for progress.
func (c *capBuf) tailText(maxBytes int) string {
	p := c.tail
	if len(p) == 0 {
		p = c.head
	}
	if len(p) > maxBytes {
		p = p[len(p)-maxBytes:]
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			p = p[i+1:]
		}
	}
	return strings.ToValidUTF8(string(p), "\uFFFD")
}

// stream collects one of the interpreter's output pipes. A call arms it
// with the call's marker; the bytes before the marker are the call's
// output, the bytes after it (from threads or processes the code left
// running) go to the next call. It is safe for concurrent use: its reader
// goroutine writes while the call waits.
type stream struct {
	headMax, tailMax int

	mu     sync.Mutex
	cur    *capBuf
	done   *capBuf // the armed call's output, once its marker was seen
	marker []byte
	carry  []byte // the end of the data, which may begin the marker
	found  chan struct{}
	eof    chan struct{} // closed when the pipe is at its end or closed
}

func newStream(headMax, tailMax int) *stream {
	return &stream{headMax: headMax, tailMax: tailMax, cur: newCapBuf(headMax, tailMax), eof: make(chan struct{})}
}

// read copies the pipe into the stream until it ends; it is the body of
// the stream's reader goroutine.
func (s *stream) read(f *os.File) {
	defer close(s.eof)
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			s.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (s *stream) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.marker == nil {
		s.cur.write(p)
		return
	}
	data := append(s.carry, p...)
	if i := bytes.Index(data, s.marker); i >= 0 {
		s.cur.write(data[:i])
		s.done, s.cur = s.cur, newCapBuf(s.headMax, s.tailMax)
		s.cur.write(data[i+len(s.marker):])
		s.marker, s.carry = nil, nil
		close(s.found)
		return
	}
	keep := min(len(data), len(s.marker)-1)
	s.cur.write(data[:len(data)-keep])
	s.carry = append([]byte(nil), data[len(data)-keep:]...)
}

// arm starts a call whose output ends at marker. The returned channel is
// closed when the marker is seen.
func (s *stream) arm(marker []byte) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marker, s.carry, s.done = marker, nil, nil
	s.found = make(chan struct{})
	return s.found
}

// finish ends the call and returns its output: up to the marker when it
// was seen, else everything so far.
func (s *stream) finish() *capBuf {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.done; d != nil {
		s.done = nil
		return d
	}
	c := s.cur
	c.write(s.carry)
	s.cur, s.carry, s.marker = newCapBuf(s.headMax, s.tailMax), nil, nil
	return c
}

// snapshot is the end of the output so far, for progress.
func (s *stream) snapshot(maxBytes int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.cur.tailText(maxBytes) + string(s.carry) // the carry may hold the last line
	return strings.ToValidUTF8(text, "\uFFFD")
}
