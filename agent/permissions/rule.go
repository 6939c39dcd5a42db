// Package permissions decides, by rules, whether a tool call runs without
// asking, is asked about, or is refused. A rule names a tool and, in
// parentheses, a pattern over the call's subject: the command of bash
// (bash(go test *)), the path of read, write and edit (edit(docs/**)),
// the main argument of other tools. Every tool source (built-ins,
// extension tools, later MCP tools and remote confirmations) goes through
// one Set, so one policy holds for all of them.
//
// Rules come from the command line (--allow, --deny), from the user's
// $ZUT_HOME/config.json (for every project, and per project: what "always
// allow here" in a confirmation saves), and from the project's own
// .zut/settings.json. That last file comes with the repository, so its
// rules may only narrow (deny, ask) unless the user trusts the project.
//
// The package imports nothing of zut; a Set is safe for concurrent use.
package permissions

import (
	"fmt"
	"strings"
)

// Effect is what a rule decides.
type Effect uint8

const (
	// None: no rule matched; the caller's default holds (read-only tools
	// run, the others ask).
	None Effect = iota
	// Allow runs the call without asking.
	Allow
	// Ask asks the user, even for a read-only tool.
	Ask
	// Deny refuses the call.
	Deny
)

func (e Effect) String() string {
	switch e {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "none"
}

// ParseEffect reads "allow", "ask" or "deny".
func ParseEffect(s string) (Effect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return None, fmt.Errorf("unknown permission %q: use allow, ask or deny", s)
}

// Source is where a rule was written.
type Source string

const (
	// SourceFlag: --allow or --deny, for this run only.
	SourceFlag Source = "flag"
	// SourceUser: $ZUT_HOME/config.json, for every project.
	SourceUser Source = "user"
	// SourceUserProject: $ZUT_HOME/config.json, for this project only
	// (what a confirmation's "always allow here" saves).
	SourceUserProject Source = "user-project"
	// SourceProject: the project's .zut/settings.json.
	SourceProject Source = "project"
	// SourceSession: added during this run and not saved.
	SourceSession Source = "session"
)

// Describe says where a rule of this source lives, for /permissions.
func (s Source) Describe() string {
	switch s {
	case SourceFlag:
		return "command line, this run"
	case SourceUser:
		return "config.json, every project"
	case SourceUserProject:
		return "config.json, this project"
	case SourceProject:
		return ".zut/settings.json"
	case SourceSession:
		return "this session"
	}
	return string(s)
}

// Rule is one permission rule: Effect for calls of Tool whose subject
// matches Pattern ("" matches every call of the tool).
type Rule struct {
	Effect  Effect
	Tool    string
	Pattern string
	Source  Source
}

// String writes the rule's text as it is parsed: "bash(go test *)".
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// Same reports whether r and o are the same rule from the same place.
func (r Rule) Same(o Rule) bool {
	return r.Effect == o.Effect && r.Tool == o.Tool && r.Pattern == o.Pattern && r.Source == o.Source
}

// ParseRule reads the text of a rule, "tool" or "tool(pattern)", with the
// effect and source given.
func ParseRule(text string, effect Effect, src Source) (Rule, error) {
	s := strings.TrimSpace(text)
	r := Rule{Effect: effect, Source: src, Tool: s}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("permission rule %q: the pattern must end with ')', as in bash(go test *)", text)
		}
		r.Tool = strings.TrimSpace(s[:i])
		r.Pattern = strings.TrimSpace(s[i+1 : len(s)-1])
		if r.Pattern == "" {
			return Rule{}, fmt.Errorf("permission rule %q: empty pattern; write %s for every call of the tool", text, r.Tool)
		}
	}
	if r.Tool == "" {
		return Rule{}, fmt.Errorf("permission rule %q: no tool name; write tool or tool(pattern), as in bash(git status)", text)
	}
	for _, c := range r.Tool {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.*", c)) {
			return Rule{}, fmt.Errorf("permission rule %q: %q is not a tool name (letters, digits, _ - . and * only)", text, r.Tool)
		}
	}
	if r.Pattern == "*" || r.Pattern == "**" {
		r.Pattern = ""
	}
	return r, nil
}

