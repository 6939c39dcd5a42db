package shell

import (
	"fmt"
	"slices"
	"strings"
)

// wrapper describes a command that runs its arguments as a command,
// after its options.
type wrapper struct {
	argOpts  string // short options that take an argument (attached or next)
	optArgs  string // short options whose argument can only be attached (xargs -i[R])
	flags    string // short options without an argument
	noRun    string // short options after which nothing runs (command -v)
	longArgs []string
	longs    []string // long options without an argument (or with =)
	assigns  bool     // NAME=value words may come before the command
	numeric  bool     // -N is an option (nice -10)
	operands int      // words after the options before the command (timeout's duration)
	more     bool     // more arguments come from input (xargs)
	replace  bool     // -I R / -i / --replace: R in the arguments is replaced by input
}

// wrappers are the commands seen through. The shells, eval, trap, find
// and busybox are handled on their own (wrapped).
func wrappers() map[string]wrapper {
	return wrappersLazy.get(buildWrappers)
}

// buildWrappers makes what wrappers returns.
func buildWrappers() map[string]wrapper {
	return map[string]wrapper{
		"env": {argOpts: "uCS", flags: "i0v", longArgs: []string{"unset", "chdir", "split-string"},
			longs: []string{"ignore-environment", "null", "debug", "block-signal", "default-signal", "ignore-signal", "list-signal-handling"}, assigns: true},
		"command": {flags: "p", noRun: "vV"},
		"builtin": {},
		"exec":    {argOpts: "a", flags: "cl"},
		"nice":    {argOpts: "n", longArgs: []string{"adjustment"}, numeric: true},
		"nohup":   {},
		"timeout": {argOpts: "sk", flags: "v", longArgs: []string{"signal", "kill-after"}, longs: []string{"preserve-status", "foreground", "verbose"}, operands: 1},
		"time":    {argOpts: "fo", flags: "pvaq", longArgs: []string{"format", "output"}, longs: []string{"append", "portability", "verbose", "quiet"}},
		"xargs": {argOpts: "adEILnPs", optArgs: "eil", flags: "0prtxo",
			longArgs: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
			longs:    []string{"null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty", "replace", "eof", "max-lines", "show-limits"},
			more:     true, replace: true},
		"sudo": {argOpts: "CDghprtTUuc", flags: "AbEHKknPSsiBN", noRun: "elVv",
			longArgs: []string{"user", "group", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user", "close-from", "login-class", "chroot"},
			longs:    []string{"askpass", "background", "preserve-env", "set-home", "login", "non-interactive", "preserve-groups", "stdin", "shell", "reset-timestamp", "remove-timestamp", "bell"},
			assigns:  true},
		"doas":    {argOpts: "uC", flags: "nsL"},
		"stdbuf":  {argOpts: "ioe", longArgs: []string{"input", "output", "error"}},
		"setsid":  {flags: "cfw", longs: []string{"ctty", "fork", "wait"}},
		"ionice":  {argOpts: "cnpPu", flags: "t", longArgs: []string{"class", "classdata", "pid", "pgid", "uid"}, longs: []string{"ignore"}},
		"chroot":  {longArgs: []string{"userspec", "groups"}, longs: []string{"skip-chdir"}, operands: 1},
		"watch":   {argOpts: "nq", optArgs: "d", flags: "bcegtpxwr", longArgs: []string{"interval"}, longs: []string{"beep", "color", "no-color", "errexit", "chgexit", "no-title", "precise", "exec", "no-wrap", "no-rerun", "differences"}},
		"busybox": {},
		"toybox":  {},
	}
}

var wrappersLazy lazy[map[string]wrapper]

// shells are the commands whose -c argument is a command line.
func shells() map[string]bool {
	return shellsLazy.get(func() map[string]bool {
		return map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "posh": true, "yash": true, "rbash": true}
	})
}

var shellsLazy lazy[map[string]bool]

