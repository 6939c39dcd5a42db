//go:build !unix

package host

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the process pid; there is no group and no SIGTERM here,
// so both requests kill.
func killGroup(pid int, kill bool) error {
	if pid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// groupAlive reports false: there are no groups to wait for.
func groupAlive(pid int) bool { return false }

// textBusy reports false: other systems have no ETXTBSY to wait out.
func textBusy(err error) bool { return false }
