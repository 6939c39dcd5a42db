package permissions

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode"
)

// Kind is what a rule's pattern is matched against.
type Kind uint8

const (
	// KindArg: the main argument of a tool zut does not know, matched
	// with '*' and '?'.
	KindArg Kind = iota
	// KindCommand: a shell command (bash).
	KindCommand
	// KindPath: a file path, relative to the project when inside it.
	KindPath
)

// Call is a tool call as the policy sees it.
type Call struct {
	Tool string
	Args json.RawMessage
	// CWD is the project directory: paths inside it are matched
	// relative to it.
	CWD string
}

// mainArgs are the argument names taken as the subject of tools zut does
// not know, in order.
var mainArgs = []string{"command", "path", "file_path", "file", "url", "query", "name", "action"}

// Subject returns what the rules of c's tool match: the command of bash,
// the path of read, write, edit and grep, the name of skill, and for any
// other tool its first string argument among command, path, file_path,
// file, url, query, name and action ("" when it has none: then only rules
// without a pattern apply).
func Subject(c Call) (Kind, string) {
	var args map[string]json.RawMessage
	json.Unmarshal(c.Args, &args)
	str := func(name string) (string, bool) {
		var s string
		if raw, ok := args[name]; ok && json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return "", false
	}
	switch c.Tool {
	case "bash":
		s, _ := str("command")
		return KindCommand, strings.TrimSpace(s)
	case "read", "write", "edit", "grep":
		s, ok := str("path")
		if !ok || s == "" {
			s = "."
		}
		return KindPath, relPath(s, c.CWD)
	case "skill":
		s, _ := str("name")
		return KindArg, s
	}
	for _, name := range mainArgs {
		if s, ok := str(name); ok {
			switch name {
			case "command":
				return KindCommand, strings.TrimSpace(s)
			case "path", "file_path", "file":
				return KindPath, relPath(s, c.CWD)
			}
			return KindArg, s
		}
	}
	return KindArg, ""
}

// relPath cleans p and writes it relative to cwd when it is inside, with
// forward slashes; a path outside cwd stays absolute, so that no pattern
// relative to the project matches it.
func relPath(p, cwd string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// Suggest is the rule a confirmation offers to allow from now on for
// calls like c: for bash the program and its subcommand followed by " *"
// (go test ./... gives go test *; git status gives git status), for
// paths the directory of the file followed by "/**" (or the file at the
// top of the project), for other tools the tool itself.
func Suggest(c Call) Rule {
	kind, s := Subject(c)
	r := Rule{Effect: Allow, Tool: c.Tool, Source: SourceUserProject}
	switch {
	case kind == KindCommand && s != "":
		r.Pattern = suggestCommand(s)
	case kind == KindPath && s != "" && s != ".":
		dir := filepath.ToSlash(filepath.Dir(s))
		switch {
		case filepath.IsAbs(s) || strings.HasPrefix(s, "~"):
			r.Pattern = s
		case dir == ".":
			r.Pattern = s
		default:
			r.Pattern = dir + "/**"
		}
	}
	return r
}

// suggestCommand keeps the program and a subcommand-like second word of
// cmd, and a " *" when more follows. A command with shell operators is
// offered as it is: a pattern cannot allow more than one program.
func suggestCommand(cmd string) string {
	if strings.ContainsAny(cmd, shellSpecial) {
		return cmd
	}
	words := strings.Fields(cmd)
	keep := 1
	if len(words) > 1 && isSubcommand(words[1]) {
		keep = 2
	}
	out := strings.Join(words[:keep], " ")
	if len(words) > keep {
		out += " *"
	}
	return out
}

// isSubcommand reports whether w reads as a subcommand (test, status,
// run-tests) rather than an argument (a path, a flag, a number).
func isSubcommand(w string) bool {
	if w == "" || !unicode.IsLetter(rune(w[0])) {
		return false
	}
	for _, c := range w {
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}
