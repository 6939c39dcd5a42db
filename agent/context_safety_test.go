package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestContextFileNotRegular: an AGENTS.md that is a FIFO or a link to
// /dev/zero is skipped with a reason, at once.
func TestContextFileNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix special files")
	}
	tests := []struct {
		name  string
		plant func(p string)
		want  string
	}{
		{"fifo", func(p string) { syscall.Mkfifo(p, 0o644) }, "a named pipe (FIFO), not a regular file"},
		{"link to /dev/zero", func(p string) { os.Symlink("/dev/zero", p) }, "a character device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cwd := t.TempDir()
			tc.plant(filepath.Join(cwd, "AGENTS.md"))
			done := make(chan []ContextFile, 1)
			go func() { done <- ContextFiles(ContextOptions{CWD: cwd}) }()
			var files []ContextFile
			select {
			case files = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("ContextFiles did not return within 30 s: it blocks")
			}
			if len(files) != 1 || files[0].Content != "" || !strings.Contains(files[0].Skipped, tc.want) {
				t.Fatalf("ContextFiles = %+v, want one skipped file saying %q", files, tc.want)
			}
		})
	}
}
