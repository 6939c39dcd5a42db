package permissions

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Claude Code keeps permission rules in its settings files
// (.claude/settings.json, .claude/settings.local.json,
// ~/.claude/settings.json) in its own syntax: Bash(npm run test:*),
// Read(./secrets/**), Edit, WebFetch(domain:example.com),
// mcp__server__tool. ClaudeRules maps one entry onto zut's rules; an entry
// zut has no tool for is an error the caller warns about once.

const (
	// SourceClaudeUser: ~/.claude/settings.json, for every project.
	SourceClaudeUser Source = "~/.claude/settings.json"
	// SourceClaudeProject: the project's .claude/settings.json or
	// .claude/settings.local.json; like .zut/settings.json, its allow
	// rules need the project trusted.
	SourceClaudeProject Source = ".claude/settings.json"
)

// ClaudePaths are what Claude Code's path patterns are relative to.
type ClaudePaths struct {
	// CWD is the project directory zut matches paths relative to.
	CWD string
	// Root is the directory the settings file belongs to (the one
	// holding .claude/): "/x" patterns are relative to it.
	Root string
	// Home is the user's home directory, for ~/ patterns.
	Home string
}

// claudeTools maps Claude Code's tool names onto zut's. Read rules cover
// grep too and Edit rules cover write, as Claude Code's Read and Edit
// rules cover its searching and file-changing tools.
func claudeTools() map[string][]string {
	return claudeToolsLazy.get(func() map[string][]string {
		return map[string][]string{
			"Bash":      {"bash"},
			"Read":      {"read", "grep"},
			"Grep":      {"grep"},
			"Glob":      {"grep"},
			"LS":        {"read"},
			"Edit":      {"edit", "write"},
			"MultiEdit": {"edit"},
			"Write":     {"write"},
			"WebFetch":  {"web_open", "web_find", "web_click"},
			"WebSearch": {"web_search"},
			"Task":      {"subagent_spawn"},
			"TodoWrite": {"plan"},
		}
	})
}

var claudeToolsLazy lazy[map[string][]string]

// ClaudeRules maps one Claude Code permission entry onto zut's rules of
// effect e from src.
func ClaudeRules(entry string, e Effect, src Source, p ClaudePaths) ([]Rule, error) {
	s := strings.TrimSpace(entry)
	name, pattern := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return nil, fmt.Errorf("Claude Code rule %q: the pattern must end with ')'", entry)
		}
		name, pattern = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:len(s)-1])
	}
	rule := func(tool, pat string) Rule { return Rule{Effect: e, Tool: tool, Pattern: pat, Source: src} }
	if strings.HasPrefix(name, "mcp__") {
		if pattern != "" {
			return nil, fmt.Errorf("Claude Code rule %q: MCP rules take no pattern", entry)
		}
		if strings.Count(name, "__") == 1 { // mcp__server: all its tools
			name += "__*"
		}
		r, err := ParseRule(name, e, src)
		if err != nil {
			return nil, err
		}
		return []Rule{r}, nil
	}
	tools, ok := claudeTools()[name]
	if !ok {
		return nil, fmt.Errorf("Claude Code rule %q: zut has no tool for %s; the rule is ignored", entry, name)
	}
	if pattern == "" || pattern == "*" || pattern == "**" {
		var out []Rule
		for _, t := range tools {
			out = append(out, rule(t, ""))
		}
		return out, nil
	}
	switch name {
	case "Bash":
		// Claude Code's "prefix:*" is zut's "prefix *" (which matches
		// the prefix alone too).
		if prefix, ok := strings.CutSuffix(pattern, ":*"); ok {
			pattern = strings.TrimSpace(prefix) + " *"
		}
		return []Rule{rule("bash", pattern)}, nil
	case "WebFetch":
		domain, ok := strings.CutPrefix(pattern, "domain:")
		if !ok || domain == "" || strings.ContainsAny(domain, "/ ") {
			return nil, fmt.Errorf("Claude Code rule %q: WebFetch takes domain:HOST", entry)
		}
		var out []Rule
		for _, scheme := range []string{"https://", "http://"} {
			out = append(out, rule("web_open", scheme+domain), rule("web_open", scheme+domain+"/*"))
		}
		return out, nil
	case "WebSearch", "Task", "TodoWrite":
		return nil, fmt.Errorf("Claude Code rule %q: zut's %s takes no pattern; write %s alone", entry, tools[0], name)
	}
	var out []Rule
	for _, pat := range claudePaths(pattern, p) {
		for _, t := range tools {
			out = append(out, rule(t, pat))
		}
	}
	return out, nil
}

