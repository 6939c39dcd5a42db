package permissions

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent/permissions/shell"
)

// CommandLine is a bash command as the rules see it: every simple command
// it runs (package shell), read once and matched against any number of
// patterns. A pattern is matched against one command at a time, written
// as its name and arguments after quote removal ("rm -rf build");
// wrappers (env, sudo, timeout, xargs, sh -c, eval, ...) are commands of
// their own and so are the commands they run.
type CommandLine struct {
	Text     string
	Commands []shell.Command
	// Unknown says why zut cannot tell what the line runs: it does not
	// parse, or a command's name is built when it runs. "" when it can.
	Unknown string

	once  sync.Once
	deny  [][]string // per command: the texts deny and ask patterns try
	allow []string   // per command: the text allow patterns must match; "" for none
	// The commands whose deny texts start with a word: head[word]-1 is
	// the first entry of a list linked through entries.
	head    map[string]int
	entries []wordEntry
}

type wordEntry struct{ cmd, next int }

// ParseCommandLine reads a bash command.
func ParseCommandLine(text string) *CommandLine {
	text = strings.TrimSpace(text)
	l := &CommandLine{Text: text}
	cmds, err := shell.Commands(text)
	l.Commands = cmds
	if err != nil {
		l.Unknown = fmt.Sprintf("zut cannot tell what the command runs: %v", err)
	}
	for _, c := range cmds {
		if c.Unknown != "" && l.Unknown == "" {
			l.Unknown = c.Unknown
		}
	}
	return l
}

// texts computes what patterns are matched against, once.
func (l *CommandLine) texts() {
	l.once.Do(func() {
		l.deny = make([][]string, len(l.Commands))
		l.allow = make([]string, len(l.Commands))
		l.head = make(map[string]int, len(l.Commands))
		l.entries = make([]wordEntry, 0, len(l.Commands)+len(l.Commands)/2)
		for i, c := range l.Commands {
			l.deny[i] = denyTexts(c)
			l.allow[i] = allowText(c, l.deny[i][0])
			var seen [4]string
			for k, t := range l.deny[i] {
				w, _, _ := strings.Cut(t, " ")
				if slices.Contains(seen[:k], w) {
					continue
				}
				seen[k] = w
				l.entries = append(l.entries, wordEntry{cmd: i, next: l.head[w]})
				l.head[w] = len(l.entries)
			}
		}
	})
}

// firstWord returns the pattern's first word when it has no '*' or '?':
// only a text starting with that word can match.
func firstWord(pattern string) (string, bool) {
	w, _, _ := strings.Cut(pattern, " ")
	return w, !strings.ContainsAny(w, "*?")
}

// denyTexts are the ways a deny or ask pattern may name c: by the base
// name ("rm -rf x" for /bin/rm -rf x), by the name as written, with the
// assignments before it, and as String writes it.
func denyTexts(c shell.Command) []string {
	out := []string{joinWords(c.Base(), c.Args, nil, false)}
	if c.Name != c.Base() {
		out = append(out, joinWords(c.Name, c.Args, nil, false))
	}
	if len(c.Assign) > 0 {
		out = append(out, joinWords(c.Name, c.Args, c.Assign, false))
	}
	if c.More || needQuote(c.Name) || slices.ContainsFunc(c.Args, needQuote) || slices.ContainsFunc(c.Assign, needQuote) {
		out = append(out, c.String())
	}
	return out
}

// joinWords writes assigns, name and args separated by spaces; quoted
// writes them as shell.Quote does.
func joinWords(name string, args, assigns []string, quoted bool) string {
	n := len(name)
	for _, a := range args {
		n += len(a) + 3
	}
	for _, a := range assigns {
		n += len(a) + 3
	}
	var b strings.Builder
	b.Grow(n)
	word := func(w string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if quoted {
			w = shell.Quote(w)
		}
		b.WriteString(w)
	}
	for _, a := range assigns {
		word(a)
	}
	if name != "" || len(args) > 0 {
		word(name)
	}
	for _, a := range args {
		word(a)
	}
	return b.String()
}

// allowText is what an allow pattern must match for c: the command as
// written, with the assignments that change what runs (PATH=..., LD_...)
// before it; "" when no per-command allow may apply (it writes a file by
// redirection).
// plain is c's first deny text, reused when it is the same.
func allowText(c shell.Command, plain string) string {
	if c.Writes {
		return ""
	}
	var assigns []string
	for _, a := range c.Assign {
		if sensitiveAssign(a) {
			assigns = append(assigns, a)
		}
	}
	s := plain
	if len(assigns) > 0 || c.Name != c.Base() || needQuote(c.Name) || slices.ContainsFunc(c.Args, needQuote) {
		s = joinWords(c.Name, c.Args, assigns, true)
	}
	if c.More {
		s += " …"
	}
	return s
}

