// Package extcmd is the zut ext subcommand: it lists, diagnoses,
// installs, removes, enables and disables extensions and shows their logs,
// using package host for discovery, manifests and loading. Each verb has
// its own flag set.
package extcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zut-go/zut/host/extinit"
	"github.com/zut-go/zut/host/exttest"
	"github.com/zut-go/zut/host/internal/cmdline"

	"github.com/zut-go/zut/host"
)

// Help is the text of zut help ext.
const Help = `zut ext — manage extensions

Usage:
  zut ext list [--json] [--trust]       installed extensions and their state
  zut ext doctor [--json] [--trust] [-e DIR]...
                                        load every extension and report what happened
  zut ext install [--force] <path|git-url>
                                        copy or clone into $ZUT_HOME/extensions/
  zut ext install --build=go <path>     build local Go source, then install
                                        (--force replaces an installed one)
  zut ext remove [--yes] <name>         delete an installed extension
  zut ext enable <name>                 re-enable a disabled extension
  zut ext disable <name>                disable without removing
  zut ext logs [-f] <name>              print (or follow) the extension's stderr log
  zut ext init <name> [--lang go|python|node|sh] [--command] [--tool] [--panel] [--dir DIR]
                                        write a new extension that works out of the box
  zut ext test <dir> [--json] [--only PHASE] [--args CMD=ARGS]... [--tool-args TOOL=JSON]...
               [--quick] [--hello-timeout D] [--tool-timeout D] [--parallel] [--no-build] [--no-tools LIST]
                                        check an extension against the protocol (exit 1 on a failed check;
                                        a Go extension is built first)

Extensions are discovered in ./.zut/extensions/<name>/ (project) and then in
$ZUT_HOME/extensions/<name>/ (global); --ext paths come first. See
docs/protocol.md for the protocol.
`

// Env is what zut ext needs from the process and from zut.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Home is $ZUT_HOME, resolved by the caller.
	Home string
	// Version is zut's version, for the hello_ack of doctor's loads.
	Version string
}

// Run runs "zut ext <verb> [args]": list, doctor, install, remove,
// enable, disable and logs, each with its own flags.
func Run(ctx context.Context, e *Env, args []string) error {
	if len(args) == 0 {
		io.WriteString(e.Stderr, Help)
		return errUsageSilent
	}
	verb, rest := args[0], args[1:]
	switch verb {
	case "help", "-h", "-help", "--help":
		_, err := io.WriteString(e.Stdout, Help)
		return err
	case "list", "ls":
		return runExtList(e, rest)
	case "doctor":
		return runExtDoctor(ctx, e, rest)
	case "install":
		return runExtInstall(ctx, e, rest)
	case "remove", "rm", "uninstall":
		return runExtRemove(e, rest)
	case "enable":
		return runExtEnable(e, rest, true)
	case "disable":
		return runExtEnable(e, rest, false)
	case "logs", "log":
		return runExtLogs(ctx, e, rest)
	case "init":
		return extinit.Run(ctx, rest, e.Stdout, e.Stderr)
	case "test":
		err := exttest.Run(ctx, rest, e.Stdout, e.Stderr)
		if errors.Is(err, exttest.ErrFailed) {
			return errSilent // the report ends with the verdict
		}
		return err
	}
	verbs := []string{"list", "doctor", "install", "remove", "enable", "disable", "logs", "init", "test"}
	if near := nearest(verb, verbs); near != "" {
		return usagef("unknown zut ext verb %q (did you mean zut ext %s?); zut help ext lists the verbs", verb, near)
	}
	return usagef("unknown zut ext verb %q; use list, doctor, install, remove, enable, disable, logs, init or test (zut help ext)", verb)
}

// extFlags is the FlagSet of one verb. Its usage line goes to stderr.
func extFlags(e *Env, verb, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("zut ext "+verb, flag.ContinueOnError)
	// Errors are worded by parseVerb; -h prints the usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.Stderr, "usage: zut ext %s %s\n", verb, synopsis)
		fs.SetOutput(e.Stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// errHelpShown reports that -h printed the verb's usage.
var errHelpShown = errors.New("help shown")

// parseVerb parses args with fs, allowing flags after the operands
// ("zut ext remove hello --yes"), and returns the operands. "--" ends the
// flags.
func parseVerb(fs *flag.FlagSet, args []string) ([]string, error) {
	show := fs.Usage
	fs.Usage = func() {} // the flag package calls it for errors too
	operands, err := cmdline.Parse(fs, args)
	fs.Usage = show
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			show()
			return nil, errHelpShown
		}
		return nil, flagError(fs, err)
	}
	return operands, nil
}

// verbDone maps parseVerb's help outcome to success.
func verbDone(err error) error {
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

// extName checks that name can be an extension name (letters, digits,
// '.', '_' and '-', not starting with '.' or '-'), so that it never
// reaches outside $ZUT_HOME when it becomes part of a path.
func extName(verb, name string) error {
	ok := name != "" && len(name) <= 64
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '.' || c == '-')) {
			ok = false
		}
	}
	if !ok {
		return usagef("zut ext %s: %q is not an extension name (letters, digits, '.', '_' and '-'); zut ext list shows the names", verb, name)
	}
	return nil
}

// extensionsDir is $ZUT_HOME/extensions, where install puts extensions.
func extensionsDir(e *Env) string { return filepath.Join(e.Home, "extensions") }

// workDir is the project directory, whose .zut/extensions is searched.
func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// findExtension returns the first discovered extension named name, in
// load order (project-local before global), and any later ones it
// shadows.
func findExtension(e *Env, name string) (first host.Entry, others []host.Entry, ok bool) {
	for _, en := range host.Discover(e.Home, workDir(), nil) {
		if en.Name() != name {
			continue
		}
		if !ok {
			first, ok = en, true
			continue
		}
		others = append(others, en)
	}
	return first, others, ok
}

// errNotFound is the error for a name no search directory holds.
func errNotFound(e *Env, verb, name string) error {
	return fmt.Errorf("%s extension %q: no extension of that name in %s or %s; zut ext list shows what is installed",
		verb, name, filepath.Join(workDir(), ".zut", "extensions"), extensionsDir(e))
}

// useColor reports whether output to w may be coloured: w is a terminal,
// NO_COLOR is unset or empty, and TERM is not "dumb".
func useColor(e *Env, w io.Writer) bool {
	return e.Getenv("NO_COLOR") == "" && e.Getenv("TERM") != "dumb" && isTerminal(w)
}
