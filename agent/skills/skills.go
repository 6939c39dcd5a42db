// Package skills discovers skills: SKILL.md files whose front matter names
// the skill and says when to use it, and whose body holds the instructions
// the model loads on demand with the skill tool.
//
// Discover searches, in this order of precedence, .zut/skills,
// $ZUT_HOME/skills, .agents/skills, .claude/skills (Claude Code's) and
// .pi/skills (pi's), ~/.agents/skills, ~/.claude/skills,
// ~/.pi/agent/skills and the skill directories bundled with extensions; the project's directories are looked for in the
// working directory and in each directory above it up to the repository
// root, nearest first. A skills directory holds either a
// SKILL.md directly or one <name>/SKILL.md per skill. When two skills share
// a name the first found wins and the others are reported as warnings.
//
// The package also discovers prompt templates (template.go): Markdown
// prompts the user runs as slash commands, which share the skills' front
// matter and their places in the project and the home directory.
package skills

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Skill is one discovered skill.
type Skill struct {
	// Name is the front matter's name, or the directory name when the front
	// matter has none.
	Name string
	// Description says what the skill does and when to use it.
	Description string
	// Path is the SKILL.md file.
	Path string
	// Dir is the directory holding SKILL.md; relative references in the
	// body resolve against it.
	Dir string
}

// Options says where Discover looks. Empty fields are skipped.
type Options struct {
	// CWD is the working directory: <CWD>/.zut/skills,
	// <CWD>/.agents/skills and <CWD>/.claude/skills are searched.
	CWD string
	// Root is the repository root holding CWD: the directories between
	// it and CWD are searched too ("" searches CWD alone).
	Root string
	// ZutHome is $ZUT_HOME: <ZutHome>/skills is searched.
	ZutHome string
	// Home is the user's home directory: <Home>/.agents/skills and
	// <Home>/.claude/skills are searched.
	Home string
	// ExtensionDirs are skill directories bundled with extensions, already
	// validated by the host (C23), searched last in the order given.
	ExtensionDirs []string
}

// Index is the result of discovery. It is immutable and safe for
// concurrent use.
type Index struct {
	skills   []Skill
	byName   map[string]int
	warnings []string
	dirs     []string // the directories searched, in order
}

// Discover finds the skills of opts. Problems (unreadable directories,
// bad front matter, duplicate names) never stop discovery; they are
// collected as warnings.
func Discover(opts Options) *Index {
	x := &Index{byName: map[string]int{}}
	var dirs []string
	up := upward(opts.CWD, opts.Root)
	for _, d := range up {
		dirs = append(dirs, filepath.Join(d, ".zut", "skills"))
	}
	if opts.ZutHome != "" {
		dirs = append(dirs, filepath.Join(opts.ZutHome, "skills"))
	}
	for _, d := range up {
		dirs = append(dirs, filepath.Join(d, ".agents", "skills"), filepath.Join(d, ".claude", "skills"), filepath.Join(d, ".pi", "skills"))
	}
	if opts.Home != "" {
		dirs = append(dirs, filepath.Join(opts.Home, ".agents", "skills"), filepath.Join(opts.Home, ".claude", "skills"),
			filepath.Join(opts.Home, ".pi", "agent", "skills"))
	}
	dirs = append(dirs, opts.ExtensionDirs...)
	seen := map[string]bool{}
	for _, d := range dirs {
		d = filepath.Clean(d)
		if seen[d] { // for example CWD == Home
			continue
		}
		seen[d] = true
		x.dirs = append(x.dirs, d)
		x.scan(d)
	}
	return x
}

// upward lists cwd and the directories above it up to root, nearest
// first; cwd alone when root is "" or does not hold cwd.
func upward(cwd, root string) []string {
	if cwd == "" {
		return nil
	}
	cwd, root = filepath.Clean(cwd), filepath.Clean(root)
	if rel, err := filepath.Rel(root, cwd); root == "." || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{cwd}
	}
	var out []string
	for d := cwd; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			return out
		}
	}
}

// Dirs returns the skills directories searched, in precedence order.
func (x *Index) Dirs() []string {
	if x == nil {
		return nil
	}
	return append([]string(nil), x.dirs...)
}

// New builds an index from skills already known, in precedence order; a
// later skill with a taken name becomes a warning. It serves callers that
// discover skills another way, and tests.
func New(skills ...Skill) *Index {
	x := &Index{byName: map[string]int{}}
	for _, s := range skills {
		x.add(s)
	}
	return x
}

