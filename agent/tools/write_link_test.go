package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestWriteThroughLinks: write follows a link, dangling or not, writes
// its target and says so; the link is never replaced by a regular file.
func TestWriteThroughLinks(t *testing.T) {
	tests := []struct {
		name     string
		existing bool // the link's target exists
	}{
		{"link to an existing file", true},
		{"dangling link", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			target := filepath.Join(cfg.CWD, "real", "notes.md")
			os.MkdirAll(filepath.Dir(target), 0o755)
			if tc.existing {
				os.WriteFile(target, []byte("old\n"), 0o644)
			}
			link := filepath.Join(cfg.CWD, "notes.md")
			if err := os.Symlink("real/notes.md", link); err != nil {
				t.Skip(err)
			}
			r := call(t, &writeTool{cfg}, map[string]any{"path": "notes.md", "content": "new\n"})
			if r.IsError {
				t.Fatalf("write through %s: %s", tc.name, r.Text())
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("notes.md after write: %v, %v; want it still a symlink", fi.Mode(), err)
			}
			if got := readFile(t, target); got != "new\n" {
				t.Errorf("target holds %q, want new", got)
			}
			if !strings.Contains(r.Text(), "through the symbolic link notes.md, which points to real/notes.md") {
				t.Errorf("write result %q does not report the link", r.Text())
			}
		})
	}
}

// TestWriteRefusesFIFO: write to a FIFO is an error at once, never a hang.
func TestWriteRefusesFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs are Unix files")
	}
	cfg := testConfig(t)
	p := filepath.Join(cfg.CWD, "pipe")
	syscall.Mkfifo(p, 0o644)
	r := call(t, &writeTool{cfg}, map[string]any{"path": "pipe", "content": "x"})
	if !r.IsError || !strings.Contains(r.Text(), "a named pipe (FIFO), not a regular file") {
		t.Fatalf("write to a FIFO = %q, want a not-a-regular-file error", r.Text())
	}
}
