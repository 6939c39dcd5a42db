package tui

import (
	"context"
	"github.com/zut-go/zut/tui/ansi"
	"testing"
	"time"

	"github.com/zut-go/zut/tui/vt"
)

// vtWriter feeds what Probe writes to a virtual terminal, whose replies
// are decoded onto an event channel as a Terminal would.
type vtWriter struct {
	term   *vt.Terminal
	dec    Decoder
	events chan Event
}

func newVTWriter(answer bool, typed string) *vtWriter {
	w := &vtWriter{term: vt.New(80, 24), events: make(chan Event, 16)}
	for _, ev := range w.dec.Feed([]byte(typed)) {
		w.events <- ev
	}
	if answer {
		w.term.Respond = func(s string) {
			for _, ev := range w.dec.Feed([]byte(s)) {
				w.events <- ev
			}
		}
	}
	return w
}

func (w *vtWriter) Write(p []byte) (int, error) { return w.term.Write(p) }

func TestProbe(t *testing.T) {
	w := newVTWriter(true, "k")
	caps, other, err := Probe(context.Background(), w, w.events, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Answered || !caps.KittyKeyboard || !caps.SyncOutput || !caps.HasBackground {
		t.Errorf("Probe caps = %+v, want answered, kitty, sync, background", caps)
	}
	if dark, known := caps.DarkBackground(); !dark || !known {
		t.Errorf("DarkBackground() = %v, %v, want true, true", dark, known)
	}
	if describe(other) != "key k" {
		t.Errorf("Probe other events = %s, want key k", describe(other))
	}
	if len(w.term.Unknown) != 0 {
		t.Errorf("probe sent sequences the terminal did not know: %q", w.term.Unknown)
	}
}

func TestProbeUnanswered(t *testing.T) {
	w := newVTWriter(false, "")
	caps, _, err := Probe(context.Background(), w, w.events, time.Millisecond)
	if err != nil || caps.Answered || caps.SyncOutput || caps.KittyKeyboard || caps.HasBackground {
		t.Errorf("Probe without answers = %+v, %v, want nothing supported", caps, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Probe(ctx, w, w.events, time.Hour); err == nil {
		t.Errorf("Probe with a cancelled context = nil error, want one")
	}
}

func TestDarkBackground(t *testing.T) {
	for _, tc := range []struct {
		c           Caps
		dark, known bool
	}{
		{Caps{Background: ansi.RGB(0x1e, 0x1e, 0x2e), HasBackground: true}, true, true},
		{Caps{Background: ansi.RGB(0xfa, 0xf4, 0xed), HasBackground: true}, false, true},
		{Caps{}, false, false},
	} {
		if dark, known := tc.c.DarkBackground(); dark != tc.dark || known != tc.known {
			t.Errorf("DarkBackground(%+v) = %v, %v, want %v, %v", tc.c.Background, dark, known, tc.dark, tc.known)
		}
	}
}

func TestDetectProfile(t *testing.T) {
	tests := []struct {
		env  map[string]string
		tty  bool
		want ansi.Profile
	}{
		{map[string]string{"TERM": "xterm-256color"}, false, ansi.ProfileNone},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, true, ansi.ProfileMono},
		{map[string]string{"TERM": "dumb", "COLORTERM": "truecolor"}, true, ansi.ProfileNone},
		{map[string]string{"TERM": "xterm", "COLORTERM": "truecolor"}, true, ansi.ProfileTrueColor},
		{map[string]string{"TERM": "xterm", "COLORTERM": "24bit"}, true, ansi.ProfileTrueColor},
		{map[string]string{"TERM": "screen-256color"}, true, ansi.ProfileANSI256},
		{map[string]string{"TERM": "xterm"}, true, ansi.ProfileANSI},
		{map[string]string{"TERM": "linux", "NO_COLOR": ""}, true, ansi.ProfileANSI},
	}
	for _, tc := range tests {
		getenv := func(k string) string { return tc.env[k] }
		if got := DetectProfile(getenv, tc.tty); got != tc.want {
			t.Errorf("DetectProfile(%v, tty %v) = %v, want %v", tc.env, tc.tty, got, tc.want)
		}
	}
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm", "XTERM_VERSION": "XTerm(390)"}, false},
		{map[string]string{"TERM": "linux"}, false},
		{map[string]string{"TERM": "screen", "TMUX": "/tmp/x", "XTERM_VERSION": "1"}, true},
	} {
		if got := DetectReflow(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("DetectReflow(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
