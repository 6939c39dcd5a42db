//go:build unix

package interactive

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts cmd in its own process group, killed as a whole
// when its context ends, so that nothing it started outlives it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
