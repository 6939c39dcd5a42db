package zutfile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// entry is one member of an archive a test builds.
type entry struct {
	name string
	typ  byte
	body string
	mode int64
	link string
	pax  map[string]string
}

// tarGz writes entries as a tar stream compressed with gzip, then the
// bytes of tail inside the gzip stream after the tar's end.
func tarGz(t testing.TB, entries []entry, tail []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: mode, Linkname: e.link, PAXRecords: e.pax, ModTime: time.Unix(1, 0)}
		if typ == tar.TypeXGlobalHeader {
			hdr = &tar.Header{Typeflag: typ, PAXRecords: e.pax}
		}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("write header %q: %v", e.name, err)
		}
		io.WriteString(tw, e.body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Write(tail)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const testManifest = `{"zutfile":1,"name":"t","permissions":{"bash":"none"}}`

// testLimits are small, so that the refusals need small archives.
var testLimits = Limits{Archive: 64 << 10, Entry: 1 << 10, Total: 4 << 10, Entries: 8}

// TestExtractRefuses feeds archives that must be refused and checks the
// error names the entry and the limit, and that nothing was written
// outside the destination.
func TestExtractRefuses(t *testing.T) {
	kib := strings.Repeat("x", 1<<10)
	many := []entry{{name: "manifest.json", body: testManifest}}
	for i := 0; i < 8; i++ {
		many = append(many, entry{name: "f" + string(rune('a'+i)), body: "x"})
	}
	good := tarGz(t, []entry{{name: "manifest.json", body: testManifest}, {name: "AGENT.md", body: "hi"}}, nil)
	tests := []struct {
		name string
		data []byte
		lim  Limits // testLimits when zero
		err  string
	}{
		{name: "traversal", data: tarGz(t, []entry{{name: "../evil", body: "x"}}, nil), err: `archive: entry "../evil": a path that climbs out with ..`},
		{name: "traversal inside", data: tarGz(t, []entry{{name: "a/../../evil", body: "x"}}, nil), err: `a path that climbs out with ..`},
		{name: "absolute", data: tarGz(t, []entry{{name: "/tmp/evil", body: "x"}}, nil), err: `entry "/tmp/evil": an absolute path`},
		{name: "backslash", data: tarGz(t, []entry{{name: `..\evil`, body: "x"}}, nil), err: "a name with a backslash"},
		{name: "symlink", data: tarGz(t, []entry{{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"}}, nil), err: `archive entry "link": a symbolic link (to /etc/passwd)`},
		{name: "hardlink", data: tarGz(t, []entry{{name: "a", body: "x"}, {name: "hard", typ: tar.TypeLink, link: "a"}}, nil), err: `archive entry "hard": a hard link (to a)`},
		{name: "device", data: tarGz(t, []entry{{name: "null", typ: tar.TypeChar}}, nil), err: `archive entry "null": a device`},
		{name: "fifo", data: tarGz(t, []entry{{name: "pipe", typ: tar.TypeFifo}}, nil), err: `archive entry "pipe": a named pipe`},
		{name: "oversize entry", data: tarGz(t, []entry{{name: "big", body: kib + "y"}}, nil), err: `archive entry "big": 1025 bytes, over the limit of 1 KiB per file`},
		{name: "entry of the limit is fine, total over", data: tarGz(t, []entry{{name: "a", body: kib}, {name: "b", body: kib}, {name: "c", body: kib}, {name: "d", body: kib}, {name: "e", body: "z"}}, nil),
			err: `archive entry "e": the files so far hold more than 4 KiB, the limit of an archive's content`},
		{name: "too many entries", data: tarGz(t, many, nil), err: `archive entry "fh": more than 8 entries, the limit of an archive`},
		{name: "bomb after the tar", data: tarGz(t, []entry{{name: "manifest.json", body: testManifest}}, make([]byte, 8<<20)), err: "decompresses to more than 1044 KiB (a compression bomb?); the files of a zutfile hold at most 4 KiB"},
		{name: "sparse file, PAX", data: gz(sparsePAX()), err: `archive entry "s": a sparse file`},
		{name: "sparse file, old GNU", data: gz(rawTar(rawHeader("s", tar.TypeGNUSparse, 0))), err: `archive entry "s": a sparse file`},
		{name: "duplicate", data: tarGz(t, []entry{{name: "a", body: "1"}, {name: "./a", body: "2"}}, nil), err: `archive entry "./a": a second entry of the same path`},
		{name: "file then a directory below it", data: tarGz(t, []entry{{name: "a", body: "1"}, {name: "a/b", body: "2"}}, nil), err: `archive entry "a/b": create its directory: not a directory`},
		{name: "zstd", data: []byte("\x28\xb5\x2f\xfd\x00\x58\x00\x00"), err: "compressed with zstd (an archive of the original zut?), which this zut does not read: unpack it (zstd -d, then tar -x) and repack the directory with zut pack DIR"},
		{name: "plain tar", data: []byte("manifest.json\x00\x00\x00"), err: "not a gzip stream"},
		{name: "empty", data: nil, err: "not a gzip stream"},
		{name: "truncated gzip", data: good[:len(good)/2], err: "the archive is cut short or damaged"},
		{name: "truncated trailer", data: good[:len(good)-4], err: "the archive is cut short or damaged"},
		{name: "archive over its limit", lim: Limits{Archive: 1 << 10, Entry: 1 << 10, Total: 4 << 10, Entries: 8},
			data: tarGz(t, []entry{{name: "a", body: noise(1000, 1)}, {name: "b", body: noise(1000, 2)}}, nil), err: "archive: larger than 1 KiB, the limit of an archive"},
		{name: "junk after the gzip stream", data: append(append([]byte{}, good...), "junk"...), err: "the archive is cut short or damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			if err := os.Mkdir(dest, 0o700); err != nil {
				t.Fatal(err)
			}
			lim := tc.lim
			if lim == (Limits{}) {
				lim = testLimits
			}
			err := extract(bytes.NewReader(tc.data), dest, lim)
			var ae *ArchiveError
			if err == nil || !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("extract = %v, want an *ArchiveError with %q", err, tc.err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 1 {
				t.Errorf("the parent of the destination holds %d entries, want only dest", len(left))
			}
		})
	}
}

// noise is n bytes that do not compress.
func noise(n int, seed uint32) string {
	b := make([]byte, n)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = byte(seed >> 24)
	}
	return string(b)
}

// rawHeader is a USTAR header block written by hand, for entries the
// archive/tar writer will not write.
func rawHeader(name string, typ byte, size int) []byte {
	h := make([]byte, 512)
	copy(h, name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", size))
	copy(h[136:], "00000000000\x00")
	h[156] = typ
	copy(h[257:], "ustar\x0000")
	if typ == tar.TypeGNUSparse {
		copy(h[257:], "ustar  \x00")     // the GNU format's magic
		copy(h[483:], "00000000001\x00") // the real size
	}
	copy(h[148:], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

// rawTar joins blocks, pads the last one and ends the archive.
func rawTar(blocks ...[]byte) []byte {
	var b []byte
	for _, x := range blocks {
		b = append(b, x...)
		if r := len(b) % 512; r != 0 {
			b = append(b, make([]byte, 512-r)...)
		}
	}
	return append(b, make([]byte, 1024)...)
}

// sparsePAX is a PAX sparse file (format 1.0) whose header claims a
// terabyte and whose map names one byte of data.
func sparsePAX() []byte {
	rec := func(k, v string) string {
		s := " " + k + "=" + v + "\n"
		n := len(s) + 1
		for len(strconv.Itoa(n)+s) != n {
			n++
		}
		return strconv.Itoa(n) + s
	}
	pax := rec("GNU.sparse.major", "1") + rec("GNU.sparse.minor", "0") + rec("GNU.sparse.name", "s") + rec("GNU.sparse.realsize", "1099511627776")
	sparseMap := "1\n0\n1\n"
	data := make([]byte, 512)
	copy(data, sparseMap)
	data = append(data, 'x')
	return rawTar(rawHeader("PaxHeaders/s", tar.TypeXHeader, len(pax)), []byte(pax), rawHeader("s", tar.TypeReg, len(data)), data)
}

// gz compresses b.
func gz(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// TestExtractAccepts reads archives that are fine, from zut pack and
// from tar as people run it.
func TestExtractAccepts(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		files map[string]string // path: "exec" or "file"
	}{
		{name: "root dir entry, dot slash names, git's global header", data: tarGz(t, []entry{
			{name: "pax_global_header", typ: tar.TypeXGlobalHeader, pax: map[string]string{"comment": "0123abcd"}},
			{name: "./", typ: tar.TypeDir, mode: 0o755},
			{name: "./manifest.json", body: testManifest},
			{name: "./bin/", typ: tar.TypeDir, mode: 0o700},
			{name: "./bin/run", body: "#!/bin/sh\n", mode: 0o700},
			{name: "./empty/", typ: tar.TypeDir, mode: 0o755},
		}, nil), files: map[string]string{"manifest.json": "file", "bin/run": "exec"}},
		{name: "files of the limits", data: tarGz(t, []entry{{name: "manifest.json", body: testManifest}, {name: "a", body: strings.Repeat("x", 1<<10)}}, make([]byte, 1024)),
			files: map[string]string{"manifest.json": "file", "a": "file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			if err := extract(bytes.NewReader(tc.data), dest, testLimits); err != nil {
				t.Fatalf("extract = %v", err)
			}
			files, err := Walk(dest, testLimits)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range files {
				got[f.Path] = map[bool]string{true: "exec", false: "file"}[f.Exec]
			}
			if len(got) != len(tc.files) {
				t.Errorf("files = %v, want %v", got, tc.files)
			}
			for p, k := range tc.files {
				if got[p] != k {
					t.Errorf("%s is %q, want %q", p, got[p], k)
				}
			}
		})
	}
}

// TestExtractSmallReads reads a pack one byte per read, and with the
// last read's error beside its data, as a pipe or a slow disk gives it.
func TestExtractSmallReads(t *testing.T) {
	var b bytes.Buffer
	want, err := Pack("../../examples/agents/code-reviewer", &b)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]func(io.Reader) io.Reader{"one byte": iotest.OneByteReader, "data with EOF": iotest.DataErrReader, "half": iotest.HalfReader} {
		dest := t.TempDir()
		if err := extract(r(bytes.NewReader(b.Bytes())), dest, Limits{}); err != nil {
			t.Fatalf("%s: extract = %v", name, err)
		}
		files, err := Walk(dest, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got := Digest(files); got != want {
			t.Errorf("%s: digest %s, want %s", name, got, want)
		}
	}
}

// writeTree writes files (path: content; a path ending in "*" is made
// executable) under a new directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(full, mode) // past the umask
	}
	return dir
}

// TestDigestStable packs one tree twice (and a copy of it, with other
// times) and checks the packs are the same bytes and the digests of the
// directory, of the packs and of the archives loaded agree; a changed
// exec bit or content changes the digest.
func TestDigestStable(t *testing.T) {
	files := map[string]string{"manifest.json": testManifest, "AGENT.md": "Review.", "skills/review/SKILL.md": "---\nname: review\n---\n", "bin/tool*": "#!/bin/sh\n"}
	dir := writeTree(t, files)
	os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: x\n"), 0o644)
	copyDir := writeTree(t, files)
	old := time.Unix(12345, 0)
	os.Chtimes(filepath.Join(copyDir, "AGENT.md"), old, old)
	os.Chmod(filepath.Join(copyDir, "AGENT.md"), 0o600) // only the exec bit counts

	var packs [][]byte
	var digests []string
	for _, d := range []string{dir, dir, copyDir} {
		var b bytes.Buffer
		dg, err := Pack(d, &b)
		if err != nil {
			t.Fatalf("Pack(%s) = %v", d, err)
		}
		packs, digests = append(packs, b.Bytes()), append(digests, dg)
	}
	for i := 1; i < len(packs); i++ {
		if !bytes.Equal(packs[0], packs[i]) {
			t.Errorf("pack %d differs from pack 0 (%d and %d bytes)", i, len(packs[i]), len(packs[0]))
		}
		if digests[i] != digests[0] {
			t.Errorf("digest %d = %s, want %s", i, digests[i], digests[0])
		}
	}
	a, _, err := Load(context.Background(), dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != digests[0] {
		t.Errorf("directory digest %s, pack's %s", a.Digest, digests[0])
	}
	for _, f := range a.Files {
		if strings.HasPrefix(f.Path, ".git") {
			t.Errorf("the digest counts %s", f.Path)
		}
	}
	zut := filepath.Join(t.TempDir(), "t.zut")
	os.WriteFile(zut, packs[0], 0o644)
	tmp := t.TempDir()
	b, cleanup, err := Load(context.Background(), zut, LoadOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if b.Digest != digests[0] || b.Kind != "archive" || b.Instructions != "Review." {
		t.Errorf("archive loaded: digest %s kind %s instructions %q; want %s archive %q", b.Digest, b.Kind, b.Instructions, digests[0], "Review.")
	}
	if err := cleanup(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the cleanup left %d entries in the temp dir", len(left))
	}
	// An archive of the directory itself (tar czf a.zut agent/) holds
	// the same agent.
	var wrapped []entry
	for _, f := range a.Files {
		body, _ := os.ReadFile(filepath.Join(dir, f.Path))
		mode := int64(0o644)
		if f.Exec {
			mode = 0o755
		}
		wrapped = append(wrapped, entry{name: "agent/" + f.Path, body: string(body), mode: mode})
	}
	os.WriteFile(zut, tarGz(t, wrapped, nil), 0o644)
	w, cleanup, err := Load(context.Background(), zut, LoadOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if w.Digest != digests[0] {
		t.Errorf("the archive of agent/ has the digest %s, want %s", w.Digest, digests[0])
	}
	// What counts.
	for name, change := range map[string]func(string){
		"exec bit": func(d string) { os.Chmod(filepath.Join(d, "AGENT.md"), 0o744) },
		"content":  func(d string) { os.WriteFile(filepath.Join(d, "AGENT.md"), []byte("Review!"), 0o644) },
		"new file": func(d string) { os.WriteFile(filepath.Join(d, "skills", "x"), nil, 0o644) },
		"renamed":  func(d string) { os.Rename(filepath.Join(d, "bin"), filepath.Join(d, "bin2")) },
	} {
		d := writeTree(t, files)
		change(d)
		c, _, err := Load(context.Background(), d, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Digest == digests[0] {
			t.Errorf("%s: the digest did not change", name)
		}
	}
}

// TestPackRefuses packs trees that are no zutfile.
func TestPackRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(dir string)
		err   string
	}{
		{name: "symlink out", setup: func(d string) { os.Symlink("/etc/passwd", filepath.Join(d, "pw")) }, err: "pw is a symbolic link; a zutfile holds regular files and directories only"},
		{name: "symlinked dir", setup: func(d string) { os.Symlink("/etc", filepath.Join(d, "etc")) }, err: "etc is a symbolic link"},
		{name: "no manifest", setup: func(d string) { os.Remove(filepath.Join(d, "manifest.json")) }, err: "no manifest.json at its root"},
		{name: "bad manifest", setup: func(d string) {
			os.WriteFile(filepath.Join(d, "manifest.json"), []byte(`{"zutfile":1,"name":"X"}`), 0o644)
		}, err: `manifest.json: name "X"`},
		{name: "replace without AGENT.md", setup: func(d string) {
			os.Remove(filepath.Join(d, "AGENT.md"))
			os.WriteFile(filepath.Join(d, "manifest.json"), []byte(`{"zutfile":1,"name":"x","replace_system_prompt":true}`), 0o644)
		}, err: "replace_system_prompt is set but there is no AGENT.md"},
		{name: "missing extension", setup: func(d string) {
			os.WriteFile(filepath.Join(d, "manifest.json"), []byte(`{"zutfile":1,"name":"x","extensions":["ext/guard"]}`), 0o644)
		}, err: `extensions[0] "ext/guard" is not a directory of the agent`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"manifest.json": testManifest, "AGENT.md": "x"})
			tc.setup(dir)
			var b bytes.Buffer
			_, err := Pack(dir, &b)
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "pack agent "+dir+": ") {
				t.Fatalf("Pack = %v, want pack agent %s: ...%s", err, dir, tc.err)
			}
		})
	}
}

// TestLoadRefusesTree checks Load of a directory and of archives that
// break the limits, and that a refused archive leaves no temp dir.
func TestLoadRefusesTree(t *testing.T) {
	fifoDir := writeTree(t, map[string]string{"manifest.json": testManifest})
	if err := mkfifo(filepath.Join(fifoDir, "pipe")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	big := writeTree(t, map[string]string{"manifest.json": testManifest, "big": strings.Repeat("x", 2<<10)})
	tests := []struct {
		name, src, err string
	}{
		{name: "fifo in a directory", src: fifoDir, err: "pipe is a named pipe (FIFO); a zutfile holds regular files and directories only"},
		{name: "file over the limit in a directory", src: big, err: "big is 2 KiB, over the limit of 1 KiB per file"},
		{name: "a FIFO as the source", src: filepath.Join(fifoDir, "pipe"), err: "it is a named pipe (FIFO); give a directory, a .zut archive or owner/repo"},
		{name: "nothing there", src: "./no/such/place", err: "no such file or directory, and not a repository owner/repo[/path]"},
		{name: "an archive refused", src: func() string {
			p := filepath.Join(t.TempDir(), "x.zut")
			os.WriteFile(p, tarGz(t, []entry{{name: "../x", body: "x"}}, nil), 0o644)
			return p
		}(), err: `archive: entry "../x": a path that climbs out with ..`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			_, cleanup, err := Load(context.Background(), tc.src, LoadOptions{TempDir: tmp, Limits: testLimits})
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "load agent "+tc.src+": ") {
				t.Fatalf("Load(%s) = %v, want load agent %s: ...%s", tc.src, err, tc.src, tc.err)
			}
			if cleanup == nil || cleanup() != nil {
				t.Errorf("the cleanup of a failed Load is not a no-op")
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("a failed Load left %d entries in the temp dir", len(left))
			}
		})
	}
}

