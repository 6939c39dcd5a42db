// Package regular is zut's one reader of the files that a repository,
// another user or a mistake can plant: configuration, settings, manifests,
// skills, context files (AGENTS.md), themes, the prompt history, sessions,
// the LSP and MCP configurations, auth and the trust store. A path is
// opened only when it ends at a regular file: symbolic links are followed
// by the open and the file they end at is checked again with fstat, the
// open never waits for a FIFO's other end (O_NONBLOCK), a directory, a
// FIFO, a device or a socket is refused at once, and a read is capped by
// size. Every error names the file and says what to do. It also writes
// the capped logs (OpenLog) and replaces files atomically (WriteAtomic).
//
// It imports nothing of zut, like the standard library, so that every
// layer (provider, host, host/mcp, agent, tui) may read through it;
// TestPlantedFileReads (the root's reads_test.go) fails when a package
// opens a file with os.Open, os.OpenFile or os.ReadFile without saying
// why that file cannot be planted.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by Open, Read and OpenAppend for a path that
// is a directory, a FIFO, a device or a socket.
const ErrNotRegular = sentinel("not a regular file")

// ErrTooLarge is wrapped by Read for a file over its limit.
const ErrTooLarge = sentinel("file too large")

// sentinel is the type of the package's error constants. They are
// constants so that packages forwarding them (provider) need no
// initialiser, which every zut process would run.
type sentinel string

func (s sentinel) Error() string { return string(s) }

// Error is a file refused or failed: Op ("read", "write"), Path, and Err
// wrapping ErrNotRegular (Kind says what the file is instead),
// ErrTooLarge (with Limit) or the file system's cause.
type Error struct {
	Op    string
	Path  string
	Kind  string
	Limit int64
	Err   error
}

func (e *Error) Error() string { return e.Op + " " + e.Path + ": " + e.Reason() }

// Reason is the error without its operation and path, for a caller that
// names the file itself.
func (e *Error) Reason() string {
	switch {
	case errors.Is(e.Err, ErrNotRegular) && e.Op == "list":
		return fmt.Sprintf("it is %s, not a directory", e.Kind)
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf("it is %s, not a regular file; replace it with a regular file or remove it", e.Kind)
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("larger than the %s limit for this file; shorten it or remove it", sizeText(e.Limit))
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens path for reading only when it is a regular file (symlinks
// are followed). Anything else is refused at once with an *Error
// wrapping ErrNotRegular: the open does not wait for a FIFO's writer,
// and the file is checked with fstat before anything is read. A missing
// file wraps fs.ErrNotExist. The caller closes the file.
func Open(path string) (*os.File, error) {
	return open("read", path, os.O_RDONLY, 0)
}

// OpenAppend opens the regular file at path for appending, creating it
// with mode 0600 when missing. A FIFO, a device or a directory is refused
// without blocking. An existing file that group or others may read is
// narrowed to 0600, since what is appended may be private. The caller
// closes the file.
func OpenAppend(path string) (*os.File, error) {
	f, err := open("write", path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, &Error{Op: "write", Path: path, Err: err}
		}
	}
	return f, nil
}

func open(op, path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|openNonblock, perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			// A directory opened for writing, a FIFO without a reader.
			return nil, &Error{Op: op, Path: path, Kind: Kind(fi.Mode()), Err: ErrNotRegular}
		}
		return nil, &Error{Op: op, Path: path, Err: err}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Op: op, Path: path, Err: err}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Op: op, Path: path, Kind: Kind(fi.Mode()), Err: ErrNotRegular}
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, &Error{Op: op, Path: path, Err: err}
	}
	return f, nil
}

// Read reads the whole regular file at path (see Open), refusing one
// over limit bytes, or one that grows past it while read, with an *Error
// wrapping ErrTooLarge that names the file and the limit.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &Error{Op: "read", Path: path, Limit: limit, Err: ErrTooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Op: "read", Path: path, Limit: limit, Err: ErrTooLarge}
	}
	return data, nil
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// SizeText writes n bytes for messages: "1 MiB", "64 KiB", "512 bytes".
func SizeText(n int64) string { return sizeText(n) }

// Kind names what a file that is not a regular one is, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// OpenDir opens the directory at path for listing (symlinks followed).
// Anything else is refused at once with an *Error wrapping ErrNotRegular
// (Kind says what it is): a FIFO planted where a directory was expected
// is never waited on.
func OpenDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock|openDirectory, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if fi, serr := os.Stat(path); serr == nil && !fi.IsDir() {
			return nil, &Error{Op: "list", Path: path, Kind: Kind(fi.Mode()), Err: ErrNotRegular}
		}
		return nil, &Error{Op: "list", Path: path, Err: err}
	}
	fi, err := f.Stat()
	if err == nil && !fi.IsDir() {
		f.Close()
		return nil, &Error{Op: "list", Path: path, Kind: Kind(fi.Mode()), Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, &Error{Op: "list", Path: path, Err: err}
	}
	return f, nil
}
