package rpcmode

import (
	"errors"
	"io"
	"sync"

	"github.com/zut-go/zut/proto"
)

// rpcLine is one non-blank command line, or a read error: a
// *proto.LineTooLongError (the reader goes on) or the end of input.
type rpcLine struct {
	line []byte
	err  error
}

// rpcInput reads command lines from stdin on its own goroutine (run) and
// hands them over on lines, which is closed when run returns: at the end
// of input, after a read error, or after stop. A Read that blocks on the
// underlying reader cannot be interrupted, so after stop the goroutine
// ends at its next read; done is closed then.
type rpcInput struct {
	r     *proto.Reader
	lines chan rpcLine
	quit  chan struct{}
	once  sync.Once
	done  chan struct{}
}

func newRPCInput(r io.Reader, maxLine int) *rpcInput {
	return &rpcInput{r: proto.NewReader(r, maxLine), lines: make(chan rpcLine),
		quit: make(chan struct{}), done: make(chan struct{})}
}

// run is the reader goroutine.
func (in *rpcInput) run() {
	defer close(in.done)
	defer close(in.lines)
	for {
		line, err := in.r.ReadLine()
		var r rpcLine
		if err == nil {
			r.line = append([]byte(nil), line...)
		} else {
			r.err = err
		}
		select {
		case in.lines <- r:
		case <-in.quit:
			return
		}
		var tooLong *proto.LineTooLongError
		if err != nil && !errors.As(err, &tooLong) {
			return
		}
	}
}

// stop makes run return instead of handing over another line.
func (in *rpcInput) stop() {
	in.once.Do(func() { close(in.quit) })
}