// analyse lists the commands r runs: r itself and, through wrappers, the
// commands it runs. A command of assignments or redirections alone is
// listed with no name.
func (st *state) analyse(out []Command, r rawCmd, via []string, level int) []Command {
	var assigns []string
	hidden := ""
	for _, a := range r.assigns {
		assigns = append(assigns, a.lit)
		if startupFile(a.lit) {
			st.shellEnv = true
		}
		if holdsCode(a) {
			hidden = a.src
		}
	}
	if len(r.words) == 0 {
		if len(assigns) > 0 || r.writes {
			// NAME=value alone, or > file alone (which creates the file).
			out = append(out, Command{Assign: assigns, Redirects: r.redirs, Writes: r.writes, Via: via})
			if hidden != "" {
				out[len(out)-1].Unknown = fmt.Sprintf("zut cannot tell what `%s` runs: a variable holds code bash may run later", clip(hidden))
			}
		}
		return out
	}
	if hidden != "" {
		n := len(out)
		out = st.run(out, &r, r.words, assigns, r.redirs, via, level, false)
		if out[n].Unknown == "" {
			out[n].Unknown = fmt.Sprintf("zut cannot tell what `%s` runs: a variable holds code bash may run later", clip(hidden))
		}
		return out
	}
	return st.run(out, &r, r.words, assigns, r.redirs, via, level, false)
}

// run lists the command of words and what it runs.
func (st *state) run(out []Command, r *rawCmd, words []word, assigns, redirs, via []string, level int, more bool) []Command {
	name := words[0]
	c := Command{Name: name.lit, Assign: assigns, Redirects: redirs, Writes: r.writes, Via: via, More: more}
	if n := len(words) - 1; n > 0 {
		// The arguments of all commands share one array.
		if cap(st.args)-len(st.args) < n {
			st.args = make([]string, 0, max(256, n))
		}
		start := len(st.args)
		for _, w := range words[1:] {
			st.args = append(st.args, w.lit)
		}
		c.Args = st.args[start : start+n : start+n]
	}
	if !name.static || name.glob {
		c.Unknown = fmt.Sprintf("zut cannot tell what `%s` runs", clip(name.src))
		return append(out, c)
	}
	out = append(out, c)
	if !special(c.Base()) {
		return out
	}
	return st.wrapped(out, r, words, assigns, via, level, more)
}

// special reports whether the command named base runs other commands or
// changes what names run.
func special(base string) bool {
	switch base {
	case "eval", "trap", "source", ".", "alias", "hash", "enable", "find", "su", "runuser", "script", "flock",
		"export", "declare", "typeset", "local", "readonly":
		return true
	}
	_, ok := wrappers()[base]
	return ok || shells()[base]
}

