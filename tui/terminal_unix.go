//go:build unix

package tui

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// errInterrupted is returned by a pollReader after Close.
var errInterrupted = errors.New("read interrupted")

// pollReader reads a file descriptor after polling it together with a
// wake-up pipe, so that Close can interrupt a read that would block
// forever on a terminal.
type pollReader struct {
	fd           int
	wakeR, wakeW int
}

// interruptibleReader wraps in so that Close can stop a blocked read: a
// pollReader for files; other readers are closed if they can be.
func interruptibleReader(in io.Reader) (inputSource, error) {
	f, ok := in.(*os.File)
	if !ok {
		src := inputSource{r: in}
		if c, ok := in.(io.Closer); ok {
			src.interrupt = c.Close
		}
		return src, nil
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return inputSource{}, err
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	r := &pollReader{fd: int(f.Fd()), wakeR: p[0], wakeW: p[1]}
	return inputSource{r: r, interrupt: r.interrupt, release: r.release, rearm: r.rearm}, nil
}

func (r *pollReader) Read(b []byte) (int, error) {
	for {
		fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}, {Fd: int32(r.wakeR), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return 0, err
		}
		if fds[1].Revents != 0 {
			return 0, errInterrupted
		}
		if fds[0].Revents == 0 {
			continue
		}
		n, err := unix.Read(r.fd, b)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// interrupt wakes a blocked Read; every later Read fails too.
func (r *pollReader) interrupt() error {
	_, err := unix.Write(r.wakeW, []byte{0})
	return err
}

// rearm empties the wake-up pipe so that reads block on the input again.
func (r *pollReader) rearm() {
	var b [16]byte
	for {
		fds := []unix.PollFd{{Fd: int32(r.wakeR), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
			return
		}
		if n, err := unix.Read(r.wakeR, b[:]); n <= 0 || err != nil {
			return
		}
	}
}

// release closes the wake-up pipe once the reader has stopped.
func (r *pollReader) release() error {
	unix.Close(r.wakeW)
	return unix.Close(r.wakeR)
}

// notifySignals subscribes to window size changes and continues.
func notifySignals() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 4)
	signal.Notify(c, syscall.SIGWINCH, syscall.SIGCONT)
	return c, func() { signal.Stop(c) }
}

// signalEvent turns a signal into an event.
func (t *Terminal) signalEvent(sig os.Signal) Event {
	switch sig {
	case syscall.SIGWINCH:
		w, h := t.Size()
		return Resize{Width: w, Height: h}
	case syscall.SIGCONT:
		return Resume{}
	}
	return nil
}

// suspendSelf stops the process group, as the terminal's suspend
// character would.
func suspendSelf() error {
	return unix.Kill(0, unix.SIGTSTP)
}
