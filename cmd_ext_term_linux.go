//go:build linux

package main

import (
	"syscall"
	"unsafe"
)

// isTerminalFD reports whether fd is a terminal: TCGETS succeeds only on
// one. (golang.org/x/term is not usable while go.mod says "go 1.26".)
func isTerminalFD(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
