package extcmd

import (
	"errors"
	"fmt"

	"golang.org/x/term"
)

// usageError is an error in how zut ext was invoked. Its ExitCode method
// gives main's exit status (2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) ExitCode() int { return 2 }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errUsageSilent is a usage error the flag package has printed already.
var errUsageSilent error = &usageError{}

// errSilent is a failure whose message was already shown (status 1).
var errSilent = errors.New("")

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	if x, ok := f.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(x.Fd()))
	}
	return false
}
