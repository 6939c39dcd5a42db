package zutfile

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// A .zut archive is a tar stream compressed with gzip, holding the
// agent's tree: regular files and directories only, every path relative
// to the root. Pack writes one the same way every time; extract reads
// one within Limits and refuses anything else.

// ArchiveExt is the archives' file name extension.
const ArchiveExt = ".zut"

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// archiveError is a constant error (a package-level errors.New would
// run at every start).
type archiveError string

func (e archiveError) Error() string { return string(e) }

// ErrZstd is the error of an archive compressed with zstd (the original
// zut's archives): zut reads gzip only.
const ErrZstd = archiveError("it is compressed with zstd (an archive of the original zut?), which this zut does not read: unpack it (zstd -d, then tar -x) and repack the directory with zut pack DIR")

// ArchiveError is an archive refused: what was wrong, with the entry
// it was found at ("" for the whole archive).
type ArchiveError struct {
	Entry  string
	Reason string
}

func (e *ArchiveError) Error() string {
	if e.Entry == "" {
		return "archive: " + e.Reason
	}
	return fmt.Sprintf("archive entry %q: %s", e.Entry, e.Reason)
}

// counter counts the bytes read through it and fails past max.
type counter struct {
	r    io.Reader
	n    int64
	max  int64
	what func(max int64) error
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return n, c.what(c.max)
	}
	return n, err
}

// streamSlack is what the tar stream may hold beyond the files' bytes:
// a header and padding per entry, and room for long names.
func streamSlack(lim Limits) int64 { return int64(lim.Entries)*2048 + 1<<20 }

// extract reads the archive r (gzip, then tar) into dest, an empty
// directory, within lim. Every file is created with O_EXCL
// under dest (mode 0644, or 0755 when an exec bit is set); nothing is
// ever written outside dest. An error leaves what was written for the
// caller to remove with dest.
func extract(r io.Reader, dest string, lim Limits) error {
	lim = lim.orDefault()
	compressed := &counter{r: r, max: lim.Archive, what: func(max int64) error {
		return &ArchiveError{Reason: fmt.Sprintf("larger than %s, the limit of an archive", regular.SizeText(max))}
	}}
	br := bufio.NewReader(compressed)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return &ArchiveError{Reason: ErrZstd.Error()}
	case !bytes.HasPrefix(head, gzipMagic):
		return &ArchiveError{Reason: "not a gzip stream; a .zut archive is a tar file compressed with gzip (zut pack DIR writes one)"}
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return &ArchiveError{Reason: "bad gzip header: " + err.Error()}
	}
	return extractTar(zr, dest, lim)
}

