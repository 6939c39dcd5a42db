package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// The trust store remembers which project directories the user allowed
// to run their own code: the extensions under <project>/.zut/extensions,
// and later the project's MCP and LSP configuration. An answer is kept
// per repository root (ProjectRoot) together with a digest of what was
// trusted (Digest); when the manifests change, the digest changes and
// the app asks again. The store is $ZUT_HOME/trust.json, 0600; a store
// that other users could write is refused, since it would let them
// grant trust.

// TrustFile is the trust store's name under $ZUT_HOME.
const TrustFile = "trust.json"

// maxTrustFile bounds trust.json.
const maxTrustFile = 1 << 20

// ProjectRoot is the key of a project in the trust store: the nearest
// directory at or above dir that holds .git (a directory or a worktree
// file), else dir itself; absolute, clean, symlinks resolved.
func ProjectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return abs
		}
		d = up
	}
}

// Digest sums what trusting a project lets run: for each project entry
// (Scope ScopeProject) of entries, every file of its directory (a bounded
// walk: see digestDir), so that a script its manifest starts through an
// interpreter (python3 main.py) counts as much as the manifest; then the
// extra files (an MCP or LSP configuration), each by path and content,
// with the files inside the project that their commands and arguments
// name (see namedFiles). Entries of other scopes are ignored, and order
// does not matter. A file that cannot be read counts by its error, so
// that it changing to readable changes the digest too. The result reads
// "sha256:<hex>".
func Digest(entries []Entry, files ...string) string {
	type part struct{ key, sum string }
	var parts []part
	for _, e := range entries {
		if e.Scope != ScopeProject || !e.RunsCode() {
			continue
		}
		name := filepath.Base(e.Dir)
		parts = append(parts, part{"ext " + name + " manifest", fileSum(filepath.Join(e.Dir, ManifestFile))})
		if e.Manifest != nil && e.Manifest.ExecPath != "" {
			parts = append(parts, part{"ext " + name + " exec", fileSum(e.Manifest.ExecPath)})
		}
		for _, f := range digestDir(e.Dir) {
			parts = append(parts, part{"ext " + name + " file " + f.key, f.sum})
		}
	}
	for _, f := range files {
		parts = append(parts, part{"file " + f, fileSum(f)})
		for _, named := range namedFiles(f) {
			parts = append(parts, part{"file " + f + " names " + named, fileSum(named)})
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].key < parts[j].key })
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%q %s\n", p.key, p.sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Bounds of the walk of an extension directory for its digest: at most
// MaxTrustFiles entries, and MaxTrustBytes of content hashed; past the
// byte bound a file counts by its size and modification time, past the
// entry bound the walk stops and the digest says so.
const (
	MaxTrustFiles = 10000
	MaxTrustBytes = 256 << 20
)

type digestPart struct{ key, sum string }

// digestDir sums every entry below dir: regular files by content (then
// by size and time, past MaxTrustBytes), symbolic links by their target
// (never followed), other kinds by what they are. Keys are paths relative
// to dir. __pycache__ directories are skipped: Python writes them the
// first time the extension runs, and checks them against the sources.
func digestDir(dir string) []digestPart {
	var parts []digestPart
	var hashed int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if err != nil {
			parts = append(parts, digestPart{rel, "error " + err.Error()})
			return nil
		}
		if rel == "." {
			return nil
		}
		if len(parts) >= MaxTrustFiles {
			parts = append(parts, digestPart{"\x00more", fmt.Sprintf("more than %d files; later ones are not summed", MaxTrustFiles)})
			return filepath.SkipAll
		}
		switch t := d.Type(); {
		case t.IsDir() && d.Name() == "__pycache__":
			return filepath.SkipDir // Python writes it on the first run; the sources it caches are summed
		case t.IsDir():
			parts = append(parts, digestPart{rel + "/", "directory"})
		case t&fs.ModeSymlink != 0:
			dest, err := os.Readlink(path)
			if err != nil {
				dest = "error " + err.Error()
			}
			parts = append(parts, digestPart{rel, "link " + dest})
		case t.IsRegular():
			fi, err := d.Info()
			switch {
			case err != nil:
				parts = append(parts, digestPart{rel, "error " + err.Error()})
			case hashed+fi.Size() > MaxTrustBytes:
				parts = append(parts, digestPart{rel, fmt.Sprintf("size %d time %d", fi.Size(), fi.ModTime().UnixNano())})
			default:
				hashed += fi.Size()
				parts = append(parts, digestPart{rel, fileSum(path)})
			}
		default:
			parts = append(parts, digestPart{rel, regular.Kind(t)})
		}
		return nil
	})
	return parts
}

