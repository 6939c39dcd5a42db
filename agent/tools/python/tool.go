// Package python owns the python tool: Python 3 code run in a persistent
// interpreter per session, with stdout, stderr, the value of a final
// expression and the traceback returned separately.
//
// The interpreter runs a small driver (driver.py, embedded) that speaks
// JSON lines with zut over two pipes of its own, so that the code's stdout
// and stderr never mix with the protocol. One Tool is one session: its
// interpreter starts with the first call and lives until Close.
package python

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Config tunes the python tool. The zero value is usable.
type Config struct {
	// Python is the interpreter: a path, or a name looked up on the PATH
	// of Env. Empty means "python3".
	Python string
	// Env is the interpreter's whole environment. Nil means zut's own
	// (os.Environ()); the host passes a filtered copy to keep provider API
	// keys from the code.
	Env []string
	// Grace is how long interrupted code may take to stop after SIGINT
	// before the interpreter is killed. 0 means 3 s.
	Grace time.Duration
	// DefaultTimeout applies to calls that give none. 0 means 60 s.
	DefaultTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.Python == "" {
		c.Python = "python3"
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.Grace <= 0 {
		c.Grace = 3 * time.Second
	}
	if c.DefaultTimeout <= 0 {
		c.DefaultTimeout = 60 * time.Second
	}
	return c
}

// maxTimeout is the largest timeout a call may ask for, in seconds.
const maxTimeout = 86400

// Details is the Details of a python call.
type Details struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Value is the repr of the final expression, when there was one and
	// it was not None.
	Value string `json:"value,omitempty"`
	// Traceback is the formatted exception that ended the code;
	// Exception its type ("ZeroDivisionError").
	Traceback string `json:"traceback,omitempty"`
	Exception string `json:"exception,omitempty"`
	// StdoutBytes and StderrBytes count everything written; Cut is set
	// when any part shown was shortened.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	Cut         bool  `json:"cut,omitempty"`
	// TimedOut or Aborted say why the code was interrupted; Interrupted
	// that SIGINT stopped it (the interpreter lives on), Killed that it did
	// not stop in time and the interpreter was killed.
	TimedOut    bool `json:"timed_out,omitempty"`
	Aborted     bool `json:"aborted,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
	Killed      bool `json:"killed,omitempty"`
	// Exited is set when the interpreter ended by itself during the call
	// (os._exit, a crash), with its exit code or Signal.
	Exited   bool   `json:"exited,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	// StateLost is set when the interpreter's variables are gone (Killed
	// or Exited); the next call starts a fresh interpreter.
	StateLost bool `json:"state_lost,omitempty"`
	// Fresh is set when this call started an interpreter (the first call,
	// a reset, or after the previous one was lost); Reset when asked to.
	Fresh   bool   `json:"fresh,omitempty"`
	Reset   bool   `json:"reset,omitempty"`
	Version string `json:"version,omitempty"`
}

// Tool is the python tool: one persistent interpreter. It is safe for
// concurrent use; calls run one at a time. Close stops the interpreter.
type Tool struct {
	cfg tools.Config
	c   Config
	sem chan struct{} // held by the running call

	mu     sync.Mutex // guards ip and closed against Close
	ip     *interp
	closed bool
	lost   string // why the previous interpreter's state is gone
}

// New returns the python tool for one session, running code in cfg.CWD.
// No process starts until the first call.
func New(cfg tools.Config, c Config) *Tool {
	return &Tool{cfg: cfg.WithDefaults(), c: c.withDefaults(), sem: make(chan struct{}, 1)}
}

// Close stops the interpreter (killing its process group, code still
// running included) and reaps it. Calls after Close fail. Close is safe to
// call more than once.
func (t *Tool) Close() error {
	t.mu.Lock()
	t.closed = true
	ip := t.ip
	t.mu.Unlock()
	if ip != nil {
		tools.SignalGroup(ip.cmd, true) // a running call sees the exit and returns
	}
	t.sem <- struct{}{} // wait for that call
	defer func() { <-t.sem }()
	t.mu.Lock()
	ip, t.ip = t.ip, nil
	t.mu.Unlock()
	if ip != nil {
		ip.stop()
	}
	return nil
}

func (t *Tool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the python tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "python"
	ToolDescription = "Run Python 3 code in a persistent interpreter (one per session) in the working directory. Variables, imports and definitions survive between calls; reset: true starts a fresh interpreter first. Returns stdout, stderr, the repr of the last expression (as in a REPL) and the traceback of an uncaught exception, each capped. stdin is empty. When timeout passes (default 60 s) the code gets KeyboardInterrupt; code that does not stop within a few seconds is killed with the interpreter, and its state is lost."
	ToolSchema      = `{"additionalProperties":false,"properties":{"code":{"description":"Python 3 source: statements, optionally ending in an expression whose value is shown.","type":"string"},"reset":{"description":"Start a fresh interpreter (all variables lost) before running code; code may then be empty.","type":"boolean"},"timeout":{"description":"Seconds before the code is interrupted; default 60.","maximum":86400,"minimum":1,"type":"integer"}},"required":["code"],"type":"object"}`
)

