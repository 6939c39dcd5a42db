package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// grepBackends returns cfg for the Go backend and, when rg is installed,
// for the rg backend.
func grepBackends(cfg Config) map[string]Config {
	out := map[string]Config{"go": cfg}
	if rg, err := exec.LookPath("rg"); err == nil {
		c := cfg
		c.NoRipgrep, c.Ripgrep = false, rg
		out["rg"] = c
	}
	return out
}

// TestGrepSaysWhatItSkipped: a match on a line too long for either
// backend never yields a bare "No matches": the answer names the file and
// says it was not searched whole.
func TestGrepSaysWhatItSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MiB line")
	}
	cfg := testConfig(t)
	f, err := os.Create(filepath.Join(cfg.CWD, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range rgMaxLine>>20 + 1 {
		f.Write(chunk)
	}
	f.WriteString(" needle\n")
	f.Close()
	writeFiles(t, cfg.CWD, map[string]string{"small.txt": "no match here\n"})
	for name, c := range grepBackends(cfg) {
		t.Run(name, func(t *testing.T) {
			r := call(t, &grepTool{c}, map[string]any{"pattern": "needle"})
			text := r.Text()
			if r.IsError || !strings.Contains(text, "not everything could be searched") || !strings.Contains(text, "huge.txt: ") {
				t.Fatalf("grep(needle) = %q, want no bare No matches, naming huge.txt", text)
			}
			if strings.HasSuffix(strings.TrimSpace(text), "directory.") {
				t.Errorf("grep(needle) ends like a plain no-match: %q", text)
			}
		})
	}
}

// TestGrepUnreadable: an unreadable directory is named in the answer.
func TestGrepUnreadable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads every directory; run as a user to test this")
	}
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"locked/a.txt": "needle\n", "open.txt": "hay\n"})
	os.Chmod(filepath.Join(cfg.CWD, "locked"), 0)
	defer os.Chmod(filepath.Join(cfg.CWD, "locked"), 0o755)
	for name, c := range grepBackends(cfg) {
		t.Run(name, func(t *testing.T) {
			text := call(t, &grepTool{c}, map[string]any{"pattern": "needle"}).Text()
			if !strings.Contains(text, "not everything could be searched") || !strings.Contains(text, "locked") {
				t.Fatalf("grep(needle) = %q, want it to name the unreadable directory", text)
			}
		})
	}
}
