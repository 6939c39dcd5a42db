//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// isTerminalFD reports false where zut has no terminal test: output is
// not coloured and zut ext remove needs --yes.
func isTerminalFD(fd uintptr) bool { return false }
