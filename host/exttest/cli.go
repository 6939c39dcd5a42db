package exttest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zut-go/zut/host/internal/cmdline"
)

// Synopsis is the usage line of "zut ext test".
const Synopsis = "zut ext test <dir> [--json] [--only PHASE] [--args CMD=ARGS]... [--tool-args TOOL=JSON]... [--quick] [--hello-timeout D] [--tool-timeout D] [--parallel] [--no-build] [--no-tools LIST]"

// UsageError reports command-line arguments Run cannot use; the caller
// exits with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the process status for a usage error (app.ExitCode).
func (e *UsageError) ExitCode() int { return 2 }

// ErrFailed is matched (errors.Is) by the error Run returns when the
// report has a failed check; the report, printed already, says which.
var ErrFailed = errors.New("extension checks failed")

// FailedError is the error Run returns when checks failed.
type FailedError struct {
	Extension string
	Failed    []string // the failed check ids
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("ext test %s: %s failed (%s); the report above says why", e.Extension,
		plural(len(e.Failed), "check", "checks"), strings.Join(e.Failed, ", "))
}

// Is makes errors.Is(err, ErrFailed) true.
func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// argsFlag collects repeated --args CMD=ARGS.
type argsFlag map[string][]string

func (a argsFlag) String() string { return "" }

func (a argsFlag) Set(v string) error {
	cmd, args, ok := strings.Cut(v, "=")
	cmd = strings.TrimPrefix(strings.TrimSpace(cmd), "/")
	if !ok || cmd == "" {
		return fmt.Errorf("want CMD=ARGS, such as weather=Berlin, got %q", v)
	}
	a[cmd] = append(a[cmd], args)
	return nil
}

// toolArgsFlag collects repeated --tool-args TOOL=JSON.
type toolArgsFlag map[string][]json.RawMessage

func (a toolArgsFlag) String() string { return "" }

func (a toolArgsFlag) Set(v string) error {
	name, args, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf(`want TOOL=JSON, such as weather={"city":"Berlin"}, got %q`, v)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		return fmt.Errorf("%s: the arguments must be a JSON object, such as %s={\"city\":\"Berlin\"}, got %q", name, name, args)
	}
	a[name] = append(a[name], json.RawMessage(args))
	return nil
}

// Run is "zut ext test": it parses args (the words after "test"), tests
// the extension, and writes the report to stdout, as text or with --json
// as JSON. It returns nil when every check passed or warned, a
// *FailedError (errors.Is ErrFailed) when one failed, a *UsageError for
// unusable arguments, and other errors for a test that could not run.
// Flags may come after the directory.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zut ext test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON (schema: docs/protocol.md)")
	only := fs.String("only", "", "test one phase: "+strings.Join(Phases, ", "))
	cmdArgs := argsFlag{}
	fs.Var(cmdArgs, "args", "arguments for a command, `CMD=ARGS`; repeat for more invocations or commands")
	toolArgs := toolArgsFlag{}
	fs.Var(toolArgs, "tool-args", "arguments for a tool, `TOOL=JSON` (a JSON object), in place of arguments built from its schema; repeat for more calls or tools")
	quick := fs.Bool("quick", false, fmt.Sprintf("shorter deadlines for CI: tools %v, commands %v, interceptions %v (the report says so)", QuickTimeouts.Tool, QuickTimeouts.Command, QuickTimeouts.Intercept))
	helloTimeout := fs.Duration("hello-timeout", 0, "the hello deadline, from the extension's start (default 5s, as in zut)")
	toolTimeout := fs.Duration("tool-timeout", 0, "the deadline of one tool call (default 60s, as in zut; 10s with --quick)")
	parallel := fs.Bool("parallel", false, "run the three copies of the extension at once instead of one after another")
	noBuild := fs.Bool("no-build", false, "run a Go extension's exec as it is instead of building its source first")
	var noTools []string
	fs.Func("no-tools", "built-in tools the zut run under test switches off (comma-separated, as zut's --no-tools): an extension tool of such a name is then not shadowed", func(v string) error {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				noTools = append(noTools, n)
			}
		}
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nRuns the extension in <dir> through every phase of the protocol as a careful\nhost would and reports each check. Exits 1 when a check fails.\n\n", Synopsis)
		fs.PrintDefaults()
	}
	operands, err := cmdline.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &UsageError{Msg: "ext test: " + err.Error()}
	}
	if len(operands) != 1 {
		return &UsageError{Msg: fmt.Sprintf("ext test takes one extension directory, got %d operands; usage: %s", len(operands), Synopsis)}
	}
	if *only != "" {
		if _, err := newPlan(*only); err != nil {
			return &UsageError{Msg: "ext test: --only: " + err.Error()}
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"hello-timeout", *helloTimeout}, {"tool-timeout", *toolTimeout}} {
		if d.v < 0 {
			return &UsageError{Msg: fmt.Sprintf("ext test: --%s %v: a deadline must be positive", d.name, d.v)}
		}
	}
	opts := Options{Only: *only, Args: cmdArgs, ToolArgs: toolArgs, Quick: *quick, Parallel: *parallel, NoBuild: *noBuild, NoTools: noTools,
		Timeouts: Timeouts{Hello: *helloTimeout, Tool: *toolTimeout}}
	rep, err := Test(ctx, operands[0], opts)
	if err != nil {
		return err
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return fmt.Errorf("ext test %s: write the report: %w", rep.Extension, err)
	}
	if f := rep.Failed(); len(f) > 0 {
		return &FailedError{Extension: rep.Extension, Failed: f}
	}
	return nil
}
