//go:build unix

package regular

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard runs fn and fails if it has not returned within a generous
// bound: the property under test is "never blocks".
func hangGuard(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30 s: it blocks", what)
	}
}

// planted returns a directory holding one file of every kind Read must
// tell apart.
func planted(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.json"), []byte(`{"a":1}`), 0o600)
	os.WriteFile(filepath.Join(dir, "big.json"), make([]byte, 2000), 0o600)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
	os.Symlink(filepath.Join(dir, "ok.json"), filepath.Join(dir, "link.json"))
	os.Mkdir(filepath.Join(dir, "dir.json"), 0o700)
	os.Symlink("/dev/stdin", filepath.Join(dir, "stdin.json"))
	os.Symlink(filepath.Join(dir, "fifo.json"), filepath.Join(dir, "linkfifo.json"))
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling.json"))
	return dir
}

func TestRead(t *testing.T) {
	dir := planted(t)
	tests := []struct {
		name     string
		want     string // the content, or "" for an error
		wantErr  error
		wantText string
	}{
		{"ok.json", `{"a":1}`, nil, ""},
		{"link.json", `{"a":1}`, nil, ""},
		{"big.json", "", ErrTooLarge, "larger than the 1 KiB limit for this file"},
		{"fifo.json", "", ErrNotRegular, "a named pipe (FIFO), not a regular file"},
		{"zero.json", "", ErrNotRegular, "a character device, not a regular file"},
		{"dir.json", "", ErrNotRegular, "a directory, not a regular file"},
		{"missing.json", "", fs.ErrNotExist, "no such file"},
		{"dangling.json", "", fs.ErrNotExist, "no such file"},
		{"linkfifo.json", "", ErrNotRegular, "a named pipe (FIFO), not a regular file"},
		// /dev/stdin is the test's stdin: a pipe, a terminal or /dev/null,
		// never a regular file, and never waited on.
		{"stdin.json", "", ErrNotRegular, ", not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			var data []byte
			var err error
			hangGuard(t, "Read("+tc.name+")", func() { data, err = Read(path, 1024) })
			if tc.wantErr == nil {
				if err != nil || string(data) != tc.want {
					t.Errorf("Read(%q) = %q, %v; want %q, nil", tc.name, data, err, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("Read(%q) error = %v, want %v naming the file and saying %q", tc.name, err, tc.wantErr, tc.wantText)
			}
		})
	}
}

func TestOpenAppend(t *testing.T) {
	dir := planted(t)
	for _, name := range []string{"fifo.json", "dir.json", "zero.json"} {
		var err error
		hangGuard(t, "OpenAppend("+name+")", func() {
			var f *os.File
			if f, err = OpenAppend(filepath.Join(dir, name)); err == nil {
				f.Close()
			}
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenAppend(%q) error = %v, want ErrNotRegular", name, err)
		}
	}
	// A new file is 0600; an existing readable one is narrowed to it.
	for _, name := range []string{"new.jsonl", "ok.json"} {
		path := filepath.Join(dir, name)
		os.Chmod(path, 0o644)
		f, err := OpenAppend(path)
		if err != nil {
			t.Fatalf("OpenAppend(%q) = %v", name, err)
		}
		io.WriteString(f, "x\n")
		f.Close()
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("OpenAppend(%q) left mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ok.json")); string(b) != "{\"a\":1}x\n" {
		t.Errorf("OpenAppend appended to get %q, want the old content then x", b)
	}
}
