package app

import (
	"flag"
	"fmt"
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
// to be a typo (at most one edit for short names, two from six letters),
// or a name s is a prefix of; "" otherwise.
func Nearest(s string, names []string) string {
	best, bestD := "", 1<<30
	limit := 1
	if len(s) >= 6 {
		limit = 2
	}
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if len(s) >= 3 && strings.HasPrefix(n, s) {
			d = min(d, 1)
		}
		// Ties go to the name of s's length (a swap rather than a
		// dropped letter: --modle is --model, not --mode).
		if d < bestD || d == bestD && absDiff(len(n), len(s)) < absDiff(len(best), len(s)) {
			best, bestD = n, d
		}
	}
	if bestD > limit || bestD == 0 && best == s {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, with a swap of two
// neighbours counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
