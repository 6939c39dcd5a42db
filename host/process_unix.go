//go:build unix

package host

import (
	"errors"
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in a new process group of its own, so
// that signals reach it and its children together and the terminal's
// Ctrl+C does not.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL (kill) or SIGTERM to the process group led by
// pid.
func killGroup(pid int, kill bool) error {
	if pid <= 0 {
		return nil
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-pid, sig)
}

// groupAlive reports whether the process group pid still has members
// (zombies included).
func groupAlive(pid int) bool {
	return pid > 0 && syscall.Kill(-pid, 0) == nil
}

// textBusy reports whether err says the program is open for writing
// somewhere (ETXTBSY), which passes.
func textBusy(err error) bool { return errors.Is(err, syscall.ETXTBSY) }