// needQuote reports whether shell.Quote changes w.
func needQuote(w string) bool {
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case ' ', '\t', '\n', '\r':
			return true
		}
	}
	return w == ""
}

// sensitiveAssign reports whether an assignment changes which program a
// name runs or what a shell reads first.
func sensitiveAssign(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	name = strings.TrimSuffix(name, "+")
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "BASH_LOADABLES_PATH", "EXECIGNORE", "PROMPT_COMMAND", "PS4", "GLOBIGNORE", "CDPATH":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_")
}

// Matches reports whether a deny or ask pattern applies to the line: it
// matches one of its commands, or the whole line when the pattern itself
// holds shell operators (bash(curl * | sh)), or zut cannot tell what the
// line runs. why says which command matched, or why zut cannot tell; ""
// when the whole line is the command that matched.
func (l *CommandLine) Matches(pattern string) (ok bool, why string) {
	if l.Unknown != "" {
		return true, l.Unknown
	}
	if strings.ContainsAny(pattern, shellSpecial) && commandMatch(pattern, l.Text, true) {
		return true, ""
	}
	l.texts()
	try := func(i int) bool {
		c := l.Commands[i]
		for _, t := range l.deny[i] {
			if patternMatch(pattern, t, false) || c.More && prefixMatch(pattern, t) {
				return true
			}
		}
		return false
	}
	if w, ok := firstWord(pattern); ok {
		// The list runs from the last command to the first: the one
		// reported is the first that matches.
		found := -1
		for e := l.head[w]; e > 0; e = l.entries[e-1].next {
			if i := l.entries[e-1].cmd; try(i) {
				found = i
			}
		}
		if found >= 0 {
			return true, l.explain(l.Commands[found])
		}
		return false, ""
	}
	for i := range l.deny {
		if try(i) {
			return true, l.explain(l.Commands[i])
		}
	}
	return false, ""
}

// explain says how the line runs c, when c is not the whole line.
func (l *CommandLine) explain(c shell.Command) string {
	s := c.String()
	if len(c.Via) == 0 && (s == l.Text || len(l.Commands) == 1 && c.Name == c.Base()) {
		return ""
	}
	if len(c.Via) > 0 {
		return fmt.Sprintf("it runs `%s` through %s", s, strings.Join(c.Via, ", "))
	}
	return fmt.Sprintf("it runs `%s`", s)
}

// Allows reports whether allow patterns allow the line: zut can tell
// what it runs, and every command is matched by one of the patterns (or
// the whole line by a pattern that holds shell operators, as in
// bash(go test ./... | tail *)). It returns the index of the pattern that
// matched first, -1 when none allows the line.
func (l *CommandLine) Allows(patterns []string) int {
	if l.Unknown != "" || len(l.Commands) == 0 {
		return -1
	}
	for k, p := range patterns {
		if strings.ContainsAny(p, shellSpecial) && commandMatch(p, l.Text, false) {
			return k
		}
	}
	l.texts()
	first := -1
	for i, t := range l.allow {
		c := l.Commands[i]
		if c.Name == "" && !c.Writes && t == "" {
			continue // harmless assignments alone
		}
		if t == "" {
			return -1
		}
		found := false
		for k, p := range patterns {
			if patternMatch(p, t, false) {
				if first < 0 {
					first = k
				}
				found = true
				break
			}
		}
		if !found {
			return -1
		}
	}
	return first
}

// patternMatch matches one command's text against a pattern: '*' matches
// any run of characters, and a trailing " *" also matches nothing
// (go test * matches "go test").
func patternMatch(pattern, s string, paths bool) bool {
	if strings.HasSuffix(pattern, " *") && s == strings.TrimSuffix(pattern, " *") {
		return true
	}
	return globMatch(pattern, s, paths)
}

// prefixMatch reports whether pattern matches s followed by arguments
// not yet known: s itself, or s, a space and anything.
func prefixMatch(pattern, s string) bool {
	for k := 0; k <= len(pattern); k++ {
		if glob(pattern[:k], s+" ", "", false) {
			return true
		}
	}
	return false
}
