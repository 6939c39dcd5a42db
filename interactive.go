package main

import (
	"context"
	"errors"
)

// runInteractive runs the terminal UI.
func runInteractive(ctx context.Context, e *env, o options) error {
	return errors.New("the interactive UI is not built yet; use zut -p")
}
