// Package worktree owns git worktrees for zut: the worktree tool the model
// calls (create, list, remove) and the Go API the host uses to give a
// subagent a checkout of its own (Create, Diff, Remove).
//
// Every git command runs with hooks off (core.hooksPath=/dev/null), no
// fsmonitor, no terminal prompt and the C locale, in its own process
// group, killed when its context ends. A Repo is safe for concurrent use
// as far as git itself is: two creates of the same branch race in git.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Config says where zut keeps worktrees and which git it runs.
type Config struct {
	// Root is the directory that holds the worktrees zut creates; a
	// relative path is relative to the main worktree's top. Empty means
	// .zut/worktrees.
	Root string
	// Git is the git executable; empty means git on PATH.
	Git string
	// Env is the environment of git commands; nil means zut's own.
	Env []string
}

// Worktree is one working tree of a repository.
type Worktree struct {
	Path   string `json:"path"`             // absolute
	Branch string `json:"branch,omitempty"` // short name; "" when detached
	Head   string `json:"head"`             // the checked-out commit
	// Base is the commit the worktree was created from, when zut created it.
	Base string `json:"base,omitempty"`
	// Main is the repository's main worktree; Managed one under zut's root.
	Main    bool `json:"main,omitempty"`
	Managed bool `json:"managed,omitempty"`
	// Dirty is set when it has uncommitted changes (untracked files
	// included); Changes counts them, Changed names the first ones.
	Dirty    bool     `json:"dirty"`
	Changes  int      `json:"changes"`
	Changed  []string `json:"changed,omitempty"`
	Detached bool     `json:"detached,omitempty"`
	Locked   bool     `json:"locked,omitempty"`
	// Missing is set when the directory is gone (git calls it prunable).
	Missing bool `json:"missing,omitempty"`
}

// Repo is a git repository seen from one of its worktrees.
type Repo struct {
	// Top is the main worktree's top directory; Root holds zut's worktrees.
	Top  string
	Root string
	git  *git
}

// Errors a caller can branch on; the messages say what to do.
var (
	ErrNoGit   = errors.New("worktree: git not found on PATH; install git to use worktrees")
	ErrNotRepo = errors.New("not inside a git repository; worktrees need one (run git init, or work in a repository)")
)

// baseFile is where zut records a worktree's base commit, in the
// worktree's own git directory.
const baseFile = "zut-base"

// maxChanged is how many changed files a Worktree names.
const maxChanged = 10

// Open finds the repository holding dir.
func Open(ctx context.Context, dir string, c Config) (*Repo, error) {
	name := c.Git
	if name == "" {
		name = "git"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if c.Git != "" {
			return nil, fmt.Errorf("worktree: git executable %s not found; install git or fix the configured path", c.Git)
		}
		return nil, ErrNoGit
	}
	g := newGit(path, c.Env)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("worktree: directory %s does not exist", dir)
	}
	out, err := g.run(ctx, dir, nil, "rev-parse", "--is-bare-repository")
	if err != nil {
		if exitCode(err) == 128 && strings.Contains(err.Error(), "not a git repository") {
			return nil, fmt.Errorf("worktree: %s is %w", dir, ErrNotRepo)
		}
		return nil, fmt.Errorf("worktree: %v", err)
	}
	if strings.TrimSpace(out) == "true" {
		return nil, fmt.Errorf("worktree: %s is a bare repository; zut's worktrees need a repository with a working tree", dir)
	}
	r := &Repo{git: g}
	list, err := r.list(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("worktree: git worktree list shows no worktree for %s", dir)
	}
	r.Top = list[0].Path
	r.Root = c.Root
	if r.Root == "" {
		r.Root = filepath.Join(".zut", "worktrees")
	}
	if !filepath.IsAbs(r.Root) {
		r.Root = filepath.Join(r.Top, r.Root)
	}
	r.Root = filepath.Clean(r.Root)
	return r, nil
}

// CreateOptions describe a worktree to create.
type CreateOptions struct {
	// Branch is checked out: an existing branch, or a new one made at Base.
	Branch string
	// Base is the commit (or branch, tag ...) a new branch starts at;
	// empty means HEAD of the main worktree. It must be empty for an
	// existing branch.
	Base string
	// Dir is the directory under Root; empty means the branch name.
	Dir string
}

