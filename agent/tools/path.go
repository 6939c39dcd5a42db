package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/zut-go/zut/proto/regular"
	"github.com/zut-go/zut/provider"
)

// resolve turns a path the model sent into an absolute, clean path: "~"
// and "~/..." expand to the home directory, and relative paths resolve
// against the working directory.
func (cfg Config) resolve(p string) string {
	switch {
	case p == "~":
		p = cfg.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(cfg.Home, p[2:])
	case p == "":
		p = cfg.CWD
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.CWD, p)
	}
	return filepath.Clean(p)
}

// display shows an absolute path the way the model should see it:
// relative to the working directory when inside it, else absolute.
func (cfg Config) display(abs string) string {
	if cfg.CWD == "" {
		return abs
	}
	rel, err := filepath.Rel(cfg.CWD, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// describeMissing explains a path that does not exist: it names the
// nearest existing parent when the parent is missing, and suggests similar
// names in the parent directory.
func (cfg Config) describeMissing(abs string) string {
	shown := cfg.display(abs)
	dir := filepath.Dir(abs)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		existing := dir
		for {
			parent := filepath.Dir(existing)
			if fi, err := os.Stat(existing); err == nil && fi.IsDir() {
				break
			}
			if parent == existing {
				break
			}
			existing = parent
		}
		return fmt.Sprintf("%s: no such file or directory (directory %s does not exist; the nearest existing parent is %s)", shown, cfg.display(dir), cfg.display(existing))
	}
	msg := shown + ": no such file or directory"
	if s := similarNames(dir, filepath.Base(abs), 3); len(s) > 0 {
		for i := range s {
			s[i] = cfg.display(filepath.Join(dir, s[i]))
		}
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return msg
}

// maxSuggestScan bounds how many directory entries similarNames looks at.
const maxSuggestScan = 2000

// similarNames returns up to n entries of dir whose names resemble name:
// equal ignoring case, one containing the other, or a small edit distance.
func similarNames(dir, name string, n int) []string {
	f, err := regular.OpenDir(dir)
	if err != nil {
		return nil
	}
	entries, _ := f.ReadDir(maxSuggestScan)
	f.Close()
	type cand struct {
		name  string
		score int
	}
	var cands []cand
	lname := strings.ToLower(name)
	for _, e := range entries {
		en := e.Name()
		le := strings.ToLower(en)
		score := -1
		d := editDistance(lname, le, 3)
		switch {
		case le == lname:
			score = 0
		case d <= 2:
			score = 1 + d
		case stem(le) == stem(lname):
			score = 4
		case len(lname) >= 3 && (strings.Contains(le, lname) || strings.Contains(lname, le) && len(le) >= 3):
			score = 5
		case d <= 3 && len(lname) >= 8:
			score = 6
		}
		if score >= 0 {
			cands = append(cands, cand{en, score})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// stem is a file name without its extension.
func stem(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// editDistance is the Levenshtein distance of a and b in bytes, or max+1
// when it exceeds max.
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// statError words an error from os.Stat or os.Open for the model.
func (cfg Config) statError(tool, abs string, err error) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("%s: %s", tool, cfg.describeMissing(abs))
	case errors.Is(err, fs.ErrPermission):
		return errorResult("%s: %s: permission denied", tool, cfg.display(abs))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return errorResult("%s: %s: %v", tool, cfg.display(abs), err)
}

// Scope is the most the file tools may touch, for a packaged agent's
// permission ceiling (zut run): read, grep, the skill tool and the ast
// tool refuse a path outside Read and Write, write and edit one outside
// Write. Paths are absolute and clean; a path is checked after its
// symbolic links are resolved (those of its nearest existing parent for
// a file not yet created), and so are the trees, so a link inside a tree
// cannot lead out of it. Nil in Config means no limit.
type Scope struct {
	Read  []string // trees that may be read
	Write []string // trees that may also be written; readable too
	// Hidden are paths inside Read or Write that no tool reads or
	// writes, and grep leaves out (zut's own files but the agent's).
	Hidden []string
	// ReadOnly are trees inside Write that stay read-only (zut's own
	// home), but where a Write tree inside them is writable again (the
	// agent's data directory): the deepest tree holding a path decides.
	ReadOnly []string
	// Commands, when not nil, vets each command line bash is to run:
	// an error refuses it, and says why, before it starts.
	Commands func(command string) error
	// Owner names the ceiling in messages ("the agent code-reviewer").
	Owner string

	hiddenOnce sync.Once
	hiddenReal []string // Hidden with their links resolved, once
}

// CheckScope reports whether tool may touch abs (resolved, absolute):
// nil when no scope is set or abs lies in it; otherwise an error naming
// the path, the trees it may touch and whose ceiling says so. write asks
// for a Write tree.
func (cfg Config) CheckScope(tool, abs string, write bool) error {
	s := cfg.Scope
	if s == nil {
		return nil
	}
	real := realPath(abs)
	if h := s.hidden(real); h != "" {
		return fmt.Errorf("%s: %s is in %s, which %s may not touch; the call was not run", tool, cfg.display(abs), h, s.owner())
	}
	trees, what := s.Write, "write"
	if !write {
		trees, what = append(append([]string(nil), s.Read...), s.Write...), "read"
	}
	deepest := ""
	for _, t := range trees {
		if rt := realPath(t); pathWithin(real, rt) && len(rt) > len(deepest) {
			deepest = rt
		}
	}
	if deepest != "" && write {
		for _, r := range s.ReadOnly {
			if rr := realPath(r); pathWithin(real, rr) && len(rr) > len(deepest) {
				return fmt.Errorf("%s: %s is in %s, which stays read-only to %s; the call was not run", tool, cfg.display(abs), rr, s.owner())
			}
		}
	}
	if deepest != "" {
		return nil
	}
	owner := s.owner()
	shown := cfg.display(abs)
	if real != abs {
		shown += " (which is " + real + ")"
	}
	if len(trees) == 0 {
		return fmt.Errorf("%s: %s is outside what %s may %s: it may %s nothing; the call was not run", tool, shown, owner, what, what)
	}
	return fmt.Errorf("%s: %s is outside what %s may %s (%s); the call was not run, stay inside those trees", tool, shown, owner, what, strings.Join(trees, ", "))
}

// scopeSwapHook, when set (tests only), runs after a scoped tool checked
// abs and before it opens it: a test swaps a link there to play the race
// the check after the open guards against.
var scopeSwapHook func(abs string)

// openedError is a refusal by checkOpened: the file opened is not the one
// that was checked.
type openedError struct{ msg string }

func (e *openedError) Error() string { return e.msg }

// IsOpenedOutOfScope reports whether err is a refusal by the check after
// the open (the file was swapped), not a failure to open.
func IsOpenedOutOfScope(err error) bool {
	var oe *openedError
	return errors.As(err, &oe)
}

// OpenScoped opens the regular file at abs for tool to read, once
// CheckScope passed abs, and checks the opened file again by the name the
// kernel gives it (see checkOpened). The error is the open's, or one
// IsOpenedOutOfScope tells apart, whose text is the message for the model.
func (cfg Config) OpenScoped(tool, abs string) (*os.File, error) {
	if scopeSwapHook != nil && cfg.Scope != nil {
		scopeSwapHook(abs)
	}
	f, err := provider.OpenRegular(abs)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkOpened(tool, abs, f, "", false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readScoped reads the regular file at abs for tool as OpenScoped opens
// it, at most limit bytes: more is an error saying so.
func (cfg Config) readScoped(tool, abs string, limit int64) ([]byte, error) {
	f, err := cfg.OpenScoped(tool, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("is over %s", formatSize(limit))
	}
	return data, nil
}

// checkOpened checks the file f, opened for tool at abs, once more by
// the path the kernel says it has (Linux's /proc/self/fd): a link swapped
// between CheckScope and the open cannot lead the call out of the scope.
// f may be the directory a file called name is to be made in (write);
// then that file's path is checked, for writing when write is set.
// Where the kernel does not say, the check before the open stands.
func (cfg Config) checkOpened(tool, abs string, f *os.File, name string, write bool) error {
	if cfg.Scope == nil {
		return nil
	}
	p := kernelName(f)
	if p == "" {
		return nil
	}
	if name != "" {
		p = filepath.Join(p, name)
	}
	if err := cfg.CheckScope(tool, p, write); err != nil {
		return &openedError{fmt.Sprintf("%s: %s was swapped for %s as it was opened, which is out of scope; the call was not run", tool, cfg.display(abs), p)}
	}
	return nil
}

// kernelName is the path the kernel gives the open file f (Linux's
// /proc/self/fd), its links resolved; "" where the kernel does not say.
func kernelName(f *os.File) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	return strings.TrimSuffix(p, " (deleted)")
}

// hidden is the Hidden tree that holds path (its links resolved), "" for
// none.
func (s *Scope) hidden(path string) string {
	if len(s.Hidden) == 0 {
		return ""
	}
	return s.hiddenResolved(realPath(path), path)
}

// hiddenResolved is hidden for path whose links resolve to real (the
// kernel's name for an open file is both).
func (s *Scope) hiddenResolved(real, path string) string {
	s.hiddenOnce.Do(func() {
		for _, h := range s.Hidden {
			s.hiddenReal = append(s.hiddenReal, realPath(h))
		}
	})
	for i, h := range s.Hidden {
		if rh := s.hiddenReal[i]; pathWithin(real, rh) || (real != path || rh != h) && pathWithin(path, h) {
			return rh
		}
	}
	return ""
}

// owner names the scope's ceiling in messages.
func (s *Scope) owner() string {
	if s.Owner == "" {
		return "this run's permission ceiling"
	}
	return s.Owner
}

// realPath is abs with its symbolic links resolved: those of the path
// itself, else of its nearest existing parent with the rest appended; a
// dangling link is followed to where it points (a write through it would
// create its target).
func realPath(abs string) string { return realPathDepth(abs, 0) }

// maxLinkHops bounds the dangling links realPath follows.
const maxLinkHops = 40

func realPathDepth(abs string, hops int) string {
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 && hops < maxLinkHops {
			if target, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				return realPathDepth(filepath.Join(target, rest), hops+1)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// pathWithin reports whether path is root or inside it, by name.
func pathWithin(path, root string) bool {
	if filepath.IsAbs(path) && filepath.IsAbs(root) && filepath.Clean(path) == path && filepath.Clean(root) == root {
		// Clean absolute paths (all but odd callers): a prefix check.
		if !strings.HasPrefix(path, root) {
			return false
		}
		return len(path) == len(root) || root == string(filepath.Separator) || path[len(root)] == filepath.Separator
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
