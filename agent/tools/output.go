package tools

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
)

// capture collects a command's output with bounded memory. While the
// output fits the caps it is kept whole; once it outgrows them the whole
// stream is copied to a temporary file, and only the head and a tail
// window stay in memory. It is safe for concurrent use: one goroutine
// writes while another takes progress snapshots.
type capture struct {
	maxLines, maxBytes int
	tempDir            string
	session            string // names the spill file, for CleanOutput
	maxSaved           int64  // bound of the spill file; past it only the tail is kept

	mu       sync.Mutex
	head     []byte // the first bytes of the output, at least the caps' worth
	tail     []byte // the last tailKeep..2*tailKeep bytes
	total    int64
	newlines int64
	last     byte // the last byte written
	spill    *os.File
	spillErr error
	saved    int64 // bytes in the spill file, marker included
	dropped  int64 // bytes of output dropped from the spill file's start
	changed  bool  // written since the last snapshot
}

// tailKeep is how much of the output's end capture keeps in memory.
const tailKeep = 64 << 10

func newCapture(maxLines, maxBytes int, tempDir, session string) *capture {
	return &capture{maxLines: maxLines, maxBytes: maxBytes, tempDir: tempDir, session: session, maxSaved: MaxSavedOutput}
}

// Write records p. It never fails: a problem saving the full output is
// reported in the rendered text instead.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	c.last = p[len(p)-1]
	c.changed = true
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*tailKeep {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-tailKeep:]...)
	}
	fits := c.total <= int64(c.maxBytes) && c.newlines <= int64(c.maxLines)
	switch {
	case c.spill != nil:
		c.spillWrite(p)
	case !fits && c.spillErr == nil:
		// Everything before p fitted, so head holds all of it.
		c.startSpill()
		if c.spill != nil {
			c.spillWrite(c.head)
		}
		if c.spill != nil {
			c.spillWrite(p)
		}
	}
	if room := c.maxBytes - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

// startSpill opens the file that receives the full output: 0600 in a
// 0700 directory, since commands print secrets and private data.
func (c *capture) startSpill() {
	if err := os.MkdirAll(c.tempDir, 0o700); err != nil {
		c.spillErr = err
		return
	}
	f, err := os.CreateTemp(c.tempDir, outputPrefix+fileTag(c.session)+"-*"+outputSuffix)
	if err != nil {
		c.spillErr = err
		return
	}
	c.spill = f
	c.saved = 0
}

func (c *capture) spillWrite(p []byte) {
	if _, err := c.spill.WriteAt(p, c.saved); err != nil {
		c.failSpill(err)
		return
	}
	c.saved += int64(len(p))
	if c.saved > c.maxSaved {
		c.keepTail()
	}
}

func (c *capture) failSpill(err error) {
	c.spillErr = err
	c.spill.Close()
	c.spill = nil
}

// keepTail shrinks a spill file that passed maxSaved to a marker line
// and the last half of maxSaved, copying within the file in 1 MiB steps
// (never holding the tail in memory). Each byte is copied about once per
// maxSaved/2 bytes written, so an endless output costs twice its writes.
func (c *capture) keepTail() {
	keep := c.maxSaved / 2
	from := c.saved - keep
	c.dropped += from - c.markerLen()
	mark := c.marker()
	buf := make([]byte, min(keep, 1<<20))
	to := int64(len(mark))
	for done := int64(0); done < keep; {
		n, err := c.spill.ReadAt(buf[:min(int64(len(buf)), keep-done)], from+done)
		if n > 0 {
			if _, werr := c.spill.WriteAt(buf[:n], to+done); werr != nil {
				c.failSpill(werr)
				return
			}
			done += int64(n)
		}
		if err != nil && done < keep {
			c.failSpill(err)
			return
		}
	}
	if _, err := c.spill.WriteAt(mark, 0); err != nil {
		c.failSpill(err)
		return
	}
	if err := c.spill.Truncate(to + keep); err != nil {
		c.failSpill(err)
		return
	}
	c.saved = to + keep
}

// marker is the first line of a spill file whose start was dropped; its
// length never changes, so the file can be rewritten in place.
func (c *capture) marker() []byte {
	return fmt.Appendf(nil, "[zut: the first %20d bytes of this output were dropped to keep the file under %s; what follows is the last part]\n", c.dropped, formatSize(c.maxSaved))
}

