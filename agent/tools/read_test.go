package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
)

// numbered returns n lines "line 1" .. "line n", each ending in "\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadText(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{
		"small.txt":   "alpha\nbeta\ngamma",
		"crlf.txt":    "one\r\ntwo\r\n",
		"long.txt":    numbered(9000),
		"empty.txt":   "",
		"wide.txt":    strings.Repeat("w", 30<<10) + "\n" + strings.Repeat("v", 30<<10) + "\nend\n",
		"huge.txt":    "first\n" + strings.Repeat("h", 80<<10) + "\nlast\n",
		"sub/one.txt": "x\n",
		"sub/two/a":   "y\n",
		"Notes.md":    "n\n",
		"notes.txt":   "n\n",
	})
	tl := &readTool{cfg}
	cases := []goldenCase{
		{"small", call(t, tl, map[string]any{"path": "small.txt"})},
		{"crlf shown as lf", call(t, tl, map[string]any{"path": "crlf.txt"})},
		{"offset and limit", call(t, tl, map[string]any{"path": "small.txt", "offset": 2, "limit": 1})},
		{"offset to end", call(t, tl, map[string]any{"path": "small.txt", "offset": 3})},
		{"offset past end", call(t, tl, map[string]any{"path": "small.txt", "offset": 4})},
		{"empty", call(t, tl, map[string]any{"path": "empty.txt"})},
		{"byte cap", call(t, tl, map[string]any{"path": "wide.txt"})},
		{"byte cap continued", call(t, tl, map[string]any{"path": "wide.txt", "offset": 2})},
		{"one huge line", call(t, tl, map[string]any{"path": "huge.txt", "offset": 2})},
		{"directory", call(t, tl, map[string]any{"path": "sub"})},
		{"missing with suggestions", call(t, tl, map[string]any{"path": "notes.tx"})},
		{"missing directory", call(t, tl, map[string]any{"path": "nope/deeper/file.go"})},
		{"home", call(t, tl, map[string]any{"path": "~/absent.txt"})},
	}
	for i := range cases { // keep the golden file small: cut long outputs
		r := &cases[i].result
		if len(r.Content) == 1 && len(r.Content[0].Text) > 400 {
			s := r.Content[0].Text
			r.Content[0].Text = fmt.Sprintf("%s\n[... %d bytes ...]\n%s", s[:60], len(s)-360, s[len(s)-300:])
		}
	}
	checkGolden(t, "read.golden", cases, cfg.Home, "$HOME")
}

func TestReadCaps(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"long.txt": numbered(9000)})
	tl := &readTool{cfg}
	tests := []struct {
		name          string
		offset, limit int
		first, last   int
		hint          string
	}{
		{"default", 0, 0, 1, 2000, "\n\n[showing lines 1-2000 of 9000; call read with offset=2001 to continue]"},
		{"second page", 2001, 0, 2001, 4000, "[showing lines 2001-4000 of 9000; call read with offset=4001 to continue]"},
		{"limit", 10, 5, 10, 14, "[showing lines 10-14 of 9000; call read with offset=15 to continue]"},
		{"limit over cap", 1, 5000, 1, 2000, "offset=2001"},
		{"last page", 8001, 0, 8001, 9000, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"path": "long.txt"}
			if tc.offset > 0 {
				args["offset"] = tc.offset
			}
			if tc.limit > 0 {
				args["limit"] = tc.limit
			}
			r := call(t, tl, args)
			text := r.Text()
			body, _, _ := strings.Cut(text, "\n\n[")
			lines := strings.Split(body, "\n")
			if r.IsError || lines[0] != fmt.Sprintf("line %d", tc.first) || lines[len(lines)-1] != fmt.Sprintf("line %d", tc.last) || len(lines) != tc.last-tc.first+1 {
				t.Fatalf("read(%v): lines %q..%q (%d), want line %d..line %d", args, lines[0], lines[len(lines)-1], len(lines), tc.first, tc.last)
			}
			if tc.hint == "" && strings.Contains(text, "[showing") || !strings.Contains(text, tc.hint) {
				t.Errorf("read(%v) ends %q, want hint %q", args, text[max(0, len(text)-100):], tc.hint)
			}
			if len(body) > readMaxBytes {
				t.Errorf("read(%v) returned %d bytes, over the cap", args, len(body))
			}
		})
	}
}

