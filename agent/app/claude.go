package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/host/hooks"
	"github.com/zut-go/zut/provider"
)

// Claude Code's settings files: the user's ~/.claude/settings.json and
// the project's .claude/settings.json and .claude/settings.local.json (in
// the working directory, as .zut/settings.json is). zut reads two of
// their members: "permissions" (mapped onto zut's rules:
// permissions.ClaudeRules) and "hooks" (run by package hooks, on the
// interception chain: hooks.go). The project's files come with the
// repository: their allow rules and their hooks count only once the
// folder is trusted (they are among host.ProjectConfigFiles, so a changed
// file asks again); their deny and ask rules always count.

// ClaudeSettingsFiles are the project's Claude Code settings files,
// relative to the working directory.
var ClaudeSettingsFiles = []string{".claude/settings.json", ".claude/settings.local.json"}

// claudeMembers are the members of a Claude Code settings file zut reads.
var claudeMembers = []string{"permissions", "hooks"}

// claudeFile is one Claude Code settings file that exists.
type claudeFile struct {
	Path    string
	Project bool
	members map[string]json.RawMessage
	// Ignored are its members zut does not read, for zut config show.
	Ignored []string
	Err     error
}

// loadClaude reads the Claude Code settings files that exist; a file
// that cannot be read is kept with its error.
func loadClaude(userHome, cwd string) []claudeFile {
	var paths []claudeFile
	if userHome != "" {
		paths = append(paths, claudeFile{Path: filepath.Join(userHome, ".claude", "settings.json")})
	}
	for _, f := range ClaudeSettingsFiles {
		paths = append(paths, claudeFile{Path: filepath.Join(cwd, f), Project: true})
	}
	var out []claudeFile
	for _, f := range paths {
		data, err := provider.ReadRegular(f.Path, provider.MaxConfigFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = json.Unmarshal(data, &f.members)
			if err != nil {
				err = fmt.Errorf("read %s: not a JSON object (%v); fix it, or zut reads nothing of it", f.Path, err)
			}
		}
		f.Err = err
		for name := range f.members {
			if !slices.Contains(claudeMembers, name) {
				f.Ignored = append(f.Ignored, name)
			}
		}
		sort.Strings(f.Ignored)
		out = append(out, f)
	}
	return out
}

// source is the permission source of the file's rules.
func (f claudeFile) source() permissions.Source {
	if f.Project {
		return permissions.SourceClaudeProject
	}
	return permissions.SourceClaudeUser
}

// addClaudeRules adds the rules of the Claude Code settings files to set
// and returns the warnings (an entry zut cannot map is named once).
func (a *App) addClaudeRules(set *permissions.Set) []string {
	var warns []string
	for _, f := range a.claude {
		if f.Err != nil {
			warns = append(warns, f.Err.Error())
			continue
		}
		p := permissions.ClaudePaths{CWD: a.cwd, Root: filepath.Dir(filepath.Dir(f.Path)), Home: a.env.Getenv("HOME")}
		warns = append(warns, set.AddClaude(f.members["permissions"], f.Path, f.source(), a.trust.Trusted, p)...)
	}
	return warns
}

// claudeHooks reads the hooks of the Claude Code settings files, the
// user's first.
func (a *App) claudeHooks() (*hooks.Config, []string) {
	c := &hooks.Config{}
	var warns []string
	for _, f := range a.claude {
		if f.Err == nil {
			warns = append(warns, c.Add(f.members["hooks"], f.Path, f.Project)...)
		}
	}
	return c, warns
}

// startHooks makes the hook bridge around inner when the settings files
// have hooks; nil when they have none.
func (a *App) startHooks(inner agent.Extensions) *hookBridge {
	cfg, warns := a.claudeHooks()

	for _, w := range warns {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", w)
	}
	if cfg.Empty() {
		return nil
	}
	a.hooks = &hookBridge{
		inner:   inner,
		cfg:     cfg,
		run:     hooks.Runner{Dir: a.cwd, Env: a.childEnv()},
		trusted: func() bool { return a.trust.Trusted },
		session: func() (string, string) { return a.sess.ID(), a.sess.Path() },
		emit:    a.emit,
	}
	return a.hooks
}

// sessionSource is SessionStart's source: resume for a session picked up
// again, startup otherwise.
func (a *App) sessionSource() string {
	if a.opts.Continue || a.opts.ResumeSet || a.sess.Len() > 0 {
		return "resume"
	}
	return "startup"
}

// hookSection is the system prompt's part of SessionStart hooks' context
// ("" when they gave none).
func (a *App) hookSection() string {
	if a.hookContext == "" {
		return ""
	}
	return "\n\n# Context from SessionStart hooks\n\n" + a.hookContext
}
