package extcmd

import (
	"errors"
	"flag"
	"fmt"
	"strings"

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

// flagError words an error of a verb's flags: "zut ext list: unknown flag
// --jsn (did you mean --json?); zut help ext".
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		s := fmt.Sprintf("%s: unknown flag --%s", fs.Name(), name)
		if near := nearest(name, names); near != "" {
			s += fmt.Sprintf(" (did you mean --%s?)", near)
		}
		return usagef("%s; zut help ext", s)
	}
	return usagef("%s: %v; zut help ext", fs.Name(), err)
}

// nearest returns the one of names s is a typo of (one edit away, or a
// prefix of at least two letters), or "".
func nearest(s string, names []string) string {
	for _, n := range names {
		if len(s) >= 2 && strings.HasPrefix(n, s) || oneEdit(s, n) {
			return n
		}
	}
	return ""
}

// oneEdit reports whether a becomes b by one insertion, deletion,
// substitution or swap of neighbours.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return a[i:] == b[i+1:]
}
