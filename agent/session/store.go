package session

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/provider"
)

// fileTimeLayout starts every session file name, so names sort by
// creation time.
const fileTimeLayout = "2006-01-02T15-04-05.000Z"

// ErrNotFound is wrapped by Continue and Resume when no session matches.
var ErrNotFound = errors.New("session not found")

// ProjectKey names the directory holding the sessions of the project at
// cwd: the path with every character other than letters, digits, '.' and
// '_' turned into '-', shortened to its last 48 characters, then '-' and 8
// hex digits of the SHA-256 of the cleaned path, so that distinct paths
// never share a directory.
func ProjectKey(cwd string) string {
	clean := filepath.Clean(cwd)
	var b strings.Builder
	dash := true // no leading dash
	for _, r := range clean {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	name := b.String()
	if len(name) > 48 {
		name = name[len(name)-48:]
	}
	name = strings.Trim(name, "-.")
	if name == "" {
		name = "root"
	}
	sum := sha256.Sum256([]byte(clean))
	return name + "-" + hex.EncodeToString(sum[:4])
}

// Info describes a saved session for `zut sessions`.
type Info struct {
	ID       string    `json:"id"`
	Title    string    `json:"title,omitempty"`
	CWD      string    `json:"cwd"`
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	Messages int       `json:"messages"`          // message entries on all branches
	Preview  string    `json:"preview,omitempty"` // the first user message, clipped
	Path     string    `json:"path"`
}

// List describes the sessions saved under dir (normally
// $ZUT_HOME/sessions) for the project at cwd, or for every project when
// all is true, most recently modified first. Files that are not readable
// session files are left out.
func List(dir, cwd string, all bool) ([]Info, error) {
	files, err := sessionFiles(dir, cwd, all)
	if err != nil {
		return nil, err
	}
	clean := filepath.Clean(cwd)
	var out []Info
	for _, f := range files {
		if f.kind != "" {
			continue
		}
		info, err := scan(f.path)
		if err != nil || (!all && info.CWD != clean) {
			continue
		}
		info.Modified = f.mod
		out = append(out, info)
	}
	return out, nil
}

// Continue opens the most recently modified session of the project at
// cwd. It wraps ErrNotFound when there is none. Newer session files it
// passed over because they could not be read (not a session file, a
// FIFO, unreadable) come first in the warnings, with Line 0, so that -c
// says what it skipped; they are returned with the error too.
func Continue(dir, cwd string, opts ...Option) (*Session, []Warning, error) {
	files, err := sessionFiles(dir, cwd, false)
	if err != nil {
		return nil, nil, err
	}
	clean := filepath.Clean(cwd)
	var skipped []Warning
	for _, f := range files {
		if f.kind != "" {
			skipped = append(skipped, Warning{Path: f.path, Text: fmt.Sprintf("skipped by --continue, though newer: it is %s, not a regular file; remove it", f.kind)})
			continue
		}
		h, err := readHeader(f.path)
		if err != nil {
			skipped = append(skipped, Warning{Path: f.path, Text: fmt.Sprintf("skipped by --continue, though newer: %v", err)})
			continue
		}
		if h.CWD != clean {
			continue // another project whose key collides: not ours to report
		}
		s, warns, err := Open(f.path, opts...)
		if err != nil {
			return nil, skipped, err
		}
		return s, append(skipped, warns...), nil
	}
	err = fmt.Errorf("continue session in %s: %w; start a new one without -c", clean, ErrNotFound)
	if len(skipped) > 0 {
		err = fmt.Errorf("continue session in %s: %w (%d session files could not be read: %s); start a new one without -c", clean, ErrNotFound, len(skipped), skipped[0].Text)
	}
	return nil, skipped, err
}

// Resume opens the session whose ID is id or starts with id, in any
// project under dir. It wraps ErrNotFound when none matches and fails when
// a prefix matches several.
func Resume(dir, id string, opts ...Option) (*Session, []Warning, error) {
	if id == "" {
		return nil, nil, errors.New("resume session: no session id given; `zut sessions` lists them")
	}
	files, err := sessionFiles(dir, "", true)
	if err != nil {
		return nil, nil, err
	}
	var hits []sessionFile
	for _, f := range files {
		if f.kind != "" {
			continue
		}
		if f.id == id {
			return Open(f.path, opts...)
		}
		if strings.HasPrefix(f.id, id) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 0:
		return nil, nil, fmt.Errorf("resume session %q: %w under %s; `zut sessions --all` lists them", id, ErrNotFound, dir)
	case 1:
		return Open(hits[0].path, opts...)
	}
	ids := make([]string, 0, 5)
	for _, h := range hits[:min(len(hits), 5)] {
		ids = append(ids, h.id)
	}
	return nil, nil, fmt.Errorf("resume session %q: the prefix matches %d sessions (%s); give more of the id", id, len(hits), strings.Join(ids, ", "))
}

// sessionFile is a candidate file found by name.
type sessionFile struct {
	path string
	id   string
	mod  time.Time
	kind string // what the file is when not a regular one ("a named pipe (FIFO)"), else ""
}

// sessionFiles lists files named like session files in the project
// directory of cwd, or in every project directory, newest first.
func sessionFiles(dir, cwd string, all bool) ([]sessionFile, error) {
	dirs := []string{filepath.Join(dir, ProjectKey(cwd))}
	if all {
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		dirs = dirs[:0]
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(dir, e.Name()))
			}
		}
	}
	var out []sessionFile
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		for _, e := range ents {
			id, ok := idFromName(e.Name())
			if !ok {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			f := sessionFile{path: filepath.Join(d, e.Name()), id: id, mod: fi.ModTime()}
			if !fi.Mode().IsRegular() {
				f.kind = provider.FileKind(fi.Mode())
			}
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b sessionFile) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return cmp.Compare(filepath.Base(b.path), filepath.Base(a.path))
	})
	return out, nil
}

