package exttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/host/procgroup"
	"github.com/zut-go/zut/proto"
)

// record is one line of a session: a frame the tester wrote, or a line
// the extension wrote (decoded into frame, or err when it could not be).
type record struct {
	seq      int
	fromHost bool
	at       time.Duration // since the process started
	text     string
	size     int // bytes, without the newline
	frame    proto.Frame
	err      error
}

// typ is the frame type of r, or "" for an undecodable line.
func (r *record) typ() string {
	if r.frame != nil {
		return r.frame.Type()
	}
	var bad *proto.InvalidFrameError
	if errors.As(r.err, &bad) {
		return bad.Type
	}
	return ""
}

// Bounds of what a session keeps of the extension's stdout: past them the
// extension is stopped, so that the tester's memory stays bounded.
const (
	maxRecords    = 20000
	maxRecordText = 64 << 20
	maxLineKept   = 1 << 20 // of a longer line only the start is kept
)

// session is the conversation with one extension process. Its reader
// goroutine, started by run and joined by close, records every
// line of stdout and calls observe for it; the goroutines answering host
// requests are joined by close too.
type session struct {
	p       *process
	t       Timeouts
	src     *watchedReader
	observe func(*record) // on the reader goroutine, before waiters wake

	wmu  sync.Mutex // serialises writes
	werr error      // first write error

	mu      sync.Mutex
	recs    []*record
	kept    int           // bytes of text in recs
	flooded bool          // the bounds were passed and the extension stopped
	changed chan struct{} // closed and replaced on every new record
	eof     error         // why reading stopped, once it has

	readerDone chan struct{}
	restless   bool           // a settle timed out: the extension is never idle
	idle       bool           // the last settle saw the extension idle
	answers    sync.WaitGroup // goroutines writing answers to host requests
	pending    atomic.Int32   // of those, still running
	ids        atomic.Int64
}

func newSession(p *process, t Timeouts, observe func(*record)) *session {
	return &session{
		p: p, t: t, observe: observe, src: &watchedReader{f: p.stdout},
		changed: make(chan struct{}), readerDone: make(chan struct{}),
	}
}

// run starts the reader goroutine; close joins it.
func (s *session) run() { go s.read() }

// watchedReader tells whether the reader is blocked waiting for more
// output: then every line read so far has been handled.
type watchedReader struct {
	f       *os.File
	waiting atomic.Bool
}

func (w *watchedReader) Read(b []byte) (int, error) {
	w.waiting.Store(true)
	n, err := w.f.Read(b)
	w.waiting.Store(false)
	return n, err
}

// read records the extension's stdout until it ends.
func (s *session) read() {
	defer close(s.readerDone)
	r := proto.NewReader(s.src, proto.MaxLine)
	for {
		line, err := r.ReadLine()
		if err != nil {
			var tooLong *proto.LineTooLongError
			if errors.As(err, &tooLong) {
				s.add(&record{text: fmt.Sprintf("(a line of more than %d bytes)", tooLong.Limit), size: tooLong.Limit + 1, err: err})
				continue
			}
			s.mu.Lock()
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				s.eof = io.EOF
			} else {
				s.eof = err
			}
			s.wakeLocked()
			s.mu.Unlock()
			return
		}
		f, derr := proto.Unmarshal(line)
		text := line
		if len(text) > maxLineKept {
			text = text[:maxLineKept]
		}
		if s.full(len(text)) {
			continue // the extension is being stopped; drain until EOF
		}
		s.add(&record{text: string(text), size: len(line), frame: f, err: derr})
	}
}

// full reports whether keeping n more bytes would pass the bounds; the
// first time it does, it records why and kills the extension's group.
func (s *session) full(n int) bool {
	s.mu.Lock()
	over := len(s.recs) >= maxRecords || s.kept+n > maxRecordText
	first := over && !s.flooded
	if over {
		s.flooded = true
	} else {
		s.kept += n
	}
	s.mu.Unlock()
	if first {
		s.add(&record{text: fmt.Sprintf("(more than %d lines or %d MiB on stdout)", maxRecords, maxRecordText>>20), err: errFlood})
		_ = procgroup.Kill(s.p.pid)
	}
	return over
}

// errFlood marks the record added when an extension floods stdout.
var errFlood = errors.New("stdout flood")

func (s *session) add(r *record) {
	r.at = time.Since(s.p.startAt)
	s.mu.Lock()
	r.seq = len(s.recs)
	s.recs = append(s.recs, r)
	s.mu.Unlock()
	if !r.fromHost && s.observe != nil {
		s.observe(r)
	}
	s.mu.Lock()
	s.wakeLocked()
	s.mu.Unlock()
}

