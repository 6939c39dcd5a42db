//go:build unix

package syntax

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

// TestFIFO checks that a named pipe is refused or skipped, never opened
// (which would block until a writer came).
func TestFIFO(t *testing.T) {
	dir := repoTree(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tool := New(tools.Config{CWD: dir}, Config{})
	r := run(t, tool, map[string]any{"action": "outline", "path": "pipe.go"})
	if !r.IsError || !strings.HasPrefix(r.Text(), "ast: pipe.go is not a regular file") {
		t.Errorf("outline of a FIFO = %q, want a not-a-regular-file error", r.Text())
	}
	r = run(t, tool, map[string]any{"action": "find", "query": "main"})
	if r.IsError || !strings.Contains(r.Text(), "main.go:5: func main()") {
		t.Errorf("find in a directory holding a FIFO = %q, want main.go's main", r.Text())
	}
}
