// Package regular is the renderer's reader of the files a user or a
// repository can plant beside zut's own (theme files, the prompt history,
// .gitignore files for completion): each is opened as a regular file only,
// without blocking on a FIFO, and read up to a limit. It is the tui copy
// of provider.ReadRegular, which tui may not import.
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
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by Read for a file over its limit.
var ErrTooLarge = errors.New("file too large")

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

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf("%s %s: %s, not a regular file; replace it with a regular file or remove it", e.Op, e.Path, e.Kind)
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s %s: larger than the %s limit for this file; shorten it or remove it", e.Op, e.Path, sizeText(e.Limit))
	}
	return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err)
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
			return nil, &Error{Op: op, Path: path, Kind: kind(fi.Mode()), Err: ErrNotRegular}
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
		return nil, &Error{Op: op, Path: path, Kind: kind(fi.Mode()), Err: ErrNotRegular}
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

// sizeText writes n bytes for messages: "1 MiB", "64 KiB", "512 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// kind names what a file that is not a regular one is.
func kind(m fs.FileMode) string {
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
	}
	return "a special file"
}
