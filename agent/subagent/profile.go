package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Profile is an agent profile: a markdown file whose front matter names
// the agent and chooses its tools, model and reasoning, and whose body is
// added to the subagent's system prompt. The format is the one other
// coding agents read from .claude/agents, so that profiles users already
// wrote work here:
//
//	---
//	name: reviewer
//	description: Reviews a diff for bugs and missing tests.
//	tools: read, grep, bash        (or a YAML list; absent: every tool)
//	model: anthropic/claude-haiku-4-5  (absent or "inherit": the parent's)
//	reasoning: low
//	---
//	You review code. Report ...
//
// A profile only chooses tools and a model; it never runs code, so
// profiles of a cloned project need no trust.
type Profile struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Tools       []string `json:"tools,omitempty"` // nil: every tool a subagent may have
	Model       string   `json:"model,omitempty"`
	Reasoning   string   `json:"reasoning,omitempty"`
	Prompt      string   `json:"-"`
	Path        string   `json:"path"`
}

// maxProfile bounds a profile file.
const maxProfile = 64 << 10

// ProfileDirs are the directories profiles are read from, first found
// name first: the project's .zut/agents, $ZUT_HOME/agents, the project's
// .claude/agents and ~/.agents/agents.
func ProfileDirs(cwd, zutHome, home string) []string {
	var dirs []string
	if cwd != "" {
		dirs = append(dirs, filepath.Join(cwd, ".zut", "agents"))
	}
	if zutHome != "" {
		dirs = append(dirs, filepath.Join(zutHome, "agents"))
	}
	if cwd != "" {
		dirs = append(dirs, filepath.Join(cwd, ".claude", "agents"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".agents", "agents"))
	}
	return dirs
}

// LoadProfiles reads the *.md profiles of dirs; a name found in an
// earlier directory wins. Files that cannot be read or parsed are
// reported as warnings, one line each, and left out.
func LoadProfiles(dirs []string) (profiles []Profile, warnings []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("agent profiles %s: %v", d, err))
			}
			continue
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(d, e.Name())
			data, err := provider.ReadRegular(path, maxProfile)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("agent profile %s: %v", path, err))
				continue
			}
			p, err := ParseProfile(string(data), path)
			if err != nil {
				warnings = append(warnings, err.Error())
				continue
			}
			if seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			profiles = append(profiles, p)
		}
	}
	sort.SliceStable(profiles, func(i, j int) bool { return profiles[i].Name < profiles[j].Name })
	return profiles, warnings
}

// ParseProfile reads a profile's text; path names it in errors and gives
// the name when the front matter has none.
func ParseProfile(text, path string) (Profile, error) {
	fail := func(format string, a ...any) (Profile, error) {
		return Profile{}, fmt.Errorf("agent profile %s: %s", path, fmt.Sprintf(format, a...))
	}
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\uFEFF")
	p := Profile{Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".md")}
	if strings.HasPrefix(text, "---\n") {
		end := strings.Index(text[4:], "\n---")
		if end < 0 {
			return fail("the front matter opened with --- is never closed; add a --- line after it")
		}
		front := text[4 : 4+end]
		body := text[4+end+4:]
		body = strings.TrimPrefix(strings.TrimLeft(body, "-"), "\n")
		fields, err := frontMatter(front)
		if err != nil {
			return fail("%v", err)
		}
		for k, v := range fields {
			switch k {
			case "name":
				p.Name = strings.TrimSpace(v.text)
			case "description":
				p.Description = strings.TrimSpace(v.text)
			case "tools":
				p.Tools = v.list()
			case "model":
				p.Model = strings.TrimSpace(v.text)
			case "reasoning", "effort":
				p.Reasoning = strings.TrimSpace(v.text)
			}
		}
		text = body
	}
	p.Prompt = strings.TrimSpace(text)
	if !validName(p.Name) {
		return fail("name %q must be letters, digits, - and _ (at most 64)", p.Name)
	}
	if strings.EqualFold(p.Model, "inherit") {
		p.Model = ""
	}
	return p, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// value is a front matter value: a scalar's text, or a list's items.
type value struct {
	text  string
	items []string
	isSeq bool
}

// list returns the items of a list value, or of a comma-separated
// scalar ("read, grep, bash" and "[read, grep]").
func (v value) list() []string {
	items := v.items
	if !v.isSeq {
		s := strings.TrimSpace(v.text)
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if strings.TrimSpace(s) == "" {
			return nil
		}
		items = strings.Split(s, ",")
	}
	var out []string
	for _, it := range items {
		if it = unquote(strings.TrimSpace(it)); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// frontMatter reads the YAML subset profiles use: "key: value" lines
// (plain, quoted, or a | or > block), and "key:" followed by "- item"
// lines. Comments and blank lines are skipped.
func frontMatter(front string) (map[string]value, error) {
	out := map[string]value{}
	lines := strings.Split(front, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(t, "- ") {
			continue // nested content of a key zut does not read
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf("line %d: want \"key: value\", got %q", i+1, line)
		}
		rest = strings.TrimSpace(rest)
		// The indented lines that follow belong to this key.
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || lines[j][0] == ' ' || lines[j][0] == '\t' || strings.HasPrefix(lines[j], "- ")) {
			j++
		}
		cont := lines[i+1 : j]
		var v value
		switch {
		case rest == "" && len(cont) > 0 && strings.HasPrefix(strings.TrimSpace(firstNonBlank(cont)), "- "):
			v.isSeq = true
			for _, c := range cont {
				if c = strings.TrimSpace(c); strings.HasPrefix(c, "- ") {
					v.items = append(v.items, strings.TrimSpace(c[2:]))
				}
			}
		case rest == "|" || rest == "|-" || rest == ">" || rest == ">-":
			var parts []string
			for _, c := range cont {
				parts = append(parts, strings.TrimSpace(c))
			}
			sep := " "
			if rest[0] == '|' {
				sep = "\n"
			}
			v.text = strings.TrimSpace(strings.Join(parts, sep))
		default:
			v.text = unquote(rest)
			for _, c := range cont { // a plain value continued on indented lines
				if c = strings.TrimSpace(c); c != "" {
					v.text += " " + c
				}
			}
		}
		out[key] = v
		i = j - 1
	}
	return out, nil
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// unquote removes the quotes of a quoted scalar.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		inner := s[1 : len(s)-1]
		if s[0] == '"' {
			inner = strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n").Replace(inner)
		} else {
			inner = strings.ReplaceAll(inner, "''", "'")
		}
		return inner
	}
	return s
}

// toolAliases maps the tool names of other agents' profiles to zut's.
// Task (their subagent tool) maps to nothing: subagents do not spawn
// subagents.
func toolAliases() map[string]string {
	return toolAliasesLazy.get(func() map[string]string {
		return map[string]string{
			"read": "read", "write": "write", "edit": "edit", "multiedit": "edit", "bash": "bash", "grep": "grep",
			"glob": "grep", "ls": "bash", "bashoutput": "bash", "killbash": "bash", "killshell": "bash",
			"webfetch": "web_open", "websearch": "web_search", "todowrite": "plan", "todoread": "plan",
			"notebookread": "read", "notebookedit": "edit", "task": "",
		}
	})
}

var toolAliasesLazy lazy[map[string]string]
