package app

import (
	"flag"
	"fmt"
	"github.com/zut-go/zut/provider"
	"strings"
)

// FlagError turns an error of fs.Parse into a usage error a person can
// act on: "unknown flag --modle (did you mean --model?)", "--max-steps:
// "abc" is not a whole number", "--model needs a value", each followed by
// where help is (help, such as "zut --help lists the flags").
func FlagError(fs *flag.FlagSet, err error, help string) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		s := fmt.Sprintf("unknown flag %s", dashed(name))
		if near := Nearest(name, names); near != "" {
			s += fmt.Sprintf(" (did you mean %s?)", dashed(near))
		}
		return Usagef("%s; %s", s, help)
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		return Usagef("%s needs a value; %s", dashed(name), help)
	case strings.HasPrefix(msg, "invalid value ") || strings.HasPrefix(msg, "invalid boolean value "):
		// invalid value "abc" for flag -max-steps: parse error
		var value, name, cause string
		rest := strings.TrimPrefix(strings.TrimPrefix(msg, "invalid boolean value "), "invalid value ")
		if i := strings.Index(rest, " for "); i >= 0 {
			value = rest[:i]
			name = strings.TrimPrefix(rest[i+len(" for "):], "flag ")
			if j := strings.Index(name, ":"); j >= 0 {
				name, cause = name[:j], strings.TrimSpace(name[j+1:])
			}
			name = strings.TrimLeft(name, "-")
		}
		if f := fs.Lookup(name); f != nil && cause != "" {
			if _, std := f.Value.(flag.Getter); !std {
				// A flag of zut's own (fs.Func) says what it wants.
				return Usagef("%s: %s; %s", dashed(name), cause, help)
			}
		}
		want := "a valid value"
		if f := fs.Lookup(name); f != nil {
			switch f.Value.(type) {
			case interface{ IsBoolFlag() bool }:
				want = "true or false"
			default:
				if _, ok := f.Value.(flag.Getter); ok {
					if _, isInt := f.Value.(flag.Getter).Get().(int); isInt {
						want = "a whole number"
					}
				}
			}
		}
		return Usagef("%s: %s is not %s; %s", dashed(name), value, want, help)
	}
	return Usagef("%v; %s", err, help)
}

// dashed writes a flag name as it is usually typed: -p, --model.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Nearest returns the name of names closest to s when it is close enough
// to be a typo, or ""; see provider.Nearest.
func Nearest(s string, names []string) string { return provider.Nearest(s, names) }
