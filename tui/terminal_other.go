//go:build !unix

package tui

import (
	"errors"
	"io"
	"os"
)

// interruptibleReader: without poll, only readers that can be closed can
// be interrupted.
func interruptibleReader(in io.Reader) (inputSource, error) {
	src := inputSource{r: in}
	if c, ok := in.(io.Closer); ok {
		src.interrupt = c.Close
	}
	return src, nil
}

// notifySignals: no window-change or continue signals here.
func notifySignals() (<-chan os.Signal, func()) { return nil, func() {} }

func (t *Terminal) signalEvent(os.Signal) Event { return nil }

func suspendSelf() error { return errors.New("suspend: not supported on this system") }
