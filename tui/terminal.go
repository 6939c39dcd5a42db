package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Resize reports a new terminal size (SIGWINCH).
type Resize struct{ Width, Height int }

// Resume reports that the process was continued after a stop (SIGCONT,
// as after Ctrl+Z and fg). The owner calls Terminal.Resume and redraws
// everything.
type Resume struct{}

func (Resize) isEvent() {}
func (Resume) isEvent() {}

// DefaultEscDelay is how long a lone ESC waits for the rest of a sequence
// before it is reported as the Esc key.
const DefaultEscDelay = 50 * time.Millisecond

// Modes are the input modes zut asks the terminal for.
type Modes struct {
	BracketedPaste bool
	Focus          bool
	// KittyFlags, when non-zero, are pushed with the kitty keyboard
	// protocol (1 disambiguates escape codes).
	KittyFlags int
	// ModifyOtherKeys turns on xterm's modifyOtherKeys level 2; use it
	// when the terminal does not speak the kitty protocol.
	ModifyOtherKeys bool
}

// Terminal owns the input and output of an interactive session: raw mode,
// input decoding, window size and resize and continue signals, input modes
// and suspending on Ctrl+Z. Input is read and decoded by goroutines that
// Start starts and Close stops and waits for; everything else, writes
// included, belongs to one owner (the UI loop). The Screen writes to the
// same output directly.
//
// In and out need not be terminals: with pipes (in tests, or input from a
// file) raw mode, sizes and signals are skipped and the rest works.
type Terminal struct {
	in       io.Reader
	out      io.Writer
	inFD     int // -1 when in is not a terminal
	outFD    int // -1 when out is not a terminal
	EscDelay time.Duration
	// Cooked leaves the input terminal in its normal (line) mode: for
	// dumb terminals, where zut reads whole lines the terminal echoes.
	// Set it before Start.
	Cooked bool

	saved *term.State
	modes Modes

	events  chan Event
	done    chan struct{}
	wg      sync.WaitGroup
	src     inputSource
	started bool
	closed  bool
	sigStop func()

	// Release and Reacquire stop and restart the reader: pausing is set,
	// the reader reports on paused and waits for resume.
	pausing  atomic.Bool
	paused   chan struct{}
	resume   chan struct{}
	released bool
	stopped  bool // the reader is parked
}

// NewTerminal returns a Terminal reading keys from in and writing to out.
// Call Start before reading Events and Close when done, even on error and
// panic paths (defer it): Close restores the terminal.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	t := &Terminal{in: in, out: out, inFD: -1, outFD: -1, EscDelay: DefaultEscDelay,
		events: make(chan Event, 64), done: make(chan struct{}),
		paused: make(chan struct{}), resume: make(chan struct{})}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.inFD = int(f.Fd())
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.outFD = int(f.Fd())
	}
	return t
}

// IsTerminal reports whether the output is a terminal.
func (t *Terminal) IsTerminal() bool { return t.outFD >= 0 }

// Size returns the terminal's width and height, or 80x24 when the output
// is not a terminal.
func (t *Terminal) Size() (width, height int) {
	for _, fd := range []int{t.outFD, t.inFD} {
		if fd < 0 {
			continue
		}
		if w, h, err := term.GetSize(fd); err == nil && w > 0 && h > 0 {
			return w, h
		}
	}
	return 80, 24
}

// Start puts the input terminal into raw mode and starts reading events.
func (t *Terminal) Start() error {
	if t.started {
		return errors.New("start terminal: already started")
	}
	if t.inFD >= 0 && !t.Cooked {
		st, err := term.MakeRaw(t.inFD)
		if err != nil {
			return fmt.Errorf("start terminal: raw mode: %w", err)
		}
		t.saved = st
	}
	src, err := interruptibleReader(t.in)
	if err != nil {
		t.restoreMode()
		return fmt.Errorf("start terminal: %w", err)
	}
	t.src = src
	t.started = true
	chunks := make(chan []byte)
	signals, stop := notifySignals()
	t.sigStop = stop
	t.wg.Add(2)
	go t.readLoop(chunks)
	go t.decodeLoop(chunks, signals)
	return nil
}

