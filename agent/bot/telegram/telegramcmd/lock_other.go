//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package telegramcmd

import (
	"errors"
	"os"
	"os/exec"
)

// runLock does nothing where POSIX locks are missing: only one bot
// should be run by hand.
type runLock struct{}

type errRunning struct{ pid int }

func (e *errRunning) Error() string { return "the bot is already running" }

func lockBot(dir string) (*runLock, error) { return &runLock{}, os.MkdirAll(dir, 0o700) }
func (l *runLock) release()                {}
func holder(dir string) (int, bool)        { return 0, false }
func detach(cmd *exec.Cmd)                 {}
func terminate(pid int) error              { return errors.New("not supported") }
func kill(pid int) error                   { return errors.New("not supported") }
func reap(pid int) bool                    { return false }

const canDaemonize = false

var stopSignals = []os.Signal{os.Interrupt}
