package main

import (
	"context"
	"errors"
)

func runRPC(ctx context.Context, e *env, o options) error {
	return errors.New("rpc mode is not built yet")
}

func runInteractive(ctx context.Context, e *env, o options) error {
	return errors.New("the interactive UI is not built yet; use zut -p")
}
