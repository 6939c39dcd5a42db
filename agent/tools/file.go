package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/provider"
)

// writeAtomic replaces the file at path with data: it writes a temporary
// file in the same directory, syncs it and renames it over path, so a
// reader never sees half a file. Missing parent directories are created.
// An existing file keeps its permission bits. A symlink is followed, also
// a dangling one, and its target written, so the link stays a link and
// is never swapped for a regular file; via is then the target, for the
// result to report ("" when path was no link). A link owned by another
// user is refused (see provider.LinkTarget). With a Scope, the directory
// written in is checked again once opened, by the name the kernel gives
// it (checkOpened), and the file is made and renamed inside that opened
// directory only, so a link swapped in after CheckScope cannot move the
// write elsewhere. It reports whether the file was created.
func (cfg Config) writeAtomic(tool, path string, data []byte) (created bool, via string, err error) {
	target, linked, err := provider.LinkTarget(path)
	if err != nil {
		return false, "", err
	}
	if linked {
		path, via = target, target
	}
	created, err = cfg.replaceFile(tool, path, data)
	return created, via, err
}

// replaceFile is writeAtomic once links are resolved.
func (cfg Config) replaceFile(tool, path string, data []byte) (created bool, err error) {
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create directory: %w", unwrapPath(err))
	}
	if scopeSwapHook != nil && cfg.Scope != nil {
		scopeSwapHook(path)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, unwrapPath(err)
	}
	defer root.Close()
	if cfg.Scope != nil {
		d, err := root.Open(".")
		if err != nil {
			return false, unwrapPath(err)
		}
		err = cfg.checkOpened(tool, path, d, name, true)
		d.Close()
		if err != nil {
			return false, err
		}
	}
	mode := fs.FileMode(0o644)
	fi, err := root.Lstat(name)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("is a directory")
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("became a symbolic link while it was being written; nothing was written, try again")
	case err == nil && !fi.Mode().IsRegular():
		return false, fmt.Errorf("is %s, not a regular file", provider.FileKind(fi.Mode()))
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, unwrapPath(err)
	}
	tmp, tmpName, err := createTemp(root, "."+name+".zut-")
	if err != nil {
		return false, unwrapPath(err)
	}
	defer func() {
		if err != nil {
			root.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, unwrapPath(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, unwrapPath(err)
	}
	if err := tmp.Close(); err != nil {
		return false, unwrapPath(err)
	}
	if err := root.Chmod(tmpName, mode); err != nil {
		return false, unwrapPath(err)
	}
	if err := root.Rename(tmpName, name); err != nil {
		return false, unwrapPath(err)
	}
	return created, nil
}

// createTemp makes a new file in root named prefix, a random number and
// ".tmp", with O_EXCL so it is never one that was there (nor a link).
func createTemp(root *os.Root, prefix string) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// unwrapPath drops the operation and path of a *fs.PathError, for messages
// that name the path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// imageType returns the MIME type of an image format the models accept
// (PNG, JPEG, GIF, WebP), judged by magic bytes, or "".
func imageType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// sniffLen is how much of a file the binary check looks at.
const sniffLen = 8 << 10

// isBinary reports whether head (the start of a file) looks binary: it
// holds a NUL byte, as git and ripgrep judge.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0
}

// binaryKind guesses what a binary file is from its magic bytes, for the
// message that refuses it.
func binaryKind(head []byte) string {
	kinds := []struct{ magic, name string }{
		{"\x7fELF", "an ELF executable"},
		{"%PDF", "a PDF document"},
		{"PK\x03\x04", "a zip archive (also jar, docx, xlsx)"},
		{"\x1f\x8b", "gzip-compressed data"},
		{"BZh", "bzip2-compressed data"},
		{"\xfd7zXZ\x00", "xz-compressed data"},
		{"\x28\xb5\x2f\xfd", "zstd-compressed data"},
		{"SQLite format 3\x00", "an SQLite database"},
		{"\xcf\xfa\xed\xfe", "a Mach-O executable"},
		{"MZ", "a Windows executable"},
		{"\x00asm", "a WebAssembly module"},
		{"BM", "a BMP image"},
		{"II*\x00", "a TIFF image"},
		{"MM\x00*", "a TIFF image"},
		{"\x00\x00\x01\x00", "an ICO image"},
		{"OggS", "Ogg media"},
		{"ID3", "MP3 audio"},
		{"fLaC", "FLAC audio"},
	}
	for _, k := range kinds {
		if bytes.HasPrefix(head, []byte(k.magic)) {
			return k.name
		}
	}
	if len(head) >= 12 && string(head[4:8]) == "ftyp" {
		return "an MP4/MOV media file"
	}
	return "binary data"
}

// countLines counts the lines of s: newlines, plus one for a last line
// without a newline.
func countLines(s []byte) int {
	n := bytes.Count(s, []byte{'\n'})
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// cutUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// formatSize prints a byte count for people: 812 B, 50.0 KiB, 3.2 MiB.
func formatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// plural returns "1 line" or "n lines" (also "matches", "entries").
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	switch {
	case strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"):
		word += "es"
	case strings.HasSuffix(word, "y") && !strings.ContainsAny(word[len(word)-2:len(word)-1], "aeiou"):
		word = word[:len(word)-1] + "ies"
	default:
		word += "s"
	}
	return fmt.Sprintf("%d %s", n, word)
}

// FileChange is the Details of write and edit: the file's text before and
// after the call, for a diff view. Texts over 256 KiB are left out and
// Truncated is set.
type FileChange struct {
	Path      string `json:"path"`
	Created   bool   `json:"created,omitempty"`
	Old       string `json:"old"`
	New       string `json:"new"`
	Truncated bool   `json:"truncated,omitempty"`
	// FirstChangedLine is the 1-based line of the first difference.
	FirstChangedLine int `json:"first_changed_line,omitempty"`
}

// maxDetailText bounds each text of a FileChange.
const maxDetailText = 256 << 10

// newFileChange builds the Details of a write or edit.
// oldTooBig says the old text was not even read because of its size.
func newFileChange(path string, created bool, old, new string, oldTooBig bool) FileChange {
	fc := FileChange{Path: path, Created: created}
	if !oldTooBig {
		fc.FirstChangedLine = firstChangedLine(old, new)
	}
	if oldTooBig || len(old) > maxDetailText || len(new) > maxDetailText {
		fc.Truncated = true
		return fc
	}
	fc.Old, fc.New = old, new
	return fc
}

// firstChangedLine is the 1-based line where a and b first differ, or 0
// when they are equal.
func firstChangedLine(a, b string) int {
	if a == b {
		return 0
	}
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return strings.Count(a[:i], "\n") + 1
}
