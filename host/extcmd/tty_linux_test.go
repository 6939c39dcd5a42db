//go:build linux

package extcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its controlling side and
// the terminal side that a program reads as its stdin.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ctl.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock pty: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ctl.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pty number: %v", errno)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty's terminal side: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ctl, tty
}

// TestExtRemoveAsks answers remove's question on a real terminal.
func TestExtRemoveAsks(t *testing.T) {
	tests := []struct {
		answer  string
		removed bool
		wantOut string
	}{
		{"y\n", true, "removed tiny"},
		{"YES\n", true, "removed tiny"},
		{"n\n", false, "kept tiny\n"},
		{"\n", false, "kept tiny\n"},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			c := newExtCLI(t)
			writeScriptExt(t, filepath.Join(c.home, "extensions"), "tiny", scriptExt{name: "tiny"})
			ctl, tty := openPTY(t)
			if _, err := ctl.WriteString(tc.answer); err != nil {
				t.Fatal(err)
			}
			out, errOut, status := c.run(tty, "remove", "tiny")
			if status != 0 || !strings.Contains(out, tc.wantOut) {
				t.Errorf("zut ext remove tiny, answering %q: status %d, stdout %q, stderr %q; want %q", tc.answer, status, out, errOut, tc.wantOut)
			}
			if !strings.Contains(c.normalize(errOut), `Remove extension "tiny" and delete $ZUT_HOME/extensions/tiny? [y/N] `) {
				t.Errorf("zut ext remove asked %q", errOut)
			}
			_, err := os.Stat(filepath.Join(c.home, "extensions", "tiny"))
			if removed := os.IsNotExist(err); removed != tc.removed {
				t.Errorf("answering %q: removed = %v, want %v", tc.answer, removed, tc.removed)
			}
		})
	}
}

func TestExtUseColorOnTerminal(t *testing.T) {
	_, tty := openPTY(t)
	tests := []struct {
		name string
		vars map[string]string
		want bool
	}{
		{"terminal", nil, true},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, false},
		{"empty NO_COLOR", map[string]string{"NO_COLOR": ""}, true},
		{"dumb terminal", map[string]string{"TERM": "dumb"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &Env{Getenv: func(k string) string { return tc.vars[k] }}
			if got := useColor(e, tty); got != tc.want {
				t.Errorf("useColor(%s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}
