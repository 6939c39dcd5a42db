package session

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/provider"
)

// Branch returns the entries of the current branch from the root down to
// the current leaf. The header is not included.
func (s *Session) Branch() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.path1))
	for k, i := range s.path1 {
		s.message(i)
		out[k] = *s.entries.at(i)
	}
	return out
}

// Entry returns the entry with the given ID.
func (s *Session) Entry(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.index[id]
	if !ok {
		return Entry{}, false
	}
	s.message(i)
	return *s.entries.at(i), true
}

// Fork starts a new branch after entry id: it appends a branch entry whose
// parent is id and makes it the current leaf, so the next entry continues
// the new branch. id may be the session ID to start over from an empty
// conversation. The branch entry's ID is the new branch's ID (Identity).
// Forking is written to the file, so reopening the session continues on
// the new branch.
func (s *Session) Fork(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, err := s.lookup(id)
	if err != nil {
		return fmt.Errorf("fork session: %w", err)
	}
	_, err = s.appendLocked(Entry{Type: TypeBranch}, at)
	return err
}

// Switch makes leaf the current leaf, so that Branch, Messages, States and
// Identity follow its branch and the next entry is appended after it. leaf
// must have no children; to continue from an inner entry, Fork from it.
// Switching is not written to the file: reopening a session resumes at the
// entry appended last.
func (s *Session) Switch(leaf string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, err := s.lookup(leaf)
	if err != nil {
		return fmt.Errorf("switch branch: %w", err)
	}
	for _, p := range s.parent {
		if p == at {
			return fmt.Errorf("switch branch: entry %q has later entries; switch to a leaf, or fork from it to branch there", leaf)
		}
	}
	s.moveLeaf(at)
	return nil
}

// lookup resolves an entry ID (or the session ID, -1) to its index.
func (s *Session) lookup(id string) (int32, error) {
	if id == s.header.ID {
		return -1, nil
	}
	i, ok := s.index[id]
	if !ok {
		return 0, fmt.Errorf("no entry %q in session %s", id, s.header.ID)
	}
	return i, nil
}

// Identity is the current branch as the extension protocol names it.
//
// A branch is named by the branch entry that Fork wrote at its start: the
// nearest branch entry above the current leaf. Without one the leaf is on
// the root branch, whose ID is the session ID and which has no parent.
// parentID is the branch holding the entry forked from, and forkPoint is
// the number of entries on the path from the root to that entry,
// inclusive (0 for the root branch and for a fork from the session start).
func (s *Session) Identity() (id, parentID string, forkPoint int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.branchStart(len(s.path1) - 1)
	if k < 0 {
		return s.header.ID, "", 0
	}
	// path1[k] is the branch entry; path1[k-1] the entry forked from.
	return s.entries.at(s.path1[k]).ID, s.branchID(k - 1), k
}

// branchStart is the position in path1 of the nearest branch entry at or
// above position k, or -1.
func (s *Session) branchStart(k int) int {
	for ; k >= 0; k-- {
		if s.entries.at(s.path1[k]).Type == TypeBranch {
			return k
		}
	}
	return -1
}

// branchID names the branch holding path1[k] (the session ID for k < 0).
func (s *Session) branchID(k int) string {
	if b := s.branchStart(k); b >= 0 {
		return s.entries.at(s.path1[b]).ID
	}
	return s.header.ID
}

// Node is one entry in the tree view. The root node stands for the header:
// its ID is the session ID and its Type is TypeSession.
type Node struct {
	ID       string
	Type     Type
	Preview  string // one short line: who said what, or what changed
	Time     time.Time
	OnBranch bool // on the current branch (the root always is)
	Current  bool // the current leaf
	Children []*Node
}

// Tree returns the whole tree for a /tree view, children in the order they
// were written.
func (s *Session) Tree() *Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := make([]Node, s.entries.len()+1)
	root := &nodes[0]
	*root = Node{ID: s.header.ID, Type: TypeSession, Preview: s.title, Time: s.header.Time, OnBranch: true, Current: s.leaf < 0}
	kids := make([]int32, s.entries.len()+1) // child counts, then cursors
	for _, p := range s.parent {
		kids[p+1]++
	}
	all := make([]*Node, s.entries.len())
	off := int32(0)
	for i := range kids {
		n := kids[i]
		nodes[i].Children = all[off : off : off+n]
		off += n
	}
	for i := range int32(s.entries.len()) {
		s.message(int32(i))
		e := s.entries.at(i)
		n := &nodes[i+1]
		n.ID, n.Type, n.Time, n.Preview = e.ID, e.Type, e.Time, preview(e)
		p := &nodes[s.parent[i]+1]
		p.Children = append(p.Children, n)
	}
	for _, i := range s.path1 {
		nodes[i+1].OnBranch = true
	}
	if s.leaf >= 0 {
		nodes[s.leaf+1].Current = true
	}
	return root
}

const previewRunes = 72

// preview is a one-line description of an entry.
func preview(e *Entry) string {
	switch e.Type {
	case TypeMessage:
		return messagePreview(e.Message)
	case TypeExtState:
		if isNull(e.State) {
			return "state of " + e.Extension + " cleared"
		}
		return "state of " + e.Extension
	case TypeCompaction:
		return "compacted: " + clip(e.Summary)
	case TypeTitle:
		return "title: " + clip(e.Title)
	case TypeModelChange:
		return "model: " + e.Provider + "/" + e.Model
	case TypeBranch:
		if e.Label != "" {
			return "branch: " + clip(e.Label)
		}
		return "branch"
	case TypeCustom:
		return e.Extension + ": " + e.CustomType
	}
	return workPreview(e)
}

func messagePreview(m *provider.Message) string {
	var parts []string
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			if t := strings.TrimSpace(b.Text); t != "" && !b.Context {
				parts = append(parts, t)
			}
		case provider.BlockToolUse:
			parts = append(parts, "→ "+b.Name+" "+string(b.Input))
		case provider.BlockToolResult:
			r := "← result"
			if b.IsError {
				r = "← error"
			}
			for _, c := range b.Content {
				if c.Type == provider.BlockText {
					r += " " + strings.TrimSpace(c.Text)
					break
				}
			}
			parts = append(parts, r)
		case provider.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return string(m.Role) + ": " + clip(strings.Join(parts, " "))
}

// clip keeps the first line of s, at most previewRunes runes.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) <= previewRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == previewRunes-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
