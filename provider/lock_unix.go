//go:build unix

package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// AuthLockPath is the lock file beside auth.json that refreshes and
// saves of a sign-in hold (flock, exclusive).
func AuthLockPath(home string) string { return filepath.Join(home, "auth.json.lock") }

// lockAuth takes the exclusive lock on auth.json.lock, waiting at most
// limit (and no longer than ctx). The returned function releases it.
//
// flock blocks, so the wait runs on a goroutine of its own; when the
// caller stops waiting the goroutine still ends as soon as the lock is
// granted (the holder's refresh is bounded in time, and the kernel drops
// the lock of a process that dies), releasing it at once.
func lockAuth(ctx context.Context, home string, limit time.Duration) (func(), error) {
	if home == "" {
		return nil, errors.New("no zut home directory; set ZUT_HOME")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %v", AuthLockPath(home), err)
	}
	path := AuthLockPath(home)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %v", path, err)
	}
	fd := int(f.Fd())
	// The lock is free most of the time: take it without a goroutine.
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err == nil {
		return func() { unix.Flock(fd, unix.LOCK_UN); f.Close() }, nil
	}
	got := make(chan error) // unbuffered: a lock granted after the caller left is released below
	abandoned := make(chan struct{})
	go func() {
		var err error
		for {
			err = unix.Flock(fd, unix.LOCK_EX)
			if err != unix.EINTR {
				break
			}
		}
		select {
		case got <- err:
		case <-abandoned:
			if err == nil {
				unix.Flock(fd, unix.LOCK_UN)
			}
			f.Close()
		}
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %v", path, err)
		}
		return func() { unix.Flock(fd, unix.LOCK_UN); f.Close() }, nil
	case <-ctx.Done():
		close(abandoned)
		return nil, ctx.Err()
	case <-t.C:
		close(abandoned)
		return nil, fmt.Errorf("lock %s: another zut has held it for more than %s — retry, or stop the other zut", path, limit)
	}
}
