//go:build !linux

package host

// groupRunnable reports false where zut cannot tell whether a process
// waits for a CPU: the handshake deadlines then count wall time.
func groupRunnable(pgid int) bool { return false }
