//go:build unix

package python

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/internal/golden"

	"github.com/zut-go/zut/agent/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// newTool is a python tool in a fresh directory, closed when the test
// ends; tests skip when python3 is not installed.
func newTool(t *testing.T, c Config) *Tool {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; the python tool needs it")
	}
	if c.Grace == 0 {
		c.Grace = 2 * time.Second
	}
	tl := New(tools.Config{CWD: t.TempDir()}, c)
	t.Cleanup(func() { tl.Close() })
	return tl
}

// call runs one call with args given as a Go value and decodes Details.
func call(t *testing.T, tl *Tool, args map[string]any) (tools.Result, Details) {
	t.Helper()
	return callCtx(t, context.Background(), tl, args)
}

func callCtx(t *testing.T, ctx context.Context, tl *Tool, args map[string]any) (tools.Result, Details) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r := tl.Run(ctx, raw, nil)
	var d Details
	if r.Details != nil {
		if err := json.Unmarshal(r.Details, &d); err != nil {
			t.Fatalf("Details %s: %v", r.Details, err)
		}
	}
	return r, d
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got, *update)
}

// TestSession runs a scripted session in one interpreter and records every
// result in testdata/session.golden: state surviving calls, the REPL
// value, stderr, tracebacks, syntax errors, stdin, partial UTF-8, top-level
// await, SystemExit, reset.
func TestSession(t *testing.T) {
	tl := newTool(t, Config{})
	steps := []string{
		"x = 41\nprint('hi')\nx + 1",
		"x",
		"import math\ndef area(r):\n    return math.pi * r * r",
		"round(area(2), 3)",
		"import sys\nprint('to stderr', file=sys.stderr)\nprint('to stdout')\n1/0",
		"def broken(:\n    pass",
		"input()",
		"sys.stdout.buffer.write(b'cut \\xe2\\x82')",
		"class Multi:\n    def __repr__(self): return 'line one\\nline two'\nMulti()",
		"import asyncio\nawait asyncio.sleep(0)\n'awaited'",
		"raise SystemExit(2)",
		"x",
		"def outer():\n    raise ValueError('inner')\ntry:\n    outer()\nexcept ValueError as e:\n    raise KeyError('outer') from e",
		"print('no value'); None",
		"",
		"x",
	}
	var b strings.Builder
	version := ""
	for i, code := range steps {
		args := map[string]any{"code": code}
		if code == "" {
			args["reset"] = true
		}
		r, d := call(t, tl, args)
		if d.Version != "" {
			version = d.Version
		}
		flag := ""
		if r.IsError {
			flag = " (error)"
		}
		fmt.Fprintf(&b, "== %d%s\n%s\n", i+1, flag, r.Text())
	}
	got := b.String()
	if version != "" {
		got = strings.ReplaceAll(got, "Python "+version, "Python X")
	}
	checkGolden(t, "session.golden", got)
}

func TestDetails(t *testing.T) {
	tl := newTool(t, Config{})
	_, d := call(t, tl, map[string]any{"code": "import sys\nprint('out')\nprint('err', file=sys.stderr)\n6 * 7"})
	if d.Stdout != "out\n" || d.Stderr != "err\n" || d.Value != "42" || d.Traceback != "" || !d.Fresh || d.Version == "" {
		t.Errorf("Details = %+v, want stdout out, stderr err, value 42, fresh, a version", d)
	}
	r, d := call(t, tl, map[string]any{"code": "{}['k']"})
	if !r.IsError || d.Exception != "KeyError" || !strings.HasPrefix(d.Traceback, "Traceback (most recent call last):") || strings.Contains(d.Traceback, "<string>") || d.Fresh {
		t.Errorf("Details of a KeyError = %+v, want the exception, a traceback without driver frames, not fresh", d)
	}
}

func TestTimeoutInterrupts(t *testing.T) {
	tl := newTool(t, Config{})
	call(t, tl, map[string]any{"code": "kept = 'still here'"})
	r, d := call(t, tl, map[string]any{"code": "import time\nprint('started')\ntime.sleep(600)", "timeout": 1})
	if !r.IsError || !d.TimedOut || !d.Interrupted || d.Killed || d.StateLost || d.Exception != "KeyboardInterrupt" || d.Stdout != "started\n" {
		t.Fatalf("sleep past the timeout: %q %+v; want interrupted with KeyboardInterrupt, state kept", r.Text(), d)
	}
	if !strings.HasSuffix(r.Text(), "[timed out after 1 s: SIGINT stopped the code with KeyboardInterrupt; the interpreter and its variables are kept]") {
		t.Errorf("text = %q, want the interrupt footer", r.Text())
	}
	if _, d := call(t, tl, map[string]any{"code": "kept"}); d.Value != "'still here'" || d.Fresh {
		t.Errorf("after the interrupt: %+v, want the old variable in the same interpreter", d)
	}
}