// FuzzExtract reads any bytes as an archive: it never panics, never
// writes outside its destination and leaves only regular files and
// directories, within the limits.
func FuzzExtract(f *testing.F) {
	f.Add(tarGz(f, []entry{{name: "manifest.json", body: testManifest}, {name: "a/b", body: "x", mode: 0o755}}, nil))
	f.Add(tarGz(f, []entry{{name: "../x", body: "x"}}, nil))
	f.Add(tarGz(f, []entry{{name: "l", typ: tar.TypeSymlink, link: "/"}}, nil))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"))
	f.Add([]byte("\x28\xb5\x2f\xfd"))
	var b bytes.Buffer
	Pack("../../examples/agents/code-reviewer", &b)
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dest := filepath.Join(parent, "d")
		os.Mkdir(dest, 0o700)
		extract(bytes.NewReader(data), dest, testLimits)
		if left, _ := os.ReadDir(parent); len(left) != 1 {
			t.Fatalf("extract wrote next to its destination: %d entries", len(left))
		}
		var total int64
		n := 0
		filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dest {
				return nil
			}
			n++
			if !d.Type().IsDir() && !d.Type().IsRegular() {
				t.Fatalf("extract left %s of type %v", p, d.Type())
			}
			if fi, err := d.Info(); err == nil && d.Type().IsRegular() {
				if fi.Size() > testLimits.Entry {
					t.Fatalf("extract left %s of %d bytes", p, fi.Size())
				}
				total += fi.Size()
			}
			return nil
		})
		if total > testLimits.Total+testLimits.Entry || n > 2*testLimits.Entries {
			t.Fatalf("extract left %d entries of %d bytes", n, total)
		}
	})
}
