//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// historyGuard runs fn and fails if it has not returned within a
// generous bound: the property under test is "never blocks".
func historyGuard(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30 s: it blocks", what)
	}
}

// TestHistoryPlanted opens a history file that is a FIFO, /dev/zero
// through a symbolic link, a directory or a file over MaxHistoryFile: each
// is refused at once with an error naming the file (and the limit), and
// the History returned keeps entries in memory; Add refuses at once to
// write to anything but a regular file.
func TestHistoryPlanted(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.jsonl")
	os.Symlink("/dev/zero", zero)
	sub := filepath.Join(dir, "dir.jsonl")
	os.Mkdir(sub, 0o700)
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Truncate(big, 64<<20+1) // sparse: costs no disk
	tests := []struct{ path, want string }{
		{fifo, "a named pipe (FIFO), not a regular file"},
		{zero, "a character device, not a regular file"},
		{sub, "a directory, not a regular file"},
		{big, "larger than the 64 MiB limit for this file"},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			var h *History
			var err error
			historyGuard(t, "OpenHistory", func() { h, err = OpenHistory(tc.path, 10) })
			if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("OpenHistory(%q) error = %v, want one naming the file and saying %q", tc.path, err, tc.want)
			}
			historyGuard(t, "Add", func() { err = h.Add("private prompt") })
			if h.Len() != 1 {
				t.Errorf("Add after a refused open kept %d entries, want 1 (in memory)", h.Len())
			}
			if tc.path != big && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Add to %s = %v, want an error saying %q", tc.path, err, tc.want)
			}
		})
	}
}

// TestHistoryAddPlanted appends to a history whose file was replaced by
// a FIFO after it was opened: the write is refused at once, not blocked.
func TestHistoryAddPlanted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h, err := OpenHistory(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	historyGuard(t, "Add", func() { err = h.Add("x") })
	if want := "a named pipe (FIFO), not a regular file"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("Add to a FIFO = %v, want an error naming %s and saying %q", err, path, want)
	}
}

// TestHistoryMode checks the history file is 0600 when created, when
// compacted, and when it was readable by others before.
func TestHistoryMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h, _ := OpenHistory(path, 2)
	mode := func(when string) {
		t.Helper()
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("history mode %s = %v, %v; want 0600", when, fi.Mode().Perm(), err)
		}
	}
	h.Add("one")
	mode("after the first entry")
	h.Add("two")
	h.Add("three")
	h.Add("four") // four lines: compacted to two
	mode("after compaction")
	os.Chmod(path, 0o644)
	h.Add("five")
	mode("after an entry added to a file others could read")
}