func TestKillWhenSIGINTIgnored(t *testing.T) {
	tests := []struct{ name, code string }{
		{"SIG_IGN", "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass"},
		{"handler", "import signal\nsignal.signal(signal.SIGINT, lambda *a: print('ignored'))\nwhile True: pass"},
		{"swallowed", "import time\nwhile True:\n    try:\n        time.sleep(600)\n    except KeyboardInterrupt:\n        pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl := newTool(t, Config{Grace: 500 * time.Millisecond})
			call(t, tl, map[string]any{"code": "lost = 1"})
			pid := tl.ip.cmd.Process.Pid
			r, d := call(t, tl, map[string]any{"code": tc.code, "timeout": 1})
			if !r.IsError || !d.Killed || !d.StateLost || !d.TimedOut || !strings.Contains(r.Text(), "so the interpreter was killed") {
				t.Fatalf("code ignoring SIGINT: %q %+v; want killed, state lost", r.Text(), d)
			}
			if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process group %d after the kill: kill(0) = %v, want ESRCH (all reaped)", pid, err)
			}
			r, d = call(t, tl, map[string]any{"code": "lost"})
			if !d.Fresh || d.Exception != "NameError" || !strings.HasPrefix(r.Text(), "[started a fresh interpreter: the previous one was killed") {
				t.Errorf("next call: %q %+v; want a fresh interpreter saying the old state is gone", r.Text(), d)
			}
		})
	}
}

