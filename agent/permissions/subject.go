package permissions

import (
	"encoding/json"
	"path/filepath"
	"strings"
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
	if c.Tool == "bash" {
		// One pass over the arguments, which may be long.
		var a struct {
			Command any `json:"command"`
		}
		json.Unmarshal(c.Args, &a)
		s, _ := a.Command.(string)
		return KindCommand, strings.TrimSpace(s)
	}
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
// calls like c. For a command (bash) it is exactly the command run, never
// a wider one: git status gives bash(git status), a line of several
// commands the line itself (bash(make && make test)); ok is false when no
// rule names exactly the command (it holds a * or ?, which a pattern
// reads as a wildcard, or a new line, or zut cannot tell what it runs).
// For paths it is the directory of the file followed by "/**" (or the
// file at the top of the project); for other tools the tool itself.
func Suggest(c Call) (r Rule, ok bool) {
	kind, s := Subject(c)
	r = Rule{Effect: Allow, Tool: c.Tool, Source: SourceUserProject}
	switch {
	case kind == KindCommand && s != "":
		p, ok := suggestCommand(s)
		if !ok {
			return Rule{}, false
		}
		r.Pattern = p
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
	return r, true
}

// suggestCommand is the pattern that allows exactly cmd: the command
// written plainly when the line runs one command, else the line. It
// reports false when there is none.
func suggestCommand(cmd string) (string, bool) {
	if strings.ContainsAny(cmd, "*?\n\r") {
		return "", false
	}
	l := ParseCommandLine(cmd)
	if l.Unknown != "" {
		return "", false
	}
	l.texts()
	pattern := cmd
	if len(l.Commands) == 1 && len(l.Commands[0].Via) == 0 && l.allow[0] != "" {
		pattern = l.allow[0]
	}
	if strings.ContainsAny(pattern, "*?") || ParseCommandLine(cmd).Allows([]string{pattern}) < 0 {
		return "", false
	}
	return pattern, true
}
