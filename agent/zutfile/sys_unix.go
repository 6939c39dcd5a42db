//go:build unix

package zutfile

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// lockFile takes an exclusive flock on path (created 0600), waiting for
// another zut that holds it; the function returned releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// fileOwner is the uid owning the file.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// noFollow makes an open fail at a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// ownGroup starts cmd in a process group of its own, which Cmd.Cancel
// kills whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
