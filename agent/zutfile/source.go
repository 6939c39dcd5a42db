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
	if s == "" || s == "." || s == ".." || len(s) > 100 || s[0] == '-' {
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
	a, err := loadDir(tmp, lim)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	a.Source, a.Kind = src, "archive"
	return a, keepOrRemove(a, tmp, o.Keep), nil
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

// loadGit clones owner/repo (depth 1) into a fresh temporary directory
// and loads the agent at /path inside it.
func loadGit(ctx context.Context, src string, o LoadOptions) (*Agent, func() error, error) {
	noop := func() error { return nil }
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
	clone := filepath.Join(tmp, repo)
	if err := gitClone(ctx, url, clone); err != nil {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	root := clone
	if sub != "" {
		root = filepath.Join(clone, filepath.FromSlash(sub))
		real, err := filepath.EvalSymlinks(root)
		if err == nil {
			var rc string
			if rc, err = filepath.EvalSymlinks(clone); err == nil && !inside(rc, real) {
				err = errors.New("it leads out of the repository")
			}
		}
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
				err = errors.New("it is not a directory")
			}
		}
		if err != nil {
			os.RemoveAll(tmp)
			return nil, noop, fmt.Errorf("load agent %s: the path %s in %s: %v", src, sub, url, pathReason(err))
		}
	}
	a, err := loadDir(root, o.Limits)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, noop, fmt.Errorf("load agent %s (cloned from %s): %v", src, url, err)
	}
	a.Source, a.Kind = src, "git"
	return a, keepOrRemove(a, tmp, o.Keep), nil
}

// gitClone runs git clone --depth 1 of url into dir, bounded in time,
// never prompting and with no credential helper: a repository that
// needs a password fails.
func gitClone(ctx context.Context, url, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "credential.helper=", "-c", "core.askPass=",
		"clone", "--depth", "1", "--quiet", "--no-tags", "--", url, dir)
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_LFS_SKIP_SMUDGE=1")
	var stderr tailBuffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("git clone %s: no answer in %s; check the network and retry", url, gitTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("git clone %s: %s", url, msg)
	}
	return nil
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
