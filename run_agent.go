package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/term"

	"github.com/zut-go/zut/provider"
)

// maxStdinPrompt bounds a prompt read from piped stdin.
const maxStdinPrompt = 16 << 20

// runAgent runs the main command: interactive, print, JSON or RPC mode.
func runAgent(ctx context.Context, e *env, args []string) error {
	o, err := parseOptions(args, e.stderr)
	if err != nil {
		return err
	}
	switch {
	case o.help:
		writeMainHelp(e.stdout)
		return nil
	case o.version:
		return printVersion(e)
	case o.listModels:
		return provider.ListModels(ctx, (&app{env: e, opts: o, home: e.zutHome()}).providerOptions(), e.stdout, o.mode == "json")
	}
	mode := o.mode
	if mode == "" {
		mode = "print"
		if isTerminal(e.stdin) && isTerminal(e.stdout) {
			mode = "interactive"
		}
	}
	switch mode {
	case "print", "json":
		prompt, err := promptText(e, o)
		if err != nil {
			return err
		}
		if mode == "print" {
			return runPrint(ctx, e, o, prompt)
		}
		return runJSON(ctx, e, o, prompt)
	case "rpc":
		if len(o.prompt) > 0 {
			return usagef("rpc mode takes no prompt argument; send prompt commands on stdin")
		}
		return runRPC(ctx, e, o)
	}
	return runInteractive(ctx, e, o)
}

// promptText joins the prompt arguments and, when stdin is not a
// terminal, what it holds: "cat file | zut -p 'explain'" sends both.
func promptText(e *env, o options) (string, error) {
	arg := strings.Join(o.prompt, " ")
	var piped string
	if !isTerminal(e.stdin) && e.stdin != nil {
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("read the prompt from stdin: %w", err)
		}
		if len(b) > maxStdinPrompt {
			return "", fmt.Errorf("read the prompt from stdin: more than %d MiB; pass a file path in the prompt instead", maxStdinPrompt>>20)
		}
		piped = strings.TrimSpace(string(b))
	}
	switch {
	case arg != "" && piped != "":
		return arg + "\n\n" + piped, nil
	case arg != "":
		return arg, nil
	case piped != "":
		return piped, nil
	}
	return "", usagef("no prompt: give one as an argument (zut -p \"...\") or on stdin")
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	if x, ok := f.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(x.Fd()))
	}
	return false
}

// errAborted reports an interrupted run.
var errAborted = errors.New("interrupted")
