package zutfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// GitBaseEnv overrides the base of repository URLs (tests point it at a
// file:// directory of bare repositories).
const GitBaseEnv = "ZUT_ZUTFILE_GIT_BASE"

// DefaultGitBase is where owner/repo is cloned from.
const DefaultGitBase = "https://github.com"

// gitTimeout bounds a clone.
const gitTimeout = 5 * time.Minute

// splitRepo reads owner/repo[/path]. A source that looks like a local
// path (it starts with '.', '/' or '~', or ends in .zut or .json) is
// none.
func splitRepo(src string) (owner, repo, sub string, ok bool) {
	if strings.HasSuffix(src, ArchiveExt) || strings.HasSuffix(src, ".json") || strings.HasPrefix(src, "~") {
		return "", "", "", false
	}
	parts := strings.SplitN(src, "/", 3)
	if len(parts) < 2 {
		return "", "", "", false
	}
	owner, repo = parts[0], parts[1]
	if len(parts) == 3 {
		sub = parts[2]
	}
	if !repoName(owner) || !repoName(repo) {
		return "", "", "", false
	}
	if sub != "" && checkRelative(strings.TrimSuffix(sub, "/")) != nil {
		return "", "", "", false
	}
	return owner, repo, strings.TrimSuffix(sub, "/"), true
}

// repoName reports whether s may be a GitHub owner or repository name.
func repoName(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// loadArchive extracts the .zut archive src into a fresh temporary
// directory and loads the agent there.
func loadArchive(src string, o LoadOptions) (*Agent, func() error, error) {
	noop := func() error { return nil }
	lim := o.Limits.orDefault()
	f, err := regular.Open(src)
	if err != nil {
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > lim.Archive {
		return nil, noop, fmt.Errorf("load agent %s: archive: %s, over the limit of %s", src, regular.SizeText(fi.Size()), regular.SizeText(lim.Archive))
	}
	tmp, err := os.MkdirTemp(o.TempDir, "zut-agent-")
	if err != nil {
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	if err := extract(f, tmp, lim); err != nil {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s: %w", src, err)
	}
	a, err := loadDir(archiveRoot(tmp), lim)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	a.Source, a.Kind = src, "archive"
	return a, keepOrRemove(a, tmp, o.Keep), nil
}

// archiveRoot is the agent's root in an extracted archive: dir, or the
// one directory it holds when manifest.json is there and not in dir (an
// archive made with tar czf a.zut agent/).
func archiveRoot(dir string) string {
	if _, err := os.Lstat(filepath.Join(dir, ManifestName)); err == nil {
		return dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		return dir
	}
	sub := filepath.Join(dir, entries[0].Name())
	if _, err := os.Lstat(filepath.Join(sub, ManifestName)); err != nil {
		return dir
	}
	return sub
}

// keepOrRemove is the cleanup of a temporary copy.
func keepOrRemove(a *Agent, tmp string, keep bool) func() error {
	if keep {
		a.Kept = tmp
		return func() error { return nil }
	}
	return func() error { return os.RemoveAll(tmp) }
}

// RepoURL is the URL owner/repo is cloned from with base ("" is
// DefaultGitBase).
func RepoURL(base, owner, repo string) string {
	if base == "" {
		base = DefaultGitBase
	}
	return strings.TrimSuffix(base, "/") + "/" + owner + "/" + repo
}

// loadGit clones owner/repo (depth 1, no checkout) into a fresh
// temporary directory and extracts the agent at /path of its head
// through git archive, with the limits and refusals of an archive.
func loadGit(ctx context.Context, src string, o LoadOptions) (*Agent, func() error, error) {
	noop := func() error { return nil }
	lim := o.Limits.orDefault()
	owner, repo, sub, _ := splitRepo(src)
	base := o.GitBase
	if base == "" {
		base = os.Getenv("ZUT_ZUTFILE_GIT_BASE")
	}
	url := RepoURL(base, owner, repo)
	if _, err := exec.LookPath("git"); err != nil {
		return nil, noop, fmt.Errorf("load agent %s: it names no local path, and fetching the repository %s needs git on PATH: install git", src, url)
	}
	tmp, err := os.MkdirTemp(o.TempDir, "zut-agent-")
	if err != nil {
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	fail := func(err error) (*Agent, func() error, error) {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s: %w", src, err)
	}
	clone := filepath.Join(tmp, repo+".git")
	if err := gitClone(ctx, url, clone, lim.Clone); err != nil {
		return fail(fmt.Errorf("no such local path, so it was taken for a repository: %w", err))
	}
	root := filepath.Join(tmp, "agent")
	if err := os.Mkdir(root, 0o700); err != nil {
		return fail(err)
	}
	if err := gitArchive(ctx, clone, sub, root, lim); err != nil {
		if sub != "" {
			return fail(fmt.Errorf("the path %s in %s: %w", sub, url, err))
		}
		return fail(fmt.Errorf("%s: %w", url, err))
	}
	a, err := loadDir(root, lim)
	if err != nil {
		return fail(fmt.Errorf("(cloned from %s): %v", url, err))
	}
	a.Source, a.Kind = src, "git"
	return a, keepOrRemove(a, tmp, o.Keep), nil
}

// gitCmd is git with args, bounded by ctx, in a process group of its
// own, never prompting and with no credential helper: a repository that
// needs a password fails.
func gitCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "credential.helper=", "-c", "core.askPass=", "-c", "core.symlinks=false"}, args...)...)
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_LFS_SKIP_SMUDGE=1")
	return cmd
}

