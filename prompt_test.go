package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/app"
)

// TestPromptText: which stdin promptText reads, over real pipes and a
// file. A pipe that stays open and silent is left alone after the grace;
// one with data (or its end) in time is read to its end; "-", or no
// prompt argument, waits for stdin past the grace.
func TestPromptText(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		goal  string
		stdin string // open: a pipe kept open, silent; data: written then closed; late: written after a pause, then closed; empty: closed at once; file
		grace time.Duration
		want  string
		note  bool   // the note that stdin was left alone
		err   string // a usage error holding this
	}{
		{name: "open pipe, no data", args: []string{"explain"}, stdin: "open", grace: 50 * time.Millisecond, want: "explain", note: true},
		{name: "data then EOF", args: []string{"explain"}, stdin: "data", grace: stdinWait, want: "explain\n\nroses are red"},
		{name: "empty pipe", args: []string{"explain"}, stdin: "empty", grace: stdinWait, want: "explain"},
		{name: "file", args: []string{"explain"}, stdin: "file", grace: stdinWait, want: "explain\n\nroses are red"},
		{name: "dash waits past the grace", args: []string{"explain", "-"}, stdin: "late", grace: time.Millisecond, want: "explain\n\nroses are red"},
		{name: "dash alone", args: []string{"-"}, stdin: "late", grace: time.Millisecond, want: "roses are red"},
		{name: "no argument waits", stdin: "late", grace: time.Millisecond, want: "roses are red"},
		{name: "dash, empty stdin", args: []string{"-"}, stdin: "empty", grace: stdinWait, err: "- reads the prompt from stdin, and stdin held nothing"},
		{name: "goal, open pipe", goal: "ship it", stdin: "open", grace: 50 * time.Millisecond, want: "", note: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdin, late := openStdin(t, tc.stdin)
			var stderr bytes.Buffer
			e := app.NewEnv(stdin, &bytes.Buffer{}, &stderr)
			type answer struct {
				text string
				err  error
			}
			got := make(chan answer, 1)
			go func() {
				text, err := promptText(e, app.Options{Prompt: tc.args, Goal: tc.goal}, tc.grace)
				got <- answer{text, err}
			}()
			if late != nil {
				// Past the grace: only a reader that waits for stdin's
				// end sees this.
				time.Sleep(100 * time.Millisecond)
				if _, err := late.WriteString("roses are red\n"); err != nil {
					t.Fatal(err)
				}
				late.Close()
			}
			var a answer
			select {
			case a = <-got:
			case <-time.After(60 * time.Second):
				t.Fatalf("promptText(%q) still waits after 60s", tc.args)
			}
			var usage *app.UsageError
			switch {
			case tc.err != "":
				if !errors.As(a.err, &usage) || !strings.Contains(a.err.Error(), tc.err) {
					t.Fatalf("promptText(%q) = %q, %v; want a usage error holding %q", tc.args, a.text, a.err, tc.err)
				}
				return
			case a.err != nil:
				t.Fatalf("promptText(%q): %v", tc.args, a.err)
			}
			if a.text != tc.want {
				t.Errorf("promptText(%q) = %q, want %q", tc.args, a.text, tc.want)
			}
			if note := strings.Contains(stderr.String(), "stdin is open but held nothing"); note != tc.note {
				t.Errorf("stderr = %q; the note about stdin: %v, want %v", stderr.String(), note, tc.note)
			}
		})
	}
}

// openStdin makes the stdin of a case (see TestPromptText), and for a
// late one the write end the test writes to and closes.
func openStdin(t *testing.T, kind string) (stdin, late *os.File) {
	t.Helper()
	if kind == "file" {
		p := filepath.Join(t.TempDir(), "input.txt")
		if err := os.WriteFile(p, []byte("roses are red\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); r.Close() })
	switch kind {
	case "data":
		if _, err := w.WriteString("roses are red\n"); err != nil {
			t.Fatal(err)
		}
		w.Close()
	case "empty":
		w.Close()
	case "late":
		return r, w
	}
	return r, nil
}