// Create makes a worktree under Root as o says, and records its base
// commit for Diff.
func (r *Repo) Create(ctx context.Context, o CreateOptions) (Worktree, error) {
	if err := r.checkBranch(ctx, o.Branch); err != nil {
		return Worktree{}, err
	}
	dir := o.Dir
	if dir == "" {
		dir = o.Branch
	}
	path, err := r.under(dir)
	if err != nil {
		return Worktree{}, err
	}
	if _, err := os.Lstat(path); err == nil {
		return Worktree{}, fmt.Errorf("worktree: %s already exists; remove it or choose another path", path)
	}
	if err := r.checkLinks(path); err != nil {
		return Worktree{}, err
	}
	_, err = r.git.run(ctx, r.Top, nil, "show-ref", "--verify", "--quiet", "refs/heads/"+o.Branch)
	exists := err == nil
	if err != nil && exitCode(err) != 1 {
		return Worktree{}, fmt.Errorf("worktree: %v", err)
	}
	if exists && o.Base != "" {
		return Worktree{}, fmt.Errorf("worktree: branch %q already exists; base applies only to a new branch (leave base out to check out the existing branch)", o.Branch)
	}
	base := o.Base
	if base == "" {
		base = "HEAD"
		if exists {
			base = "refs/heads/" + o.Branch
		}
	}
	sha, err := r.git.run(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil {
		if o.Base == "" && !exists {
			return Worktree{}, fmt.Errorf("worktree: the repository has no commit yet; commit something before creating a worktree")
		}
		return Worktree{}, fmt.Errorf("worktree: base %q is not a commit; give a branch, tag or commit id", o.Base)
	}
	sha = strings.TrimSpace(sha)
	if err := r.prepareRoot(); err != nil {
		return Worktree{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Worktree{}, fmt.Errorf("worktree: create %s: %v", filepath.Dir(path), err)
	}
	if err := r.checkLinks(path); err != nil { // again: nothing swapped in meanwhile
		return Worktree{}, err
	}
	args := []string{"worktree", "add", "--quiet"}
	if exists {
		args = append(args, "--", path, o.Branch)
	} else {
		args = append(args, "-b", o.Branch, "--", path, sha)
	}
	if _, err := r.git.run(ctx, r.Top, nil, args...); err != nil {
		return Worktree{}, fmt.Errorf("worktree: create %s: %v", path, err)
	}
	if gitDir, err := r.git.run(ctx, path, nil, "rev-parse", "--absolute-git-dir"); err == nil {
		os.WriteFile(filepath.Join(strings.TrimSpace(gitDir), baseFile), []byte(sha+"\n"), 0o644)
	}
	return Worktree{Path: path, Branch: o.Branch, Head: sha, Base: sha, Managed: true}, nil
}

// prepareRoot creates Root with a .gitignore that ignores everything in
// it, so that the worktrees never show as untracked files of the main
// worktree (nor get searched by zut's own walks).
func (r *Repo) prepareRoot() error {
	if err := os.MkdirAll(r.Root, 0o755); err != nil {
		return fmt.Errorf("worktree: create %s: %v", r.Root, err)
	}
	ign := filepath.Join(r.Root, ".gitignore")
	if _, err := os.Lstat(ign); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ign, []byte("# zut's worktrees: not part of the repository\n*\n"), 0o644); err != nil {
			return fmt.Errorf("worktree: write %s: %v", ign, err)
		}
	}
	return nil
}

// checkBranch refuses names git would refuse, and names that are options.
func (r *Repo) checkBranch(ctx context.Context, branch string) error {
	switch {
	case branch == "":
		return errors.New("worktree: branch is required; give the branch to check out (new or existing)")
	case strings.HasPrefix(branch, "-"):
		return fmt.Errorf("worktree: %q is not a valid branch name: it starts with \"-\"", branch)
	}
	if _, err := r.git.run(ctx, r.Top, nil, "check-ref-format", "--branch", branch); err != nil {
		return fmt.Errorf("worktree: %q is not a valid branch name (git check-ref-format refuses it); use letters, digits, \"-\", \"_\", \".\" and \"/\" between names, without \"..\", spaces or a leading \".\"", branch)
	}
	return nil
}

