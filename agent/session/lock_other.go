//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/zut-go/zut/provider"
)

// openNonblock keeps the open of a FIFO from waiting for a writer.
const openNonblock = 0

// fileLock is a lock file created exclusively and holding the PID of its
// owner. A lock file whose process no longer exists is stale and replaced.
type fileLock struct{ path string }

func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	for range 8 {
		f, err := os.OpenFile(lp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Write(pidLine())
			f.Close()
			return &fileLock{path: lp}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock session %s: %w", path, err)
		}
		if fi, err := os.Lstat(lp); err == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("lock session %s: %s is not a regular file; zut did not create it and will not use it — remove it, then retry", path, lp)
		}
		b, _ := provider.ReadRegular(lp, 64)
		pid := readPID(b)
		if pid > 0 && alive(pid) {
			return nil, &LockedError{Path: path, PID: pid}
		}
		os.Remove(lp) // stale: its process is gone
	}
	return nil, fmt.Errorf("lock session %s: the lock file keeps changing; is another zut starting on it?", path)
}

func (l *fileLock) release() { os.Remove(l.path) }

// alive reports whether a process exists; os.FindProcess fails for a
// missing PID on Windows, the main platform this file serves.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