func TestAbortInterrupts(t *testing.T) {
	tl := newTool(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	var r tools.Result
	var d Details
	done := make(chan struct{})
	go func() {
		defer close(done)
		raw, _ := json.Marshal(map[string]any{"code": "import time\nprint('running', flush=True)\ntime.sleep(600)"})
		r = tl.Run(ctx, raw, func(s string) {
			if strings.Contains(s, "running") {
				cancel() // the code is running: abort it
			}
		})
		json.Unmarshal(r.Details, &d)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the aborted call did not return")
	}
	if !d.Aborted || !d.Interrupted || d.StateLost || !strings.Contains(r.Text(), "[aborted by the user: SIGINT stopped the code") {
		t.Errorf("aborted call: %q %+v; want interrupted by abort, state kept", r.Text(), d)
	}
}

func TestHugeOutput(t *testing.T) {
	tl := newTool(t, Config{})
	r, d := call(t, tl, map[string]any{"code": "import sys\nfor i in range(200000):\n    print('line', i)\nsys.stderr.write('e' * 3_000_000)\n'done'"})
	want := int64(len("line 0\n")*10 + len("line 10\n")*90 + len("line 100\n")*900 + len("line 1000\n")*9000 + len("line 10000\n")*90000 + len("line 100000\n")*100000)
	if d.StdoutBytes != want || d.StderrBytes != 3_000_000 || !d.Cut || d.Value != "'done'" {
		t.Fatalf("huge output: %d stdout bytes, %d stderr bytes, cut %v, value %q; want %d, 3000000, true, 'done'", d.StdoutBytes, d.StderrBytes, d.Cut, d.Value, want)
	}
	if len(r.Text()) > maxBytes+200 || !strings.Contains(d.Stdout, "line 0\n") || !strings.HasSuffix(d.Stdout, "line 199999\n") || !strings.Contains(d.Stdout, "omitted") {
		t.Errorf("huge output text is %d bytes; stdout head/tail %q … %q", len(r.Text()), d.Stdout[:20], d.Stdout[len(d.Stdout)-20:])
	}
}

func TestExit(t *testing.T) {
	tl := newTool(t, Config{})
	r, d := call(t, tl, map[string]any{"code": "import os\nprint('before', flush=True)\nos._exit(3)"})
	if !r.IsError || !d.Exited || d.ExitCode != 3 || !d.StateLost || d.Stdout != "before\n" || !strings.Contains(r.Text(), "the interpreter ended during the call (exit status 3)") {
		t.Fatalf("os._exit(3): %q %+v; want exited with 3, output kept, state lost", r.Text(), d)
	}
	r, d = call(t, tl, map[string]any{"code": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"})
	if !d.Fresh || !d.Exited || d.Signal != "SIGKILL" {
		t.Errorf("SIGKILL to itself: %q %+v; want a fresh interpreter that exited by SIGKILL", r.Text(), d)
	}
	if _, d = call(t, tl, map[string]any{"code": "1 + 1"}); d.Value != "2" || !d.Fresh {
		t.Errorf("after the exits: %+v, want a fresh interpreter answering 2", d)
	}
}

func TestForkAndThreads(t *testing.T) {
	tl := newTool(t, Config{})
	_, d := call(t, tl, map[string]any{"code": "import os\npid = os.fork()\nif pid == 0:\n    print('child')\nelse:\n    os.waitpid(pid, 0)\n    print('parent')\npid > 0"})
	if d.Stdout != "child\nparent\n" || d.Value != "True" {
		t.Errorf("fork: %+v; want the child's and the parent's lines and the parent's value", d)
	}
	// Output of a thread after the call ends shows up in the next call.
	_, d = call(t, tl, map[string]any{"code": "import threading\nev = threading.Event()\ndef late():\n    ev.wait()\n    print('late', flush=True)\nth = threading.Thread(target=late)\nth.start()\n'started'"})
	if d.Value != "'started'" {
		t.Fatalf("thread start: %+v", d)
	}
	_, d = call(t, tl, map[string]any{"code": "ev.set(); th.join(); 'joined'"})
	if d.Stdout != "late\n" || d.Value != "'joined'" {
		t.Errorf("thread output: %+v; want late in this call's stdout", d)
	}
	// A subprocess writes to the same stdout, and does not get the protocol pipes.
	_, d = call(t, tl, map[string]any{"code": "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import os; print(\"sub\", sorted(os.listdir(\"/proc/self/fd\")))'])\nNone"})
	if d.Stdout != "sub ['0', '1', '2', '3']\n" && !strings.HasPrefix(d.Stdout, "sub ['0', '1', '2'") {
		t.Errorf("subprocess: %q; want its line with only fds 0-2 (and the one listing them)", d.Stdout)
	}
}

func TestMarkerLookalike(t *testing.T) {
	tl := newTool(t, Config{})
	_, d := call(t, tl, map[string]any{"code": "print('\\x00zut-end-000000000000000000000000\\x00 and on')"})
	if d.Stdout != "\x00zut-end-000000000000000000000000\x00 and on\n" {
		t.Errorf("output that looks like a marker: %q; want it unchanged", d.Stdout)
	}
}

func TestMissingPython(t *testing.T) {
	empty := t.TempDir()
	tl := New(tools.Config{CWD: empty}, Config{Env: []string{"PATH=" + empty}})
	defer tl.Close()
	r, _ := call(t, tl, map[string]any{"code": "1"})
	want := "python: python3 not found on PATH; install Python 3 (for example apt install python3) to use this tool"
	if !r.IsError || r.Text() != want {
		t.Errorf("without python3 on PATH: %q, want %q", r.Text(), want)
	}
	tl = New(tools.Config{CWD: empty}, Config{Python: filepath.Join(empty, "nope")})
	defer tl.Close()
	if r, _ := call(t, tl, map[string]any{"code": "1"}); !r.IsError || !strings.Contains(r.Text(), "is not an executable file") {
		t.Errorf("with a missing interpreter path: %q", r.Text())
	}
}

func TestNotPython3(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'SyntaxError: this is not python 3' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tl := New(tools.Config{CWD: dir}, Config{Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}})
	defer tl.Close()
	r, _ := call(t, tl, map[string]any{"code": "1"})
	if !r.IsError || !strings.Contains(r.Text(), "exited during startup (exit status 1): SyntaxError: this is not python 3; zut needs Python 3.8 or newer") {
		t.Errorf("with an interpreter that fails: %q", r.Text())
	}
}

func TestEnvAndDir(t *testing.T) {
	// The real interpreter, not a wrapper (pyenv's shims need bash on PATH).
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 is not installed")
	}
	python := strings.TrimSpace(string(out))
	dir := t.TempDir()
	t.Setenv("ZUT_SECRET_KEY", "do-not-leak")
	tl := New(tools.Config{CWD: dir}, Config{Python: python, Env: []string{"PATH=/usr/bin:/bin", "ZUT_VISIBLE=yes"}})
	defer tl.Close()
	r, d := call(t, tl, map[string]any{"code": "import os\n(os.getcwd(), os.environ.get('ZUT_VISIBLE'), os.environ.get('ZUT_SECRET_KEY'))"})
	want := fmt.Sprintf("(%q, 'yes', None)", dir)
	want = strings.ReplaceAll(want, `"`, "'")
	if d.Value != want {
		t.Errorf("cwd and environment = %s (%q), want %s", d.Value, r.Text(), want)
	}
}

func TestConcurrentCalls(t *testing.T) {
	tl := newTool(t, Config{})
	call(t, tl, map[string]any{"code": "n = 0"})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{"code": "import time\nv = n\ntime.sleep(0.01)\nn = v + 1"})
			tl.Run(context.Background(), raw, nil)
		}()
	}
	wg.Wait()
	if _, d := call(t, tl, map[string]any{"code": "n"}); d.Value != "4" {
		t.Errorf("after 4 concurrent increments n = %s, want 4 (calls run one at a time)", d.Value)
	}
}