// matches reports whether r applies to a call of tool with subject s of
// a kind other than KindCommand (commands are matched by CommandLine).
func (r Rule) matches(tool string, kind Kind, s string) bool {
	if !globMatch(r.Tool, tool, false) {
		return false
	}
	if r.Pattern == "" {
		return true
	}
	if kind == KindPath {
		return pathMatch(r.Pattern, s)
	}
	return globMatch(r.Pattern, s, false)
}

// shellSpecial are the characters by which a command runs more than one
// program or writes files. A pattern holding one is also matched against
// the whole line; there a '*' of an allow rule never matches them, so
// bash(go test ./... | tail *) does not allow "go test ./... | tail -5 | sh".
const shellSpecial = ";&|<>$`\n\r(){}"

// commandMatch matches a whole command line against a pattern holding
// shell operators. A trailing " *" also matches nothing. For deny and ask
// rules (loose), '*' matches anything and the rule applies when the whole
// line or any of its parts (split at ; & | and new lines) matches; for
// allow rules '*' never matches a character of shellSpecial.
func commandMatch(pattern, cmd string, loose bool) bool {
	cmd = strings.TrimSpace(cmd)
	try := func(s string) bool {
		if strings.HasSuffix(pattern, " *") && s == strings.TrimSuffix(pattern, " *") {
			return true
		}
		if loose {
			return globMatch(pattern, s, false)
		}
		return commandGlob(pattern, s)
	}
	if try(cmd) {
		return true
	}
	if !loose {
		return false
	}
	for _, part := range strings.FieldsFunc(cmd, func(c rune) bool { return strings.ContainsRune(";&|\n", c) }) {
		if p := strings.TrimSpace(part); p != "" && try(p) {
			return true
		}
	}
	return false
}

// commandGlob is globMatch for allow rules: '*' matches no character of
// shellSpecial unless the pattern itself has it.
func commandGlob(pattern, s string) bool {
	if strings.ContainsAny(s, shellSpecial) {
		// Special characters in the command must appear literally in
		// the pattern, outside its stars.
		for _, c := range s {
			if strings.ContainsRune(shellSpecial, c) && !strings.ContainsRune(pattern, c) {
				return false
			}
		}
		return globMatchExcept(pattern, s, shellSpecial)
	}
	return globMatch(pattern, s, false)
}

// pathMatch matches a slash-separated path against a pattern where '*'
// and '?' stay inside one path element and '**' crosses them; "dir/**"
// matches everything under dir.
func pathMatch(pattern, p string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	return globMatch(pattern, p, true)
}

// globMatch matches s against a pattern of '*' (any run of characters;
// with paths set, not '/'), '**' (any run, '/' included) and '?' (one
// character; with paths, not '/').
func globMatch(pattern, s string, paths bool) bool {
	stop := ""
	if paths {
		stop = "/"
	}
	return glob(pattern, s, stop, paths)
}

// globMatchExcept is globMatch where '*' and '?' never match the
// characters of stop.
func globMatchExcept(pattern, s, stop string) bool { return glob(pattern, s, stop, false) }

func glob(p, s, stop string, doubleStar bool) bool {
	for len(p) > 0 {
		switch {
		case doubleStar && strings.HasPrefix(p, "**"):
			rest := strings.TrimPrefix(p[2:], "/")
			if rest == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if (i == 0 || s[i-1] == '/') && glob(rest, s[i:], stop, doubleStar) {
					return true
				}
			}
			return false
		case p[0] == '*':
			for i := 0; i <= len(s); i++ {
				if glob(p[1:], s[i:], stop, doubleStar) {
					return true
				}
				if i < len(s) && strings.IndexByte(stop, s[i]) >= 0 {
					return false
				}
			}
			return false
		case p[0] == '?':
			if len(s) == 0 || strings.IndexByte(stop, s[0]) >= 0 {
				return false
			}
			p, s = p[1:], s[1:]
		default:
			if len(s) == 0 || p[0] != s[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}
