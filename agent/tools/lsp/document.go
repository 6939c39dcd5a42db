package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// maxDocument bounds the files sent to a server.
const maxDocument = 8 << 20

// maxOpenDocuments bounds the documents kept open on one server; the least
// recently used one is closed beyond it.
const maxOpenDocuments = 200

// document is a file open on a server, as the server last heard of it.
type document struct {
	path, uri string
	version   int
	text      *text
	size      int64
	mtime     time.Time
	sentSeq   uint64    // diagnostics sequence number when the last change was sent
	sentAt    time.Time // when it was sent
	used      uint64    // recency, for closing the least recently used
}

// docState is a document as one sync left it; early when it was sent
// before the server had loaded the workspace (see waitLoaded).
type docState struct {
	path, uri string
	version   int
	sentSeq   uint64
	sentAt    time.Time
	text      *text
	early     bool
}

func (d *document) state() docState {
	return docState{path: d.path, uri: d.uri, version: d.version, sentSeq: d.sentSeq, sentAt: d.sentAt, text: d.text}
}

// docSet is the documents open on one server. Its mutex serialises syncs,
// so versions go out in order.
type docSet struct {
	mu   sync.Mutex
	open map[string]*document
	tick uint64
}

func (ds *docSet) init() { ds.open = map[string]*document{} }

// count is the number of open documents.
func (ds *docSet) count() int {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return len(ds.open)
}

// sends reports whether the server wants open and change notifications.
func (s *server) sends() bool { return s.openClose || s.syncKind != syncNone }

// sync makes the server's view of the file at abs match the disk: it opens
// the document the first time and sends a change when the content
// differs. Without force, an open document whose size and modification
// time are unchanged is taken as is. Each new text goes out with a new
// version, and the diagnostics held of the older one are dropped. A new
// server is first given its ready timeout to load the workspace.
func (s *server) sync(ctx context.Context, abs string, force bool) (docState, error) {
	loaded, err := s.waitLoaded(ctx)
	if err != nil {
		return docState{}, err
	}
	st, err := s.syncLoaded(ctx, abs, force)
	st.early = !loaded
	return st, err
}

func (s *server) syncLoaded(ctx context.Context, abs string, force bool) (docState, error) {
	ds := &s.docs
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.open[abs]
	fi, err := os.Stat(abs)
	if err != nil {
		if d != nil && errors.Is(err, fs.ErrNotExist) {
			s.closeDoc(ctx, d)
		}
		return docState{}, &fileError{err}
	}
	switch {
	case !fi.Mode().IsRegular():
		return docState{}, &fileError{errors.New("not a regular file")}
	case fi.Size() > maxDocument:
		return docState{}, &fileError{fmt.Errorf("the file is %d bytes, over the %d MiB the lsp tool sends to a server", fi.Size(), maxDocument>>20)}
	}
	ds.tick++
	if d != nil && !force && d.size == fi.Size() && d.mtime.Equal(fi.ModTime()) {
		d.used = ds.tick
		return d.state(), nil
	}
	data, err := readBounded(abs, maxDocument)
	if err != nil {
		return docState{}, &fileError{err}
	}
	content := string(data)
	if d == nil {
		v := s.diag.nextVersion(abs)
		d = &document{path: abs, uri: fileURI(abs), version: v, text: newText(content),
			size: fi.Size(), mtime: fi.ModTime(), used: ds.tick, sentSeq: s.diag.expect(abs, v), sentAt: time.Now()}
		if s.sends() {
			err := s.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": textDocumentItem{
				URI: d.uri, LanguageID: s.cfg.languageID(abs), Version: d.version, Text: content}})
			if err != nil {
				return docState{}, err
			}
		}
		ds.open[abs] = d
		s.evict(ctx)
		return d.state(), nil
	}
	d.size, d.mtime, d.used = fi.Size(), fi.ModTime(), ds.tick
	if content == d.text.s {
		return d.state(), nil
	}
	old := d.text
	d.version = s.diag.nextVersion(abs)
	d.text = newText(content)
	d.sentSeq, d.sentAt = s.diag.expect(abs, d.version), time.Now()
	if !s.sends() {
		return d.state(), nil
	}
	var changes []contentChange
	// A lone CR ends a line for the specification but not for every
	// server; whole-text changes keep both sides equal.
	if s.syncKind == syncIncremental && !hasLoneCR(old.s) && !hasLoneCR(content) {
		start, oldEnd, newEnd := change(old.s, content)
		r := span{Start: old.positionAt(start, s.enc), End: old.positionAt(oldEnd, s.enc)}
		changes = []contentChange{{Range: &r, Text: content[start:newEnd]}}
	} else {
		changes = []contentChange{{Text: content}}
	}
	v := d.version
	err = s.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   versionedTextDocumentIdentifier{URI: d.uri, Version: &v},
		"contentChanges": changes,
	})
	if err != nil {
		// The server's view is unknown now; open it afresh next time.
		delete(ds.open, abs)
		return docState{}, err
	}
	return d.state(), nil
}

// refresh syncs every open document whose file changed on disk, and
// closes those whose file is gone.
func (s *server) refresh(ctx context.Context) {
	s.docs.mu.Lock()
	paths := make([]string, 0, len(s.docs.open))
	for p := range s.docs.open {
		paths = append(paths, p)
	}
	s.docs.mu.Unlock()
	sort.Strings(paths)
	for _, p := range paths {
		if ctx.Err() != nil {
			return
		}
		s.sync(ctx, p, false)
	}
}

// resync tells the server that the files at paths changed on disk (a
// rename or another multi-file apply wrote them) and syncs every one,
// dropping the diagnostics held of their old text, those of files that
// cannot be synced included. It returns the states of the files synced,
// in order.
func (s *server) resync(ctx context.Context, paths []string) []docState {
	if len(paths) == 0 {
		return nil
	}
	events := make([]fileEvent, len(paths))
	for i, p := range paths {
		events[i] = fileEvent{URI: fileURI(p), Type: fileChanged}
		s.diag.drop(p)
	}
	if err := s.waitReady(ctx); err == nil {
		s.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events})
	}
	var out []docState
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		if d, err := s.sync(ctx, p, true); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// closeDoc closes one document; the caller holds s.docs.mu.
func (s *server) closeDoc(ctx context.Context, d *document) {
	delete(s.docs.open, d.path)
	if s.sends() {
		s.notify(ctx, "textDocument/didClose", map[string]any{"textDocument": textDocumentIdentifier{URI: d.uri}})
	}
}

// evict closes the least recently used documents over the bound; the
// caller holds s.docs.mu.
func (s *server) evict(ctx context.Context) {
	for len(s.docs.open) > maxOpenDocuments {
		var oldest *document
		for _, d := range s.docs.open {
			if oldest == nil || d.used < oldest.used {
				oldest = d
			}
		}
		s.closeDoc(ctx, oldest)
	}
}

// openText returns the text of an open document, or nil.
func (s *server) openText(abs string) *text {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	if d := s.docs.open[abs]; d != nil {
		return d.text
	}
	return nil
}

// fileError is a sync that failed on the file rather than the server.
type fileError struct{ err error }

func (e *fileError) Error() string { return tools.UnwrapPath(e.err).Error() }
func (e *fileError) Unwrap() error { return e.err }

// hasLoneCR reports whether s holds a CR that is not part of a CRLF.
func hasLoneCR(s string) bool {
	for i := strings.IndexByte(s, '\r'); i >= 0; {
		if i+1 >= len(s) || s[i+1] != '\n' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
