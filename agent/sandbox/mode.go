package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Mode is one of the named sandboxes the user chooses with --sandbox,
// "sandbox" in config.json and /sandbox.
type Mode string

const (
	// ReadOnly lets commands read everywhere (but the hidden paths) and
	// write only in a private temp dir.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite lets commands also write the project, its git
	// worktrees and the paths the user adds; .git/hooks, .git/config and
	// .zut/ stay read-only.
	WorkspaceWrite Mode = "workspace-write"
	// DangerFullAccess is no sandbox: commands do what the user can.
	DangerFullAccess Mode = "danger-full-access"
)

// Modes are the modes in the order they are offered.
var Modes = []Mode{ReadOnly, WorkspaceWrite, DangerFullAccess}

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("sandbox mode %q: not one of read-only, workspace-write, danger-full-access", s)
}

// Project is what the named modes need to know of the project and the
// user's sandbox settings.
type Project struct {
	// Dir is the project directory.
	Dir string
	// Git are the project's other git checkouts and its git directory
	// (GitDirs); they are writable in workspace-write, their hooks and
	// config are not.
	Git []string
	// TempDir is the private temp dir, writable in both modes and the
	// commands' TMPDIR.
	TempDir string
	// Writable are more paths writable in workspace-write
	// (sandbox.writable).
	Writable []string
	// Hidden are paths commands see empty in both modes (sandbox.hidden,
	// and the app's own: its credentials, agent and daemon sockets).
	Hidden []string
	// ReadOnly are more paths kept read-only in both modes when they lie
	// in a writable tree (zut's own home).
	ReadOnly []string
	// Network gives commands the machine's network (sandbox.network);
	// otherwise they have a loopback interface of their own.
	Network bool
}

// Policy is the policy of mode m for the project; ok is false for
// danger-full-access, which confines nothing.
func (m Mode) Policy(pr Project) (p Policy, ok bool) {
	if m != ReadOnly && m != WorkspaceWrite {
		return Policy{}, false
	}
	p = Policy{Read: []string{"/"}, Network: NetworkNone, TempDir: pr.TempDir}
	if pr.Network {
		p.Network = NetworkFull
	}
	p.Hidden = append(p.Hidden, pr.Hidden...)
	p.ReadOnly = append(p.ReadOnly, pr.ReadOnly...)
	if pr.TempDir != "" {
		p.Write = append(p.Write, pr.TempDir)
	}
	if m == ReadOnly {
		return p, true
	}
	for _, d := range append([]string{pr.Dir}, pr.Git...) {
		if d == "" {
			continue
		}
		p.Write = append(p.Write, d)
		for _, ro := range []string{".git/hooks", ".git/config", ".zut", "hooks", "config"} {
			// hooks and config are those of a bare or common git dir
			if (ro == "hooks" || ro == "config") && filepath.Base(d) != ".git" && !strings.HasSuffix(d, ".git") {
				continue
			}
			p.ReadOnly = append(p.ReadOnly, filepath.Join(d, ro))
		}
		// the worktree tool's checkouts live in .zut/worktrees
		p.Write = append(p.Write, filepath.Join(d, ".zut", "worktrees"))
	}
	p.Write = append(p.Write, pr.Writable...)
	return p, true
}

// GitDirs lists the git checkouts of the repository dir is in, other than
// dir itself, and the repository's git directory when it lies outside
// dir (dir a linked worktree, or a subdirectory of the checkout). It
// runs git; without git or outside a repository it returns nothing.
func GitDirs(ctx context.Context, dir string) []string {
	var out []string
	add := func(p string) {
		// Only an absolute path is git's answer: a git on PATH that is
		// not git (a wrapper, a test's stand-in) adds nothing.
		if !filepath.IsAbs(p) || strings.ContainsAny(p, "\n\r") {
			return
		}
		p = filepath.Clean(p)
		if p != "" && !within(p, dir) {
			for _, q := range out {
				if q == p {
					return
				}
			}
			out = append(out, p)
		}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	b, err := cmd.Output()
	if err != nil {
		return nil
	}
	add(strings.TrimSpace(string(b)))
	b, err = exec.CommandContext(ctx, "git", "-C", dir, "worktree", "list", "--porcelain").Output()
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "worktree "); ok {
			add(p)
		}
	}
	return out
}
