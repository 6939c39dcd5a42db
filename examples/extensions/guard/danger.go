package main

import (
	"regexp"
	"strings"
)

// refusals describes what danger refuses, for /guard.
var refusals = []string{
	"recursive rm of /, ~ or $HOME",
	"rm --no-preserve-root",
	"mkfs",
	"dd onto /dev",
	"redirection onto a disk device",
	"recursive chmod or chown of /",
	"fork bombs",
}

// danger returns why command would destroy the system, or "" when guard
// lets it through. It looks at each simple command of a pipeline or list.
func danger(command string) string {
	if strings.Contains(strings.Join(strings.Fields(command), ""), ":(){:|:&};:") {
		return "a fork bomb"
	}
	if diskRedirect.MatchString(command) {
		return "a redirection onto a disk device"
	}
	for _, simple := range splitCommands(command) {
		words := commandWords(simple)
		if len(words) == 0 {
			continue
		}
		name, args := words[0], words[1:]
		switch {
		case name == "rm":
			if why := dangerousRemove(args); why != "" {
				return why
			}
		case name == "mkfs" || strings.HasPrefix(name, "mkfs."):
			return "mkfs formats a filesystem"
		case name == "dd":
			for _, a := range args {
				if strings.HasPrefix(a, "of=/dev/") && a != "of=/dev/null" {
					return "dd writing onto a device"
				}
			}
		case name == "chmod" || name == "chown":
			if hasFlag(args, 'R', "--recursive") && slicesContainRoot(args) {
				return name + " -R of the root directory"
			}
		}
	}
	return ""
}

var diskRedirect = regexp.MustCompile(`>\s*/dev/(sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d)`)

// dangerousRemove checks the arguments of rm.
func dangerousRemove(args []string) string {
	for _, a := range args {
		if a == "--no-preserve-root" {
			return "rm --no-preserve-root"
		}
	}
	if !hasFlag(args, 'r', "--recursive") && !hasFlag(args, 'R', "--recursive") {
		return ""
	}
	for _, a := range args {
		if isRootLike(a) {
			return "rm -r of " + a
		}
	}
	return ""
}

// isRootLike reports whether a path names /, the home directory, or
// everything in one of them.
func isRootLike(p string) bool {
	switch strings.TrimRight(p, "/") {
	case "", "/*", "/.", "~", "~/*", "$HOME", "${HOME}", "$HOME/*", "${HOME}/*":
		return p != "" && !strings.HasPrefix(p, "-")
	}
	return false
}

func slicesContainRoot(args []string) bool {
	for _, a := range args {
		if a == "/" || a == "/*" {
			return true
		}
	}
	return false
}

// hasFlag reports whether args hold the short flag c (alone or combined,
// as in -rf) or the long flag long.
func hasFlag(args []string, c rune, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == long {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], c) {
			return true
		}
	}
	return false
}

// splitCommands cuts a shell command line into simple commands at ;, &,
// |, && and || and newlines. Quoting is honoured only enough not to split
// inside quotes.
func splitCommands(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			cur.WriteRune(r)
		case r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, cur.String())
}

// commandWords splits a simple command into words without quotes and
// drops what runs the real command: sudo, env, command, exec and
// variable assignments.
func commandWords(simple string) []string {
	words := strings.Fields(simple)
	for i, w := range words {
		words[i] = strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(w)
	}
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "sudo" || w == "env" || w == "command" || w == "exec" || w == "nohup" || w == "time":
			words = words[1:]
		case (w == "-u" || w == "-g" || w == "-C") && len(words) > 2:
			words = words[2:] // an option of sudo with its value
		case strings.HasPrefix(w, "-") && len(words) > 1:
			words = words[1:] // an option of sudo or env
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "="):
			words = words[1:]
		default:
			words[0] = w[strings.LastIndexByte(w, '/')+1:] // /bin/rm -> rm
			return words
		}
	}
	return nil
}

var forcePush = regexp.MustCompile(`(\bgit\s+push\b[^;&|\n]*?\s)(--force|-f)(\s|$)`)

// saferCommand rewrites forced pushes to --force-with-lease, which refuses
// to overwrite work the user has not seen.
func saferCommand(command string) (string, bool) {
	out := command
	for {
		next := forcePush.ReplaceAllString(out, "${1}--force-with-lease${3}")
		if next == out {
			break
		}
		out = next
	}
	return out, out != command
}
