package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
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
	CWD  string
	Home string // $ZUT_HOME, for the global AGENTS.md
	// UserHome is the user's home directory, for ~/.claude/CLAUDE.md,
	// ~/.codex/AGENTS.md and ~/ in @imports ("" skips them).
	UserHome string
	Replace  string // --system-prompt text (already read from @file)
	Append   string // --append-system-prompt text
	// NoContextFiles skips AGENTS.md / CLAUDE.md.
	NoContextFiles bool
	// Skills is the skills manifest block ("" when none or --no-skills).
	Skills string
	Now    time.Time
}

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
		files = ContextFiles(ContextOptions{ZutHome: o.Home, UserHome: o.UserHome, CWD: o.CWD})
		for _, f := range files {
			if f.Skipped != "" {
				continue
			}
			if f.ImportedBy != "" {
				fmt.Fprintf(&b, "\n\n# Instructions from %s (imported by %s)\n\n%s", f.Path, f.ImportedBy, strings.TrimSpace(f.Content))
			} else {
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
