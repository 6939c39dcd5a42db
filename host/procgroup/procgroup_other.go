//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// set does nothing where process groups do not exist.
func set(cmd *exec.Cmd) {}

// signal kills the process pid; there is no group and no SIGTERM here, so
// both requests kill.
func signal(pid int, kill bool) error {
	if pid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// alive reports false: there are no groups to wait for.
func alive(pid int) bool { return false }
