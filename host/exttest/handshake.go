package exttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// knownCapabilities are the capabilities zut reads (C6), listed when
// asked (not by an initialiser at every start).
func knownCapabilities() []string {
	return append([]string{
		proto.CapCommands, proto.CapTools, proto.CapAlerts, proto.CapPanels, proto.CapToolCancel,
	}, proto.HostCapabilities...)
}

// handshake reads the hello (C1..C3) and answers hello_ack. With report
// false it records no checks (the secondary runs). It reports whether the
// extension was accepted.
func (r *run) handshake(ctx context.Context, report bool) bool {
	add := func(id string, st Status, msg string, recs ...*record) {
		if report {
			r.rs.add(id, "", st, msg, recs...)
		}
	}
	// The deadline runs from the extension's own start, not from when the
	// tester began (building, staging and the other copies do not count),
	// and counts the extension's own time, not its waiting for a CPU.
	dl := r.s.p.deadline(r.s.p.startAt, r.t.Hello)
	first, err := r.s.awaitUntil(ctx, 0, dl, func(*record) bool { return true })
	var g *goneError
	switch {
	case errors.Is(err, errTimeout):
		wall := time.Since(r.s.p.startAt)
		add("handshake.hello_deadline", Fail, fmt.Sprintf("wrote nothing on stdout within %v of its start (%s since it started, %s of it waiting for a CPU); zut gives up loading it (C1; --hello-timeout sets the deadline)",
			r.t.Hello, round(wall), round(wall-dl.own())))
		return false
	case errors.As(err, &g):
		add("handshake.hello_first", Fail, r.goneMsg("before writing a hello frame"))
		return false
	case err != nil:
		return false
	}
	h, ok := first.frame.(*proto.Hello)
	if !ok {
		what := "a line that is not a JSON frame"
		if t := first.typ(); t != "" {
			what = "a " + t + " frame"
		}
		add("handshake.hello_first", Fail, "the first line on stdout is "+what+"; zut refuses to load an extension whose first line is not hello (write logs to stderr)", first)
		return false
	}
	add("handshake.hello_first", Pass, "the first line is hello")
	msg := fmt.Sprintf("hello %s after the start", round(first.at))
	if first.at > r.t.Hello {
		// awaitUntil took it within the extension's own time: the rest
		// was spent waiting for a CPU.
		msg += fmt.Sprintf(", later than %v in wall time but within it in its own time: the machine kept it waiting for a CPU", r.t.Hello)
	}
	add("handshake.hello_deadline", Pass, msg)
	if h.ProtocolVersion != proto.ProtocolVersion {
		add("handshake.protocol_version", Fail, fmt.Sprintf("protocol_version is %d, zut speaks %d and refuses the load (C3)", h.ProtocolVersion, proto.ProtocolVersion), first)
		return false
	}
	add("handshake.protocol_version", Pass, "protocol_version 2")
	if h.Name != r.m.Name {
		add("handshake.name", Fail, fmt.Sprintf("hello names the extension %q, its manifest %q; zut refuses the load (C2)", h.Name, r.m.Name), first)
		return false
	}
	add("handshake.name", Pass, fmt.Sprintf("%q, as in the manifest", h.Name))
	var unknown []string
	known := knownCapabilities()
	for _, c := range h.Capabilities {
		if !slices.Contains(known, c) {
			unknown = append(unknown, c)
		}
	}
	switch {
	case len(unknown) > 0:
		add("handshake.capabilities", Warn, fmt.Sprintf("zut does not know %s and ignores it (C6); known: %s",
			quoteList(unknown), strings.Join(known, ", ")), first)
	case len(h.Capabilities) == 0:
		add("handshake.capabilities", Pass, "none listed")
	default:
		add("handshake.capabilities", Pass, strings.Join(h.Capabilities, ", "))
	}
	if _, err := r.s.send(r.helloAck(proto.ProtocolVersion)); err != nil {
		add("handshake.hello_first", Fail, "could not send hello_ack: "+err.Error())
		return false
	}
	return true
}

// Outcomes of the registration window (C5).
const (
	windowReady   = "ready"
	windowAuto    = "auto-ready"
	windowTimeout = "ready-timeout"
)

// window waits for the end of the registration window as zut does: ready,
// or Quiet of silence (auto-ready), or Ready after hello_ack
// (ready-timeout). Frames since the hello count (C4).
func (r *run) window(ctx context.Context) (string, *record, error) {
	r.w.mu.Lock()
	from := r.w.helloRec.seq + 1
	r.w.mu.Unlock()
	deadline := time.Now().Add(r.t.Ready)
	for {
		d := min(r.t.Quiet, time.Until(deadline))
		rec, err := r.s.await(ctx, from, d, func(*record) bool { return true })
		switch {
		case errors.Is(err, errTimeout):
			if !time.Now().Before(deadline) {
				return windowTimeout, nil, nil
			}
			return windowAuto, nil, nil
		case err != nil:
			return "", nil, err
		}
		if _, ok := rec.frame.(*proto.Ready); ok {
			return windowReady, rec, nil
		}
		from = rec.seq + 1
	}
}

