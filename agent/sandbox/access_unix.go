//go:build unix

package sandbox

import "golang.org/x/sys/unix"

// writeAccess reports whether the user may write path, by its mode.
func writeAccess(path string) bool { return unix.Access(path, unix.W_OK) == nil }
