//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// fileLock is an exclusive flock(2) on the lock file of a session. The
// kernel drops it when the process dies, so a crashed zut never blocks the
// next one; the PID inside only names the holder in LockedError.
type fileLock struct {
	f    *os.File
	path string
}

func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	for range 8 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock session %s: %w", path, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			f.Close()
			return nil, &LockedError{Path: path, PID: readPID(b)}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open
		// and our flock; then we locked an orphan and must start again.
		held, err1 := f.Stat()
		named, err2 := os.Stat(lp)
		if err1 != nil || err2 != nil || !os.SameFile(held, named) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt(pidLine(), 0)
		}
		return &fileLock{f: f, path: lp}, nil
	}
	return nil, fmt.Errorf("lock session %s: the lock file keeps changing; is another zut starting on it?", path)
}

// release removes the lock file while still holding the lock, then drops
// the lock by closing it.
func (l *fileLock) release() {
	os.Remove(l.path)
	l.f.Close()
}
