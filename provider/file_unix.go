//go:build unix

package provider

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock keeps an open of a FIFO from waiting for a writer.
const openNonblock = syscall.O_NONBLOCK

// clearNonblock puts a regular file opened with openNonblock back in
// blocking mode (regular files ignore the flag; this keeps it honest).
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) })
	if err != nil {
		return err
	}
	return serr
}

// fileOwner returns the uid owning the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
