package main

import (
	"context"
	"errors"
)

// runRPC serves headless RPC over stdin and stdout.
func runRPC(ctx context.Context, e *env, o options) error {
	return errors.New("rpc mode is not built yet")
}
