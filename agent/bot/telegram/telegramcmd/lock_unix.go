//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package telegramcmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// runLock is an exclusive flock(2) on bot.pid, held by the process that
// runs the bot; the pid inside names it. The kernel drops the lock when
// the process dies. A lock belongs to its open file, so probing it from
// the same process (holder) sees it too.
type runLock struct{ f *os.File }

func lockPath(dir string) string { return filepath.Join(dir, "bot.pid") }

// errRunning is returned by lockBot when another process runs the bot.
type errRunning struct{ pid int }

func (e *errRunning) Error() string { return fmt.Sprintf("the bot is already running (pid %d)", e.pid) }

func lockBot(dir string) (*runLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(lockPath(dir), os.O_RDWR|os.O_CREATE, 0o600) //zut:open O_RDWR does not wait on a FIFO, and the lock is only flocked
	if err != nil {
		return nil, err
	}
	// A probe by holder holds a shared lock for a moment: try a few times.
	for try := 0; ; try++ {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || try == 5 {
			break
		}
		if pid, ok := holder(dir); ok && pid != 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		f.Close()
		if pid, ok := holder(dir); ok {
			return nil, &errRunning{pid: pid}
		}
		return nil, fmt.Errorf("lock %s: %v", lockPath(dir), err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &runLock{f: f}, nil
}

func (l *runLock) release() {
	l.f.Truncate(0)
	l.f.Close() // drops the lock
}

// holder returns the pid of the process that runs the bot of dir (0 when
// it has not written it yet).
func holder(dir string) (int, bool) {
	f, err := regular.Open(lockPath(dir))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, false
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid, true
}

// detach makes the daemon a session leader without a terminal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// terminate asks pid to stop; kill ends its whole session's group.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
func kill(pid int) error      { return syscall.Kill(-pid, syscall.SIGKILL) }

// reap collects pid when it is an exited child of this process (start
// and stop in one process, as in tests); it reports whether pid exited.
func reap(pid int) bool {
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	if errors.Is(err, syscall.ECHILD) {
		return false
	}
	return got == pid
}

const canDaemonize = true

var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
