// Package rpcmode is zut's headless RPC mode (zut --mode rpc, zut rpc): it
// reads commands as JSON lines on stdin, runs them on one assembled app,
// and writes responses and events as JSON lines on stdout. The command and
// event shapes are in package proto; docs/rpc.md describes the protocol.
package rpcmode

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/proto"
)

// rpcTokenEnv names the variable holding the token a client must present
// in its first command, hello.
const rpcTokenEnv = "ZUTCORE_RPC_TOKEN"

// Run serves headless RPC over stdin and stdout: commands in, one
// response per command and events out, one JSON object per line. See
// docs/rpc.md.
func Run(ctx context.Context, e *app.Env, o app.Options) error {
	return serveRPC(ctx, e, o, defaultRPCLimits)
}

// rpcServer is one RPC session. The goroutine running serveRPC reads
// commands and handles them in order (the dispatcher); prompts and
// compactions run on the jobs worker; extension commands and model
// listings run as tasks so that the dispatcher keeps reading (an
// extension command may wait for an ext_ui_response).
type rpcServer struct {
	env   *app.Env
	opts  app.Options
	lim   rpcLimits
	token string

	out    *rpcOutbox
	stderr *lockedWriter
	jobs   *rpcJobs
	ui     *rpcUI
	tasks  sync.WaitGroup                 // running tasks
	app    *app.App                       // set before serving starts, then only read
	calls  chan func(ctx context.Context) // work for the dispatcher from other goroutines
	hold   rpcHold                        // the running job's last event
	live   atomic.Bool                    // serving: the app is up and a.start has run
	closed atomic.Bool                    // stdin ended: no more commands
}

// lockedWriter serialises writes to stderr from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *rpcServer) logf(format string, args ...any) {
	fmt.Fprintf(s.stderr, "zut: rpc: "+format+"\n", args...)
}

// serveRPC is Run with explicit limits (tests lower them).
func serveRPC(ctx context.Context, e *app.Env, o app.Options, lim rpcLimits) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	s := &rpcServer{env: e, opts: o, lim: lim, token: e.Getenv(rpcTokenEnv)}
	// Tools and extensions must not see the token.
	os.Unsetenv(rpcTokenEnv)
	s.stderr = &lockedWriter{w: e.Stderr}
	e = &app.Env{Stdin: e.Stdin, Stdout: e.Stdout, Stderr: s.stderr, Getenv: e.Getenv}
	s.env = e
	s.out = newRPCOutbox(e.Stdout, lim)
	s.jobs = newRPCJobs(lim.MaxQueued)
	s.ui = newRPCUI(s)
	s.calls = make(chan func(context.Context), 16)

	if f, ok := e.Stdout.(*os.File); ok && f == os.Stdout {
		// A client that closes its end makes writes fail with EPIPE
		// instead of killing zut before extensions are shut down.
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, syscall.SIGPIPE)
		defer signal.Stop(pipe)
	}

	go s.out.run()
	in := newRPCInput(e.Stdin, lim.MaxLine)
	go in.run()

	err := s.serve(ctx, in)
	return s.shutdown(cancel, in, err)
}

// errStdinEnded is how serve reports the end of stdin: a clean stop.
var errStdinEnded = errors.New("stdin ended")

// serve authenticates the client, starts the app and dispatches commands
// until stdin ends, the context ends or the outbox fails.
func (s *rpcServer) serve(ctx context.Context, in *rpcInput) error {
	var hello *proto.RPCHello
	if s.token != "" {
		h, err := s.authenticate(ctx, in)
		if err != nil {
			return err
		}
		hello = h
	}
	a, err := app.New(ctx, s.env, s.opts, app.Frontend{UI: s.ui, Emit: s.agentEvent, StartWithoutModel: true, MemorySession: true})
	if err != nil {
		if hello != nil {
			s.fail(hello, err)
		}
		return err
	}
	s.app = a
	if a.Resolved() != nil && a.Resolved().Note != "" {
		s.logf("%s", a.Resolved().Note)
	}
	if a.ModelError() != nil {
		s.logf("no model: %v", a.ModelError())
	}
	if a.Host() != nil {
		for _, msg := range app.LoadErrors(a.Host().Diagnostics()) {
			s.logf("%s", msg)
		}
	}
	a.Start()
	s.live.Store(true)
	go s.jobs.run(ctx, s.runJob)
	if hello != nil {
		s.cmdHello(hello)
	}
	for {
		line, err := s.next(ctx, in)
		if err != nil {
			return err
		}
		if line != nil {
			if err := s.dispatch(ctx, line); err != nil {
				return err
			}
		}
	}
}

// call hands fn to the dispatcher, which runs it between two commands. It
// reports false when the dispatcher cannot take it (not serving, or too
// much waiting).
func (s *rpcServer) call(fn func(ctx context.Context)) bool {
	if !s.live.Load() || s.closed.Load() {
		return false
	}
	select {
	case s.calls <- fn:
		return true
	default:
		return false
	}
}

// next returns the next command line; nil with a nil error means a line
// that was answered already (too long).
func (s *rpcServer) next(ctx context.Context, in *rpcInput) ([]byte, error) {
	select {
	case fn := <-s.calls:
		fn(ctx)
		return nil, nil
	case r, ok := <-in.lines:
		if !ok {
			return nil, errStdinEnded
		}
		if r.err != nil {
			var tooLong *proto.LineTooLongError
			if errors.As(r.err, &tooLong) {
				s.reply(nil, "", nil, fmt.Errorf("command line %d is longer than %s and was skipped; send large images as files the model can read", tooLong.Line, sizeText(tooLong.Limit)))
				return nil, nil
			}
			if r.err == io.EOF {
				return nil, errStdinEnded
			}
			return nil, fmt.Errorf("rpc: read stdin: %w", r.err)
		}
		return r.line, nil
	case <-s.out.dead:
		return nil, s.out.failure()
	case <-ctx.Done():
		return nil, app.ErrAborted
	}
}

