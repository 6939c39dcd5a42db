package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zut-go/zut/provider"
)

// Session is one conversation: a header and a tree of entries, on disk or
// in memory. All methods are safe for concurrent use; appends are
// serialised and each entry is written with a single write call. Close
// releases the file and its lock.
type Session struct {
	mu sync.Mutex

	path   string    // "" for a memory session
	file   io.Writer // the O_APPEND file; tests may wrap it
	osFile *os.File  // the file itself, nil for memory
	lock   *fileLock
	torn   bool // the file does not end in a newline: the next write starts with one
	closed bool

	header  Entry
	title   string            // latest title in the file, else the header's
	entries entryList         // in file order, header excluded
	raw     []json.RawMessage // undecoded messages (see decode.go), nil once decoded
	parent  []int32           // parent index of each entry; -1 is the header
	index   map[string]int32  // entry id → index
	leaf    int32             // current leaf; -1 is the header (empty branch)
	path1   []int32           // cached branch: indexes root→leaf

	now   func() time.Time
	newID func() string
	buf   bytes.Buffer
}

// Option configures a Session at creation or opening.
type Option func(*config)

type config struct {
	now          func() time.Time
	newID        func() string
	newSessionID func() string
	version      string
	title        string
}

// WithClock sets the clock that stamps entries (tests inject a fixed one).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithIDs sets the generator of session and entry IDs (tests inject a
// counter). IDs it returns that are empty or already used are skipped.
func WithIDs(newID func() string) Option {
	return func(c *config) { c.newID, c.newSessionID = newID, newID }
}

// WithVersion sets the zut version recorded in the header of new files.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithTitle sets the title recorded in the header of a new session.
func WithTitle(t string) Option { return func(c *config) { c.title = t } }

func newConfig(opts []Option) config {
	c := config{now: time.Now, newID: randomEntryID, newSessionID: randomSessionID}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// randomEntryID returns 8 random hex digits; uniqueness within a file is
// checked on append.
func randomEntryID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// randomSessionID returns a random (version 4) UUID.
func randomSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func newSession(cwd string, c config) *Session {
	s := &Session{
		header: Entry{Type: TypeSession, Version: FormatVersion, ID: c.newSessionID(), Time: stamp(c.now()),
			CWD: cwd, ZutVersion: c.version, Title: c.title},
		title: c.title,
		index: map[string]int32{},
		leaf:  -1,
		now:   c.now,
		newID: c.newID,
	}
	return s
}

// NewMemory returns a session that lives only in memory, for --no-session.
// It behaves like a file session except that Path is empty and nothing is
// written anywhere.
func NewMemory(cwd string, opts ...Option) *Session {
	return newSession(cwd, newConfig(opts))
}

// Create starts a new session file for the project at cwd (an absolute
// path) under dir, which is normally $ZUT_HOME/sessions. The file goes to
// dir/ProjectKey(cwd)/ and is named by creation time and session ID.
func Create(dir, cwd string, opts ...Option) (*Session, error) {
	c := newConfig(opts)
	cwd = filepath.Clean(cwd)
	s := newSession(cwd, c)
	name := s.header.Time.Format(fileTimeLayout) + "_" + s.header.ID + ".jsonl"
	return createFile(s, filepath.Join(dir, ProjectKey(cwd), name))
}

// CreateFile starts a new session file at exactly path (for --session PATH
// when the file does not exist yet). It fails if path exists.
func CreateFile(path, cwd string, opts ...Option) (*Session, error) {
	return createFile(newSession(filepath.Clean(cwd), newConfig(opts)), path)
}

func createFile(s *Session, path string) (*Session, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	// O_EXCL never follows a link: a dangling symlink at path (one that
	// a repository could ship) is refused rather than created through.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("create session %s: it is a symbolic link to a file that does not exist; zut creates a new session file only at a real path — remove the link or give another path", path)
		}
		return nil, fmt.Errorf("create session: %w", err)
	}
	lk, err := acquireLock(path)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	s.path, s.file, s.osFile, s.lock = path, f, f, lk
	if err := encode(&s.buf, &s.header); err != nil {
		s.Close()
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	if _, err := f.Write(s.buf.Bytes()); err != nil {
		s.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	s.buf.Reset()
	return s, nil
}

// ErrClosed is returned by writes to a closed session.
var ErrClosed = errors.New("session is closed")

// Close syncs and closes the file and releases its lock. Reads keep working on what was
// loaded; writes fail with ErrClosed. Close is idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.osFile != nil {
		// Appends are not synced one by one (a crash of zut loses nothing
		// written); syncing here keeps the session across a power cut
		// after a clean exit.
		err = errors.Join(s.osFile.Sync(), s.osFile.Close())
	}
	if s.lock != nil {
		s.lock.release()
	}
	return err
}

// ID is the session ID, the ID of the root branch.
func (s *Session) ID() string { return s.header.ID }

// Path is the session file, "" for a memory session.
func (s *Session) Path() string { return s.path }

// CWD is the project directory recorded in the header.
func (s *Session) CWD() string { return s.header.CWD }

// Created is the creation time recorded in the header.
func (s *Session) Created() time.Time { return s.header.Time }

// Title is the latest title set anywhere in the session, else "".
func (s *Session) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.title
}

