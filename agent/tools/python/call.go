package python

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Limits of what a call shows besides the output streams.
const (
	maxValue     = 8 << 10
	maxTraceback = 16 << 10
	maxLines     = 2000
	maxBytes     = 64 << 10
	progressTick = 250 * time.Millisecond
)

// outcome is how a call ended.
type outcome uint8

const (
	ended  outcome = iota // the driver replied
	killed                // it did not stop after SIGINT: the interpreter was killed
	exited                // the interpreter ended by itself during the call
)

// call runs code in ip and renders the result.
func (t *Tool) call(ctx context.Context, ip *interp, code string, timeout time.Duration, progress func(string), det Details, notes []string) tools.Result {
	marker := []byte(newMarker())
	outFound, errFound := ip.stdout.arm(marker), ip.stderr.arm(marker)
	var rep *reply
	how := ended
	id, err := ip.send(code, string(marker), time.Now().Add(timeout))
	if err != nil {
		how = t.sendFailed(ip)
	} else {
		rep, how = t.wait(ctx, ip, id, timeout, progress, &det)
	}
	switch how {
	case ended:
		t := time.NewTimer(markerWait)
		for _, ch := range []<-chan struct{}{outFound, errFound} {
			select {
			case <-ch:
			case <-ip.exited:
			case <-t.C:
			}
		}
		t.Stop()
	case killed:
		ip.stop()
		det.Killed, det.StateLost = true, true
		t.setInterp(nil, "the previous one was killed when interrupted code did not stop, and its variables are lost")
	case exited:
		ip.drain()
		ip.stop()
		det.Exited, det.StateLost = true, true
		var ee *exec.ExitError
		if errors.As(ip.waitErr, &ee) {
			det.ExitCode = ee.ExitCode()
			det.Signal = tools.ExitSignal(ee.ProcessState)
		}
		t.setInterp(nil, "the previous one ended during a call, and its variables are lost")
	}
	out, errs := ip.stdout.finish(), ip.stderr.finish()
	return t.render(det, rep, how, out, errs, timeout, notes, ip)
}

// sendFailed handles a request the driver did not take: it died, or it is
// stuck and is killed.
func (t *Tool) sendFailed(ip *interp) outcome {
	select {
	case <-ip.exited:
		return exited
	case <-time.After(drainWait):
		return killed
	}
}

// wait waits for the reply to request id. On timeout or abort it
// interrupts the code and gives it the grace period to stop.
func (t *Tool) wait(ctx context.Context, ip *interp, id int64, timeout time.Duration, progress func(string), det *Details) (*reply, outcome) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(progressTick)
	defer tick.Stop()
	var grace <-chan time.Time // set once SIGINT was sent
	interrupt := func() {
		if grace == nil {
			ip.interrupt()
			grace = time.After(t.c.Grace)
		}
	}
	done := ctx.Done()
	last := ""
	for {
		select {
		case r := <-ip.replies:
			if r.ID != nil && *r.ID == id {
				return &r, ended
			}
		case <-ip.exited:
			return nil, exited
		case <-grace:
			return nil, killed
		case <-timer.C:
			det.TimedOut = true
			interrupt()
		case <-done:
			det.Aborted, done = true, nil
			interrupt()
		case <-tick.C:
			if s := ip.stdout.snapshot(4 << 10); progress != nil && s != last {
				last = s
				progress(s)
			}
		}
	}
}

// render builds the text for the model and the Details.
func (t *Tool) render(det Details, rep *reply, how outcome, out, errs *capBuf, timeout time.Duration, notes []string, ip *interp) tools.Result {
	var cut1, cut2 bool
	det.Stdout, cut1 = out.text()
	det.Stderr, cut2 = errs.text()
	det.StdoutBytes, det.StderrBytes = out.total, errs.total
	det.Cut = cut1 || cut2
	if rep != nil {
		if rep.Value != nil {
			v, c := clipMiddle(*rep.Value, maxValue)
			det.Value, det.Cut = v, det.Cut || c
		}
		if rep.Traceback != nil {
			tb, c := clipMiddle(strings.TrimRight(*rep.Traceback, "\n"), maxTraceback)
			det.Traceback, det.Cut = tb, det.Cut || c
		}
		if rep.Exception != nil {
			det.Exception = *rep.Exception
		}
		det.Interrupted = rep.Interrupted && (det.TimedOut || det.Aborted)
	}
	var b strings.Builder
	line := func(s string) {
		if s == "" {
			return
		}
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, n := range notes {
		line(n)
	}
	line(det.Stdout)
	if det.Stderr != "" {
		line("[stderr]\n" + det.Stderr)
	}
	line(det.Traceback)
	if det.Value != "" {
		if strings.Contains(det.Value, "\n") {
			line("[value]\n" + det.Value)
		} else {
			line("[value] " + det.Value)
		}
	}
	why := fmt.Sprintf("timed out after %s", seconds(timeout))
	if det.Aborted {
		why = "aborted by the user"
	}
	switch {
	case how == killed:
		line(fmt.Sprintf("[%s; the code did not stop within %s of SIGINT, so the interpreter was killed with its child processes: its variables, imports and definitions are lost, and the next call starts a fresh interpreter]", why, seconds(t.c.Grace)))
	case how == exited && t.isClosed():
		line("[the interpreter was stopped because the session is ending]")
	case how == exited:
		line(fmt.Sprintf("[the interpreter ended during the call (%s), for example through os._exit or a crash; its variables are lost and the next call starts a fresh interpreter]", exitText(ip.waitErr)))
	case det.Interrupted:
		line(fmt.Sprintf("[%s: SIGINT stopped the code with KeyboardInterrupt; the interpreter and its variables are kept]", why))
	case det.TimedOut || det.Aborted:
		line(fmt.Sprintf("[%s: SIGINT was sent and the code then ended; the interpreter and its variables are kept]", why))
	}
	text := strings.TrimRight(b.String(), "\n")
	if text == "" {
		text = "(no output)"
	}
	text, c := tools.CapText(text, maxLines, maxBytes, "")
	det.Cut = det.Cut || c
	r := tools.TextResult(text)
	r.IsError = det.Traceback != "" || how != ended || det.TimedOut || det.Aborted
	return r.WithDetails(det)
}

func (t *Tool) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// clipMiddle keeps the head and the tail of s within n bytes.
func clipMiddle(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	head, tail := cutUTF8(s, n/4), s[len(s)-(n-n/4):]
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	return head + fmt.Sprintf("\n[... %s omitted ...]\n", tools.FormatSize(int64(len(s)-len(head)-len(tail)))) + tail, true
}

func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:min(n, len(s))]
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", int(d/time.Second))
	}
	return d.String()
}
