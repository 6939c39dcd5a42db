package main

import (
	"context"
	"errors"
)

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
	}
	return errors.New("the agent is not built yet")
}

func runSessions(ctx context.Context, e *env, args []string) error {
	return errors.New("zut sessions is not built yet")
}
