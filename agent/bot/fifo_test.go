//go:build unix

package bot

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

func TestFileToolRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ts := fileTools("Telegram", tools.Config{CWD: dir}, Limits{}.withDefaults(), func(context.Context, File) error {
		t.Error("a FIFO was sent")
		return nil
	})
	r := ts[0].Run(context.Background(), []byte(`{"path":"pipe"}`), nil)
	if !r.IsError || !strings.Contains(r.Text(), "not a regular file") {
		t.Errorf("Run(FIFO) = %q, want a refusal", r.Text())
	}
}