// Events returns the channel of input events. It is closed after Close, or
// when the input ends.
func (t *Terminal) Events() <-chan Event { return t.events }

// readLoop reads raw input until the reader fails or is interrupted by
// Close, handing each chunk to decodeLoop.
func (t *Terminal) readLoop(chunks chan<- []byte) {
	defer t.wg.Done()
	defer close(chunks)
	buf := make([]byte, 4096)
	for {
		n, err := t.src.r.Read(buf)
		if n > 0 {
			select {
			case chunks <- append([]byte(nil), buf[:n]...):
			case <-t.done:
				return
			}
		}
		if err != nil {
			if t.pausing.Load() && t.src.rearm != nil {
				select {
				case t.paused <- struct{}{}:
				case <-t.done:
					return
				}
				select {
				case <-t.resume:
				case <-t.done:
					return
				}
				t.src.rearm()
				continue
			}
			return
		}
	}
}

// decodeLoop turns chunks and signals into events; it flushes a pending
// ESC after EscDelay without input. It exits when Close is called or the
// input ends.
func (t *Terminal) decodeLoop(chunks <-chan []byte, signals <-chan os.Signal) {
	defer t.wg.Done()
	defer close(t.events)
	var dec Decoder
	var timer *time.Timer
	var timeout <-chan time.Time
	send := func(evs []Event) bool {
		for _, ev := range evs {
			select {
			case t.events <- ev:
			case <-t.done:
				return false
			}
		}
		return true
	}
	for {
		select {
		case <-t.done:
			return
		case chunk, ok := <-chunks:
			if !ok {
				send(dec.Flush())
				return
			}
			if !send(dec.Feed(chunk)) {
				return
			}
			if dec.Pending() {
				if timer == nil {
					timer = time.NewTimer(t.EscDelay)
				} else {
					timer.Reset(t.EscDelay)
				}
				timeout = timer.C
			} else {
				timeout = nil
			}
		case <-timeout:
			timeout = nil
			if !send(dec.Flush()) {
				return
			}
		case sig := <-signals:
			ev := t.signalEvent(sig)
			if ev != nil && !send([]Event{ev}) {
				return
			}
		}
	}
}

// SetModes asks the terminal for input modes, writing only what changes.
// Close turns them all off again.
func (t *Terminal) SetModes(m Modes) error {
	seq := modeChange(t.modes, m)
	t.modes = m
	if seq == "" {
		return nil
	}
	_, err := io.WriteString(t.out, seq)
	return err
}

// modeChange returns the sequences that go from modes a to b.
func modeChange(a, b Modes) string {
	var s string
	if a.BracketedPaste != b.BracketedPaste {
		s += map[bool]string{true: "\x1b[?2004h", false: "\x1b[?2004l"}[b.BracketedPaste]
	}
	if a.Focus != b.Focus {
		s += map[bool]string{true: "\x1b[?1004h", false: "\x1b[?1004l"}[b.Focus]
	}
	if a.KittyFlags != b.KittyFlags {
		if a.KittyFlags != 0 {
			s += "\x1b[<u"
		}
		if b.KittyFlags != 0 {
			s += fmt.Sprintf("\x1b[>%du", b.KittyFlags)
		}
	}
	if a.ModifyOtherKeys != b.ModifyOtherKeys {
		s += map[bool]string{true: "\x1b[>4;2m", false: "\x1b[>4;0m"}[b.ModifyOtherKeys]
	}
	return s
}

// Probe asks the terminal for its capabilities (see Probe) using the
// Terminal's events. Call it after Start and before the owner reads
// Events; it returns the non-reply events read meanwhile.
func (t *Terminal) Probe(ctx context.Context, timeout time.Duration) (Caps, []Event, error) {
	return Probe(ctx, t.out, t.events, timeout)
}