// namedFiles are the files inside the project that the commands of an
// MCP or LSP configuration file name: every "command" string and every
// string of an "args" list (or the part after "=" of --flag=value)
// that, taken relative to the directory the servers run in (the
// project: the file's own directory, or the one above .zut), is an
// existing file inside the project's root. A server started as python3
// server.py runs server.py, so trusting the configuration trusts it.
func namedFiles(config string) []string {
	data, err := regular.Read(config, maxTrustFile)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	base := filepath.Dir(config)
	if filepath.Base(base) == ".zut" {
		base = filepath.Dir(base)
	}
	root := ProjectRoot(base)
	seen := map[string]bool{}
	var out []string
	consider := func(s string) {
		for _, c := range []string{s, s[strings.IndexByte(s, '=')+1:]} {
			if c == "" || len(c) > 4096 {
				continue
			}
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			p = filepath.Clean(p)
			if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if fi, err := os.Stat(p); err != nil || fi.IsDir() || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		if len(out) >= 100 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, k)
			}
		case []any:
			for _, x := range v {
				walk(x, key)
			}
		case string:
			if key == "command" || key == "args" {
				consider(v)
			}
		}
	}
	walk(v, "")
	sort.Strings(out)
	return out
}

// ProjectConfigFiles are the project files, relative to the working
// directory, that name programs to run besides the extension manifests
// or let commands run unasked: the MCP servers and the language servers
// of the project, and its settings (whose permission allow rules count
// only once the project is trusted), and Claude Code's settings (their
// hooks run and their allow rules count only in a trusted folder).
var ProjectConfigFiles = []string{".mcp.json", ".zut/lsp.json", ".zut/settings.json", ".claude/settings.json", ".claude/settings.local.json"}

// ProjectDigest is the Digest of the project entries with the project
// configuration files of cwd that exist, which it also returns (as
// ProjectConfigFiles names them). The app and zut ext compute trust with
// it, so that they agree.
func ProjectDigest(entries []Entry, cwd string) (digest string, files []string) {
	var paths []string
	for _, f := range ProjectConfigFiles {
		p := filepath.Join(cwd, f)
		if _, err := os.Lstat(p); err == nil {
			paths = append(paths, p)
			files = append(files, f)
		}
	}
	return Digest(entries, paths...), files
}

// ProjectTrusted reports whether the store trusts the project of cwd with
// these entries, as Config.TrustProject wants it.
func ProjectTrusted(home, cwd string, entries []Entry) (bool, error) {
	d, _ := ProjectDigest(entries, cwd)
	return OpenTrust(home).Trusted(ProjectRoot(cwd), d)
}

// fileSum is the SHA-256 of a regular file's content, streamed, or the
// error that kept it from being read.
func fileSum(path string) string {
	f, err := regular.Open(path)
	if errors.Is(err, regular.ErrNotRegular) {
		return "not a regular file"
	}
	if err != nil {
		return "error " + errors.Unwrap(err).Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "error " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TrustStore is the trust store of one $ZUT_HOME. Its methods read and
// write the file each time, so that several zut processes share it; they
// are safe for concurrent use.
type TrustStore struct {
	path string
	mu   sync.Mutex
	now  func() time.Time
}

// OpenTrust returns the trust store under home. Nothing is read until a
// method is called; a missing file trusts nothing.
func OpenTrust(home string) *TrustStore {
	return &TrustStore{path: filepath.Join(home, TrustFile), now: time.Now}
}

// Path is the store's file.
func (s *TrustStore) Path() string { return s.path }

// trustFile is the format of trust.json.
type trustFile struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Digest  string    `json:"digest"`
	Allowed time.Time `json:"allowed"`
}

// Trusted reports whether the user allowed root with exactly digest. An
// unreadable or unsafe store is an error (and trusts nothing).
func (s *TrustStore) Trusted(root, digest string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil {
		return false, err
	}
	e, ok := tf.Projects[root]
	return ok && e.Digest == digest, nil
}

// Allow records that the user trusts root with digest, replacing what
// was trusted there before.
func (s *TrustStore) Allow(root, digest string) error {
	return s.update(func(tf *trustFile) {
		tf.Projects[root] = trustedEntry{Digest: digest, Allowed: s.now().UTC().Truncate(time.Second)}
	})
}

// Forget removes root from the store; forgetting an unknown root is not
// an error.
func (s *TrustStore) Forget(root string) error {
	return s.update(func(tf *trustFile) { delete(tf.Projects, root) })
}

func (s *TrustStore) update(change func(*trustFile)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil {
		return err
	}
	change(tf)
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save trust store: %w", err)
	}
	if err := regular.WriteAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save trust store: %w", err)
	}
	return nil
}

// read loads the store; a missing file is empty.
func (s *TrustStore) read() (*trustFile, error) {
	tf := &trustFile{Version: 1, Projects: map[string]trustedEntry{}}
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w", s.path, err)
	}
	if err := safeStore(fi); err != nil {
		return nil, fmt.Errorf("read trust store %s: %v; zut trusts no project until it is fixed (remove the file to start over)", s.path, err)
	}
	data, err := readRegular(s.path, maxTrustFile)
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %v", s.path, err)
	}
	if err := json.Unmarshal(data, tf); err != nil {
		return nil, fmt.Errorf("read trust store %s: %v; remove the file to start over", s.path, err)
	}
	if tf.Projects == nil {
		tf.Projects = map[string]trustedEntry{}
	}
	return tf, nil
}

// safeStore refuses a store that is a link, or that another user owns or
// may write.
func safeStore(fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return errors.New("it is not a regular file")
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("other users may write it (mode %04o); run chmod 600 on it", fi.Mode().Perm())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("it belongs to another user (uid %d)", uid)
	}
	return nil
}
