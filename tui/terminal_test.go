package tui

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/tui/vt"
)

// nextEvent waits for an event; the deadline only guards against a hung
// test, it is not part of what is checked.
func nextEvent(t *testing.T, c <-chan Event) Event {
	t.Helper()
	select {
	case ev, ok := <-c:
		if !ok {
			t.Fatal("event channel closed")
		}
		return ev
	case <-time.After(60 * time.Second):
		t.Fatal("no event")
	}
	return nil
}

// checkGoroutines fails when goroutines started during the test are
// still running after it. The os/signal package's own receiver, started
// by the first signal.Notify of the process, is not counted.
func checkGoroutines(t *testing.T) {
	before := countGoroutines()
	t.Cleanup(func() {
		for range 100 {
			if countGoroutines() <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines leaked: %d before, %d after\n%s", before, countGoroutines(), buf[:runtime.Stack(buf, true)])
	})
}

func countGoroutines() int {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(stacks, "\n\n") {
		if !strings.Contains(g, "os/signal.loop") {
			n++
		}
	}
	return n
}

func TestTerminalEvents(t *testing.T) {
	checkGoroutines(t)
	inR, inW := io.Pipe()
	var out bytes.Buffer
	term := NewTerminal(inR, &out)
	term.EscDelay = time.Hour // a pending ESC must wait for more input
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	go func() {
		inW.Write([]byte("a\x1b"))
		inW.Write([]byte("[A\x1b[200~pas"))
		inW.Write([]byte("te\x1b[201~"))
	}()
	want := []string{"key a", "key up", "Paste{Text:paste}"}
	for _, w := range want {
		if got := describe([]Event{nextEvent(t, term.Events())}); !strings.Contains(strings.ReplaceAll(got, "tui.", ""), w) {
			t.Errorf("event = %s, want %s", got, w)
		}
	}
	if err := term.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if _, ok := <-term.Events(); ok {
		t.Errorf("Events() still open after Close")
	}
}

func TestTerminalEscTimeout(t *testing.T) {
	checkGoroutines(t)
	inR, inW := io.Pipe()
	term := NewTerminal(inR, io.Discard)
	term.EscDelay = time.Millisecond
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	go inW.Write([]byte("\x1b"))
	if got := nextEvent(t, term.Events()); got != (Key{Code: KeyEsc}) {
		t.Errorf("lone ESC = %s, want esc", describe([]Event{got}))
	}
}

func TestTerminalInputEnds(t *testing.T) {
	checkGoroutines(t)
	term := NewTerminal(strings.NewReader("x\x1b"), io.Discard)
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	var got []Event
	for ev := range term.Events() {
		got = append(got, ev)
	}
	if describe(got) != "key x, key esc" {
		t.Errorf("events of a finished input = %s, want key x, key esc", describe(got))
	}
	term.Close()
}

func TestTerminalModes(t *testing.T) {
	var out bytes.Buffer
	term := NewTerminal(strings.NewReader(""), &out)
	term.SetModes(Modes{BracketedPaste: true, Focus: true, KittyFlags: 1})
	term.SetModes(Modes{BracketedPaste: true, Focus: true, KittyFlags: 1})
	term.SetModes(Modes{BracketedPaste: true, ModifyOtherKeys: true})
	term.Close()
	term.Close()
	want := "\x1b[?2004h\x1b[?1004h\x1b[>1u" + "\x1b[?1004l\x1b[<u\x1b[>4;2m" + "\x1b[?2004l\x1b[>4;0m"
	if out.String() != want {
		t.Errorf("mode output = %q, want %q", out.String(), want)
	}
}

// fakeTerminal connects a Terminal to a virtual terminal that answers
// queries, through pipes.
func fakeTerminal(t *testing.T, answer bool) (*Terminal, *io.PipeWriter, func()) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	v := vt.New(80, 24)
	if answer {
		v.Respond = func(s string) { inW.Write([]byte(s)) }
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1024)
		for {
			n, err := outR.Read(buf)
			v.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	term := NewTerminal(inR, outW)
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	return term, inW, func() {
		term.Close()
		outW.Close()
		<-done
	}
}

// TestTerminalProbe probes through the Terminal's own input goroutines.
func TestTerminalProbe(t *testing.T) {
	checkGoroutines(t)
	term, inW, stop := fakeTerminal(t, true)
	defer stop()
	go inW.Write([]byte("k"))
	caps, other, err := term.Probe(context.Background(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Answered || !caps.KittyKeyboard || !caps.SyncOutput || !caps.HasBackground {
		t.Errorf("Probe caps = %+v, want answered, kitty, sync, background", caps)
	}
	// The key typed during the probe may arrive before or after the
	// replies; when after, it is the next event.
	if len(other) == 0 {
		other = append(other, nextEvent(t, term.Events()))
	}
	if describe(other) != "key k" {
		t.Errorf("Probe other events = %s, want key k", describe(other))
	}
}
