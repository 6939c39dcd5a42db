//go:build unix

package provider

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// stillOpen reports whether the peer has not closed c: a peek that finds
// no data yet (or some: a session ticket) says open; one that finds the
// end, or an error, says closed.
func stillOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var buf [1]byte
	cerr := raw.Read(func(fd uintptr) bool {
		n, _, err := unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		open = n > 0 || errors.Is(err, unix.EAGAIN)
		return true // never wait
	})
	return cerr == nil && open
}