// scan adds the skills of one skills directory.
func (x *Index) scan(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !os.IsNotExist(err) {
			x.warnf("skills directory %s: %v", dir, err)
		}
		return
	}
	direct := filepath.Join(dir, "SKILL.md")
	if fi, err := os.Stat(direct); err == nil {
		x.loadFile(direct, fi)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() { // follows symlinks
			continue
		}
		p := filepath.Join(sub, "SKILL.md")
		if fi, err := os.Stat(p); err == nil {
			x.loadFile(p, fi)
		}
	}
}

// loadFile loads the SKILL.md at path that fi describes, or warns that
// it is not a regular file (a FIFO or device there would hang a read).
func (x *Index) loadFile(path string, fi os.FileInfo) {
	if !fi.Mode().IsRegular() {
		x.warnf("skill %s: it is %s, not a regular file; the skill is skipped", path, provider.FileKind(fi.Mode()))
		return
	}
	x.load(path)
}

// load reads the front matter of one SKILL.md and adds the skill.
func (x *Index) load(path string) {
	f, err := provider.OpenRegular(path)
	if err != nil {
		x.warnf("skill %v", err)
		return
	}
	head, err := io.ReadAll(io.LimitReader(f, maxFrontMatter))
	f.Close()
	if err != nil {
		x.warnf("skill %s: %v", path, err)
		return
	}
	s, err := parseSkill(path, string(head))
	if err != nil {
		x.warnf("skill %s: %v; the skill is skipped until this is fixed", path, err)
		return
	}
	x.add(s)
}

// parseSkill builds a Skill from the beginning of its SKILL.md.
func parseSkill(path, text string) (Skill, error) {
	front, _, ok, err := splitFrontMatter(text)
	if err != nil {
		return Skill{}, err
	}
	if !ok {
		return Skill{}, fmt.Errorf("no front matter (start the file with ---, then name: and description: lines, then ---)")
	}
	fields, err := parseFrontMatter(front)
	if err != nil {
		return Skill{}, fmt.Errorf("front matter %v", err)
	}
	dir := filepath.Dir(path)
	s := Skill{
		Name:        strings.TrimSpace(fields["name"]),
		Description: strings.TrimSpace(fields["description"]),
		Path:        path,
		Dir:         dir,
	}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if err := checkName(s.Name); err != nil {
		return Skill{}, err
	}
	if s.Description == "" {
		return Skill{}, fmt.Errorf("front matter has no description (add a description: line saying what the skill does and when to use it)")
	}
	return s, nil
}

// maxName bounds skill names.
const maxName = 64

// checkName accepts names usable in "/skill:<name>": letters, digits, "-",
// "_" and ".", at most 64 bytes.
func checkName(name string) error {
	if len(name) > maxName {
		return fmt.Errorf("name %q is longer than %d characters", name, maxName)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("name %q may only hold letters, digits, \"-\", \"_\" and \".\"", name)
		}
	}
	return nil
}

func (x *Index) add(s Skill) {
	if i, ok := x.byName[s.Name]; ok {
		x.warnf("skill %q in %s is ignored: a skill of that name is already loaded from %s", s.Name, s.Path, x.skills[i].Path)
		return
	}
	x.byName[s.Name] = len(x.skills)
	x.skills = append(x.skills, s)
}

func (x *Index) warnf(format string, a ...any) {
	x.warnings = append(x.warnings, fmt.Sprintf(format, a...))
}

// List returns the skills in precedence order. The caller may modify the
// returned slice.
func (x *Index) List() []Skill {
	if x == nil {
		return nil
	}
	return append([]Skill(nil), x.skills...)
}

// Lookup returns the skill called name.
func (x *Index) Lookup(name string) (Skill, bool) {
	if x == nil {
		return Skill{}, false
	}
	i, ok := x.byName[name]
	if !ok {
		return Skill{}, false
	}
	return x.skills[i], true
}

// Names returns the skill names in precedence order.
func (x *Index) Names() []string {
	if x == nil {
		return nil
	}
	names := make([]string, len(x.skills))
	for i, s := range x.skills {
		names[i] = s.Name
	}
	return names
}

// Warnings returns the problems met during discovery, one sentence each,
// naming the file or directory concerned.
func (x *Index) Warnings() []string {
	if x == nil {
		return nil
	}
	return append([]string(nil), x.warnings...)
}
