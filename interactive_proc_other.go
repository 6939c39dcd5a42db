//go:build !unix

package main

import "os/exec"

// setProcessGroup: without process groups the command alone is killed.
func setProcessGroup(cmd *exec.Cmd) {}
