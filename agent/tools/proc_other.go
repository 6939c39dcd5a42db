//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups are not available.
// openNonblock is 0 where there are no FIFOs to block on.
const openNonblock = 0

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the shell; without process groups its children may
// survive.
func signalGroup(cmd *exec.Cmd, kill bool) { cmd.Process.Kill() }

// groupAlive cannot see the group here; the shell's exit is all there is.
func groupAlive(cmd *exec.Cmd) bool { return false }

// exitSignal names the signal that ended a process; none here.
func exitSignal(ps *os.ProcessState) string { return "" }
