package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/host/hooks"
	"github.com/zut-go/zut/host/mcp"
)

// zut config show (and /config) says which files of the user's setup
// count in this folder, zut's own and those of Claude Code, Codex and pi
// (docs/migrating.md): the context files in prompt order, the prompt
// templates, the skills, the settings files with their rules and hooks,
// the MCP servers, and what is left out and why. It starts nothing: no
// model, extension or server.

// ConfigHelp is the text of zut help config.
const ConfigHelp = `zut config show — which setup files count in this folder

  zut config show      the context files (AGENTS.md, CLAUDE.md, CLAUDE.local.md, their
                       @imports), prompt templates, skills, settings files (zut's and
                       Claude Code's, with their permission rules and hooks), the MCP
                       servers (Codex's config.toml too), whether the folder is trusted,
                       and what was left out and why

/config in the interactive UI, print mode and RPC shows the same.
See docs/migrating.md for what zut reads of Claude Code, Codex and pi.
`

// ConfigShow is zut config show.
func ConfigShow(e *Env, args []string) error {
	if len(args) == 0 || args[0] != "show" || len(args) > 1 {
		return Usagef("usage: zut config show")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	home := e.Home()
	trust := projectTrust(home, cwd, nil, false)
	userHome := e.Getenv("HOME")
	files := agent.ContextFiles(agent.ContextOptions{ZutHome: home, UserHome: userHome, CWD: cwd})
	r := setupReport{
		cwd: cwd, home: home, userHome: userHome, trust: trust, context: files,
		templates: skills.DiscoverTemplates(skills.TemplateOptions{CWD: cwd, Root: trust.Root, ZutHome: home, Home: userHome}),
		skills:    skills.Discover(skills.Options{CWD: cwd, Root: trust.Root, ZutHome: home, Home: userHome}),
		claude:    loadClaude(userHome, cwd),
	}
	r.mcp, r.mcpErr = mcp.LoadConfig(mcp.LoadOptions{Home: home, CWD: cwd, Getenv: e.Getenv, CodexFile: codexFileOf(userHome)})
	_, err = fmt.Fprint(e.Stdout, r.String())
	return err
}

// ConfigReport is /config: the same report for the running app.
func (a *App) ConfigReport() string {
	a.mu.Lock()
	files := a.contextFiles
	a.mu.Unlock()
	r := setupReport{
		cwd: a.cwd, home: a.home, userHome: a.env.Getenv("HOME"), trust: a.trust, context: files,
		templates: a.Templates(), skills: a.Skills(), claude: a.claude,
	}
	if a.opts.NoContextFiles {
		r.contextOff = true
	}
	r.mcp, r.mcpErr = mcp.LoadConfig(mcp.LoadOptions{Home: a.home, CWD: a.cwd, Flags: a.opts.MCPConfigs, Getenv: a.env.Getenv, CodexFile: a.codexFile()})
	return r.String()
}

func codexFileOf(userHome string) string {
	if userHome == "" {
		return ""
	}
	return mcp.CodexFile(userHome)
}

// setupReport is what the report shows.
type setupReport struct {
	cwd, home, userHome string
	trust               Trust
	context             []agent.ContextFile
	contextOff          bool
	templates           *skills.Templates
	skills              *skills.Index
	claude              []claudeFile
	mcp                 *mcp.Config
	mcpErr              error
}

func (r setupReport) short(p string) string {
	if r.userHome != "" {
		if rel, err := filepath.Rel(r.userHome, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

func (r setupReport) String() string {
	var b strings.Builder
	var notes []string
	fmt.Fprintf(&b, "setup of %s\n", r.cwd)
	if r.trust.Trusted {
		b.WriteString("folder: trusted (the project's allow rules, hooks, MCP and language servers count)\n")
	} else {
		fmt.Fprintf(&b, "folder: not trusted: %s stay off (project allow rules do not count); pass --trust or trust it in the interactive UI\n", r.trust.Summary())
	}

	b.WriteString("\ncontext files, in the order of the system prompt:\n")
	switch {
	case r.contextOff:
		b.WriteString("  off (--no-context-files)\n")
	case len(r.context) == 0:
		b.WriteString("  none (AGENTS.md, CLAUDE.md and CLAUDE.local.md are looked for from the repository root down to here, and in ~/.claude, ~/.codex and $ZUT_HOME)\n")
	}
	for _, f := range r.context {
		line := "  " + r.short(f.Path)
		if f.ImportedBy != "" {
			line += "  (imported by " + r.short(f.ImportedBy) + ")"
		}
		if f.Skipped != "" {
			line += "  left out: " + f.Skipped
		} else {
			line += fmt.Sprintf("  %d bytes", len(f.Content))
		}
		b.WriteString(line + "\n")
	}

	list := r.templates.List()
	fmt.Fprintf(&b, "\nprompt templates (%d):\n", len(list))
	for _, t := range list {
		extra := ""
		if len(t.AllowedTools) > 0 {
			extra = "  allowed-tools: " + strings.Join(t.AllowedTools, ", ")
			if t.Project && !r.trust.Trusted {
				extra += " (do not count: folder not trusted)"
			}
		}
		fmt.Fprintf(&b, "  /%s  %s%s\n", t.Name, r.short(t.Path), extra)
	}
	notes = append(notes, r.templates.Warnings()...)

	sk := r.skills.List()
	fmt.Fprintf(&b, "\nskills (%d):\n", len(sk))
	for _, s := range sk {
		fmt.Fprintf(&b, "  %s  %s\n", s.Name, r.short(s.Path))
	}
	notes = append(notes, r.skills.Warnings()...)

	b.WriteString("\nsettings files:\n")
	for _, f := range []string{filepath.Join(r.home, SettingsFile), filepath.Join(r.cwd, ProjectSettingsFile)} {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "  %s\n", r.short(f))
		}
	}
	for _, f := range r.claude {
		if f.Err != nil {
			fmt.Fprintf(&b, "  %s  error: %v\n", r.short(f.Path), f.Err)
			continue
		}
		var parts []string
		set := permissions.NewSet()
		warns := set.AddClaude(f.members["permissions"], r.short(f.Path), f.source(), r.trust.Trusted,
			permissions.ClaudePaths{CWD: r.cwd, Root: filepath.Dir(filepath.Dir(f.Path)), Home: r.userHome})
		notes = append(notes, warns...)
		if n := len(set.Rules()); n > 0 {
			parts = append(parts, fmt.Sprintf("%d permission rules", n))
		}
		if n := len(set.Ignored()); n > 0 {
			parts = append(parts, fmt.Sprintf("%d allow rules off (folder not trusted)", n))
		}
		var hc hooks.Config
		notes = append(notes, hc.Add(f.members["hooks"], r.short(f.Path), f.Project)...)
		counts := hc.Count()
		var evs []string
		for _, ev := range hooks.Events {
			if n := counts[ev][0] + counts[ev][1]; n > 0 {
				evs = append(evs, fmt.Sprintf("%s %d", ev, n))
			}
		}
		if len(evs) > 0 {
			h := "hooks: " + strings.Join(evs, ", ")
			if f.Project && !r.trust.Trusted {
				h += " (off: folder not trusted)"
			}
			parts = append(parts, h)
		}
		if len(f.Ignored) > 0 {
			parts = append(parts, "not read: "+strings.Join(f.Ignored, ", "))
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing zut reads")
		}
		fmt.Fprintf(&b, "  %s  %s\n", r.short(f.Path), strings.Join(parts, "; "))
	}

	b.WriteString("\nMCP servers:\n")
	switch {
	case r.mcpErr != nil:
		fmt.Fprintf(&b, "  error: %v\n", r.mcpErr)
	case r.mcp == nil || len(r.mcp.Servers) == 0:
		b.WriteString("  none (.mcp.json, $ZUT_HOME/mcp.json and ~/.codex/config.toml were looked at)\n")
	default:
		for _, s := range r.mcp.Servers {
			state := ""
			switch {
			case s.Err != nil:
				state = "  error: " + s.Err.Error()
			case !s.Enabled:
				state = "  disabled"
			case s.Origin == mcp.OriginProject && !r.trust.Trusted:
				state = "  off: folder not trusted"
			}
			fmt.Fprintf(&b, "  %s  %s (%s)%s\n", s.Name, r.short(s.File), s.Origin, state)
		}
	}
	if r.mcp != nil {
		for _, p := range r.mcp.Problems {
			notes = append(notes, p.Error())
		}
		notes = append(notes, r.mcp.Notes...)
	}
	if pi := filepath.Join(r.userHome, ".pi", "agent", "settings.json"); r.userHome != "" && exists(pi) {
		notes = append(notes, r.short(pi)+" is pi's own settings file: zut does not read it (docs/migrating.md)")
	}

	if len(notes) > 0 {
		sort.Strings(notes)
		notes = slices.Compact(notes)
		b.WriteString("\nnotes:\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	return b.String()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