func (t *Tool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("python", raw, "code", "timeout", "reset")
	if err != nil {
		return "python (bad arguments)"
	}
	code, _ := a.String("code", false)
	reset, _ := a.Bool("reset")
	switch {
	case reset && strings.TrimSpace(code) == "":
		return "python: reset the interpreter"
	case reset:
		return "python (reset): " + tools.FirstLine(code, 100)
	}
	return "python: " + tools.FirstLine(code, 100)
}

// Mutates is true: Python code can do anything bash can.
func (t *Tool) Mutates(json.RawMessage) bool { return true }

// Describe is the whole code, for the confirmation dialog.
func (t *Tool) Describe(raw json.RawMessage) string {
	code, _, _, _ := t.parse(raw)
	return code
}

// Validate reports what Run would reject in the arguments.
func (t *Tool) Validate(raw json.RawMessage) error {
	_, _, _, err := t.parse(raw)
	return err
}

// parse checks the arguments of a call.
func (t *Tool) parse(raw json.RawMessage) (code string, reset bool, timeout time.Duration, err error) {
	a, err := tools.ParseArgs("python", raw, "code", "timeout", "reset")
	if err != nil {
		return code, false, 0, err
	}
	if code, err = a.String("code", false); err != nil {
		return "", false, 0, err
	}
	if reset, err = a.Bool("reset"); err != nil {
		return code, false, 0, err
	}
	secs, err := a.Int("timeout", int(t.c.DefaultTimeout/time.Second), 1, maxTimeout, fmt.Sprintf("a positive integer number of seconds (at most %d)", maxTimeout))
	if err != nil {
		return code, false, 0, err
	}
	timeout = time.Duration(secs) * time.Second
	if !a.Present("timeout") {
		timeout = t.c.DefaultTimeout
	}
	if strings.TrimSpace(code) == "" && !reset {
		return code, false, 0, a.Errorf("code is empty; give the Python code to run (or reset: true to start a fresh interpreter)")
	}
	return code, reset, timeout, nil
}

func (t *Tool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	code, reset, timeout, err := t.parse(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return tools.ErrorResult("python: aborted while waiting for the previous python call to end")
	}
	defer func() { <-t.sem }()
	if ctx.Err() != nil {
		return tools.ErrorResult("python: aborted before the code started")
	}
	t.mu.Lock()
	closed, ip := t.closed, t.ip
	t.mu.Unlock()
	if closed {
		return tools.ErrorResult("python: the python tool was closed; the session is ending")
	}
	det := Details{Reset: reset}
	if reset && ip != nil {
		ip.stop()
		t.setInterp(nil, "")
		ip = nil
	}
	var notes []string
	if ip != nil && t.cfg.Sandbox != nil && ip.gen != t.cfg.Sandbox.Generation() {
		ip.stop()
		t.setInterp(nil, "")
		ip = nil
		notes = append(notes, "[the sandbox changed: started a fresh interpreter in the new one; all earlier variables are gone]")
	}
	if ip == nil {
		if ip, err = t.start(ctx); err != nil {
			return tools.ErrorResult("%v", err)
		}
		det.Fresh = true
		if t.lost != "" && !reset {
			notes = append(notes, "[started a fresh interpreter: "+t.lost+"]")
		}
		t.lost = ""
	}
	det.Version = ip.version
	if strings.TrimSpace(code) == "" {
		return tools.TextResult(fmt.Sprintf("[reset: started a fresh interpreter (Python %s); all earlier variables are gone]", ip.version)).WithDetails(det)
	}
	r := t.call(ctx, ip, code, timeout, progress, det, notes)
	if ip.conf != nil && r.IsError {
		if blocked := ip.conf.Explain(r.Text()); len(blocked) > 0 {
			r.Content = append(r.Content, provider.Block{Type: provider.BlockText,
				Text: strings.Join(blocked, "\n") + "\n" + tools.SandboxHint(ip.conf.Mode)})
		}
	}
	return r
}

// start launches an interpreter as t.c says and records it.
func (t *Tool) start(ctx context.Context) (*interp, error) {
	python, err := lookPath(t.c.Python, t.c.Env)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(t.cfg.CWD); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("python: working directory %s does not exist; the code was not run", t.cfg.CWD)
	}
	ip, err := start(ctx, python, t.cfg.CWD, t.c.Env, t.cfg.Sandbox)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	closed := t.closed
	if !closed {
		t.ip = ip
	}
	t.mu.Unlock()
	if closed {
		ip.stop()
		return nil, errors.New("python: the python tool was closed; the session is ending")
	}
	return ip, nil
}

func (t *Tool) setInterp(ip *interp, lost string) {
	t.mu.Lock()
	t.ip = ip
	t.mu.Unlock()
	if lost != "" {
		t.lost = lost
	}
}

// lookPath finds the interpreter: a name with a slash is used as given,
// a bare name is looked up on the PATH of env.
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		if fi, err := os.Stat(name); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("python: interpreter %s is not an executable file; install Python 3 or fix the configured path", name)
		}
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("python: %s not found on PATH; install Python 3 (for example apt install python3) to use this tool", name)
}

// newMarker is a string the code cannot guess, ending one call's output.
func newMarker() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "\x00zut-end-" + hex.EncodeToString(b) + "\x00"
}
