package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/zut-go/zut/provider"
)

// defaultPrompt is zut's system prompt when --system-prompt does not
// replace it.
const defaultPrompt = `You are zut, a coding agent working in the user's terminal, in their project.
You help with software tasks by reading code, running commands and editing files with the tools
you have.

How to work:
- Look before you change: read the relevant files and search the code before editing.
- Make the smallest change that does the job, in the style of the surrounding code.
- Prefer the edit tool for changes to existing files; use write for new files or full rewrites.
- Run the project's build and tests after changes when you can, and report what they showed.
- Give bash commands a timeout that fits them. Do not start interactive programs.
- When something fails, read the error and fix the cause; do not repeat a failing step unchanged.
- Ask the user when the request is ambiguous or a step is destructive and not clearly wanted.
- Be brief in answers: lead with the result, then what the user needs to know. Use markdown.
  Refer to code as path:line.`

// PromptOptions are the inputs of SystemPrompt.
type PromptOptions struct {
	CWD     string
	Home    string // $ZUT_HOME, for the global AGENTS.md
	Replace string // --system-prompt text (already read from @file)
	Append  string // --append-system-prompt text
	// NoContextFiles skips AGENTS.md / CLAUDE.md.
	NoContextFiles bool
	// Skills is the skills manifest block ("" when none or --no-skills).
	Skills string
	Now    time.Time
}

// ContextFile is an instruction file included in the system prompt.
type ContextFile struct {
	Path    string
	Content string
	// Skipped says why the file was not used (it is a FIFO, a device or a
	// directory, or could not be read); Content is then empty and the
	// file is left out of the prompt. The app shows it as a warning.
	Skipped string
}

// maxContextFile bounds one context file's size in the prompt.
const maxContextFile = 64 << 10

// SystemPrompt assembles the system prompt: the default (or replacement)
// text, the context files, the skills manifest, the appended text and the
// environment facts. It returns the context files it used.
func SystemPrompt(o PromptOptions) (string, []ContextFile) {
	var b strings.Builder
	base := defaultPrompt
	if o.Replace != "" {
		base = o.Replace
	}
	b.WriteString(strings.TrimSpace(base))
	var files []ContextFile
	if !o.NoContextFiles {
		files = ContextFiles(o.Home, o.CWD)
		for _, f := range files {
			if f.Skipped == "" {
				fmt.Fprintf(&b, "\n\n# Project instructions from %s\n\n%s", f.Path, strings.TrimSpace(f.Content))
			}
		}
	}
	if s := strings.TrimSpace(o.Skills); s != "" {
		b.WriteString("\n\n")
		b.WriteString(s)
	}
	if s := strings.TrimSpace(o.Append); s != "" {
		b.WriteString("\n\n")
		b.WriteString(s)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	fmt.Fprintf(&b, "\n\nEnvironment: working directory %s; platform %s/%s; date %s.",
		o.CWD, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	return b.String(), files
}

// ContextFiles finds AGENTS.md (or CLAUDE.md where a directory has no
// AGENTS.md) in home, then in every directory from the repository root
// down to cwd. Without a repository only cwd is searched.
func ContextFiles(home, cwd string) []ContextFile {
	var dirs []string
	if home != "" {
		dirs = append(dirs, home)
	}
	root := repoRoot(cwd)
	if root == "" {
		dirs = append(dirs, cwd)
	} else {
		var chain []string
		for d := cwd; ; d = filepath.Dir(d) {
			chain = append(chain, d)
			if d == root || filepath.Dir(d) == d {
				break
			}
		}
		for i := len(chain) - 1; i >= 0; i-- {
			dirs = append(dirs, chain[i])
		}
	}
	var out []ContextFile
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			p := filepath.Join(d, name)
			data, err := readContextFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if seen[p] {
				break
			}
			seen[p] = true
			if err != nil {
				out = append(out, ContextFile{Path: p, Skipped: err.Error()})
				break
			}
			if len(data) > maxContextFile {
				data = append(data[:maxContextFile:maxContextFile], []byte("\n[truncated: file larger than 64 KiB]")...)
			}
			out = append(out, ContextFile{Path: p, Content: string(data)})
			break
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

// repoRoot returns the nearest ancestor of dir (or dir) holding .git.
func repoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
