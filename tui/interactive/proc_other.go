//go:build !unix

package interactive

import "os/exec"

// setProcessGroup: without process groups the command alone is killed.
func setProcessGroup(cmd *exec.Cmd) {}