// checkLinks refuses a worktree path with a symbolic link (or anything
// but a directory) on its way: a repository could ship .zut/worktrees as
// a link to put zut's checkouts, and the files written into them,
// anywhere. The components checked are those from the repository's top
// (for a root inside the repository, as the default .zut/worktrees is)
// or from the configured root down to path; path itself must not exist
// yet or be a directory. The resolved parent must stay inside where the
// check started.
func (r *Repo) checkLinks(path string) error {
	base := r.Root
	if rel, err := filepath.Rel(r.Top, r.Root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		base = r.Top
	}
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("worktree: %s is outside %s; zut creates worktrees only there", path, base)
	}
	p := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("worktree: %s: %v", p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(p)
			return fmt.Errorf("worktree: %s is a symbolic link (to %s); zut creates worktrees only in real directories inside %s, so that a repository cannot send them elsewhere: remove the link", p, dest, base)
		}
		if !fi.IsDir() {
			return fmt.Errorf("worktree: %s is %s, not a directory; remove it or choose another path", p, provider.FileKind(fi.Mode()))
		}
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil // nothing of the path exists yet
	}
	if realParent, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		if rel, err := filepath.Rel(realBase, realParent); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("worktree: %s resolves to %s, outside %s; zut creates worktrees only inside it", filepath.Dir(path), realParent, realBase)
		}
	}
	return nil
}

// under resolves dir under Root, refusing paths that would leave it.
func (r *Repo) under(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return "", fmt.Errorf("worktree: path %q must be relative to the worktree root %s", dir, r.Root)
	}
	p := filepath.Join(r.Root, dir)
	rel, err := filepath.Rel(r.Root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("worktree: path %q would leave the worktree root %s; give a name inside it", dir, r.Root)
	}
	return p, nil
}

// List returns the repository's worktrees, the main one first, with
// their dirty state.
func (r *Repo) List(ctx context.Context) ([]Worktree, error) {
	list, err := r.list(ctx, r.Top)
	if err != nil {
		return nil, err
	}
	for i := range list {
		w := &list[i]
		w.Managed = !w.Main && isUnder(r.Root, w.Path)
		if w.Missing {
			continue
		}
		if err := r.status(ctx, w); err != nil {
			return nil, err
		}
		if gitDir, err := r.git.run(ctx, w.Path, nil, "rev-parse", "--absolute-git-dir"); err == nil {
			if b, err := readSmall(filepath.Join(strings.TrimSpace(gitDir), baseFile)); err == nil {
				w.Base = strings.TrimSpace(b)
			}
		}
	}
	return list, nil
}

// list parses git worktree list --porcelain -z.
func (r *Repo) list(ctx context.Context, dir string) ([]Worktree, error) {
	out, err := r.git.run(ctx, dir, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("worktree: %v", err)
	}
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(out, "\x00") {
		if field == "" {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(field, " ")
		if key == "worktree" {
			list = append(list, Worktree{Path: filepath.Clean(val), Main: len(list) == 0})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "detached":
			cur.Detached = true
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Missing = true
		case "bare":
			cur.Missing = true // nothing checked out to look at
		}
	}
	return list, nil
}

// status fills in the dirty state of w.
func (r *Repo) status(ctx context.Context, w *Worktree) error {
	out, err := r.git.run(ctx, w.Path, nil, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return fmt.Errorf("worktree: status of %s: %v", w.Path, err)
	}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		w.Changes++
		if len(w.Changed) < maxChanged {
			w.Changed = append(w.Changed, f[3:])
		}
		if f[0] == 'R' || f[0] == 'C' { // the source path follows
			i++
		}
	}
	w.Dirty = w.Changes > 0
	return nil
}

// Find returns the worktree at path (absolute, or relative to the main
// worktree's top) or, when path is empty, the one with branch checked out.
func (r *Repo) Find(ctx context.Context, path, branch string) (Worktree, error) {
	if path == "" && branch == "" {
		return Worktree{}, errors.New("worktree: give the path or the branch of the worktree")
	}
	list, err := r.List(ctx)
	if err != nil {
		return Worktree{}, err
	}
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(r.Top, path)
	}
	for _, w := range list {
		if path != "" && sameDir(w.Path, path) || path == "" && w.Branch == branch {
			return w, nil
		}
	}
	if path != "" {
		return Worktree{}, fmt.Errorf("worktree: %s is not a worktree of this repository; call worktree list to see them", path)
	}
	return Worktree{}, fmt.Errorf("worktree: no worktree has branch %q checked out; call worktree list to see them", branch)
}