// wrapped lists what the command just added to out runs.
func (st *state) wrapped(out []Command, r *rawCmd, words []word, assigns, via []string, level int, more bool) []Command {
	i := len(out) - 1
	c := out[i]
	unknown := func(format string, args ...any) []Command {
		out[i].Unknown = fmt.Sprintf(format, args...)
		return out
	}
	inner := func(label string) []string { return append(append([]string(nil), via...), label) }
	code := func(label, src string) []Command {
		if level+1 > maxLevel {
			return unknown("zut cannot tell what `%s` runs: code inside code nested over %d deep", clip(r.text), maxLevel)
		}
		raws, err := parseSource(st, src, level+1)
		for _, x := range raws {
			out = st.analyse(out, x, inner(label), level+1)
		}
		if err != nil {
			out[i].Unknown = fmt.Sprintf("zut cannot tell what `%s` runs: %v", clip(r.text), err)
		}
		return out
	}
	base := c.Base()
	args := words[1:]
	switch {
	case shells()[base]:
		str, readsInput, err := shellArgs(args)
		switch {
		case st.shellEnv || slices.ContainsFunc(assigns, startupFile):
			return unknown("zut cannot tell what `%s` runs: BASH_ENV or ENV names a file the shell runs first", clip(r.text))
		case more && str == nil:
			return unknown("zut cannot tell what `%s` runs: the command comes from its input", clip(r.text))
		case err != "":
			return unknown("zut cannot tell what `%s` runs: %s", clip(r.text), err)
		case str != nil && !str.static:
			return unknown("zut cannot tell what `%s` runs: its -c command is built when it runs", clip(r.text))
		case str != nil:
			return code(base+" -c", str.lit)
		case !readsInput:
			return out // a script file: zut does not read it
		case r.stdin != nil && r.stdin.file:
			return out
		case r.stdin != nil && r.stdin.static && !more:
			return code(base, r.stdin.text)
		}
		return unknown("zut cannot tell what `%s` reads from its input and runs", clip(r.text))
	case base == "eval":
		var parts []string
		for _, a := range args {
			if !a.static {
				return unknown("zut cannot tell what `%s` runs: eval of text built when it runs", clip(r.text))
			}
			parts = append(parts, a.lit)
		}
		if more {
			return unknown("zut cannot tell what `%s` runs: eval of its input", clip(r.text))
		}
		return code("eval", strings.Join(parts, " "))
	case base == "trap":
		if len(args) > 0 && args[0].lit == "--" {
			args = args[1:]
		}
		if len(args) == 0 || args[0].static && (args[0].lit == "-" || strings.HasPrefix(args[0].lit, "-") && len(args) == 1) {
			return out
		}
		if !args[0].static || more {
			return unknown("zut cannot tell what `%s` runs: the trap's command is built when it runs", clip(r.text))
		}
		if len(args) == 1 {
			return out // trap SIGNAL resets it
		}
		return code("trap", args[0].lit)
	case base == "source" || base == ".":
		return unknown("zut cannot tell what `%s` runs: zut does not read the file", clip(r.text))
	case base == "alias":
		for _, a := range args {
			if !a.static || strings.Contains(a.lit, "=") {
				return unknown("zut cannot tell what `%s` runs: an alias changes what a name runs", clip(r.text))
			}
		}
		return out
	case base == "hash" || base == "enable":
		for _, a := range args {
			if !a.static || base == "enable" || strings.HasPrefix(a.lit, "-") && strings.Contains(a.lit, "p") {
				return unknown("zut cannot tell what `%s` runs: it changes what a name runs", clip(r.text))
			}
		}
		return out
	case base == "find":
		return st.find(out, r, args, via, level)
	case base == "su" || base == "runuser" || base == "script" || base == "flock":
		str, err := dashC(args)
		switch {
		case err != "":
			return unknown("zut cannot tell what `%s` runs: %s", clip(r.text), err)
		case str == nil && base == "runuser":
			// runuser -u USER [--] COMMAND runs COMMAND itself.
			for k, a := range args {
				if a.static && a.lit == "--" && k+1 < len(args) {
					return st.run(out, r, args[k+1:], assigns, nil, inner(base), level, more)
				}
			}
			if len(args) > 0 {
				return unknown("zut cannot tell what `%s` runs: write runuser -u USER -- COMMAND", clip(r.text))
			}
			return out
		case str == nil:
			return out
		case !str.static:
			return unknown("zut cannot tell what `%s` runs: its -c command is built when it runs", clip(r.text))
		}
		return code(base+" -c", str.lit)
	case base == "export" || base == "declare" || base == "typeset" || base == "local" || base == "readonly":
		for _, a := range args {
			if isAssignment(a.src) && startupFile(a.lit) {
				st.shellEnv = true
			}
			if isAssignment(a.src) && holdsCode(a) {
				return unknown("zut cannot tell what `%s` runs: a variable holds code bash may run later", clip(r.text))
			}
		}
		return out
	}
	w, ok := wrappers()[base]
	if !ok {
		return out
	}
	if base == "busybox" || base == "toybox" {
		if len(args) == 0 || args[0].static && strings.HasPrefix(args[0].lit, "-") {
			return out
		}
		return st.run(out, r, args, assigns, nil, inner(base), level, more)
	}
	start, extra, repl, verdict := w.scan(args)
	switch {
	case verdict != "" && verdict != "no-run":
		return unknown("zut cannot tell what `%s` runs: %s", clip(r.text), verdict)
	case verdict == "no-run":
		return out
	}
	rest := args[start:]
	if base == "watch" {
		exec := false
		for _, a := range args[:start] {
			if a.lit == "-x" || a.lit == "--exec" || strings.HasPrefix(a.lit, "-") && !strings.HasPrefix(a.lit, "--") && strings.Contains(a.lit, "x") {
				exec = true
			}
		}
		if !exec && len(rest) > 0 {
			var parts []string
			for _, a := range rest {
				if !a.static {
					return unknown("zut cannot tell what `%s` runs: its command is built when it runs", clip(r.text))
				}
				parts = append(parts, a.lit)
			}
			return code("watch", strings.Join(parts, " "))
		}
	}
	if len(rest) == 0 {
		if more && base != "xargs" {
			return unknown("zut cannot tell what `%s` runs: the command comes from its input", clip(r.text))
		}
		return out // xargs alone runs echo; env alone prints
	}
	if repl != "" {
		rest = append([]word(nil), rest...)
		for k := range rest {
			if strings.Contains(rest[k].lit, repl) {
				rest[k].static = false
			}
		}
	}
	return st.run(out, r, rest, append(append([]string(nil), assigns...), extra...), nil, inner(base), level, more || w.more)
}

