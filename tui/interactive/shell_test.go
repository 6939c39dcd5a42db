//go:build unix

package interactive

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeXclip answers like xclip: the targets, a PNG or text.
const fakeXclip = `#!/bin/sh
case "$*" in
*TARGETS*) echo UTF8_STRING; [ -n "$CLIP_IMAGE" ] && echo image/png ;;
*image/png*) printf 'PNGDATA' ;;
*) printf 'text from the clipboard' ;;
esac
`

func TestReadClipboard(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(fakeXclip), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	tests := []struct {
		name      string
		vars      map[string]string
		wantText  string
		wantImage string
		wantErr   string
	}{
		{"text", map[string]string{"DISPLAY": ":0"}, "text from the clipboard", "", ""},
		{"image", map[string]string{"DISPLAY": ":0"}, "", "PNGDATA", ""},
		{"no display", nil, "", "", "no clipboard program found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "image" {
				t.Setenv("CLIP_IMAGE", "1")
			}
			text, img, err := readClipboard(context.Background(), func(k string) string { return tc.vars[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("readClipboard() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || text != tc.wantText || string(img) != tc.wantImage {
				t.Errorf("readClipboard() = %q, %q, %v; want %q, %q", text, img, err, tc.wantText, tc.wantImage)
			}
		})
	}
}

// TestRunShellKillsGroup interrupts a !command whose children would hold
// on: the whole process group goes.
func TestRunShellKillsGroup(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "zut-shell-test.sh")
	if err := os.WriteFile(marker, []byte("sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var out string
	var err error
	go func() {
		defer close(done)
		out, _, _, err = runShell(ctx, "/bin/sh", "echo started; sh "+marker+" & sh "+marker+"; wait", dir, nil)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !running(marker) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("runShell did not return after its context ended")
	}
	if err == nil || !strings.Contains(out, "started") {
		t.Errorf("runShell = %q, %v; want the output so far and an error", out, err)
	}
	for deadline := time.Now().Add(5 * time.Second); running(marker); {
		if time.Now().After(deadline) {
			t.Fatal("a child of the interrupted command is still running")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether a process has marker in its command line.
func running(marker string) bool {
	out, _ := exec.Command("ps", "-eo", "args").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, marker) && !strings.Contains(l, "ps -eo") {
			return true
		}
	}
	return false
}