func TestReadImages(t *testing.T) {
	cfg := testConfig(t)
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var pngB, jpgB, gifB bytes.Buffer
	png.Encode(&pngB, img)
	jpeg.Encode(&jpgB, img, nil)
	gif.Encode(&gifB, img, nil)
	// A lossless WebP header for a 5x4 image (the pixel data is not read).
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f")
	bits := uint32(5-1) | uint32(4-1)<<14
	webp = append(webp, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24), 0, 0, 0, 0, 0)
	files := map[string][]byte{"a.png": pngB.Bytes(), "b.jpg": jpgB.Bytes(), "c.gif": gifB.Bytes(), "d.webp": webp, "e.txt.png": pngB.Bytes()}
	for name, data := range files {
		os.WriteFile(filepath.Join(cfg.CWD, name), data, 0o644)
	}
	tests := []struct {
		path, mime, desc string
	}{
		{"a.png", "image/png", "[a.png: image/png, %s, 3x2]"},
		{"b.jpg", "image/jpeg", "[b.jpg: image/jpeg, %s, 3x2]"},
		{"c.gif", "image/gif", "[c.gif: image/gif, %s, 3x2]"},
		{"d.webp", "image/webp", "[d.webp: image/webp, %s, 5x4]"},
		{"e.txt.png", "image/png", "[e.txt.png: image/png, %s, 3x2]"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := call(t, &readTool{cfg}, map[string]any{"path": tc.path})
			data := files[tc.path]
			want := fmt.Sprintf(tc.desc, formatSize(int64(len(data))))
			if r.IsError || len(r.Content) != 2 || r.Content[0].Text != want {
				t.Fatalf("read(%s) = %+v, want text %q and an image", tc.path, r.Content, want)
			}
			b := r.Content[1]
			got, _ := base64.StdEncoding.DecodeString(b.Data)
			if b.Type != provider.BlockImage || b.MIMEType != tc.mime || !bytes.Equal(got, data) {
				t.Errorf("read(%s) image block = %s %s (%d bytes), want %s with the file's bytes", tc.path, b.Type, b.MIMEType, len(got), tc.mime)
			}
		})
	}

	big := append(append([]byte(nil), pngB.Bytes()...), make([]byte, readMaxImage)...)
	os.WriteFile(filepath.Join(cfg.CWD, "big.png"), big, 0o644)
	r := call(t, &readTool{cfg}, map[string]any{"path": "big.png"})
	if !r.IsError || !strings.Contains(r.Text(), "read: image big.png is 3.8 MiB, over the 3.8 MiB limit for images") {
		t.Errorf("read(big.png) = %q, want the size error", r.Text())
	}
}

func TestReadBinary(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{
		"prog":        "\x7fELF\x02\x01\x01\x00rest",
		"doc.pdf":     "%PDF-1.7\n\x00\x01",
		"data.bin":    "abc\x00def",
		"late nul.db": strings.Repeat("a", 100) + "\x00",
	})
	tests := []struct{ path, want string }{
		{"prog", "read: prog is a binary file (an ELF executable, 12 B); read shows text and images only. Inspect it with bash, for example: file prog; xxd prog | head"},
		{"doc.pdf", "read: doc.pdf is a binary file (a PDF document, 11 B)"},
		{"data.bin", "read: data.bin is a binary file (binary data, 7 B)"},
		{"late nul.db", "file 'late nul.db'"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := call(t, &readTool{cfg}, map[string]any{"path": tc.path})
			if !r.IsError || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("read(%s) = %q, want an error containing %q", tc.path, r.Text(), tc.want)
			}
		})
	}
}

func TestReadAbort(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"a.txt": numbered(10)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := (&readTool{cfg}).Run(ctx, []byte(`{"path":"a.txt"}`), nil)
	if !r.IsError || !strings.Contains(r.Text(), "aborted") {
		t.Errorf("read with a cancelled context = %q, want an abort error", r.Text())
	}
}

// FuzzReadText checks the line and byte caps on arbitrary file contents:
// read never returns more than the caps, and what it shows is the file.
func FuzzReadText(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 1, 2)
	f.Add([]byte(strings.Repeat("x", 70000)+"\ny"), 1, 0)
	f.Add([]byte("\n\n\n"), 3, 1)
	dir := f.TempDir()
	cfg := Config{CWD: dir, Home: dir, TempDir: dir}.withDefaults()
	f.Fuzz(func(t *testing.T, data []byte, offset, limit int) {
		if bytes.IndexByte(data, 0) >= 0 || imageType(data) != "" {
			return
		}
		path := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := map[string]any{"path": "f.txt"}
		if offset > 0 {
			args["offset"] = offset
		}
		if limit > 0 {
			args["limit"] = limit
		}
		r := call(t, &readTool{cfg}, args)
		if r.IsError {
			if !strings.Contains(r.Text(), "past the end") {
				t.Fatalf("read(%q, %v) failed: %s", data, args, r.Text())
			}
			return
		}
		body, _, _ := strings.Cut(r.Text(), "\n\n[")
		if len(body) > readMaxBytes || strings.Count(body, "\n")+1 > readMaxLines {
			t.Fatalf("read(%q, %v) returned %d bytes, %d lines: over the caps", data, args, len(body), strings.Count(body, "\n")+1)
		}
		if !strings.HasPrefix(r.Text(), "[") && !strings.Contains(strings.ReplaceAll(string(data), "\r\n", "\n"), strings.TrimSuffix(body, "\r")) {
			t.Fatalf("read(%q, %v) = %q, which is not text of the file", data, args, body)
		}
	})
}
