package tui

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pty slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

func TestTerminalPTY(t *testing.T) {
	checkGoroutines(t)
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	term := NewTerminal(slave, slave)
	if !term.IsTerminal() {
		t.Fatal("IsTerminal() = false on a pty")
	}
	if w, h := term.Size(); w != 100 || h != 30 {
		t.Errorf("Size() = %dx%d, want 100x30", w, h)
	}
	before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	raw, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if raw.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("after Start lflag = %#x, want ICANON, ECHO and ISIG off", raw.Lflag)
	}
	master.Write([]byte("h\x03\x1b[A"))
	for _, want := range []string{"key h", "key ctrl+c", "key up"} {
		if got := describe([]Event{nextEvent(t, term.Events())}); got != want {
			t.Errorf("event = %s, want %s", got, want)
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	if got := nextEvent(t, term.Events()); got != (Resize{Width: 100, Height: 30}) {
		t.Errorf("after SIGWINCH event = %#v, want Resize 100x30", got)
	}
	syscall.Kill(os.Getpid(), syscall.SIGCONT)
	if got := nextEvent(t, term.Events()); got != (Resume{}) {
		t.Errorf("after SIGCONT event = %#v, want Resume", got)
	}
	if err := term.Resume(); err != nil {
		t.Errorf("Resume() = %v", err)
	}
	// Close must interrupt the read blocked on the pty and restore the mode.
	if err := term.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	after, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag {
		t.Errorf("after Close termios = %+v, want %+v", after, before)
	}
}
