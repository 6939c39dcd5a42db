package host

import (
	"fmt"
	"strings"
	"time"
)

// LoadError reports an extension that could not be started or failed its
// handshake (C1..C5). Its message spans several lines: the cause, then the
// extension's directory, exec, language and log path, so that the user
// can find what to fix.
type LoadError struct {
	Name     string
	Dir      string
	Exec     string
	Language string
	Log      string // "" when the log could not be opened
	Err      error
}

func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "load extension %q: %v", e.Name, e.Err)
	fmt.Fprintf(&b, "\n  dir: %s", e.Dir)
	fmt.Fprintf(&b, "\n  exec: %s", e.Exec)
	if e.Language != "" {
		fmt.Fprintf(&b, "\n  language: %s", e.Language)
	}
	if e.Log != "" {
		fmt.Fprintf(&b, "\n  log: %s", e.Log)
	}
	return b.String()
}

func (e *LoadError) Unwrap() error { return e.Err }

// StoppedError is the error of a call on an extension whose connection
// ended (C14, C20): it exited, was disconnected, or zut stopped it.
type StoppedError struct {
	Extension string
	Log       string
	Err       error // why: an exit status, a disconnect diagnostic, ...
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("extension %q stopped: %v; its log is %s", e.Extension, e.Err, e.Log)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// TimeoutError reports a request whose reply did not come in time (C14).
type TimeoutError struct {
	Extension string
	Frame     string // the reply that was awaited
	After     time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("extension %q sent no %s within %v", e.Extension, e.Frame, e.After)
}