// registration runs the window and reports registration.ready.
func (r *run) registration(ctx context.Context) bool {
	began := time.Now()
	status, rec, err := r.window(ctx)
	r.w.mu.Lock()
	r.w.window = true
	r.w.mu.Unlock()
	if err != nil {
		st, msg := r.waitErr(err, "during registration", r.t.Ready)
		r.rs.add("registration.ready", "", st, msg)
		return false
	}
	switch status {
	case windowReady:
		r.rs.add("registration.ready", "", Pass, fmt.Sprintf("ready %s after hello_ack", round(time.Since(began))))
	case windowAuto:
		r.rs.add("registration.ready", "", Warn, fmt.Sprintf("no ready frame; zut takes %v of quiet after hello_ack as ready (auto-ready, C5); send ready after the last registration", r.t.Quiet))
	case windowTimeout:
		r.rs.add("registration.ready", "", Fail, fmt.Sprintf("still sending frames %v after hello_ack without ready; zut marks it ready-timeout and starts without it (C5)", r.t.Ready), r.s.since(max(0, r.s.mark()-3))...)
	}
	_ = rec
	// Registrations after the window still count (C5): let the extension
	// finish them before the probes read the lists.
	return r.settled(ctx, "registration.ready", "", "right after registering")
}

// mismatch runs a second process and answers its hello with a hello_ack
// of the next major version: a careful extension stops.
func (r *run) mismatch(ctx context.Context) {
	const id = "handshake.version_mismatch"
	if err := r.spawn(); err != nil {
		return // the main run reports that it cannot start
	}
	defer r.s.close()
	first, err := r.s.await(ctx, 0, r.t.Hello, func(*record) bool { return true })
	if err != nil {
		if ctx.Err() == nil {
			r.rs.add(id, "", Skip, "no hello to answer (see handshake.hello_first)")
		}
		return
	}
	h, ok := first.frame.(*proto.Hello)
	if !ok || h.ProtocolVersion != proto.ProtocolVersion || h.Name != r.m.Name {
		r.rs.add(id, "", Skip, "zut refuses this hello already (see the handshake checks)")
		return
	}
	// Frames pipelined behind the hello (C4) are not an answer to the
	// hello_ack: let them come first.
	r.s.settle(ctx)
	v := proto.ProtocolVersion + 1
	ack, err := r.s.send(r.helloAck(v))
	if err != nil {
		r.rs.add(id, "", Skip, "could not send hello_ack: "+err.Error())
		return
	}
	// zut refuses the load at this point: the extension must not go on.
	// Any frame after the hello_ack fails, and so does a process still
	// running once Mismatch has passed; the tester keeps reading for the
	// whole time, so that a late frame is seen too.
	rec, err := r.s.await(ctx, ack.seq+1, r.t.Mismatch, func(*record) bool { return true })
	var g *goneError
	switch {
	case errors.As(err, &g):
		r.s.p.waitExit(ctx, r.t.Kill)
		r.rs.addf(id, "", Pass, []*record{ack}, "%s after a hello_ack of protocol_version %d", r.s.goneReason(), v)
	case errors.Is(err, errTimeout):
		r.rs.addf(id, "", Fail, []*record{ack}, "still running %v after a hello_ack of protocol_version %d; the major version must match (spec: hello_ack, C3): exit with a message on stderr when it differs", r.t.Mismatch, v)
	case err != nil:
	default:
		what := article(rec.typ())
		if rec.typ() == "" {
			what = "a line"
		}
		r.rs.addf(id, "", Fail, []*record{ack, rec}, "went on after a hello_ack of protocol_version %d: it sent %s %s after it; the major version must match (spec: hello_ack, C3): exit with a message on stderr when it differs",
			v, what, round(rec.at-ack.at))
	}
}

// stdinClosed runs a third process, lets it register, closes its stdin
// and waits for it to exit.
func (r *run) stdinClosed(ctx context.Context) {
	const id = "robustness.stdin_closed"
	if err := r.spawn(); err != nil {
		return
	}
	defer r.s.close()
	if !r.handshake(ctx, false) {
		if ctx.Err() == nil {
			r.rs.add(id, "", Skip, "no usable hello (see the handshake checks)")
		}
		return
	}
	if _, _, err := r.window(ctx); err != nil {
		if ctx.Err() == nil {
			r.rs.add(id, "", Skip, r.goneMsg("during registration, before its stdin was closed"))
		}
		return
	}
	r.s.settle(ctx)
	if !r.alive() {
		r.rs.add(id, "", Skip, r.goneMsg("before its stdin was closed"))
		return
	}
	closed := time.Now()
	r.s.p.closeStdin()
	if r.s.p.waitExit(ctx, r.t.EOF) {
		r.rs.add(id, "", Pass, fmt.Sprintf("exited (%s) %s after its stdin was closed", r.s.p.status(), round(r.s.p.exitAt.Sub(closed))))
		return
	}
	if ctx.Err() == nil {
		r.rs.add(id, "", Fail, fmt.Sprintf("still running %v after its stdin was closed; exit when stdin ends (zut would have to kill it, C21)", r.t.EOF))
	}
}
