package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zut-go/zut/proto/regular"
)

// This file is the provider's door to proto/regular, zut's one reader of
// the small files a repository or another user can plant (auth.json,
// models.json, config.json, SKILL.md, AGENTS.md, session files), and
// zut's writer of them (WriteFile). The names below forward to
// proto/regular, so that code written against provider keeps working.

// MaxConfigFile bounds manifests and configuration files: 1 MiB.
const MaxConfigFile = 1 << 20

// ErrNotRegular is wrapped by OpenRegular and ReadRegular for a path that
// is a directory, a FIFO, a device or a socket.
const ErrNotRegular = regular.ErrNotRegular

// ErrTooLarge is wrapped by ReadRegular for a file over its limit.
const ErrTooLarge = regular.ErrTooLarge

// FileError is a file zut refused to read or write. Op is "read" or
// "write"; Path the file; Err wraps ErrNotRegular, ErrTooLarge or the
// cause from the file system. Limit is set with ErrTooLarge; Kind says
// what the file is instead, with ErrNotRegular ("a named pipe (FIFO)").
type FileError = regular.Error

// OpenRegular opens path for reading only when it is a regular file; see
// regular.Open. The caller closes the file.
func OpenRegular(path string) (*os.File, error) { return regular.Open(path) }

// ReadRegular reads the whole regular file at path, at most limit bytes;
// see regular.Read.
func ReadRegular(path string, limit int64) ([]byte, error) { return regular.Read(path, limit) }

// FileKind names what a non-regular file is, for messages.
func FileKind(m fs.FileMode) string { return regular.Kind(m) }

// maxLinkHops bounds a chain of symbolic links, as the kernel does.
const maxLinkHops = 40

// LinkTarget follows path through any chain of symbolic links and returns
// the path that a write should replace: path itself when it is not a
// link, else the final target, which may not exist yet (a dangling link).
// linked reports whether path was a link. Every link of the chain must
// belong to the user running zut (on Unix); a link owned by someone else
// is an error, since following it would let that user pick where zut
// writes.
func LinkTarget(path string) (target string, linked bool, err error) {
	p := path
	for hop := 0; ; hop++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, linked, nil
		}
		if err != nil {
			return "", linked, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, linked, nil
		}
		if hop == maxLinkHops {
			return "", linked, fmt.Errorf("%s: more than %d symbolic links in a chain", path, maxLinkHops)
		}
		if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
			return "", linked, fmt.Errorf("%s is a symbolic link owned by another user (uid %d); zut follows only links you own — remove it", p, uid)
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", linked, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p, linked = filepath.Clean(dest), true
	}
}

// WriteFile replaces the file at path with data atomically: it writes a
// temporary file beside the target, syncs it and renames it over. A
// symbolic link at path is followed (see LinkTarget: only links owned by
// the user) and its target replaced, so the link stays a link and is
// never swapped for a regular file; a dangling link creates its target.
// An existing file keeps its permission bits; a new one gets perm. A
// target that exists and is not a regular file is refused. Missing
// parent directories are not created.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	target, _, err := LinkTarget(path)
	if err != nil {
		return &FileError{Op: "write", Path: path, Err: err}
	}
	mode := perm
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return &FileError{Op: "write", Path: path, Kind: FileKind(fi.Mode()), Err: ErrNotRegular}
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &FileError{Op: "write", Path: path, Err: err}
	}
	fail := func(err error) error {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &FileError{Op: "write", Path: path, Err: err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".zut-*.tmp")
	if err != nil {
		return fail(err)
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fail(err)
	}
	done = true
	return nil
}

// sizeText prints a limit for people: 1 MiB, 64 MiB, 512 KiB, 100 B.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d B", n)
}
