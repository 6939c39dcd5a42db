// Package zutfilecmd is zut pack, zut inspect and zut verify: the
// commands that write a packaged agent (a zutfile) as a .zut archive,
// show what one is and may do, and check one against its digest. The
// format, the archives and the sources are package zutfile's; zut run
// is not here.
package zutfilecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"

	"github.com/zut-go/zut/agent/zutfile"
)

// Env is what the commands need of the process and of zut.
type Env struct {
	Stdout, Stderr io.Writer
	// ZutHome is $ZUT_HOME, resolved by the caller.
	ZutHome string
	// CWD is the working directory: ${workspace}, and where zut pack
	// writes its archive.
	CWD string
	// UserHome is ${home} and ~.
	UserHome string
	// Version is zut's version, for requires.zut.
	Version string
	// GOOS and GOARCH are the machine's; "" is runtime's.
	GOOS, GOARCH string
	// LookPath finds requires.binaries; nil is exec.LookPath.
	LookPath func(string) (string, error)
}

func (e *Env) checkEnv() zutfile.CheckEnv {
	c := zutfile.CheckEnv{ZutVersion: e.Version, GOOS: e.GOOS, GOARCH: e.GOARCH, LookPath: e.LookPath}
	if c.GOOS == "" {
		c.GOOS = runtime.GOOS
	}
	if c.GOARCH == "" {
		c.GOARCH = runtime.GOARCH
	}
	if c.LookPath == nil {
		c.LookPath = exec.LookPath
	}
	return c
}

// vars are the values of the manifest's variables for agent name.
func (e *Env) vars(name string) zutfile.Vars {
	return zutfile.Vars{Workspace: e.CWD, AgentData: zutfile.AgentDataDir(e.ZutHome, name), Home: e.UserHome}
}

// usageError is an error in how a command was invoked; its ExitCode
// gives main's status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) ExitCode() int { return 2 }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp reports that -h printed the command's help.
var errHelp = errors.New("help shown")

// parse parses args with the flags of fs, flags allowed after the
// operands ("zut pack DIR -o x.zut"); "--" ends the flags. -h prints
// help on stdout.
func parse(e *Env, fs *flag.FlagSet, help string, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				io.WriteString(e.Stdout, help)
				return nil, errHelp
			}
			msg := strings.TrimPrefix(err.Error(), "flag provided but not defined: ")
			if msg != err.Error() {
				return nil, usagef("%s: unknown flag %s; zut help %s", fs.Name(), msg, strings.TrimPrefix(fs.Name(), "zut "))
			}
			return nil, usagef("%s: %v; zut help %s", fs.Name(), err, strings.TrimPrefix(fs.Name(), "zut "))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(operands, rest...), nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// done maps the help outcome of parse to success.
func done(err error) error {
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// warn writes the agent's warnings on stderr.
func warn(e *Env, a *zutfile.Agent) {
	for _, w := range a.Warnings {
		fmt.Fprintf(e.Stderr, "zut: warning: %s\n", w)
	}
}
