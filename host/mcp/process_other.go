//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the process pid: there are no groups and no SIGTERM.
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

func groupAlive(pid int) bool { return false }