// Leaf is the ID of the current leaf entry, or the session ID when the
// current branch is empty.
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idAt(s.leaf)
}

// Len is the number of entries in the whole tree, header excluded.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries.len()
}

func (s *Session) idAt(i int32) string {
	if i < 0 {
		return s.header.ID
	}
	return s.entries.at(i).ID
}

// Append records e after the current leaf and makes it the new leaf. The
// session sets e's ID, ParentID and Time and returns the stored entry.
func (s *Session) Append(e Entry) (Entry, error) {
	if err := e.check(); err != nil {
		return Entry{}, fmt.Errorf("append to session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(e, s.leaf)
}

// AppendMessage records a message with its metadata on the current branch.
// The session keeps m's blocks: do not modify them afterwards.
func (s *Session) AppendMessage(m provider.Message, meta Meta) error {
	_, err := s.Append(Entry{Type: TypeMessage, Message: &m,
		Provider: meta.Provider, Model: meta.Model, Usage: meta.Usage, Stop: meta.Stop})
	return err
}

// AppendState records an extension's opaque state on the current branch
// (C19). A nil or JSON null state clears it. State over MaxStateSize or
// not valid JSON is refused with an error naming the extension.
func (s *Session) AppendState(extension string, state json.RawMessage) error {
	if len(state) == 0 {
		state = json.RawMessage("null")
	}
	_, err := s.Append(Entry{Type: TypeExtState, Extension: extension, State: state})
	return err
}

// AppendModelChange records that the conversation continues with another
// provider or model.
func (s *Session) AppendModelChange(providerName, model string) error {
	_, err := s.Append(Entry{Type: TypeModelChange, Provider: providerName, Model: model})
	return err
}

// AppendCustom records extension data of a custom type on the current
// branch. It is never sent to the model.
func (s *Session) AppendCustom(extension, customType string, data json.RawMessage) error {
	_, err := s.Append(Entry{Type: TypeCustom, Extension: extension, CustomType: customType, Data: data})
	return err
}

// SetTitle records a new title for the whole session.
func (s *Session) SetTitle(title string) error {
	_, err := s.Append(Entry{Type: TypeTitle, Title: title})
	return err
}

// appendLocked writes e as a child of entry parent and moves the leaf to
// it. The line is built in memory and written with one Write; the entry
// joins the tree only when the write succeeded.
func (s *Session) appendLocked(e Entry, parent int32) (Entry, error) {
	if s.closed {
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, ErrClosed)
	}
	id, err := s.freshID()
	if err != nil {
		return Entry{}, err
	}
	e.ID, e.ParentID, e.Time, e.Version = id, s.idAt(parent), stamp(s.now()), 0
	if s.file != nil {
		s.buf.Reset()
		if s.torn {
			// Terminate the torn line left by a crash rather than cut it:
			// nothing in the file is ever removed (see docs/sessions.md).
			s.buf.WriteByte('\n')
		}
		if err := encode(&s.buf, &e); err != nil {
			return Entry{}, fmt.Errorf("append to session %s: %w", s.path, err)
		}
		n, err := s.file.Write(s.buf.Bytes())
		if err != nil {
			if n > 0 {
				s.torn = true
			}
			return Entry{}, fmt.Errorf("append to session %s: %w; the entry was not saved", s.path, err)
		}
		s.torn = false
	}
	s.addLocked(e, parent)
	s.moveLeaf(int32(s.entries.len() - 1))
	return e, nil
}

// freshID returns an entry ID not yet used in this session.
func (s *Session) freshID() (string, error) {
	for range 16 {
		id := s.newID()
		if _, dup := s.index[id]; !dup && id != "" && id != s.header.ID {
			return id, nil
		}
	}
	return "", errors.New("append to session: the ID generator keeps returning IDs already in use")
}

// addLocked puts a freshly written entry into the tree.
func (s *Session) addLocked(e Entry, parent int32) {
	*s.entries.add() = e
	s.linkLast(parent, nil)
}

// linkLast links the last entry into the tree under parent;
// raw is its undecoded message, if any.
func (s *Session) linkLast(parent int32, raw json.RawMessage) {
	i := int32(s.entries.len() - 1)
	e := s.entries.at(i)
	s.parent = append(s.parent, parent)
	s.raw = append(s.raw, raw)
	s.index[e.ID] = i
	if e.Type == TypeTitle {
		s.title = e.Title
	}
}

// moveLeaf makes entry i the current leaf and refreshes the cached branch
// (path1 always holds the branch of the current leaf).
func (s *Session) moveLeaf(i int32) {
	if i >= 0 && s.parent[i] == s.leaf {
		s.path1 = append(s.path1, i)
		s.leaf = i
		return
	}
	s.leaf = i
	n := s.depth(i)
	if cap(s.path1) < n {
		s.path1 = make([]int32, n, n+n/4+16)
	}
	s.path1 = s.path1[:n]
	for j := i; j >= 0; j = s.parent[j] {
		n--
		s.path1[n] = j
	}
}

// depth is the number of entries from the root down to i inclusive.
func (s *Session) depth(i int32) int {
	n := 0
	for ; i >= 0; i = s.parent[i] {
		n++
	}
	return n
}
