// Command zut is a terminal coding agent whose extensions are separate
// programs speaking newline-delimited JSON (extension protocol v2).
//
// Usage:
//
//	zut [flags] [prompt]            interactive UI (or one prompt with -p)
//	zut -p "prompt"                 print the final answer and exit
//	zut --mode json "prompt"        one JSON event per line on stdout
//	zut --mode rpc                  headless RPC over stdin/stdout (alias: zut rpc)
//	zut ext <verb> [args]           list, doctor, install, remove, enable, disable, logs
//	zut sessions [--all] [--json]   list saved sessions for this directory
//	zut help [topic]                help on zut, a subcommand or a topic
//	zut --version                   print the version
//
// main only calls run and maps its error to an exit code: 0 ok, 1 runtime
// error, 2 usage error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// usageError marks an error caused by how zut was invoked (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errSilent is returned when the message was already shown to the user.
var errSilent = errors.New("")

// errUsageSilent is a usage error whose message the flag package already
// printed.
var errUsageSilent = errors.New("")

// exitCode prints err (unless it is silent) and returns the process status.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if err != errSilent && err != errUsageSilent {
		fmt.Fprintf(stderr, "zut: %v\n", err)
	}
	var ue *usageError
	if errors.As(err, &ue) || err == errUsageSilent {
		return 2
	}
	return 1
}

// run is the whole program: it dispatches to a subcommand or to the agent.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := newEnv(stdin, stdout, stderr)
	if len(args) > 0 {
		switch args[0] {
		case "ext":
			return runExt(ctx, env, args[1:])
		case "sessions":
			return runSessions(ctx, env, args[1:])
		case "rpc":
			return runAgent(ctx, env, append([]string{"--mode", "rpc"}, args[1:]...))
		case "help":
			return runHelp(env, args[1:])
		case "version":
			return printVersion(env)
		}
	}
	return runAgent(ctx, env, args)
}