// claudePaths turns a Claude Code path pattern into zut's path patterns
// (relative to p.CWD inside it, absolute outside): //x is the absolute
// /x, ~/x is in the home directory, /x is relative to the settings'
// project root, x and ./x to the working directory. A pattern without a
// slash matches at any depth, as in a .gitignore (.env is **/.env); dir/**
// covers dir itself too.
func claudePaths(pattern string, p ClaudePaths) []string {
	abs := func(a string) []string {
		a = filepath.Clean(a)
		if p.CWD != "" {
			if rel, err := filepath.Rel(p.CWD, a); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return []string{filepath.ToSlash(rel)}
			}
		}
		return []string{filepath.ToSlash(a)}
	}
	switch {
	case strings.HasPrefix(pattern, "//"):
		return abs(pattern[1:])
	case strings.HasPrefix(pattern, "~/"):
		out := []string{pattern}
		if p.Home != "" {
			out = append(out, abs(filepath.Join(p.Home, pattern[2:]))...)
		}
		return out
	case strings.HasPrefix(pattern, "/"):
		root := p.Root
		if root == "" {
			root = p.CWD
		}
		return abs(filepath.Join(root, pattern[1:]))
	}
	anchored := strings.HasPrefix(pattern, "./")
	pattern = strings.TrimPrefix(pattern, "./")
	if !anchored && !strings.Contains(strings.TrimSuffix(pattern, "/**"), "/") && !strings.HasPrefix(pattern, "**") {
		pattern = "**/" + pattern
	}
	if dir, ok := strings.CutSuffix(pattern, "/**"); ok && dir != "" && dir != "**" {
		// The directory itself too: grep of secrets/ is inside secrets/**.
		return []string{pattern, dir}
	}
	return []string{pattern}
}

// claudeLists is the "permissions" member of a Claude Code settings file;
// its other members (defaultMode, additionalDirectories) are not rules.
type claudeLists struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}

// AddClaude adds the rules of the "permissions" member raw of the Claude
// Code settings file named file. Deny and ask rules always count; allow
// rules of a project file (SourceClaudeProject) count only when trusted,
// and are kept as ignored otherwise, for /permissions and Admit. Entries
// that cannot be mapped come back as warnings, one per entry.
func (s *Set) AddClaude(raw json.RawMessage, file string, src Source, trusted bool, p ClaudePaths) []string {
	if len(raw) == 0 {
		return nil
	}
	var l claudeLists
	if err := json.Unmarshal(raw, &l); err != nil {
		return []string{fmt.Sprintf("%s: permissions: %v; its rules are ignored", file, err)}
	}
	var warns []string
	for _, g := range []struct {
		e       Effect
		entries []string
	}{{Deny, l.Deny}, {Ask, l.Ask}, {Allow, l.Allow}} {
		for _, entry := range g.entries {
			rules, err := ClaudeRules(entry, g.e, src, p)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s: %v", file, err))
				continue
			}
			for _, r := range rules {
				if g.e == Allow && src == SourceClaudeProject && !trusted {
					s.mu.Lock()
					s.ignored = append(s.ignored, r)
					s.mu.Unlock()
					continue
				}
				s.Add(r)
			}
		}
	}
	return warns
}
