//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

func set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signal sends SIGKILL (kill) or SIGTERM to the process group led by pid.
func signal(pid int, kill bool) error {
	if pid <= 0 {
		return nil
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-pid, sig)
}

func alive(pid int) bool {
	return pid > 0 && syscall.Kill(-pid, 0) == nil
}
