package extcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/internal/gobuild"
	"github.com/zut-go/zut/proto/regular"
)

// runExtInstall copies a local directory, or clones a git URL, into
// $ZUT_HOME/extensions (C23): the copy is staged in a hidden temporary
// directory there, validated, and renamed into place in one step; any
// failure removes the staging directory and leaves nothing behind. It never
// builds unless --build=go asks for it.
func runExtInstall(ctx context.Context, e *Env, args []string) error {
	flags := extFlags(e, "install", "[--build=go] [--force] <path|git-url>")
	build := flags.String("build", "", "build the local source first; only `go` is supported")
	force := flags.Bool("force", false, "replace an installed extension of the same name")
	operands, err := parseVerb(flags, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) != 1 {
		return usagef("zut ext install needs one <path|git-url>, got %d operands", len(operands))
	}
	src := operands[0]
	git := isGitURL(src)
	switch {
	case *build != "" && *build != "go":
		return usagef("zut ext install: unknown --build=%s; the only builder is --build=go", *build)
	case *build == "go" && git:
		return usagef("zut ext install --build=go works on a local directory only; clone %s first, then run zut ext install --build=go <dir>", src)
	}

	root := extensionsDir(e)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("install %s: %w", src, err)
	}
	staging, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return fmt.Errorf("install %s: create a staging directory: %w", src, err)
	}
	installed := false
	defer func() {
		if !installed {
			os.RemoveAll(staging)
		}
	}()
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("install %s: %w", src, err)
	}

	var srcDir string // the local source, for hints
	if git {
		if err := gitClone(ctx, src, staging); err != nil {
			return fmt.Errorf("install %s: %w; nothing was installed", src, err)
		}
	} else {
		if srcDir, err = localSource(src, root); err != nil {
			return err
		}
		if err := copyTree(srcDir, staging); err != nil {
			return fmt.Errorf("install %s: copy: %w; nothing was installed", src, err)
		}
		if *build == "go" {
			if err := buildGo(ctx, srcDir, staging); err != nil {
				return fmt.Errorf("install %s: %w; nothing was installed", src, err)
			}
		}
	}

	m, err := host.ReadManifest(staging)
	if err != nil {
		// The staged copy mirrors the source: name the source.
		shown := src
		if srcDir != "" {
			shown = srcDir
		}
		msg := strings.ReplaceAll(err.Error(), staging, shown)
		if hint := buildHint(err, srcDir, *build); hint != "" {
			msg += "; " + hint
		}
		return fmt.Errorf("install %s: %s; nothing was installed", src, msg)
	}
	dest := filepath.Join(root, m.Name)
	if err := replaceDir(staging, dest, *force); err != nil {
		return fmt.Errorf("install extension %q from %s: %w", m.Name, src, err)
	}
	installed = true
	v := ""
	if m.Version != "" {
		v = " " + m.Version
	}
	_, err = fmt.Fprintf(e.Stdout, "installed %s%s in %s\ncheck that it loads with: zut ext doctor\n", m.Name, v, dest)
	return err
}

// scpLike matches git's user@host:path form, compiled on first use (not
// by an initialiser at every start).
func scpLike() *regexp.Regexp {
	return scpLikeLazy.get(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:`) })
}

var scpLikeLazy lazy[*regexp.Regexp]

// isGitURL reports whether src is something to clone rather than a local
// directory: a URL (https, ssh, git, file, ...) or user@host:path.
func isGitURL(src string) bool {
	return strings.Contains(src, "://") || scpLike().MatchString(src)
}

// localSource resolves a local source directory and checks that it does
// not contain the extensions directory (a copy would copy itself).
func localSource(src, root string) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", src, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("install %s: no such directory; give the path of a directory holding extension.json, or a git URL", src)
		}
		return "", fmt.Errorf("install %s: %w", src, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("install %s: not a directory; give the directory that holds extension.json", src)
	}
	realSrc, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", src, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", src, err)
	}
	if rel, err := filepath.Rel(realSrc, realRoot); err == nil && !strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("install %s: it contains the extensions directory %s; install the extension's own directory", src, root)
	}
	return abs, nil
}

// gitClone makes a shallow clone of url in dir with the system git,
// never asking for credentials.
func gitClone(ctx context.Context, url, dir string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return errors.New("installing from a git URL needs git on PATH")
	}
	cmd := exec.CommandContext(ctx, git, "clone", "--depth", "1", "--quiet", "--", url, dir)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "GIT_ASKPASS=", "SSH_ASKPASS=")
	if os.Getenv("GIT_SSH_COMMAND") == "" {
		cmd.Env = append(cmd.Env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git clone: %v: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// buildGo builds the Go source in srcDir with gobuild, writing the
// manifest's exec into the staging directory.
func buildGo(ctx context.Context, srcDir, staging string) error {
	data, err := host.ReadManifestFile(srcDir)
	if err != nil {
		return fmt.Errorf("--build=go: %w", err)
	}
	var m struct {
		Exec string `json:"exec"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("--build=go: %s is not valid JSON: %v", host.ManifestFile, err)
	}
	return gobuild.Build(ctx, srcDir, m.Exec, staging)
}

// buildHint suggests --build=go when a Go extension's executable is
// missing.
func buildHint(err error, srcDir, build string) string {
	var me *host.ManifestError
	if srcDir == "" || build != "" || !errors.As(err, &me) || me.Field != "exec" || !strings.Contains(err.Error(), "does not exist") {
		return ""
	}
	if _, err := os.Stat(filepath.Join(srcDir, "go.mod")); err != nil {
		if matches, _ := filepath.Glob(filepath.Join(srcDir, "*.go")); len(matches) == 0 {
			return ""
		}
	}
	return "zut ext install never builds on its own; to build this Go extension, run: zut ext install --build=go " + srcDir
}

// replaceDir renames staging to dest. An existing dest is an error unless
// force is set; then it is moved aside first and restored if the rename
// fails, so that dest is always either the old or the new extension.
func replaceDir(staging, dest string, force bool) error {
	if _, err := os.Lstat(dest); err == nil {
		if !force {
			return fmt.Errorf("already installed in %s; remove it first (zut ext remove %s) or pass --force to replace it",
				dest, filepath.Base(dest))
		}
		aside, err := os.MkdirTemp(filepath.Dir(dest), ".replaced-")
		if err != nil {
			return err
		}
		old := filepath.Join(aside, "old")
		if err := os.Rename(dest, old); err != nil {
			os.Remove(aside)
			return fmt.Errorf("move the installed copy aside: %w", err)
		}
		if err := os.Rename(staging, dest); err != nil {
			if rerr := os.Rename(old, dest); rerr != nil {
				return fmt.Errorf("install: %v; restoring the old copy failed too: %v (it is in %s)", err, rerr, old)
			}
			os.RemoveAll(aside)
			return fmt.Errorf("install: %w; the old copy is back in place", err)
		}
		return os.RemoveAll(aside)
	}
	if err := os.Rename(staging, dest); err != nil {
		return fmt.Errorf("move into place: %w", err)
	}
	return nil
}

// copyTree copies the directory src into the existing directory dst:
// directories, regular files with their permission bits, and symlinks as
// symlinks (validation checks where they lead). Anything else is an error.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			return os.Mkdir(target, mode.Perm()|0o700)
		case mode.IsRegular():
			return copyFile(path, target, mode.Perm())
		case mode&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		return fmt.Errorf("%s is not a regular file, directory or symlink", path)
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := regular.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm) // not narrowed by the umask
}
