// Package shell reads a command line in the grammar of the bash tool
// (POSIX sh with bash's extensions) and lists every simple command it
// would run, for the permission rules of agent/permissions. It owns the
// parser (words, quoting, expansions, pipelines, lists, compound commands,
// functions, redirections, here-documents) and the commands that run
// their arguments as a command (env, sudo, xargs, sh -c, eval, ...),
// which it sees through.
//
// What cannot be known without running the line (a command name built
// from a substitution or a variable, eval of a non-literal, source, an
// alias) is listed as a Command with Unknown set to the reason: callers
// fail closed on it. The package imports nothing of zut; its functions
// are safe for concurrent use.
package shell

import (
	"fmt"
	"strings"
)

// Limits that keep a hostile line from exhausting the parser.
const (
	// MaxSource is the longest line read; a longer one is unanalysable.
	MaxSource = 1 << 20
	// maxCommands bounds the commands listed for one line.
	maxCommands = 10000
	// maxDepth bounds the nesting of constructs (subshells, groups,
	// substitutions, compound commands) in one parse.
	maxDepth = 200
	// maxLevel bounds the nesting of strings run as code (sh -c, eval,
	// trap, here-documents read by a shell).
	maxLevel = 8
	// maxWork bounds the bytes parsed for one line, strings run as code
	// included.
	maxWork = 4 << 20
)

// Command is one simple command the line would run.
type Command struct {
	// Name is the command as written, after quote removal ("/bin/rm",
	// "rm"); for an Unknown command it is what could be read of it. It
	// is "" for assignments alone (X=1) or redirections alone (> file).
	Name string
	// Args are its arguments after quote removal; an argument holding an
	// expansion keeps the expansion's text ("$HOME", "$(date)").
	Args []string
	// Assign are the NAME=value assignments in force for it: those
	// before the name and those env sets.
	Assign []string
	// Redirects are its redirections ("> out", "2>&1", "<<EOF").
	Redirects []string
	// Writes reports that a redirection writes a file other than
	// /dev/null (or a file zut cannot name).
	Writes bool
	// Via are the commands it runs under, outermost first ("sudo",
	// "sh -c", "xargs"); empty for a command of the line itself.
	Via []string
	// More reports that more arguments come from input when it runs
	// (xargs).
	More bool
	// Unknown says why zut cannot tell what this command runs; "" when
	// it can.
	Unknown string
}

// Base is the command's name without its directory: "rm" for "/bin/rm".
func (c Command) Base() string {
	if i := strings.LastIndexByte(c.Name, '/'); i >= 0 && i < len(c.Name)-1 {
		return c.Name[i+1:]
	}
	return c.Name
}

// String writes the command as a line: its assignments, name and
// arguments separated by spaces, a word holding white space or nothing
// in single quotes, and "…" after the arguments when More is set.
func (c Command) String() string {
	var words []string
	for _, a := range c.Assign {
		words = append(words, Quote(a))
	}
	if c.Name != "" || len(c.Args) > 0 {
		words = append(words, Quote(c.Name))
	}
	for _, a := range c.Args {
		words = append(words, Quote(a))
	}
	if c.More {
		words = append(words, "…")
	}
	return strings.Join(words, " ")
}

// Quote writes w in single quotes when it is empty or holds white space;
// otherwise as it is.
func Quote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n\r") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Error is a line that does not parse.
type Error struct {
	Pos int    // byte offset in the line
	Msg string // what is wrong
}

func (e *Error) Error() string {
	return fmt.Sprintf("parse shell command: at byte %d: %s", e.Pos, e.Msg)
}

// Commands returns every simple command src would run: those of its
// lists and pipelines, of subshells, groups and compound commands, of
// function bodies, of substitutions ($(...), backquotes, <(...)), and
// those that wrappers, sh -c, eval and trap run. A line that does not
// parse returns the commands read so far and an *Error; callers treat it
// as unanalysable.
func Commands(src string) ([]Command, error) {
	if len(src) > MaxSource {
		return []Command{{Name: clip(src), Unknown: fmt.Sprintf("zut cannot tell what a command of over %d KiB runs", MaxSource>>10)}}, &Error{Pos: MaxSource, Msg: "command too long"}
	}
	st := &state{}
	raws, err := parseSource(st, src, 0)
	out := make([]Command, 0, len(raws)+len(raws)/4)
	for _, r := range raws {
		out = st.analyse(out, r, nil, 0)
	}
	if len(out) > maxCommands {
		out = out[:maxCommands]
	}
	return out, err
}

// state is shared by the parsers of one line and of the strings it runs.
type state struct {
	work int // bytes parsed
	n    int // commands listed
	// shellEnv: the line sets BASH_ENV or ENV, so a shell started after
	// runs a file first.
	shellEnv bool
	args     []string // room for the commands' arguments
}

// clip shortens s for a message: its first line, at most 60 bytes.
func clip(s string) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > 60 {
		n := 60
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s, cut = s[:n], true
	}
	if cut {
		s += " …"
	}
	return s
}
