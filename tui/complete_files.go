package tui

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/zut-go/zut/proto/regular"
)

// DefaultFileIndexSize bounds the files a FileIndex lists.
const DefaultFileIndexSize = 20000

// maxIgnoreFile bounds a .gitignore the index reads; a larger one, or
// one that is not a regular file (a FIFO a repository ships), is
// ignored.
const maxIgnoreFile = 4 << 20

// FileIndex lists the files under Root for @ mentions, honouring the
// .gitignore files it meets (and .git/info/exclude), skipping .git and
// not following symbolic links to directories. It lists breadth first and
// stops at Max entries, so shallow files are always there. The list is
// built on first use and kept until Refresh.
type FileIndex struct {
	Root string
	Max  int // 0 means DefaultFileIndexSize

	files     []string // slash-separated paths relative to Root; directories end in "/"
	lower     []string // files in lower case, for matching
	built     bool
	truncated bool
}

// Files returns the listed paths, building the list when needed.
func (ix *FileIndex) Files() []string {
	if !ix.built {
		ix.build()
	}
	return ix.files
}

// lowerFiles returns Files in lower case.
func (ix *FileIndex) lowerFiles() []string {
	files := ix.Files()
	if len(ix.lower) != len(files) {
		ix.lower = make([]string, len(files))
		for i, f := range files {
			ix.lower[i] = strings.ToLower(f)
		}
	}
	return ix.lower
}

// Truncated reports whether the list stopped at Max.
func (ix *FileIndex) Truncated() bool { return ix.truncated }

// Refresh drops the list; the next use walks the tree again.
func (ix *FileIndex) Refresh() { ix.files, ix.lower, ix.built, ix.truncated = nil, nil, false, false }

func (ix *FileIndex) build() {
	ix.built = true
	ix.files = nil
	limit := ix.Max
	if limit <= 0 {
		limit = DefaultFileIndexSize
	}
	root := ix.Root
	if root == "" {
		root = "."
	}
	var rules []ignoreRule
	if b, err := regular.Read(filepath.Join(root, ".git", "info", "exclude"), maxIgnoreFile); err == nil {
		rules = parseIgnore("", string(b))
	}
	type dir struct {
		rel   string
		rules []ignoreRule
	}
	queue := []dir{{"", rules}}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		abs := filepath.Join(root, filepath.FromSlash(d.rel))
		rs := d.rules
		if b, err := regular.Read(filepath.Join(abs, ".gitignore"), maxIgnoreFile); err == nil {
			// Copy so that sibling directories do not share appends.
			rs = append(rs[:len(rs):len(rs)], parseIgnore(d.rel, string(b))...)
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			continue
		}
		for _, ent := range entries {
			name := ent.Name()
			rel := path.Join(d.rel, name)
			isDir := ent.IsDir()
			if (isDir && name == ".git") || ignored(rs, rel, isDir) {
				continue
			}
			if isDir {
				ix.files = append(ix.files, rel+"/")
				queue = append(queue, dir{rel, rs})
			} else {
				ix.files = append(ix.files, rel)
			}
			if len(ix.files) >= limit {
				ix.truncated = true
				return
			}
		}
	}
}

// FileCompleter completes "@" file mentions from a FileIndex: the word at
// the cursor must start with "@". Candidates whose name starts with what
// was typed come first, then names and paths containing it, then paths
// containing its letters in order; shorter paths first within each group.
type FileCompleter struct {
	Index *FileIndex
	Max   int // candidates offered; 0 means 50
}

// Complete implements Completer.
func (c *FileCompleter) Complete(text string, cursor int, explicit bool) *Completion {
	start := cursor
	for start > 0 && !unicode.IsSpace(rune(text[start-1])) {
		start--
	}
	if start >= cursor || text[start] != '@' || c.Index == nil {
		return nil
	}
	query := strings.ToLower(text[start+1 : cursor])
	type scored struct {
		path  string
		score int
	}
	var found []scored
	files := c.Index.Files()
	for i, lf := range c.Index.lowerFiles() {
		f := files[i]
		if lf == query {
			continue // the directory typed in full: offer what is inside
		}
		if s := fileScore(lf, query); s > 0 {
			found = append(found, scored{f, s})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if len(a.path) != len(b.path) {
			return len(a.path) < len(b.path)
		}
		return a.path < b.path
	})
	limit := c.Max
	if limit <= 0 {
		limit = 50
	}
	var items []CompletionItem
	for _, f := range found[:min(len(found), limit)] {
		v := "@" + f.path
		if !strings.HasSuffix(f.path, "/") {
			v += " "
		}
		items = append(items, CompletionItem{Value: v, Label: f.path})
	}
	if len(items) == 0 {
		return nil
	}
	return &Completion{Start: start, End: cursor, Items: items}
}

// fileScore ranks a lower-cased path for a lower-cased query; 0 means no
// match.
func fileScore(p, q string) int {
	if q == "" {
		return 1
	}
	base := path.Base(strings.TrimSuffix(p, "/"))
	switch {
	case strings.HasPrefix(base, q):
		return 5
	case strings.HasPrefix(p, q):
		return 4
	case strings.Contains(base, q):
		return 3
	case strings.Contains(p, q):
		return 2
	}
	qr := []rune(q)
	i := 0
	for _, r := range p {
		if i < len(qr) && r == qr[i] {
			i++
		}
	}
	if i == len(qr) {
		return 1
	}
	return 0
}
