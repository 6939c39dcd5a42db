package zutfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zut-go/zut/proto/regular"
)

// Limits bound an agent's tree, whether read from an archive or walked
// on disk. The zero value of a field takes the default.
type Limits struct {
	// Archive is the most bytes of a .zut file (100 MiB).
	Archive int64
	// Entry is the most bytes of one file (64 MiB).
	Entry int64
	// Total is the most bytes of all files together (256 MiB).
	Total int64
	// Entries is the most files and directories (10,000).
	Entries int
	// Clone is the most bytes a git clone of a repository source may
	// take on disk (1 GiB): the repository, not only the agent in it.
	Clone int64
}

// DefaultLimits are the limits of every tree zut loads.
var DefaultLimits = Limits{Archive: 100 << 20, Entry: 64 << 20, Total: 256 << 20, Entries: 10000, Clone: 1 << 30}

func (l Limits) orDefault() Limits {
	if l.Archive <= 0 {
		l.Archive = DefaultLimits.Archive
	}
	if l.Entry <= 0 {
		l.Entry = DefaultLimits.Entry
	}
	if l.Total <= 0 {
		l.Total = DefaultLimits.Total
	}
	if l.Entries <= 0 {
		l.Entries = DefaultLimits.Entries
	}
	if l.Clone <= 0 {
		l.Clone = DefaultLimits.Clone
	}
	return l
}

// File is one regular file of an agent's tree.
type File struct {
	// Path is slash-separated and relative to the root ("skills/review/SKILL.md").
	Path string `json:"path"`
	// Exec says the file is executable (mode 0755 in a pack, else 0644).
	Exec bool `json:"exec"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
	// Sum is the SHA-256 of its content, in hex.
	Sum string `json:"sha256"`
}

// skipped reports whether a walk of the tree leaves out a directory:
// .git, which is the repository's, not the agent's.
func skipped(name string) bool { return name == ".git" }

// Walk lists the regular files of the tree at root, sorted by path, with
// their digests, within lim. A symbolic link, a device, a FIFO or a
// socket anywhere in the tree is an error (a zutfile holds files and
// directories only), and so is a tree past a limit; .git directories are
// left out.
func Walk(root string, lim Limits) ([]File, error) {
	files, err := walk(root, lim)
	if err != nil {
		return nil, fmt.Errorf("read agent %s: %v", root, err)
	}
	return files, nil
}

// walk is Walk with errors that do not name the root.
func walk(root string, lim Limits) ([]File, error) {
	lim = lim.orDefault()
	var files []File
	var total int64
	entries := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && skipped(d.Name()) {
			return filepath.SkipDir
		}
		entries++
		if entries > lim.Entries {
			return fmt.Errorf("more than %d files and directories, the limit of a zutfile", lim.Entries)
		}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case !t.IsRegular():
			return fmt.Errorf("%s is %s; a zutfile holds regular files and directories only (copy what it points to into the tree)", rel, regular.Kind(t))
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > lim.Entry {
			return fmt.Errorf("%s is %s, over the limit of %s per file", rel, regular.SizeText(fi.Size()), regular.SizeText(lim.Entry))
		}
		f, err := sumFile(p, lim.Entry)
		if err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		total += f.Size
		if total > lim.Total {
			return fmt.Errorf("its files hold more than %s, the limit of a zutfile", regular.SizeText(lim.Total))
		}
		f.Path, f.Exec = rel, fi.Mode()&0o111 != 0
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// sumFile reads the regular file at p, at most limit bytes.
func sumFile(p string, limit int64) (File, error) {
	f, err := regular.Open(p)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return File{}, err
	}
	if n > limit {
		return File{}, fmt.Errorf("grew past the limit of %s per file while read", regular.SizeText(limit))
	}
	return File{Size: n, Sum: hex.EncodeToString(h.Sum(nil))}, nil
}

// Digest sums a tree's files in a canonical form: for each file, sorted
// by slash path, its path, whether it is executable and its content's
// SHA-256. Directories are implied by the paths; times, owners and
// permission bits other than the exec bit do not count, so a directory
// and its pack have one digest. It reads "sha256:<hex>".
func Digest(files []File) string {
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	io.WriteString(h, "zutfile-tree 1\n")
	for _, f := range sorted {
		mode := "file"
		if f.Exec {
			mode = "exec"
		}
		fmt.Fprintf(h, "%s %s %d %s\n", strconv.Quote(f.Path), mode, f.Size, f.Sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// cleanEntry checks a path inside a tree, as an archive names it: it
// must be relative, with no "..", no empty or "." element after
// cleaning, and nothing but '/' between names. It returns the path
// cleaned ("a/b", no trailing slash).
func cleanEntry(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("an entry without a name")
	}
	if strings.ContainsAny(name, "\\\x00") {
		return "", fmt.Errorf("entry %q: a name with a backslash or a NUL byte", name)
	}
	if strings.HasPrefix(name, "/") || len(name) > 1 && name[1] == ':' {
		return "", fmt.Errorf("entry %q: an absolute path; a zutfile's paths are relative to its root", name)
	}
	for _, el := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if el == ".." {
			return "", fmt.Errorf("entry %q: a path that climbs out with ..", name)
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}
