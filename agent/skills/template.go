package skills

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

// Prompt templates are Markdown files a user runs as /name: Claude Code's
// custom commands, Codex's prompts, pi's prompt templates and zut's own.
// The file's body is the prompt; $ARGUMENTS in it stands for what follows
// the name, $1 to $9 for its words (quotes group words). Optional front
// matter says what the template does (description), what it takes
// (argument-hint), which tools it may use without asking (allowed-tools,
// in Claude Code's rule syntax) and which model it wants (model).
// Subdirectories give namespaced names: frontend/review.md is
// /frontend:review.

// Template is one prompt template.
type Template struct {
	// Name is the command name without the slash: "fix-issue",
	// "frontend:review".
	Name         string
	Description  string
	ArgumentHint string
	// AllowedTools are the front matter's allowed-tools entries, as
	// written (Claude Code's syntax: Bash(git add:*), Read).
	AllowedTools []string
	Model        string
	Path         string
	// Project says the template comes with the repository (its
	// allowed-tools count only in a trusted folder).
	Project bool
	Body    string
}

// TemplateOptions says where DiscoverTemplates looks. Empty fields are
// skipped.
type TemplateOptions struct {
	CWD     string // .zut/prompts, .claude/commands and .pi/prompts here and above, up to Root
	Root    string // the repository root ("" searches CWD alone)
	ZutHome string // $ZUT_HOME/prompts
	Home    string // ~/.claude/commands, ~/.codex/prompts, ~/.pi/agent/prompts
}

// Templates is the result of template discovery; immutable and safe for
// concurrent use.
type Templates struct {
	list     []Template
	byName   map[string]int
	warnings []string
	dirs     []string
}

const (
	// maxTemplate bounds one template file.
	maxTemplate = 64 << 10
	// maxTemplates bounds how many templates are loaded.
	maxTemplates = 500
	// maxTemplateDepth bounds the namespace levels (a/b/c.md is a:b:c).
	maxTemplateDepth = 3
)

// DiscoverTemplates finds the templates of o. The project's directories
// come first (nearest first), then the user's; when two templates share a
// name the first found wins and the other is a warning.
func DiscoverTemplates(o TemplateOptions) *Templates {
	x := &Templates{byName: map[string]int{}}
	type dir struct {
		path    string
		project bool
	}
	var dirs []dir
	for _, d := range upward(o.CWD, o.Root) {
		dirs = append(dirs, dir{filepath.Join(d, ".zut", "prompts"), true}, dir{filepath.Join(d, ".claude", "commands"), true}, dir{filepath.Join(d, ".pi", "prompts"), true})
	}
	if o.ZutHome != "" {
		dirs = append(dirs, dir{filepath.Join(o.ZutHome, "prompts"), false})
	}
	if o.Home != "" {
		dirs = append(dirs, dir{filepath.Join(o.Home, ".claude", "commands"), false}, dir{filepath.Join(o.Home, ".codex", "prompts"), false},
			dir{filepath.Join(o.Home, ".pi", "agent", "prompts"), false})
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d.path] {
			continue
		}
		seen[d.path] = true
		x.dirs = append(x.dirs, d.path)
		x.scan(d.path, "", d.project, 0)
	}
	return x
}

// scan loads the .md files of dir, prefixing their names with ns.
func (x *Templates) scan(dir, ns string, project bool, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && depth == 0 {
			x.warnf("prompt templates directory %s: %v", dir, err)
		}
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || len(x.list) >= maxTemplates {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p) // follows links
		if err != nil {
			continue
		}
		if fi.IsDir() {
			if depth+1 < maxTemplateDepth && checkName(name) == nil {
				x.scan(p, ns+name+":", project, depth+1)
			}
			continue
		}
		base, ok := strings.CutSuffix(name, ".md")
		if !ok {
			continue
		}
		if err := checkName(base); err != nil {
			x.warnf("prompt template %s: %v; it is skipped", p, err)
			continue
		}
		t, err := loadTemplate(p)
		if err != nil {
			x.warnf("prompt template %v; it is skipped until this is fixed", err)
			continue
		}
		t.Name, t.Project = ns+base, project
		x.add(t)
	}
}

// loadTemplate reads and parses the template file at p.
func loadTemplate(p string) (Template, error) {
	data, err := provider.ReadRegular(p, maxTemplate)
	if err != nil {
		return Template{}, err
	}
	return parseTemplate(p, string(data))
}

// parseTemplate builds a Template from a file's text.
func parseTemplate(p, text string) (Template, error) {
	t := Template{Path: p}
	front, body, ok, err := splitFrontMatter(text)
	if err != nil {
		return Template{}, fmt.Errorf("%s: %v", p, err)
	}
	t.Body = strings.TrimSpace(body)
	if ok {
		f, err := parseFrontMatter(front)
		if err != nil {
			return Template{}, fmt.Errorf("%s: front matter %v", p, err)
		}
		t.Description = strings.TrimSpace(f["description"])
		t.ArgumentHint = strings.TrimSpace(f["argument-hint"])
		t.Model = strings.TrimSpace(f["model"])
		t.AllowedTools = splitTools(f["allowed-tools"])
	}
	if t.Description == "" {
		for _, line := range strings.Split(t.Body, "\n") {
			if line = strings.TrimSpace(strings.TrimLeft(line, "# ")); line != "" {
				t.Description = clipLine(line)
				break
			}
		}
	}
	return t, nil
}

// splitTools splits an allowed-tools value: "Bash(git add:*), Read", a
// flow list "[Read, Grep]", names separated by spaces, or a block list
// (folded to "- Read - Grep"). Commas and spaces inside parentheses stay
// in their entry.
func splitTools(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		s := strings.Trim(strings.TrimSpace(v[start:end]), "\"'")
		if s != "" && s != "-" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(v))
	return out
}

// Expand returns the prompt the template sends for args: $ARGUMENTS is
// args, $1 to $9 its words. When the body uses neither, non-empty args
// follow the body after a blank line, so they are never lost.
func (t Template) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := splitArgs(args)
	used := false
	var b strings.Builder
	body := t.Body
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9':
			if n := int(rest[0] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			i++
			used = true
		default:
			b.WriteByte('$')
		}
	}
	out := b.String()
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}

// splitArgs splits args into words at spaces; single or double quotes
// group words ("a b" is one word, without its quotes).
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quote, in := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func (x *Templates) add(t Template) {
	if i, ok := x.byName[t.Name]; ok {
		x.warnf("prompt template /%s in %s is ignored: /%s is already loaded from %s", t.Name, t.Path, t.Name, x.list[i].Path)
		return
	}
	x.byName[t.Name] = len(x.list)
	x.list = append(x.list, t)
}

func (x *Templates) warnf(format string, a ...any) {
	x.warnings = append(x.warnings, fmt.Sprintf(format, a...))
}

// List returns the templates in precedence order.
func (x *Templates) List() []Template {
	if x == nil {
		return nil
	}
	return append([]Template(nil), x.list...)
}

// Lookup finds the template name (case-insensitive, as slash commands
// are).
func (x *Templates) Lookup(name string) (Template, bool) {
	if x == nil {
		return Template{}, false
	}
	if i, ok := x.byName[name]; ok {
		return x.list[i], true
	}
	for _, t := range x.list {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return Template{}, false
}

// Warnings returns the problems met during discovery.
func (x *Templates) Warnings() []string {
	if x == nil {
		return nil
	}
	return append([]string(nil), x.warnings...)
}

// Dirs returns the directories searched, in precedence order.
func (x *Templates) Dirs() []string {
	if x == nil {
		return nil
	}
	return append([]string(nil), x.dirs...)
}
