package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host"
)

// Code that comes with a repository runs only once the user trusts the
// repository: the project extensions (./.zut/extensions), the project's
// MCP servers (.mcp.json) and language servers (.zut/lsp.json), the
// allow rules of its .zut/settings.json, and the hooks and allow rules of
// its Claude Code settings (.claude/settings.json,
// .claude/settings.local.json; claude.go). One
// answer covers them all; it is kept in $ZUT_HOME/trust.json under the
// repository root with a digest of what was trusted, so a changed
// manifest or configuration asks again. --ext directories and global
// extensions are the user's own choice and always run.

// Trust is what the project asks to run and whether it may.
type Trust struct {
	// Root is the repository root the answer is kept under.
	Root string
	// Digest sums the manifests and files below.
	Digest string
	// Extensions are the project extensions, as "name (exec)".
	Extensions []string
	// Files are the project configuration files that exist.
	Files []string
	// Trusted says they may run: the user trusted this digest before, or
	// passed --trust, or there is nothing to trust.
	Trusted bool
	// Explicit says the user trusts the folder itself (--trust, or this
	// digest in the store), which language servers need even when the
	// project has no code of its own to trust: they run the repository's.
	Explicit bool
	// StoreErr is why the trust store could not be read (it trusts
	// nothing then).
	StoreErr error
}

// Empty reports whether the project has nothing that needs trust.
func (t Trust) Empty() bool { return len(t.Extensions) == 0 && len(t.Files) == 0 }

// Summary lists what would run, for a question or a note: "extensions:
// guard (./guard), todo (node index.js); .mcp.json".
func (t Trust) Summary() string {
	var parts []string
	if len(t.Extensions) > 0 {
		parts = append(parts, "extensions: "+strings.Join(t.Extensions, ", "))
	}
	parts = append(parts, t.Files...)
	return strings.Join(parts, "; ")
}

// projectTrust looks at what the project in cwd would run.
func projectTrust(home, cwd string, exts []string, flag bool) Trust {
	t := Trust{Root: host.ProjectRoot(cwd)}
	var project []host.Entry
	for _, e := range host.Discover(home, cwd, exts) {
		if e.Scope != host.ScopeProject || !e.RunsCode() {
			continue
		}
		project = append(project, e)
		name, exec := filepath.Base(e.Dir), ""
		if e.Manifest != nil {
			name = e.Manifest.Name
			exec = strings.Join(append([]string{e.Manifest.Exec}, e.Manifest.Args...), " ")
		}
		if exec != "" {
			name += " (" + exec + ")"
		}
		t.Extensions = append(t.Extensions, name)
	}
	t.Digest, t.Files = host.ProjectDigest(project, cwd)
	t.Explicit = flag
	if !flag {
		ok, err := host.OpenTrust(home).Trusted(t.Root, t.Digest)
		t.Explicit, t.StoreErr = ok, err
	}
	t.Trusted = t.Explicit || t.Empty()
	if t.Empty() {
		t.StoreErr = nil // nothing was kept from running
	}
	return t
}

// FolderTrusted reports whether the user trusts the project in cwd as it
// is now, for zut mcp and zut ext, which run without an App.
func FolderTrusted(home, cwd string) bool { return projectTrust(home, cwd, nil, false).Trusted }

// ProjectTrust is what the project would run and whether it may.
func (a *App) ProjectTrust() Trust { return a.trust }

// trustedRepo is the repository root language servers may work in: the
// project's, when the user trusts the folder itself; else "".
func (a *App) trustedRepo() string {
	if !a.trust.Explicit {
		return ""
	}
	return a.trust.Root
}

// projectTrusted reports whether project code may run.
func (a *App) projectTrusted() bool { return a.trust.Trusted }

// TrustProject records the user's trust in the project and starts what
// it holds: the extensions are loaded again, with the project's ones.
func (a *App) TrustProject() error {
	if err := host.OpenTrust(a.home).Allow(a.trust.Root, a.trust.Digest); err != nil {
		return fmt.Errorf("trust %s: %w", a.trust.Root, err)
	}
	a.trust.Trusted, a.trust.Explicit = true, true
	a.rules.Admit() // the project's allow rules
	// The language servers of .zut/lsp.json start with the next tools.
	a.closeLSP()
	// The servers of .mcp.json start now; their tools join when ready.
	if a.mcp != nil {
		for _, s := range a.mcp.Untrusted() {
			if err := a.mcp.Trust(s.Name); err != nil {
				return fmt.Errorf("start MCP server %s: %w", s.Name, err)
			}
		}
	}
	return nil
}

// trustNow is the host's Config.TrustProject, asked before every start
// and restart of the project extensions (start, /reload-ext, the RPC
// reload): the answer is computed again from the files as they are now,
// so an edited run.sh or a newly added extension since the folder was
// trusted drops the trust (unless --trust). The interactive UI then asks
// again (it calls askTrust after a reload); the other modes keep the
// project code off and say so on stderr, with the note they print at
// start. The language servers follow on the tools' next build.
func (a *App) trustNow([]host.Entry) bool {
	t := projectTrust(a.home, a.cwd, a.opts.Exts, a.opts.Trust)
	old := a.trust
	a.trust = t
	if t.Trusted {
		return true
	}
	if old.Digest != t.Digest || old.Trusted {
		note := "the project code changed since it was trusted: " + t.untrustedNote()
		if a.front.Interactive {
			a.ui.get().Notify("", "warn", note)
		} else {
			fmt.Fprintf(a.env.Stderr, "zut: %s\n", note)
		}
	}
	return false
}

// untrustedNote is the line print, JSON and RPC modes show when they skip
// project code.
func (t Trust) untrustedNote() string {
	return fmt.Sprintf("this folder is not trusted, so its %s stay off (project allow rules do not count); pass --trust to use them once, or trust the folder in the interactive UI", t.Summary())
}

// UntrustedServers are the project's MCP servers waiting for trust, each
// as "name (command args)" or "name (URL)", for the trust question.
func (a *App) UntrustedServers() []string {
	if a.mcp == nil {
		return nil
	}
	var out []string
	for _, s := range a.mcp.Untrusted() {
		what := s.URL
		if s.Command != "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		out = append(out, s.Name+" ("+tools.Clip(what, 120)+")")
	}
	return out
}