// scan reads a wrapper's options from args. It returns where the command
// starts, the assignments it makes, xargs' replace string, and "" or
// "no-run" (the options say nothing runs) or why the command cannot be
// found.
func (w wrapper) scan(args []word) (start int, assigns []string, repl, state string) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.split {
				return 0, nil, "", fmt.Sprintf("%q may stand for several words", a.src)
			}
			break
		}
		s := a.lit
		switch {
		case s == "--":
			i++
			goto operands
		case s == "-" && w.assigns:
			continue
		case strings.HasPrefix(s, "--") && len(s) > 2:
			name, _, eq := strings.Cut(s[2:], "=")
			switch {
			case name == "help" || name == "version":
				return 0, nil, "", "no-run"
			case name == "split-string":
				return 0, nil, "", "env --split-string splits its text when it runs"
			case contains(w.longArgs, name):
				if !eq {
					i++
				}
			case contains(w.longs, name):
				if name == "replace" && w.replace {
					repl = "{}"
					if _, v, ok := strings.Cut(s, "="); ok {
						repl = v
					}
				}
			default:
				return 0, nil, "", fmt.Sprintf("zut does not know its option %s", s)
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if w.numeric && s[1] >= '0' && s[1] <= '9' {
				continue
			}
			for j := 1; j < len(s); j++ {
				ch := s[j]
				switch {
				case strings.IndexByte(w.noRun, ch) >= 0:
					return 0, nil, "", "no-run"
				case ch == 'S' && w.assigns && strings.IndexByte(w.argOpts, 'S') >= 0:
					return 0, nil, "", "env -S splits its text when it runs"
				case strings.IndexByte(w.argOpts, ch) >= 0:
					arg := s[j+1:]
					if arg == "" {
						i++
						if i < len(args) {
							arg = args[i].lit
						}
					}
					if ch == 'I' && w.replace {
						repl = arg
					}
					j = len(s)
				case strings.IndexByte(w.optArgs, ch) >= 0:
					if ch == 'i' && w.replace {
						repl = "{}"
						if j+1 < len(s) {
							repl = s[j+1:]
						}
					}
					j = len(s)
				case strings.IndexByte(w.flags, ch) >= 0:
				default:
					return 0, nil, "", fmt.Sprintf("zut does not know its option -%c", ch)
				}
			}
		case w.assigns && isAssignment(s):
			assigns = append(assigns, s)
		default:
			goto operands
		}
	}
operands:
	for n := 0; n < w.operands && i < len(args); n++ {
		if !args[i].static && args[i].split {
			return 0, nil, "", fmt.Sprintf("%q may stand for several words", args[i].src)
		}
		i++
	}
	if i > len(args) {
		i = len(args)
	}
	return i, assigns, repl, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shellArgs reads the options of sh, bash and the like: the -c command