// Remove deletes the worktree at path (as Find takes it). A dirty
// worktree (uncommitted changes or untracked files) is refused unless
// force is set, which discards them. The main worktree and locked ones are
// never removed. The branch stays (see DeleteBranch).
func (r *Repo) Remove(ctx context.Context, path string, force bool) error {
	w, err := r.Find(ctx, path, "")
	if err != nil {
		return err
	}
	return r.RemoveWorktree(ctx, w, force)
}

// RemoveWorktree deletes w, a worktree returned by List or Find, with the
// rules of Remove.
func (r *Repo) RemoveWorktree(ctx context.Context, w Worktree, force bool) error {
	switch {
	case w.Main:
		return fmt.Errorf("worktree: %s is the main worktree of the repository; it cannot be removed", w.Path)
	case w.Locked:
		return fmt.Errorf("worktree: %s is locked; unlock it first with git worktree unlock %s", w.Path, w.Path)
	case w.Dirty && !force:
		return fmt.Errorf("worktree: %s has %s (%s); commit or stash them, or remove with force: true to discard them", w.Path, plural(w.Changes, "uncommitted change"), strings.Join(w.Changed, ", "))
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	if _, err := r.git.run(ctx, r.Top, nil, append(args, "--", w.Path)...); err != nil {
		return fmt.Errorf("worktree: remove %s: %v", w.Path, err)
	}
	return nil
}

// DeleteBranch deletes a branch, for a task whose worktree was removed.
// Without force git refuses a branch that is not merged.
func (r *Repo) DeleteBranch(ctx context.Context, branch string, force bool) error {
	if err := r.checkBranch(ctx, branch); err != nil {
		return err
	}
	flag := "-d"
	if force {
		flag = "-D"
	}
	if _, err := r.git.run(ctx, r.Top, nil, "branch", flag, "--", branch); err != nil {
		return fmt.Errorf("worktree: delete branch %s: %v", branch, err)
	}
	return nil
}

// Diff is the patch from base to the worktree at path as it is now:
// commits made since base, staged and unstaged changes, and untracked
// files that .gitignore does not exclude, as "git apply" takes it (binary
// files included). Empty base means the base recorded by Create. The
// worktree's own index is left alone: a temporary index is used.
func (r *Repo) Diff(ctx context.Context, path, base string) (string, error) {
	if path == "" {
		return "", errors.New("worktree: diff needs the worktree's path")
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.Top, path)
	}
	gitDir, err := r.git.run(ctx, path, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", fmt.Errorf("worktree: %s is not a worktree: %v", path, err)
	}
	gitDir = strings.TrimSpace(gitDir)
	if base == "" {
		b, err := readSmall(filepath.Join(gitDir, baseFile))
		if err != nil {
			return "", fmt.Errorf("worktree: %s has no recorded base commit (it was not created by zut); give the base to diff against", path)
		}
		base = strings.TrimSpace(b)
	}
	tmp, err := os.CreateTemp("", "zut-index-*")
	if err != nil {
		return "", fmt.Errorf("worktree: temporary index: %v", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if src, err := provider.OpenRegular(filepath.Join(gitDir, "index")); err == nil { // its stat data saves rehashing
		_, err = io.Copy(tmp, src)
		src.Close()
		if err != nil {
			tmp.Close()
			return "", fmt.Errorf("worktree: copy the index: %v", err)
		}
	}
	tmp.Close()
	env := []string{"GIT_INDEX_FILE=" + tmpName}
	if _, err := r.git.run(ctx, path, env, "add", "--all", "--", "."); err != nil {
		return "", fmt.Errorf("worktree: diff %s: %v", path, err)
	}
	out, err := r.git.run(ctx, path, env, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--end-of-options", base, "--")
	if err != nil {
		return "", fmt.Errorf("worktree: diff %s: %v", path, err)
	}
	return out, nil
}

// readSmall reads a small file (a recorded commit id).
func readSmall(path string) (string, error) {
	f, err := provider.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	return string(b), err
}

// isUnder reports whether p is inside dir.
func isUnder(dir, p string) bool {
	rel, err := filepath.Rel(evalOr(dir), evalOr(p))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// evalOr resolves symbolic links in p when it can (git prints resolved
// paths; a temporary directory may be behind a link).
func evalOr(p string) string {
	if e, err := filepath.EvalSymlinks(p); err == nil {
		return e
	}
	return p
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