// extractTar is extract of the tar stream r, uncompressed: the stream
// is counted to its end, past the tar's end too.
func extractTar(r io.Reader, dest string, lim Limits) error {
	lim = lim.orDefault()
	streamMax := lim.Total + streamSlack(lim)
	plain := &counter{r: r, max: streamMax, what: func(max int64) error {
		return &ArchiveError{Reason: fmt.Sprintf("decompresses to more than %s (a compression bomb?); the files of a zutfile hold at most %s", regular.SizeText(max), regular.SizeText(lim.Total))}
	}}
	tr := tar.NewReader(plain)
	seen := map[string]bool{}
	var total int64
	entries := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return streamErr(err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // git archive's commit id; it names no file
		}
		name, err := cleanEntry(hdr.Name)
		if err != nil {
			return &ArchiveError{Reason: err.Error()}
		}
		entries++
		if entries > lim.Entries {
			return &ArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("more than %d entries, the limit of an archive", lim.Entries)}
		}
		for k := range hdr.PAXRecords {
			if strings.HasPrefix(k, "GNU.sparse.") {
				return &ArchiveError{Entry: hdr.Name, Reason: "a sparse file, whose header does not say how much it holds; a zutfile holds plain files"}
			}
		}
		if name == "" {
			if hdr.Typeflag == tar.TypeDir {
				continue // the root itself, "./"
			}
			return &ArchiveError{Entry: hdr.Name, Reason: "a file named like the root"}
		}
		if seen[name] {
			return &ArchiveError{Entry: hdr.Name, Reason: "a second entry of the same path"}
		}
		seen[name] = true
		target := filepath.Join(dest, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return &ArchiveError{Entry: hdr.Name, Reason: "create the directory: " + pathReason(err)}
			}
			continue
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeSymlink:
			return &ArchiveError{Entry: hdr.Name, Reason: "a symbolic link (to " + hdr.Linkname + "); a zutfile holds regular files and directories only"}
		case tar.TypeLink:
			return &ArchiveError{Entry: hdr.Name, Reason: "a hard link (to " + hdr.Linkname + "); a zutfile holds regular files and directories only"}
		case tar.TypeChar, tar.TypeBlock:
			return &ArchiveError{Entry: hdr.Name, Reason: "a device; a zutfile holds regular files and directories only"}
		case tar.TypeFifo:
			return &ArchiveError{Entry: hdr.Name, Reason: "a named pipe (FIFO); a zutfile holds regular files and directories only"}
		case tar.TypeGNUSparse:
			return &ArchiveError{Entry: hdr.Name, Reason: "a sparse file, whose header does not say how much it holds; a zutfile holds plain files"}
		default:
			return &ArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("an entry of type %q, which a zutfile does not hold (regular files and directories only)", hdr.Typeflag)}
		}
		if hdr.Size > lim.Entry {
			return &ArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("%s, over the limit of %s per file", regular.SizeText(hdr.Size), regular.SizeText(lim.Entry))}
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return &ArchiveError{Entry: hdr.Name, Reason: "create its directory: " + pathReason(err)}
		}
		mode := os.FileMode(0o644)
		if hdr.Mode&0o111 != 0 {
			mode = 0o755
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, mode)
		if err != nil {
			return &ArchiveError{Entry: hdr.Name, Reason: "create the file: " + pathReason(err)}
		}
		// Count what is read, whatever the header says.
		n, err := io.Copy(f, io.LimitReader(tr, lim.Entry+1))
		if cerr := f.Close(); err == nil && cerr != nil {
			return &ArchiveError{Entry: hdr.Name, Reason: "write the file: " + pathReason(cerr)}
		}
		if err != nil {
			var ae *ArchiveError
			if errors.As(err, &ae) {
				return err
			}
			if errors.Is(err, io.ErrUnexpectedEOF) || strings.HasPrefix(err.Error(), "gzip:") || strings.HasPrefix(err.Error(), "flate:") || strings.HasPrefix(err.Error(), "archive/tar:") {
				return &ArchiveError{Entry: hdr.Name, Reason: "the archive is cut short or damaged: " + err.Error()}
			}
			return &ArchiveError{Entry: hdr.Name, Reason: "write the file: " + pathReason(err)}
		}
		if n > lim.Entry {
			return &ArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("more than %s, the limit per file", regular.SizeText(lim.Entry))}
		}
		total += n
		if total > lim.Total {
			return &ArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("the files so far hold more than %s, the limit of an archive's content", regular.SizeText(lim.Total))}
		}
	}
	// The rest of the stream, to its end: a gzip stream cut short or
	// damaged after the tar's end is refused too, and a bomb hidden
	// there is counted.
	if _, err := io.Copy(io.Discard, plain); err != nil {
		return streamErr(err)
	}
	return nil
}

// streamErr says what a read error of the tar or gzip stream means.
func streamErr(err error) error {
	var ae *ArchiveError
	if errors.As(err, &ae) {
		return err
	}
	return &ArchiveError{Reason: "the archive is cut short or damaged: " + err.Error()}
}

// pathReason is the cause of a file error without the path (the entry
// is named already).
func pathReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Pack writes the agent at dir to w as a .zut archive and returns its
// digest. The manifest must parse; the tree must be within DefaultLimits
// and hold regular files and directories only (a symbolic link is
// refused, so nothing outside the tree is packed); .git directories are
// left out. The archive is the same bytes for the same tree: files in
// path order, each with mode 0644 or 0755, owner 0, time 0 and no user
// or group names, and gzip with a fixed level and no name or time.
func Pack(dir string, w io.Writer) (string, error) {
	a, err := loadDir(dir, Limits{})
	if err != nil {
		return "", fmt.Errorf("pack agent %s: %v", dir, err)
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // the level is valid
	tw := tar.NewWriter(zw)
	for _, f := range a.Files {
		if err := packFile(tw, a.Dir, f); err != nil {
			return "", fmt.Errorf("pack agent %s: %v", dir, err)
		}
	}
	if err := tw.Close(); err != nil {
		return "", fmt.Errorf("pack agent %s: %v", dir, err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("pack agent %s: %v", dir, err)
	}
	return a.Digest, nil
}

func packFile(tw *tar.Writer, root string, f File) error {
	mode := int64(0o644)
	if f.Exec {
		mode = 0o755
	}
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     f.Path,
		Mode:     mode,
		Size:     f.Size,
		ModTime:  time.Unix(0, 0),
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%s: %v", f.Path, err)
	}
	r, err := regular.Open(filepath.Join(root, filepath.FromSlash(f.Path)))
	if err != nil {
		return err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, h), io.LimitReader(r, f.Size))
	if err != nil {
		return fmt.Errorf("%s: %v", f.Path, err)
	}
	if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.Sum {
		return fmt.Errorf("%s: it changed while packed; pack again", f.Path)
	}
	return nil
}
