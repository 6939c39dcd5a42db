package web

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A ref names a search result or a fetched page for later calls. Its id
// is "r<n>:<url>", so a ref that this process does not know (it came from
// a session before a resume, or its page was dropped to save memory) still
// says which URL to fetch again.

// The most pages the store holds, and the most bytes of text; older pages
// are dropped first (their refs are fetched again when used).
const (
	maxHeldPages = 64
	maxHeldBytes = 64 << 20
)

// refStore holds the refs of one session. It is safe for concurrent use.
type refStore struct {
	mu    sync.Mutex
	next  int
	refs  map[string]*ref
	held  []*ref // refs holding a page, least recently used first
	bytes int
}

type ref struct {
	id      string
	url     string
	page    *page
	dropped bool // its page was released to save memory
}

func newRefStore() *refStore { return &refStore{refs: map[string]*ref{}} }

// add makes a new ref for u, holding p (nil for a search result not yet
// opened), and returns its id.
func (s *refStore) add(u string, p *page) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var id string
	for {
		s.next++
		id = "r" + strconv.Itoa(s.next) + ":" + u
		if s.refs[id] == nil {
			break
		}
	}
	r := &ref{id: id, url: u}
	s.refs[id] = r
	if p != nil {
		s.hold(r, p)
	}
	return id
}

// lookup returns the URL and page of a ref, whether this session knows
// it, and whether its page was dropped to save memory. The page is nil for
// a search result not opened yet and for a dropped page.
func (s *refStore) lookup(id string) (u string, p *page, known, dropped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.refs[id]
	if r == nil {
		return "", nil, false, false
	}
	if r.page != nil {
		s.touch(r)
	}
	return r.url, r.page, true, r.dropped
}

// full returns the whole id of a ref of this session given by its number
// alone ("r3"), "" when there is none.
func (s *refStore) full(short string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.refs {
		if strings.HasPrefix(id, short+":") {
			return id
		}
	}
	return ""
}

// put stores p under id, making the ref known when it was not (an expired
// ref fetched again keeps its id).
func (s *refStore) put(id, u string, p *page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.refs[id]
	if r == nil {
		r = &ref{id: id, url: u}
		s.refs[id] = r
	}
	s.hold(r, p)
}

func (s *refStore) hold(r *ref, p *page) {
	if r.page != nil {
		s.release(r)
	}
	r.page, r.dropped = p, false
	s.held = append(s.held, r)
	s.bytes += p.bytes
	for len(s.held) > 1 && (len(s.held) > maxHeldPages || s.bytes > maxHeldBytes) {
		s.release(s.held[0])
	}
}

// release drops the page of r.
func (s *refStore) release(r *ref) {
	if i := slices.Index(s.held, r); i >= 0 {
		s.held = slices.Delete(s.held, i, i+1)
	}
	s.bytes -= r.page.bytes
	r.page, r.dropped = nil, true
}

// touch marks r as just used.
func (s *refStore) touch(r *ref) {
	if i := slices.Index(s.held, r); i >= 0 && i != len(s.held)-1 {
		s.held = append(slices.Delete(s.held, i, i+1), r)
	}
}

// parseRef splits a ref id "r<n>:<url>" into its URL; ok is false when id
// does not have that form.
func parseRef(id string) (u string, ok bool) {
	rest, found := strings.CutPrefix(id, "r")
	if !found {
		return "", false
	}
	digits, u, found := strings.Cut(rest, ":")
	if !found || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return u, strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}