// Suspend stops the process as Ctrl+Z does in a shell: it turns the input
// modes off, shows the cursor, restores the terminal's original mode and
// sends SIGTSTP to the process group. Clear the Screen first. When the
// shell continues the process, a Resume event arrives; until then the
// owner should draw nothing.
func (t *Terminal) Suspend() error {
	if _, err := io.WriteString(t.out, modeChange(t.modes, Modes{})+"\x1b[?25h"); err != nil {
		return err
	}
	t.restoreMode()
	return suspendSelf()
}

// Resume re-enters raw mode and turns the input modes on again after a
// Resume event. The owner then redraws (Screen.Invalidate and Render).
func (t *Terminal) Resume() error {
	if t.inFD >= 0 && !t.Cooked {
		if _, err := term.MakeRaw(t.inFD); err != nil {
			return fmt.Errorf("resume terminal: raw mode: %w", err)
		}
	}
	_, err := io.WriteString(t.out, modeChange(Modes{}, t.modes))
	return err
}

// Release hands the terminal to another program for a while (an external
// editor, or an extension that asked for it): it turns the input modes
// off, shows the cursor, restores the original terminal mode and stops
// reading input, so that the program gets every key. Clear the Screen
// first. Events that were decoded but not yet taken are returned so that
// no key typed before is lost. Reacquire undoes it.
func (t *Terminal) Release() ([]Event, error) {
	if t.released || t.closed {
		return nil, nil
	}
	t.released = true
	_, err := io.WriteString(t.out, modeChange(t.modes, Modes{})+"\x1b[?25h")
	t.restoreMode()
	var held []Event
	if !t.started || t.src.rearm == nil {
		return held, err
	}
	t.pausing.Store(true)
	if ierr := t.src.interrupt(); ierr != nil {
		t.pausing.Store(false)
		return held, errors.Join(err, ierr)
	}
	for {
		select {
		case <-t.paused:
			t.stopped = true
			return held, err
		case ev, ok := <-t.events:
			if !ok {
				return held, err
			}
			held = append(held, ev)
		}
	}
}

// Reacquire takes the terminal back after Release: raw mode, the input
// modes, and reading. The owner then redraws (Screen.Invalidate).
func (t *Terminal) Reacquire() error {
	if !t.released || t.closed {
		return nil
	}
	t.released = false
	var err error
	if t.inFD >= 0 && !t.Cooked {
		if _, rerr := term.MakeRaw(t.inFD); rerr != nil {
			err = fmt.Errorf("reacquire terminal: raw mode: %w", rerr)
		}
	}
	if _, werr := io.WriteString(t.out, modeChange(Modes{}, t.modes)); werr != nil && err == nil {
		err = werr
	}
	if t.stopped {
		t.stopped = false
		t.pausing.Store(false)
		select {
		case t.resume <- struct{}{}:
		case <-t.done:
		}
	}
	return err
}

// Close turns the input modes off, restores the terminal's original mode,
// stops the input goroutines and waits for them. It is safe to call more
// than once, and from a deferred function while panicking.
func (t *Terminal) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var err error
	if seq := modeChange(t.modes, Modes{}); seq != "" {
		_, err = io.WriteString(t.out, seq)
	}
	t.modes = Modes{}
	t.restoreMode()
	if !t.started {
		close(t.events)
		return err
	}
	close(t.done)
	if t.sigStop != nil {
		t.sigStop()
	}
	if t.src.interrupt != nil {
		t.src.interrupt()
	}
	t.wg.Wait()
	if t.src.release != nil {
		t.src.release()
	}
	return err
}

// inputSource is what the reader goroutine reads, with the functions
// that interrupt a blocked read and release resources afterwards.
type inputSource struct {
	r                  io.Reader
	interrupt, release func() error
	// rearm, when set, makes reads work again after interrupt, so that
	// reading can be paused and resumed.
	rearm func()
}

func (t *Terminal) restoreMode() {
	if t.saved != nil && t.inFD >= 0 {
		term.Restore(t.inFD, t.saved)
	}
}