func (s *session) wakeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// mark returns the index of the next record: await(mark, ...) looks only
// at what comes after now.
func (s *session) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

// since returns the records from index i on.
func (s *session) since(i int) []*record {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.recs) {
		return nil
	}
	return append([]*record(nil), s.recs[i:]...)
}

// nextID returns a fresh correlation id, a decimal counter (C13).
func (s *session) nextID() string { return strconv.FormatInt(s.ids.Add(1), 10) }

// send writes f as one line.
func (s *session) send(f proto.Frame) (*record, error) {
	line, err := proto.Marshal(f)
	if err != nil {
		return nil, err
	}
	return s.sendLine(line, f, 1)
}

// sendExtra writes f with an extra member the extension cannot know.
func (s *session) sendExtra(f proto.Frame, member string, value string) (*record, error) {
	line, err := proto.Marshal(f)
	if err != nil {
		return nil, err
	}
	extra := []byte(`,"` + member + `":` + value + `}`)
	line = append(line[:len(line)-1], extra...)
	return s.sendLine(line, f, 1)
}

// sendLine writes line and a newline in pieces writes, 20 ms apart (a
// slow host), each bounded by the write deadline (C11). The record is
// added before the first byte goes out, so that a reply cannot precede it.
func (s *session) sendLine(line []byte, f proto.Frame, pieces int) (*record, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return nil, s.werr
	}
	rec := &record{fromHost: true, text: string(line), size: len(line), frame: f}
	s.add(rec)
	data := append(bytes.Clone(line), '\n')
	step := max(1, (len(data)+pieces-1)/pieces)
	for len(data) > 0 {
		n := min(step, len(data))
		_ = s.p.stdin.SetWriteDeadline(time.Now().Add(s.t.Write))
		if _, err := s.p.stdin.Write(data[:n]); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = fmt.Errorf("stopped reading its stdin (writing %s frame took more than %v, C11)", article(f.Type()), s.t.Write)
			} else {
				err = fmt.Errorf("closed its stdin (writing %s frame: %v)", article(f.Type()), errors.Unwrap(err))
			}
			s.werr = err
			return rec, err
		}
		data = data[n:]
		if len(data) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return rec, nil
}

// answer writes frames from a goroutine of its own, so that the reader
// never blocks on a write; settle waits for it.
func (s *session) answer(frames ...proto.Frame) { s.answerThen(nil, frames...) }

// answerThen is answer, calling then (when not nil) once the frames are
// written or writing failed.
func (s *session) answerThen(then func(), frames ...proto.Frame) {
	s.pending.Add(1)
	s.answers.Add(1)
	go func() {
		defer s.answers.Done()
		defer s.pending.Add(-1)
		for _, f := range frames {
			if _, err := s.send(f); err != nil {
				break
			}
		}
		if then != nil {
			then()
		}
	}()
}

// gone reports why the extension can no longer answer: it exited, closed
// its stdout, or stopped reading stdin. "" while it can.
func (s *session) gone() string {
	s.mu.Lock()
	flooded := s.flooded
	s.mu.Unlock()
	if flooded {
		return "was stopped for flooding stdout (see robustness.stdout)"
	}
	if s.p.exited() {
		return "exited (" + s.p.status() + ")"
	}
	s.mu.Lock()
	eof := s.eof
	s.mu.Unlock()
	if eof != nil {
		return "closed its stdout"
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return s.werr.Error()
	}
	return ""
}

// errTimeout is what await returns when the deadline passes.
var errTimeout = errors.New("deadline passed")

// await waits until a record from index from on satisfies match, for at
// most d of the extension's own time (see deadline). It fails with
// errTimeout, with a *goneError when the extension can no longer answer,
// or with the context's error.
func (s *session) await(ctx context.Context, from int, d time.Duration, match func(*record) bool) (*record, error) {
	return s.awaitUntil(ctx, from, s.p.deadline(time.Now(), d), match)
}

