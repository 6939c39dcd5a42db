package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const holdEnv = "ZUT_SESSION_TEST_HOLD"

// TestMain lets the test binary act as a second zut process: with holdEnv
// set it opens that session, says "locked" and holds it until stdin ends.
func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		s, _, err := Open(path)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder is a child process holding a session open.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func startHolder(t *testing.T, path string) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		h.stdin.Close()
		h.cmd.Process.Kill()
		h.cmd.Wait()
	})
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("holder process said %q, want locked", line)
	}
	return h
}

func TestSecondProcessRefused(t *testing.T) {
	s := newFile(t)
	mustAppend(t, s, user("mine"))
	s.Close()

	h := startHolder(t, s.Path())
	_, _, err := Open(s.Path())
	var le *LockedError
	if !errors.As(err, &le) || le.PID != h.cmd.Process.Pid || le.Path != s.Path() {
		t.Fatalf("Open while another process holds it = %v, want LockedError naming pid %d", err, h.cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), "zut process "+strconv.Itoa(h.cmd.Process.Pid)) {
		t.Errorf("error %q does not name the pid", err)
	}

	h.stdin.Close() // the holder closes the session and exits
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	if _, err := os.Stat(lockPath(s.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after a clean close: %v, want it removed", err)
	}
	r, _, err := Open(s.Path())
	if err != nil {
		t.Fatalf("Open after the holder quit: %v", err)
	}
	defer r.Close()
	if r.Len() != 1 {
		t.Errorf("Len() = %d, want 1", r.Len())
	}
}

func TestStaleLockOfKilledProcess(t *testing.T) {
	s := newFile(t)
	s.Close()
	h := startHolder(t, s.Path())
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.cmd.Wait()
	data, err := os.ReadFile(lockPath(s.Path()))
	if err != nil || strings.TrimSpace(string(data)) != strconv.Itoa(h.cmd.Process.Pid) {
		t.Fatalf("lock file of the killed process = %q, %v; want its pid", data, err)
	}
	r, _, err := Open(s.Path())
	if err != nil {
		t.Fatalf("Open after the holder was killed: %v", err)
	}
	r.Close()
}

func TestSecondOpenInProcess(t *testing.T) {
	s := newFile(t)
	_, _, err := Open(s.Path())
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "(this one)") {
		t.Fatalf("Open of a session this process has open = %v, want LockedError naming this process", err)
	}
	_, _, err = Continue(filepath.Dir(filepath.Dir(s.Path())), "/work/project")
	if !errors.As(err, &le) {
		t.Errorf("Continue onto a locked session = %v, want LockedError", err)
	}
	s.Close()
	r, _, err := Open(s.Path())
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	r.Close()
}
