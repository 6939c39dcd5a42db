package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// UsageError is an error caused by how zut was invoked; ExitCode gives
// status 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the process status for a usage error.
func (e *UsageError) ExitCode() int { return 2 }

// Usagef returns a *UsageError with the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrSilent is returned when the message was already shown to the user;
// nothing more is printed and the status is 1.
var ErrSilent = errors.New("")

// ErrUsageSilent is a usage error whose message was already printed (by
// the flag package); the status is 2.
var ErrUsageSilent error = &UsageError{}

// ErrAborted reports a run interrupted by the user (Ctrl+C, SIGTERM);
// its exit status is StatusInterrupted.
var ErrAborted error = aborted{}

type aborted struct{}

func (aborted) Error() string { return "interrupted" }
func (aborted) ExitCode() int { return StatusInterrupted }

// ExitCode prints err on stderr as "zut: <message>" (nothing when the
// message is empty: it was shown already) and returns the process status:
// 0 for nil, the status of an error in the chain that has an ExitCode()
// int method (2 for a *UsageError), 1 otherwise. Packages that cannot
// import app (zut ext) give their usage errors such a method.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "zut: %s\n", msg)
	}
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return 1
}

// SignalError is a run ended by a signal (Ctrl-C is SIGINT); the exit
// status is 128 plus the signal's number, as shells report it.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string {
	switch e.Signal {
	case os.Interrupt:
		return "interrupted"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	case syscall.SIGHUP:
		return "interrupted by SIGHUP (the terminal went away)"
	}
	return "interrupted by " + e.Signal.String()
}

// ExitCode is 128 + the signal's number (130 for SIGINT).
func (e *SignalError) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Interrupted is the error to report for a run whose context ctx a
// signal may have cancelled (its cause a *SignalError): that signal,
// whatever the run returned; else err.
func Interrupted(ctx context.Context, err error) error {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return err
}