// awaitUntil is await with a deadline set elsewhere.
func (s *session) awaitUntil(ctx context.Context, from int, dl *deadline, match func(*record) bool) (*record, error) {
	// The timer wakes at least every sampleEvery, so that the deadline
	// sees the extension waiting for a CPU.
	t := time.NewTimer(min(max(dl.left(), time.Millisecond), sampleEvery))
	defer t.Stop()
	exited := false
	for {
		s.mu.Lock()
		for i := from; i < len(s.recs); i++ {
			if r := s.recs[i]; !r.fromHost && match(r) {
				s.mu.Unlock()
				return r, nil
			}
		}
		from = len(s.recs)
		ch, eof := s.changed, s.eof
		s.mu.Unlock()
		if eof != nil || exited {
			return nil, &goneError{why: s.goneReason()}
		}
		select {
		case <-ch:
		case <-s.p.done:
			// Take the last lines it wrote before giving up.
			s.drain()
			exited = true
		case <-t.C:
			if left := dl.left(); left > 0 {
				t.Reset(min(max(left, 5*time.Millisecond), sampleEvery))
				continue
			}
			// Output the reader has not taken yet was written before the
			// deadline: on a loaded machine the tester, not the
			// extension, is late. Let the reader catch up.
			if time.Since(dl.start) < dl.d+maxStretch && (unread(s.p.stdout) > 0 || !s.src.waiting.Load()) {
				t.Reset(10 * time.Millisecond)
				continue
			}
			return nil, errTimeout
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// goneReason is gone() for a session known to be unable to answer.
func (s *session) goneReason() string {
	if why := s.gone(); why != "" {
		return why
	}
	return "closed its stdout"
}

// goneError reports an extension that went away while the tester waited.
type goneError struct{ why string }

func (e *goneError) Error() string { return "the extension " + e.why }

// drain waits a little for the reader to take what an exited process
// left in the pipe.
func (s *session) drain() {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-s.readerDone:
	case <-t.C:
	}
}

// ended waits up to d for the extension's stdout and stderr to reach
// their end, which they do once no process holds them, and reports
// whether they did.
func (s *session) ended(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []chan struct{}{s.readerDone, s.p.stderrDone} {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	return true
}

// reply waits for the reply of type typ to the request id sent at index
// from: a frame of that type and id, or a line of that type and id that
// could not be decoded.
func (s *session) reply(ctx context.Context, from int, typ, id string, d time.Duration) (*record, error) {
	return s.await(ctx, from, d, func(r *record) bool { return isReplyTo(r, typ, id) })
}

func isReplyTo(r *record, typ, id string) bool {
	if r.frame != nil {
		return r.frame.Type() == typ && replyID(r.frame) == id
	}
	var bad *proto.InvalidFrameError
	return errors.As(r.err, &bad) && bad.Type == typ && bad.ID == id
}

// replyID returns the id of a reply frame, or "".
func replyID(f proto.Frame) string {
	switch f := f.(type) {
	case *proto.CommandResponse:
		return f.ID
	case *proto.ToolResult:
		return f.ID
	case *proto.EventInterceptResponse:
		return f.ID
	case *proto.CommandCompletions:
		return f.ID
	case *proto.EditorKeyResponse:
		return f.ID
	case *proto.RenderToolResponse:
		return f.ID
	case *proto.RenderMessageResponse:
		return f.ID
	}
	return ""
}

// settleLimit bounds one settle. It is long enough for an extension on a
// loaded machine to get the CPU; one that never goes idle (a timer, a busy
// loop) costs it once, then restlessLimit per probe.
const (
	settleLimit   = 2 * time.Second
	restlessLimit = 50 * time.Millisecond
)

// settle waits until the extension has taken everything the tester sent
// and has nothing more to say: its stdin and stdout pipes are empty, the
// reader is waiting for output, no answer is being written, and every
// thread of its process group sleeps, twice in a row. Where the system
// cannot tell whether a process runs, it waits 50 ms instead. It returns
// false when the extension went away. settle is called by the probes'
// goroutine only.
func (s *session) settle(ctx context.Context) bool {
	limit := settleLimit
	if s.restless {
		limit = restlessLimit
	}
	deadline := time.Now().Add(limit)
	probe := newIdleProbe(s.p.pid)
	calm := 0
	s.idle = false
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if s.p.exited() {
			s.drain()
			return false
		}
		// The order matters: input taken, then nothing running, then no
		// output left to read.
		quiet := s.pending.Load() == 0 && unread(s.p.stdin) <= 0
		idle, known := probe.idle()
		if !known {
			time.Sleep(50 * time.Millisecond)
			s.answers.Wait()
			s.idle = true
			return s.gone() == ""
		}
		if quiet && idle && unread(s.p.stdout) == 0 && s.src.waiting.Load() && s.pending.Load() == 0 {
			if calm++; calm == 2 {
				s.idle = true
				return s.gone() == ""
			}
		} else {
			calm = 0
		}
		time.Sleep(3 * time.Millisecond)
	}
	if ctx.Err() == nil {
		s.restless = true
	}
	return s.gone() == ""
}

// close stops the process (if it still runs) and joins the goroutines.
func (s *session) close() {
	s.p.stop(s.t.Kill)
	s.drain()
	s.p.release()
	<-s.readerDone
	s.answers.Wait()
}
