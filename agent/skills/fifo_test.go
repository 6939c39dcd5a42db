package skills

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestSkillNotRegular: a SKILL.md that is a FIFO is a warning, not a hang.
func TestSkillNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs are Unix files")
	}
	cwd := t.TempDir()
	dir := filepath.Join(cwd, ".zut", "skills", "pipe")
	os.MkdirAll(dir, 0o755)
	syscall.Mkfifo(filepath.Join(dir, "SKILL.md"), 0o644)
	x := Discover(Options{CWD: cwd})
	if len(x.List()) != 0 || len(x.Warnings()) != 1 || !strings.Contains(x.Warnings()[0], "a named pipe (FIFO), not a regular file") {
		t.Fatalf("Discover with a FIFO SKILL.md: skills %v, warnings %q; want one warning naming the FIFO", x.List(), x.Warnings())
	}
}