// idFromName extracts the session ID from "<time>_<id>.jsonl".
func idFromName(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return "", false
	}
	_, id, ok := strings.Cut(base, "_")
	return id, ok && id != ""
}

// readHeader reads the first line of a session file.
func readHeader(path string) (Entry, error) {
	f, err := provider.OpenRegular(path)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	var h Entry
	err = eachLine(f, maxHeader, func(line []byte, _ bool) error {
		if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeSession {
			return fmt.Errorf("%s is not a session file: its first line is not a session header", path)
		}
		return io.EOF
	}, func(size int64) error {
		return fmt.Errorf("%s is not a session file: its first line is %d bytes long", path, size)
	})
	if err != nil {
		return Entry{}, err
	}
	if h.Type != TypeSession {
		return Entry{}, fmt.Errorf("%s is empty", path)
	}
	return h, nil
}

// scan summarises a session file without building its tree.
func scan(path string) (Info, error) {
	f, err := provider.OpenRegular(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	var info Info
	header := false
	err = eachLine(f, MaxLine, func(line []byte, _ bool) error {
		var e struct {
			Type  Type      `json:"type"`
			ID    string    `json:"id"`
			CWD   string    `json:"cwd"`
			Title string    `json:"title"`
			Time  time.Time `json:"time"`
		}
		if json.Unmarshal(line, &e) != nil {
			return nil
		}
		if !header {
			if e.Type != TypeSession {
				return fmt.Errorf("%s is not a session file", path)
			}
			header = true
			info = Info{ID: e.ID, Title: e.Title, CWD: e.CWD, Created: e.Time, Path: path}
			return nil
		}
		switch e.Type {
		case TypeTitle:
			info.Title = e.Title
		case TypeMessage:
			info.Messages++
			if info.Preview == "" {
				var m struct{ Message *provider.Message }
				if json.Unmarshal(line, &m) == nil && m.Message != nil && m.Message.Role == provider.RoleUser {
					info.Preview = clip(m.Message.UserText())
				}
			}
		}
		return nil
	}, func(int64) error {
		if !header {
			return fmt.Errorf("%s is not a session file: its first line is too long", path)
		}
		return nil
	})
	if err != nil {
		return Info{}, err
	}
	if !header {
		return Info{}, fmt.Errorf("%s is empty", path)
	}
	return info, nil
}

// MaxLine bounds one line (one entry) of a session file: 64 MiB. A
// longer line is skipped with a warning naming its number; it is never
// held in memory whole.
const MaxLine = 64 << 20

// maxHeader bounds the first line when only the header is wanted.
const maxHeader = provider.MaxConfigFile

// eachLine calls fn with every line of r, newline included; last is true
// for a final line that has no newline. It reads through one buffer,
// growing a second one only for lines longer than it, up to max bytes: a
// longer line is read through and dropped, and tooLong (when not nil)
// gets its size instead of fn getting the line. fn or tooLong returning
// io.EOF stops the walk without error.
func eachLine(r io.Reader, max int, fn func(line []byte, last bool) error, tooLong func(size int64) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	var over int64 // bytes of the current line past what long holds; > 0 once it is too long
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			switch {
			case over > 0:
				over += int64(len(chunk))
			case len(long)+len(chunk) > max:
				over = int64(len(long) + len(chunk))
				long = nil // let the buffer go: the line is dropped
			default:
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		var ferr error
		switch {
		case over > 0 || len(long)+len(chunk) > max:
			if tooLong != nil {
				ferr = tooLong(over + int64(len(long)+len(chunk)))
			}
		case len(long) > 0:
			long = append(long, chunk...)
			ferr = fn(long, err != nil)
		case len(chunk) > 0:
			ferr = fn(chunk, err != nil)
		}
		if ferr != nil {
			if errors.Is(ferr, io.EOF) {
				return nil
			}
			return ferr
		}
		long, over = long[:0], 0
		if err != nil {
			return nil
		}
	}
}
