//go:build unix

package regular

import (
	"os"
	"syscall"
)

// openNonblock keeps the open of a FIFO from waiting for the other end.
const openNonblock = syscall.O_NONBLOCK

// openDirectory makes the open of anything but a directory fail at once.
const openDirectory = syscall.O_DIRECTORY

// clearNonblock puts a file opened with openNonblock back in blocking
// mode.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
