package exttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/internal/gobuild"
	"github.com/zut-go/zut/proto"
)

// Test runs the extension in dir through the checks and returns the
// report. A failing extension is a report whose Verdict is Fail, not an
// error; the error is for options that cannot work, a context that ended
// or a temporary directory that cannot be made. Test starts three
// processes of the extension (the main run, one for a hello_ack of
// another version, one whose stdin is closed), one after another unless
// opts.Parallel, and stops and reaps each, with its process group, before
// it returns. A Go extension (language "go" in its manifest, Go source in
// its directory) is first built into a temporary copy as zut ext install
// --build=go does, unless opts.NoBuild.
func Test(ctx context.Context, dir string, opts Options) (*Report, error) {
	pl, err := newPlan(opts.Only)
	if err != nil {
		return nil, err
	}
	t := opts.Timeouts
	if opts.Quick {
		t = t.quick()
	}
	t = t.withDefaults()
	if opts.MaxStderr <= 0 {
		opts.MaxStderr = 64 << 10
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	begin := time.Now()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("ext test %s: %w", dir, err)
	}
	rep := &Report{Dir: abs, Extension: filepath.Base(abs)}
	if opts.Quick {
		h := host.DefaultTimeouts()
		rep.Notes = append(rep.Notes, fmt.Sprintf("--quick: tool calls get %v (zut: %v), commands %v (zut: %v), interceptions %v (zut: %v)",
			t.Tool, h.Tool, t.Command, h.Command, t.Intercept, h.Intercept))
	}
	tmp, err := os.MkdirTemp("", "zut-ext-test-")
	if err != nil {
		return nil, fmt.Errorf("ext test %s: make a temporary directory: %w", abs, err)
	}
	defer os.RemoveAll(tmp)
	var rs results
	runDir, built := abs, ""
	if execPath, ok := needsBuild(abs); ok && !opts.NoBuild {
		staged := filepath.Join(tmp, "build")
		if err := stage(ctx, abs, execPath, staged); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("ext test %s: %w", abs, ctx.Err())
			}
			rs.add("handshake.manifest", "", Fail, "could not build the Go source as zut ext install --build=go does: "+err.Error())
			rep.finish(rs.checks, pl, time.Since(begin))
			return rep, nil
		}
		runDir, built = staged, execPath
		rep.Notes = append(rep.Notes, "built "+execPath+" with go build -trimpath into a temporary copy, as zut ext install --build=go does (--no-build runs the directory as it is)")
	}
	m, merr := host.ReadManifest(runDir)
	switch {
	case merr != nil:
		msg := strings.ReplaceAll(merr.Error(), runDir, abs)
		if gobuild.IsGoSource(abs) && built == "" && !opts.NoBuild {
			msg += `; set "language": "go" in extension.json and zut ext test builds the source first`
		}
		rs.add("handshake.manifest", "", Fail, msg)
	case m.ThemeOnly():
		rs.add("handshake.manifest", "", Pass, fmt.Sprintf("theme-only extension (%s): zut never starts it, there is nothing more to test", m.Theme))
	default:
		st, msg := Pass, manifestSummary(m)
		if built != "" {
			msg += "; built from its Go source"
		}
		if !m.Enabled {
			st, msg = Warn, msg+`; "enabled" is false, so zut does not start it (tested anyway)`
		}
		rs.add("handshake.manifest", "", st, msg)
	}
	if m != nil {
		rep.Extension = m.Name
	}
	if merr != nil || m.ThemeOnly() {
		rep.finish(rs.checks, pl, time.Since(begin))
		return rep, nil
	}
	cwd := opts.CWD
	if cwd == "" {
		cwd = filepath.Join(tmp, "project")
	}
	newRun := func(label string) (*run, error) {
		data := filepath.Join(tmp, "data-"+label)
		for _, d := range []string{data, cwd} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, fmt.Errorf("ext test %s: %w", m.Name, err)
			}
		}
		return &run{opts: opts, t: t, plan: pl, m: m, env: env, cwd: cwd, dataDir: data, unanswered: map[string]bool{}}, nil
	}
	runs := []*run{}
	for _, label := range []string{"main", "mismatch", "eof"} {
		r, err := newRun(label)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	var steps []func()
	steps = append(steps, func() { runs[0].main(ctx) })
	if pl.runs("handshake") {
		steps = append(steps, func() { runs[1].mismatch(ctx) })
	}
	if pl.runs("robustness") {
		steps = append(steps, func() { runs[2].stdinClosed(ctx) })
	}
	if opts.Parallel {
		var wg sync.WaitGroup
		for _, st := range steps {
			wg.Add(1)
			go func() { defer wg.Done(); st() }()
		}
		wg.Wait()
	} else {
		for _, st := range steps {
			if ctx.Err() != nil {
				break
			}
			st()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ext test %s: %w", m.Name, err)
	}
	all := rs.checks
	for _, r := range runs {
		all = append(all, r.rs.checks...)
	}
	rep.finish(all, pl, time.Since(begin))
	return rep, nil
}

func manifestSummary(m *host.Manifest) string {
	s := fmt.Sprintf("%s", m.Name)
	if m.Version != "" {
		s += " " + m.Version
	}
	s += ", exec " + strings.Join(append([]string{m.Exec}, m.Args...), " ")
	if m.Language != "" {
		s += " (" + m.Language + ")"
	}
	for _, w := range m.Warnings {
		s += "; " + w
	}
	return s
}

// run is one process of the extension under test and its checks. Each
// run is used by one goroutine.
type run struct {
	opts    Options
	t       Timeouts
	plan    plan
	m       *host.Manifest
	env     []string
	cwd     string
	dataDir string

	rs results
	s  *session
	w  *world

	died      bool      // a probe reported that the extension went away
	selfExit  bool      // the extension exited by itself after shutdown
	good      *toolCall // a tool call answered without is_error
	stateful  *toolCall // a tool call whose result carried details
	details   []*record // tool results with details
	delivered []string  // events delivered
	answered  int       // interceptions answered
	// unanswered are the tools that let a call pass its deadline; the
	// tester calls them no more.
	unanswered map[string]bool
	chain      []finding // events.chain problems
}

// spawn starts the process and its session.
func (r *run) spawn() error {
	p, err := start(r.m, r.env, 256<<10)
	if err != nil {
		return err
	}
	r.w = newWorld(r.m.Name, r.cwd, r.m.Dir, r.dataDir)
	r.s = newSession(p, r.t, r.w.observe)
	r.w.s = r.s
	r.s.run()
	return nil
}

// alive reports whether the extension can still be talked to.
func (r *run) alive() bool { return r.s.gone() == "" }

// gone describes why the extension stopped answering, with the last frame
// the host sent and the end of its stderr, for the check that saw it.
func (r *run) goneMsg(doing string) string {
	why := r.s.goneReason()
	msg := fmt.Sprintf("the extension %s %s", why, doing)
	if e := r.s.p.stderr.last(300); e != "" {
		msg += "; stderr ends: " + strings.ReplaceAll(e, "\n", " | ")
	}
	return msg
}

// goneStatus is the status of a check that saw the extension go away:
// Fail, or Skip when the tester stopped it for flooding stdout, which
// robustness.stdout reports.
func (r *run) goneStatus() Status {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.flooded {
		return Skip
	}
	return Fail
}

// waitErr turns an error of await into a check status and message.
func (r *run) waitErr(err error, doing string, d time.Duration) (Status, string) {
	var g *goneError
	switch {
	case errors.As(err, &g):
		return r.goneStatus(), r.goneMsg(doing)
	case errors.Is(err, errTimeout):
		return Fail, fmt.Sprintf("no answer within %v %s", d, doing)
	}
	return Fail, err.Error()
}

// helloAck is the hello_ack zut sends (C7), with protocol version v.
func (r *run) helloAck(v int) proto.HelloAck {
	ack := proto.HelloAck{
		ProtocolVersion: v, ZutVersion: "exttest", Provider: "anthropic", Model: "claude-sonnet-4-5",
		CWD: r.cwd, ExtensionDir: r.m.Dir, DataDir: r.dataDir, Session: r.w.testSession(),
	}
	r.w.mu.Lock()
	for c := range r.w.caps {
		if proto.IsAdditiveCapability(c) {
			ack.Capabilities = proto.HostCapabilities
		}
	}
	r.w.mu.Unlock()
	return ack
}

// main is the full run: handshake, registration, every selected phase,
// shutdown, and the checks made at the end.
func (r *run) main(ctx context.Context) {
	if err := r.spawn(); err != nil {
		r.rs.add("handshake.hello_first", "", Fail, "could not start the extension: "+err.Error())
		return
	}
	defer r.s.close()
	if !r.handshake(ctx, true) {
		r.afterExit(ctx)
		return
	}
	if !r.registration(ctx) {
		r.afterExit(ctx)
		return
	}
	steps := []struct {
		phase string
		fn    func(context.Context)
	}{
		{"events", r.sessionStart},
		{"calls", r.commands},
		{"calls", r.callTools},
		{"calls", r.unknownFields},
		{"events", r.turn},
		{"cancel", r.toolCancel},
		{"panels", r.panels},
		{"state", r.state},
		{"additions", r.additionProbes},
		{"robustness", r.unknownFrame},
		{"robustness", r.slowHost},
	}
	for _, st := range steps {
		if ctx.Err() != nil || !r.alive() {
			break
		}
		if r.plan.runs(st.phase) {
			st.fn(ctx)
		}
	}
	r.shutdown(ctx)
	r.afterExit(ctx)
}
