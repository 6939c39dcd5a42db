package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Config configures a Sandbox.
type Config struct {
	// Exe is the program that runs "internal sandbox-exec" (Exec): the
	// zut binary, or a test binary whose TestMain dispatches to Exec.
	// Empty means os.Executable.
	Exe string
	// Probe finds out what the machine supports; nil means Probe of this
	// machine, run once on the first Confine or Support.
	Probe func(exe string) Support
}

// Sandbox confines commands to policies. It is safe for concurrent use;
// it holds no process and needs no Close.
type Sandbox struct {
	cfg     Config
	once    sync.Once
	support Support
}

// New returns a Sandbox for cfg.
func New(cfg Config) *Sandbox {
	if cfg.Exe == "" {
		cfg.Exe, _ = os.Executable()
	}
	if cfg.Probe == nil {
		cfg.Probe = Probe
	}
	return &Sandbox{cfg: cfg}
}

// Support is what the machine offers, probed once.
func (s *Sandbox) Support() Support {
	s.once.Do(func() { s.support = s.cfg.Probe(s.cfg.Exe) })
	return s.support
}

// Names of the shim's command line and of the variable carrying the
// policy to it.
const (
	policyEnv = "ZUT_SANDBOX_POLICY"
	// ExitSetup is the exit status of a command whose sandbox could not
	// be set up; it was not run.
	ExitSetup = 125
)

// ShimArgs are the words after the executable that run Exec.
var ShimArgs = []string{"internal", "sandbox-exec"}

// Confine rewrites cmd, not yet started, to run under p: through the
// shim, in the namespaces p needs, with p's environment. mode names the
// policy in messages ("" for none). When the machine lacks a mechanism p
// needs it returns an *UnavailableError and cmd must not be started.
// The returned Confined explains failures of the command (Explain); the
// caller closes it when the command has ended, or when it is not started
// after all (for NetworkProxy it runs the command's proxy).
func (s *Sandbox) Confine(cmd *exec.Cmd, mode string, p Policy) (*Confined, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: confine: the command has already started")
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	sup := s.Support()
	if miss := sup.missing(p); len(miss) > 0 {
		e := &UnavailableError{Mode: mode, Missing: miss}
		for _, m := range miss {
			if w := sup.Why[m]; w != "" {
				e.Why = append(e.Why, m+": "+w)
			}
		}
		return nil, e
	}
	if s.cfg.Exe == "" {
		return nil, errors.New("sandbox: cannot find zut's own executable to run the sandbox shim; choose --sandbox danger-full-access to run commands unconfined")
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = filterEnv(env, p)
	env = append(env, policyEnv+"="+p.encode())
	c := &Confined{Mode: mode, Policy: p}
	cmd.Env = env
	if p.Network == NetworkProxy {
		if err := c.startProxy(cmd, p.Hosts); err != nil {
			return nil, err
		}
	}
	argv0 := cmd.Path
	if len(cmd.Args) > 0 {
		argv0 = cmd.Args[0]
	}
	args := append([]string{s.cfg.Exe}, ShimArgs...)
	args = append(args, "--", cmd.Path, argv0)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = s.cfg.Exe, args
	if p.needsNamespaces() {
		namespaces(cmd, p)
	}
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	c.Dir = dir
	return c, nil
}

// filterEnv keeps the variables p lets through and sets TMPDIR.
func filterEnv(env []string, p Policy) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == policyEnv || name == proxyFDEnv || p.TempDir != "" && name == "TMPDIR" {
			continue
		}
		if p.Env != nil && !contains(p.Env, name) {
			continue
		}
		out = append(out, kv)
	}
	if p.TempDir != "" {
		out = append(out, "TMPDIR="+p.TempDir)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Confined is a command started under a policy. Close it when the
// command has ended: under NetworkProxy it owns the proxy the command
// reaches. Explain and Close are safe for concurrent use.
type Confined struct {
	Mode   string
	Policy Policy
	Dir    string // the command's working directory

	access func(path string) bool // userCanWrite's check (tests)

	proxy      *proxy // NetworkProxy's proxy; nil for other networks
	unlink     func() // closes the socket pair to the shim
	unlinkOnce sync.Once
}

// Close stops what serves the command: the proxy of NetworkProxy and
// every connection through it. It returns when the proxy's goroutines
// have ended; the command keeps running, without the proxy, if it has
// not ended yet. Close may be called more than once, and on a nil
// Confined.
func (c *Confined) Close() error {
	if c == nil || c.proxy == nil {
		return nil
	}
	c.unlinkOnce.Do(c.unlink)
	c.proxy.close()
	return nil
}

// Refused are the hosts the proxy of NetworkProxy refused so far (not in
// Policy.Hosts), at most 16; nil for other networks.
func (c *Confined) Refused() []string {
	if c == nil || c.proxy == nil {
		return nil
	}
	return c.proxy.refusals()
}

// String names the confinement for messages: "sandbox workspace-write".
func (c *Confined) String() string {
	if c.Mode == "" {
		return "sandbox"
	}
	return fmt.Sprintf("sandbox %s", c.Mode)
}

// ExecError is the failure of the shim before the command ran; it
// carries the exit status the shim ends with (ExitSetup, or 126 and 127
// for an exec that failed as a shell reports them).
type ExecError struct {
	Err  error
	Code int
}

func (e *ExecError) Error() string { return "sandbox: " + e.Err.Error() }
func (e *ExecError) ExitCode() int { return e.Code }
func (e *ExecError) Unwrap() error { return e.Err }

// Shim runs Exec with args and returns the exit status a process should
// end with: 0 after "--probe", the *ExecError's code otherwise, with the
// error written to stderr. Test binaries that stand in for zut call it
// from TestMain when their arguments start with ShimArgs.
func Shim(args []string) int {
	err := Exec(args)
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "zut: %v\n", err)
	var e *ExecError
	if errors.As(err, &e) {
		return e.Code
	}
	return 1
}

// IsShim reports whether args (os.Args) run the shim, and the words for
// Shim.
func IsShim(args []string) ([]string, bool) {
	if len(args) > len(ShimArgs) && args[1] == ShimArgs[0] && args[2] == ShimArgs[1] {
		return args[3:], true
	}
	return nil, false
}