// gitClone clones url, its head commit only and without a checkout
// (a bare repository), into dir, within gitTimeout and max bytes on
// disk (looked at while it runs, and at its end).
func gitClone(ctx context.Context, url, dir string, max int64) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCmd(ctx, "clone", "--bare", "--depth", "1", "--quiet", "--no-tags", "--single-branch", "--", url, dir)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git clone %s: %v", url, err)
	}
	// The watch ends when the clone does (done), or stops the clone when
	// it grows past max.
	done := make(chan struct{})
	over := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if dirSize(dir) > max {
					close(over)
					cancel()
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-watched
	select {
	case <-over:
		return fmt.Errorf("git clone %s: the repository takes more than %s, the limit of a clone; pack the agent with zut pack and pass the .zut file instead", url, regular.SizeText(max))
	default:
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("git clone %s: not done in %s; check the network and retry", url, gitTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("git clone %s: %s", url, msg)
	}
	if dirSize(dir) > max {
		return fmt.Errorf("git clone %s: the repository takes more than %s, the limit of a clone; pack the agent with zut pack and pass the .zut file instead", url, regular.SizeText(max))
	}
	return nil
}

// gitArchive writes the tree at sub ("" for the root) of the head of the
// bare repository clone into dest through git archive and extractTar.
func gitArchive(ctx context.Context, clone, sub, dest string, lim Limits) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	tree := "HEAD"
	if sub != "" {
		tree = "HEAD:" + sub
	}
	cmd := gitCmd(ctx, "--git-dir", clone, "archive", "--format=tar", tree)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive: %v", err)
	}
	xerr := extractTar(out, dest, lim)
	if xerr != nil {
		cancel() // git stops at once; what it wrote is not read
	}
	werr := cmd.Wait()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case strings.Contains(msg, "not a valid object name") || strings.Contains(msg, "not a tree object") || strings.Contains(msg, "Not a valid object name"):
		return errors.New("not a directory of the repository's head commit (missing, a file or a link)")
	case werr != nil && xerr == nil:
		if msg == "" {
			msg = werr.Error()
		}
		return fmt.Errorf("git archive: %s", msg)
	}
	return xerr
}

// dirSize is the bytes of the regular files below dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// inside reports whether p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct{ b bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if t.b.Len() > 4096 {
		rest := append([]byte(nil), t.b.Bytes()[t.b.Len()-4096:]...)
		t.b.Reset()
		t.b.Write(rest)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.b.String() }