// markerLen is the length of the marker at the start of the spill file
// (0 before the first drop).
func (c *capture) markerLen() int64 {
	if c.dropped == 0 {
		return 0
	}
	return int64(len(c.marker()))
}

// lines is the number of lines written so far.
func (c *capture) lines() int64 {
	if c.total > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// snapshot returns the last few lines of output for progress, and whether
// anything was written since the previous snapshot.
func (c *capture) snapshot(maxLines, maxBytes int) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.changed {
		return "", false
	}
	c.changed = false
	return string(lastLines(c.tail, maxLines, maxBytes, int64(len(c.tail)) < c.total)), true
}

// finish closes the spill file and renders the output for the model: the
// whole output when it fits, else its head and tail around a marker that
// counts what was left out and names the file holding all of it. It
// returns the file's path ("" when nothing was saved).
func (c *capture) finish() (text, savedTo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total <= int64(c.maxBytes) && c.lines() <= int64(c.maxLines) {
		return string(c.head), ""
	}
	if c.spill == nil && c.spillErr == nil { // it outgrew the line cap only with its last line
		c.startSpill()
		if c.spill != nil {
			c.spillWrite(c.head)
		}
	}
	if c.spill != nil {
		savedTo = c.spill.Name()
		if err := c.spill.Close(); err != nil && c.spillErr == nil {
			c.spillErr = err
		}
		c.spill = nil
	}
	head := firstLines(c.head, c.maxLines/2, c.maxBytes/2)
	tail := lastLines(c.tail, c.maxLines/2, c.maxBytes/2, int64(len(c.tail)) < c.total)
	omitted := c.total - int64(len(head)) - int64(len(tail))
	if omitted < 0 { // cannot happen with sane caps; never show a byte twice
		tail = tail[-omitted:]
		omitted = 0
	}
	omittedLines := c.newlines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("[... ")
	if omittedLines > 0 {
		fmt.Fprintf(&b, "%s (%s) omitted", plural(int(omittedLines), "line"), formatSize(omitted))
	} else {
		fmt.Fprintf(&b, "%s omitted", formatSize(omitted))
	}
	switch {
	case savedTo != "" && c.spillErr == nil && c.dropped > 0:
		fmt.Fprintf(&b, "; the output was %s (%s), too much to keep: its last %s saved to %s; read or grep it for the rest", plural(int(c.lines()), "line"), formatSize(c.total), formatSize(c.saved-c.markerLen()), savedTo)
	case savedTo != "" && c.spillErr == nil:
		fmt.Fprintf(&b, "; full output (%s, %s) saved to %s; read or grep it for the rest", plural(int(c.lines()), "line"), formatSize(c.total), savedTo)
	case c.spillErr != nil:
		fmt.Fprintf(&b, "; the full output could not be saved: %v", unwrapPath(c.spillErr))
	}
	b.WriteString(" ...]\n")
	b.Write(tail)
	return b.String(), savedTo
}

// firstLines returns the longest prefix of p holding at most maxLines lines
// and maxBytes bytes that ends at a line end; a first line longer than
// maxBytes is cut inside.
func firstLines(p []byte, maxLines, maxBytes int) []byte {
	end, n := 0, 0
	for end < len(p) && n < maxLines {
		i := bytes.IndexByte(p[end:], '\n')
		if i < 0 || end+i+1 > maxBytes {
			break
		}
		end += i + 1
		n++
	}
	if end == 0 {
		return []byte(cutUTF8(string(p), maxBytes))
	}
	return p[:end]
}

// lastLines returns the longest suffix of p holding at most maxLines lines
// and maxBytes bytes that starts at a line start. partial says p is not
// the whole output (its first line may be cut), so that line is dropped. A
// last line longer than maxBytes is cut inside, keeping its end.
func lastLines(p []byte, maxLines, maxBytes int, partial bool) []byte {
	body := p
	if len(body) > 0 && body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	// Walk back line by line from the end.
	start, n, pos := len(p), 0, len(body)
	for n < maxLines {
		i := bytes.LastIndexByte(body[:pos], '\n')
		lineStart := i + 1
		if len(p)-lineStart > maxBytes || i < 0 && partial {
			break
		}
		start, n = lineStart, n+1
		if i < 0 {
			break
		}
		pos = i
	}
	if n == 0 {
		s := p[max(0, len(p)-maxBytes):]
		for len(s) > 0 && s[0]&0xC0 == 0x80 { // do not start inside a UTF-8 sequence
			s = s[1:]
		}
		return s
	}
	return p[start:]
}
