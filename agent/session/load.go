package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zut-go/zut/provider"
)

// Warning is a problem found while loading a session file that did not
// stop the load: a torn last line, a corrupt line, an entry that does not
// fit the tree. The affected line is skipped; everything else is kept.
type Warning struct {
	Path string // the session file
	Line int    // 1-based line number; 0 for a whole file (see Continue)
	Text string // what was wrong and what was done about it
}

func (w Warning) String() string {
	if w.Line == 0 {
		return fmt.Sprintf("session file %s: %s", w.Path, w.Text)
	}
	return fmt.Sprintf("session file %s line %d: %s", w.Path, w.Line, w.Text)
}

// maxWarnings bounds the warnings kept from one load; the rest are counted.
const maxWarnings = 50

// Open loads the session file at path and locks it for this process. The
// current leaf is the last entry in the file. Problems that lose at most
// the affected line are returned as warnings; an error means the file
// could not be used at all (missing, not a session file, newer format, or
// locked by another zut process, see LockedError).
func Open(path string, opts ...Option) (*Session, []Warning, error) {
	c := newConfig(opts)
	// A link is followed (it must be the user's own, see
	// provider.LinkTarget) and the lock taken beside its target, so that
	// two names of one file share one lock.
	real, _, err := provider.LinkTarget(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open session %s: %v", path, err)
	}
	f, err := openRegular(real)
	if err != nil {
		return nil, nil, err
	}
	lk, err := acquireLock(real)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	s, warns, err := load(f, path, c)
	if err != nil {
		f.Close()
		lk.release()
		return nil, nil, err
	}
	s.file, s.osFile, s.lock = f, f, lk
	return s, warns, nil
}

// openRegular opens a session file for reading and appending, refusing
// anything but a regular file without blocking on it.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|openNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("open session %s: it is %s, not a regular file; give the path of a zut session file", path, provider.FileKind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// loader carries the state of one streaming load.
type loader struct {
	s      *Session
	path   string
	warns  []Warning
	extra  int // warnings beyond maxWarnings
	line   int
	header bool
}

// load reads a session from r. It reads line by line through one buffer,
// decoding each entry straight into the session's entry slice.
func load(r io.Reader, path string, c config) (*Session, []Warning, error) {
	s := &Session{path: path, index: map[string]int32{}, leaf: -1, now: c.now, newID: c.newID}
	l := &loader{s: s, path: path}
	err := eachLine(r, MaxLine, func(line []byte, last bool) error {
		if last {
			s.torn = true // the next append starts with a newline
		}
		return l.parse(line, last)
	}, func(size int64) error {
		l.line++
		if !l.header {
			return &headerError{fmt.Sprintf("open session %s: line %d is %d bytes long, not a session header; is this a zut session file?", l.path, l.line, size)}
		}
		l.warn("entry of %d bytes is longer than the %d MiB limit of a session line; line skipped, the rest is kept", size, MaxLine>>20)
		return nil
	})
	if err != nil {
		var pe *headerError
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if !l.header {
		return nil, nil, fmt.Errorf("open session %s: the file is empty; it is not a zut session file", path)
	}
	if n := s.entries.len(); n > 0 {
		s.moveLeaf(int32(n - 1))
	}
	if l.extra > 0 {
		l.warns = append(l.warns, Warning{Path: path, Line: l.line, Text: fmt.Sprintf("%d more problems not listed", l.extra)})
	}
	return s, l.warns, nil
}

func (l *loader) warn(format string, args ...any) {
	if len(l.warns) >= maxWarnings {
		l.extra++
		return
	}
	l.warns = append(l.warns, Warning{Path: l.path, Line: l.line, Text: fmt.Sprintf(format, args...)})
}

// headerError stops a load whose header is unusable.
type headerError struct{ msg string }

func (e *headerError) Error() string { return e.msg }

// parse handles one line. last is true for a final line without a newline.
// Only an unusable header is an error.
func (l *loader) parse(line []byte, last bool) error {
	l.line++
	body := bytes.TrimSpace(line)
	if len(body) == 0 {
		return nil
	}
	s := l.s
	if !l.header {
		var h Entry
		if err := json.Unmarshal(body, &h); err != nil || h.Type != TypeSession || h.ID == "" {
			return &headerError{fmt.Sprintf("open session %s: line %d is not a session header; is this a zut session file?", l.path, l.line)}
		}
		if h.Version > FormatVersion {
			return &headerError{fmt.Sprintf("open session %s: format version %d is newer than this zut reads (%d); upgrade zut", l.path, h.Version, FormatVersion)}
		}
		s.header, s.title, l.header = h, h.Title, true
		return nil
	}
	if !json.Valid(body) {
		if last {
			l.warn("torn last line (zut stopped while writing it); ignored, earlier entries are intact")
		} else {
			l.warn("not valid JSON (%v); line skipped", json.Unmarshal(body, new(any)))
		}
		return nil
	}
	n := s.entries.len()
	prev := ""
	if n > 0 {
		prev = s.entries.at(int32(n - 1)).ID
	}
	e := s.entries.add()
	raw, err := decodeEntry(body, e, prev)
	if err != nil {
		s.entries.dropLast()
		l.warn("not an entry (%v); line skipped", err)
		return nil
	}
	if last {
		l.warn("last line has no final newline but is complete; kept")
	}
	if problem := l.invalid(e, raw != nil); problem != "" {
		s.entries.dropLast()
		l.warn("%s; line skipped", problem)
		return nil
	}
	parent := int32(-1)
	if e.ParentID != "" && e.ParentID != s.header.ID {
		p, ok := s.index[e.ParentID]
		if !ok {
			p = int32(n) - 1
			l.warn("parent entry %q is not in the file; entry %q attached after the previous entry", e.ParentID, e.ID)
		}
		parent = p
	}
	s.linkLast(parent, raw)
	return nil
}

// invalid says why a decoded entry cannot join the tree, or "". lazy is
// true when the message of e is kept undecoded.
func (l *loader) invalid(e *Entry, lazy bool) string {
	switch {
	case e.ID == "":
		return "entry without an id"
	case e.Type == "":
		return fmt.Sprintf("entry %q without a type", e.ID)
	case e.Type == TypeSession:
		return fmt.Sprintf("second session header %q", e.ID)
	case e.ID == l.s.header.ID:
		return fmt.Sprintf("entry id %q repeats the session id", e.ID)
	case e.Type == TypeMessage && e.Message == nil && !lazy:
		return fmt.Sprintf("message entry %q without a message", e.ID)
	case e.Type == TypeExtState && e.Extension == "":
		return fmt.Sprintf("ext_state entry %q without an extension name", e.ID)
	}
	if _, dup := l.s.index[e.ID]; dup {
		return fmt.Sprintf("entry id %q is used twice", e.ID)
	}
	return ""
}