func TestCloseReaps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to see the code's child process")
	}
	before := runtime.NumGoroutine()
	tl := newTool(t, Config{})
	_, d := call(t, tl, map[string]any{"code": "import subprocess\np = subprocess.Popen(['sleep', '600'])\np.pid"})
	pid := tl.ip.cmd.Process.Pid
	child := d.Value
	// A call still running when Close comes is stopped.
	done := make(chan tools.Result)
	go func() {
		raw, _ := json.Marshal(map[string]any{"code": "print('going', flush=True)\nwhile True: pass"})
		done <- tl.Run(context.Background(), raw, func(s string) {})
	}()
	for guard := time.Now().Add(60 * time.Second); !strings.Contains(stdoutNow(tl), "going"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatal("the running call printed nothing within 60 s")
		}
	}
	tl.Close()
	r := <-done
	if !strings.Contains(r.Text(), "[the interpreter was stopped because the session is ending]") {
		t.Errorf("call running at Close = %q, want the session-ending note", r.Text())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("interpreter %d after Close: kill(0) = %v, want ESRCH (killed and reaped)", pid, err)
	}
	// The sleep child was killed with the group; its new parent reaps it.
	for guard := time.Now().Add(30 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatalf("the code's child process %s is still running 30 s after Close", child)
		}
	}
	if r, _ := call(t, tl, map[string]any{"code": "1"}); r.Text() != "python: the python tool was closed; the session is ending" {
		t.Errorf("call after Close = %q", r.Text())
	}
	tl.Close() // twice is fine
	deadline := time.Now().Add(60 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after Close:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// stdoutNow is the output of the running call so far.
func stdoutNow(tl *Tool) string {
	tl.mu.Lock()
	ip := tl.ip
	tl.mu.Unlock()
	if ip == nil {
		return ""
	}
	return ip.stdout.snapshot(100)
}

func TestArguments(t *testing.T) {
	tl := New(tools.Config{CWD: t.TempDir()}, Config{})
	defer tl.Close()
	tests := []struct{ raw, want string }{
		{`{}`, "python: code is empty; give the Python code to run (or reset: true to start a fresh interpreter)"},
		{`{"code":"  "}`, "python: code is empty; give the Python code to run (or reset: true to start a fresh interpreter)"},
		{`{"code":"1","timeout":0}`, "python: timeout must be a positive integer number of seconds (at most 86400), got 0"},
		{`{"code":"1","reset":"yes"}`, `python: reset must be true or false, got "yes"`},
		{`{"code":1}`, "python: code must be a string, got a number"},
		{`{"cmd":"1"}`, `python: unknown argument "cmd" (allowed: code, timeout, reset)`},
	}
	for _, tc := range tests {
		r := tl.Run(context.Background(), json.RawMessage(tc.raw), nil)
		if !r.IsError || r.Text() != tc.want {
			t.Errorf("python %s = %q, want %q", tc.raw, r.Text(), tc.want)
		}
	}
	previews := []struct{ raw, want string }{
		{`{"code":"import os\nos.listdir()"}`, "python: import os …"},
		{`{"code":"","reset":true}`, "python: reset the interpreter"},
		{`{"code":"x = 1","reset":true}`, "python (reset): x = 1"},
		{`[`, "python (bad arguments)"},
	}
	for _, tc := range previews {
		if got := tl.Preview(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("Preview(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	if !tl.Mutates(nil) {
		t.Error("Mutates = false; python runs code like bash and must go through confirmation")
	}
	var tool tools.Tool = tl
	if def := tool.Definition(); def.Name != "python" || !strings.Contains(string(def.Schema), `"required":["code"]`) {
		t.Errorf("Definition = %s %s", def.Name, def.Schema)
	}
}
