//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/zut-go/zut/provider"
)

// openNonblock keeps the open of a FIFO from waiting for a writer.
const openNonblock = syscall.O_NONBLOCK

// fileLock is an exclusive flock(2) on the lock file of a session. The
// kernel drops it when the process dies, so a crashed zut never blocks the
// next one; the PID inside only names the holder in LockedError.
//
// The lock file is opened so that it can never be turned against the
// user: O_NOFOLLOW (a symlink planted as <session>.lock is refused, never
// followed), O_NONBLOCK (a FIFO cannot hang the open), and a lock file
// zut did not just create is used only when it is a regular file owned
// by the user, with one link, holding nothing but a PID. Only then is it
// truncated for this process's PID.
type fileLock struct {
	f    *os.File
	path string
}

// lockFlags open the lock file without following a link or blocking.
const lockFlags = os.O_RDWR | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	for range 8 {
		f, err := os.OpenFile(lp, lockFlags|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			f, err = os.OpenFile(lp, lockFlags, 0) //zut:open the lock file, opened with lockFlags (O_NONBLOCK where it matters) and only flocked
			if errors.Is(err, os.ErrNotExist) {
				continue // its holder removed it between our two opens
			}
			if err == nil {
				err = checkLockFile(f)
			}
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			return nil, lockError(path, lp, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			return nil, &LockedError{Path: path, PID: readPID(b[:n])}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open
		// and our flock; then we locked an orphan and must start again.
		held, err1 := f.Stat()
		named, err2 := os.Lstat(lp)
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

// errForeignLock is wrapped for a lock file zut refuses to use.
var errForeignLock = errors.New("not a zut lock file")

// checkLockFile accepts an existing lock file only when it can be a
// stale lock of this user's zut: a regular file, owned by the user, with
// a single link (a hard link to another file would be truncated along
// with it), at most 32 bytes holding a PID or nothing.
func checkLockFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: it is %s", errForeignLock, provider.FileKind(fi.Mode()))
	case st != nil && int(st.Uid) != os.Getuid():
		return fmt.Errorf("%w: it belongs to another user (uid %d)", errForeignLock, st.Uid)
	case st != nil && st.Nlink != 1:
		return fmt.Errorf("%w: it has %d hard links, so it is another file's name too", errForeignLock, st.Nlink)
	case fi.Size() > 32:
		return fmt.Errorf("%w: it holds %d bytes, more than a PID", errForeignLock, fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, 33))
	if err != nil {
		return err
	}
	if len(b) > 0 && readPID(b) == 0 {
		return fmt.Errorf("%w: it holds %q, not a PID", errForeignLock, b)
	}
	return nil
}

// lockError words a refused or failed lock file.
func lockError(path, lp string, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EMLINK):
		return fmt.Errorf("lock session %s: %s is a symbolic link; zut never follows a lock file link (it could point at any file) — remove %s if nothing else needs it, then retry", path, lp, lp)
	case errors.Is(err, errForeignLock):
		return fmt.Errorf("lock session %s: %s is %v; zut did not create it and will not overwrite it — remove it if nothing else needs it, then retry", path, lp, err)
	}
	return fmt.Errorf("lock session %s: %w", path, err)
}

// release removes the lock file while still holding the lock, then drops
// the lock by closing it.
func (l *fileLock) release() {
	os.Remove(l.path)
	l.f.Close()
}