// string, or whether the shell reads commands from its input (no script
// operand, or -s).
func shellArgs(args []word) (str *word, readsInput bool, err string) {
	cmd, stdin := false, false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.split {
				return nil, false, fmt.Sprintf("%q may stand for several words", a.src)
			}
			break
		}
		s := a.lit
		if s == "--" || s == "-" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			name, _, eq := strings.Cut(s[2:], "=")
			switch name {
			case "help", "version":
				return nil, false, ""
			case "rcfile", "init-file":
				if !eq {
					i++
				}
			}
			continue
		}
		if len(s) < 2 || s[0] != '-' && s[0] != '+' {
			break
		}
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				cmd = true
			case 's':
				stdin = true
			case 'o', 'O':
				i++
			}
		}
	}
	if cmd {
		if i >= len(args) {
			return nil, false, ""
		}
		return &args[i], false, ""
	}
	if !stdin && i < len(args) {
		script := args[i]
		switch {
		case !script.static:
			return nil, false, fmt.Sprintf("it runs the script %s, named when it runs", script.src)
		case script.lit == "/dev/stdin" || strings.HasPrefix(script.lit, "/dev/fd/") || strings.HasPrefix(script.lit, "/proc/"):
			return nil, true, ""
		}
	}
	return nil, stdin || i >= len(args), ""
}

// holdsCode reports whether an assignment puts a command substitution in
// quotes into a variable, which bash may run later (in arithmetic, an
// array subscript or a nameref: X='a[$(rm x)]'; echo $((X))).
func holdsCode(a word) bool {
	_, v, _ := strings.Cut(a.lit, "=")
	return a.static && (strings.Contains(v, "$(") || strings.Contains(v, "`"))
}

// startupFile reports whether an assignment names a file a shell reads
// before its command (BASH_ENV, ENV).
func startupFile(a string) bool {
	return strings.HasPrefix(a, "BASH_ENV=") || strings.HasPrefix(a, "ENV=") || strings.HasPrefix(a, "BASH_ENV+=") || strings.HasPrefix(a, "ENV+=")
}

// dashC finds the command string of su, runuser, script and flock: the
// argument of -c (also in a cluster, -lc CMD or -cCMD) or --command.
func dashC(args []word) (*word, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.split {
				return nil, fmt.Sprintf("%q may stand for several words", a.src)
			}
			continue
		}
		s := a.lit
		switch {
		case s == "--":
			return nil, ""
		case strings.HasPrefix(s, "--command=") || strings.HasPrefix(s, "--session-command="):
			_, v, _ := strings.Cut(s, "=")
			return &word{lit: v, src: s, static: true}, ""
		case s == "--command" || s == "--session-command":
			if i+1 < len(args) {
				return &args[i+1], ""
			}
			return nil, ""
		case strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--"):
			if j := strings.IndexByte(s, 'c'); j > 0 {
				if j < len(s)-1 {
					return &word{lit: s[j+1:], src: s, static: true}, ""
				}
				if i+1 < len(args) {
					return &args[i+1], ""
				}
			}
		}
	}
	return nil, ""
}

// find lists the commands of find's -exec, -execdir, -ok and -okdir.
func (st *state) find(out []Command, r *rawCmd, args []word, via []string, level int) []Command {
	for i := 0; i < len(args); i++ {
		switch args[i].lit {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		var cmd []word
		for ; j < len(args) && !(args[j].static && (args[j].lit == ";" || args[j].lit == "+")); j++ {
			w := args[j]
			if strings.Contains(w.lit, "{}") {
				w.static = false
			}
			cmd = append(cmd, w)
		}
		if len(cmd) > 0 {
			out = st.run(out, r, cmd, nil, nil, append(append([]string(nil), via...), "find "+args[i].lit), level, false)
		}
		i = j
	}
	return out
}