// authenticate reads commands until a hello carries the right token. Other
// commands are refused; a wrong token ends zut.
func (s *rpcServer) authenticate(ctx context.Context, in *rpcInput) (*proto.RPCHello, error) {
	for {
		line, err := s.next(ctx, in)
		if err != nil {
			return nil, err
		}
		if line == nil {
			continue
		}
		cmd, derr := proto.DecodeRPCCommand(line)
		var re *proto.RPCError
		if errors.As(derr, &re) && re.Type == "hello" && tokenMistyped(line) {
			// A token that is not a string is a wrong token.
			return nil, s.badToken(&proto.RPCHello{RPCHead: proto.RPCHead{ID: re.ID}})
		}
		if derr != nil {
			s.replyDecodeError(derr)
			continue
		}
		h, ok := cmd.(*proto.RPCHello)
		if !ok {
			s.reply(cmd.CommandID(), cmd.Type(), nil, errors.New("unauthorized: the first command must be hello with the token from "+rpcTokenEnv))
			continue
		}
		if !s.tokenOK(h.Token) {
			return nil, s.badToken(h)
		}
		return h, nil
	}
}

// tokenMistyped reports whether the command line has a "token" member
// that is not a JSON string (a number, an object, an array, a boolean).
func tokenMistyped(line []byte) bool {
	var probe struct {
		Token json.RawMessage `json:"token"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Token == nil {
		return false
	}
	var str *string
	return json.Unmarshal(probe.Token, &str) != nil
}

func (s *rpcServer) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// badToken answers a hello with a wrong token and returns the error that
// ends zut.
func (s *rpcServer) badToken(h *proto.RPCHello) error {
	s.reply(h.ID, h.Type(), nil, errors.New("unauthorized: wrong token; zut exits"))
	return errors.New("rpc: hello carried a wrong token (compare it with " + rpcTokenEnv + "); exiting")
}

// shutdown ends the session. After the end of stdin it finishes what runs
// and what waits, then shuts extensions down; after anything else it
// aborts first. It waits (a bounded time) for the client to read what is
// queued, and returns nil for a clean end.
func (s *rpcServer) shutdown(cancel context.CancelFunc, in *rpcInput, cause error) error {
	clean := errors.Is(cause, errStdinEnded)
	s.closed.Store(true)
	s.ui.closeAll()
	if !clean {
		s.jobs.dropQueued("zut is exiting: " + cause.Error())
		s.jobs.cancelRunning()
		cancel()
	}
	s.tasks.Wait()
	s.jobs.close()
	if s.live.Load() {
		<-s.jobs.done
	}
	if s.app != nil {
		s.app.Close()
	}
	s.out.close()
	if clean {
		<-in.done
	} else {
		in.stop()
	}
	if s.out.failure() == nil {
		t := time.NewTimer(s.lim.Drain)
		select {
		case <-s.out.drained:
		case <-s.out.dead:
		case <-t.C:
			t.Stop()
			return fmt.Errorf("rpc: the client did not read zut's last output within %v; exiting", s.lim.Drain)
		}
		t.Stop()
		<-s.out.done
	}
	if err := s.out.failure(); err != nil {
		return err
	}
	if clean {
		return nil
	}
	return cause
}

// reply sends the response to a command: data on success, err's text on
// failure.
func (s *rpcServer) reply(id json.RawMessage, command string, data any, err error) {
	r := proto.RPCResponse{ID: id, Command: command, Success: err == nil}
	if err != nil {
		r.Error = err.Error()
	} else if data != nil {
		b, merr := marshalData(data)
		if merr != nil {
			r.Success, r.Error = false, "internal error: encode the result: "+merr.Error()
		} else {
			r.Data = b
		}
	}
	s.out.frame(r)
}

// ok and fail answer cmd.
func (s *rpcServer) ok(cmd proto.RPCCommand, data any) {
	s.reply(cmd.CommandID(), cmd.Type(), data, nil)
}
func (s *rpcServer) fail(cmd proto.RPCCommand, err error) {
	s.reply(cmd.CommandID(), cmd.Type(), nil, err)
}

func (s *rpcServer) replyDecodeError(err error) {
	var re *proto.RPCError
	if errors.As(err, &re) {
		s.reply(re.ID, re.Type, nil, re)
		return
	}
	s.reply(nil, "", nil, err)
}

// event queues one event.
func (s *rpcServer) event(f proto.Frame) { s.out.frame(f) }

// agentEvent queues an agent event.
func (s *rpcServer) agentEvent(ev agent.Event) {
	line, err := agent.MarshalEvent(ev)
	if err != nil {
		s.logf("encode %s event: %v", ev.EventType(), err)
		return
	}
	line = append(line, '\n')
	if s.hold.take(ev, line) {
		return
	}
	s.out.send(line)
}

// sizeText is n bytes for people: "16 MiB", "256 bytes".
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// marshalData encodes a response's data without escaping HTML characters.
func marshalData(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// task runs fn on its own goroutine, joined at shutdown.
func (s *rpcServer) task(ctx context.Context, fn func(ctx context.Context)) {
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		fn(ctx)
	}()
}
