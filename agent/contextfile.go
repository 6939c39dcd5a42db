package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/provider"
)

// The context files are the instruction files of the user and of the
// project that go into the system prompt: AGENTS.md (zut's, Codex's and
// pi's name), CLAUDE.md and CLAUDE.local.md (Claude Code's). They are
// looked for in ~/.claude, ~/.codex, ~/.pi/agent (pi's) and $ZUT_HOME,
// then in every directory
// from the repository root down to the working directory; a directory
// may hold several, and all count, in that order. A file may pull others
// in with @path (relative to the file, or ~/...), up to maxImportDepth
// levels deep; every file is read once, whatever its name or link.

// ContextFile is an instruction file included in the system prompt.
type ContextFile struct {
	Path    string
	Content string
	// ImportedBy is the file whose @path brought this one in ("" for a
	// file found by its name).
	ImportedBy string
	// Skipped says why the file was not used (it is a FIFO, a device or a
	// directory, could not be read, is missing though imported, was
	// already included, or the total cap was reached); Content is then
	// empty and the file is left out of the prompt. The app shows it as a
	// note and in zut config show.
	Skipped string
}

// ContextOptions says where ContextFiles looks.
type ContextOptions struct {
	ZutHome  string // $ZUT_HOME
	UserHome string // the user's home: ~/.claude, ~/.codex, ~/.pi/agent and ~/ in imports
	CWD      string
}

const (
	// maxContextFile bounds one context file's size in the prompt.
	maxContextFile = 64 << 10
	// maxContextTotal bounds all context files together.
	maxContextTotal = 256 << 10
	// maxImportDepth is how deep @path imports nest.
	maxImportDepth = 5
	// maxContextFiles bounds how many files (imports included) are read.
	maxContextFiles = 100
)

// contextNames are the names looked for in each directory, in order.
var contextNames = []string{"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md"}

// ContextFiles finds the context files of o, in prompt order: the user's
// (~/.claude, ~/.codex, ~/.pi/agent, $ZUT_HOME), then the project's from the
// repository root down to o.CWD (only o.CWD without a repository), each
// followed by the files it imports.
func ContextFiles(o ContextOptions) []ContextFile {
	var dirs []string
	if o.UserHome != "" {
		dirs = append(dirs, filepath.Join(o.UserHome, ".claude"), filepath.Join(o.UserHome, ".codex"), filepath.Join(o.UserHome, ".pi", "agent"))
	}
	if o.ZutHome != "" {
		dirs = append(dirs, o.ZutHome)
	}
	dirs = append(dirs, projectDirs(o.CWD)...)
	c := &contextReader{home: o.UserHome}
	for _, d := range dirs {
		for _, name := range contextNames {
			c.add(filepath.Join(d, name), "", 0, false)
		}
	}
	return c.out
}

// projectDirs are the directories from the repository root of cwd down to
// cwd, or cwd alone outside a repository.
func projectDirs(cwd string) []string {
	root := repoRoot(cwd)
	if root == "" {
		return []string{cwd}
	}
	var chain []string
	for d := cwd; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	out := make([]string, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, chain[i])
	}
	return out
}

// contextReader collects context files, each once.
type contextReader struct {
	home   string
	out    []ContextFile
	seen   []os.FileInfo // the files read so far, to know a link or a second name
	total  int
	capped bool
}

// add reads the file at p (imported by from at depth, or found by name
// when from is ""), then its imports. A file found by name that does not
// exist is no news; an import that does not exist is noted.
func (c *contextReader) add(p, from string, depth int, imported bool) {
	if len(c.out) >= maxContextFiles {
		return
	}
	fi, statErr := os.Stat(p)
	if errors.Is(statErr, fs.ErrNotExist) {
		// Most names are absent in most places: no open to learn it again.
		if imported {
			c.out = append(c.out, ContextFile{Path: p, ImportedBy: from, Skipped: "not found; fix the @path in " + from})
		}
		return
	}
	if statErr == nil {
		for _, s := range c.seen {
			if os.SameFile(s, fi) {
				if imported {
					c.out = append(c.out, ContextFile{Path: p, ImportedBy: from, Skipped: "already included (an import cycle or a second import of the same file)"})
				}
				return
			}
		}
	}
	data, err := readContextFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if imported {
			c.out = append(c.out, ContextFile{Path: p, ImportedBy: from, Skipped: "not found; fix the @path in " + from})
		}
		return
	}
	if statErr == nil {
		c.seen = append(c.seen, fi)
	}
	if err != nil {
		c.out = append(c.out, ContextFile{Path: p, ImportedBy: from, Skipped: err.Error()})
		return
	}
	if c.total+len(data) > maxContextTotal {
		c.out = append(c.out, ContextFile{Path: p, ImportedBy: from,
			Skipped: fmt.Sprintf("left out: the context files reached their %d KiB total; shorten or split them", maxContextTotal>>10)})
		return
	}
	if len(data) > maxContextFile {
		data = append(data[:maxContextFile:maxContextFile], []byte("\n[truncated: file larger than 64 KiB]")...)
	}
	c.total += len(data)
	c.out = append(c.out, ContextFile{Path: p, Content: string(data), ImportedBy: from})
	refs := imports(string(data))
	if len(refs) == 0 {
		return
	}
	if depth >= maxImportDepth {
		c.out = append(c.out, ContextFile{Path: p, ImportedBy: from,
			Skipped: fmt.Sprintf("its @imports were not followed: imports nest at most %d levels", maxImportDepth)})
		return
	}
	for _, r := range refs {
		c.add(c.resolve(r, filepath.Dir(p)), p, depth+1, true)
	}
}

// resolve turns an @path into a file path: ~/ is the user's home, a
// relative path is relative to the importing file's directory.
func (c *contextReader) resolve(ref, dir string) string {
	if rest, ok := strings.CutPrefix(ref, "~/"); ok && c.home != "" {
		return filepath.Join(c.home, filepath.FromSlash(rest))
	}
	if filepath.IsAbs(ref) {
		return filepath.Clean(ref)
	}
	return filepath.Join(dir, filepath.FromSlash(ref))
}

// imports returns the @path references of a context file's text, in
// order: an @ at the start of a word followed by something that reads as
// a path (it holds a '/' or a '.', or starts with ~), outside code spans
// and fenced code blocks. Trailing punctuation is not part of the path.
func imports(text string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		inCode := false
		for i := 0; i < len(line); i++ {
			switch {
			case line[i] == '`':
				inCode = !inCode
			case line[i] == '@' && !inCode && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t' || line[i-1] == '('):
				j := i + 1
				for j < len(line) && !strings.ContainsRune(" \t`'\"<>", rune(line[j])) {
					j++
				}
				ref := strings.TrimRight(line[i+1:j], ".,;:!?)]")
				if ref != "" && (strings.ContainsAny(ref, "/.") || strings.HasPrefix(ref, "~")) {
					out = append(out, ref)
				}
				i = j - 1
			}
		}
	}
	return out
}

// readContextFile reads at most maxContextFile+1 bytes of a regular
// file: a FIFO or device planted as AGENTS.md is refused at once.
func readContextFile(p string) ([]byte, error) {
	f, err := provider.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxContextFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", p, err)
	}
	return data, nil
}
