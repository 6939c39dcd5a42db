//go:build unix

package ansi

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadGuard runs fn and fails if it has not returned within a generous
// bound: the property under test is "a planted file never hangs zut".
func loadGuard(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30 s: it blocks", what)
	}
}

// TestThemePlantedFiles loads theme files that are not small regular
// files, in a themes directory (LoadDir) and as an extension's theme
// (LoadFile): each is refused with an error naming the file and what is
// wrong, at once, and the good theme beside them still loads.
func TestThemePlantedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
	big := append([]byte(`{"name": "big", "description": "`), make([]byte, 1<<20)...)
	for i := 32; i < len(big); i++ {
		big[i] = 'x'
	}
	os.WriteFile(filepath.Join(dir, "big.json"), append(big, `"}`...), 0o600)
	os.WriteFile(filepath.Join(dir, "good.json"), []byte(`{"colors": {"accent": "#ff0000"}}`), 0o600)
	tests := []struct{ file, want string }{
		{"fifo.json", "a named pipe (FIFO), not a regular file; replace it with a regular file or remove it"},
		{"zero.json", "a character device, not a regular file"},
		{"big.json", "larger than the 1 MiB limit for a theme"},
	}

	s := NewThemeSet()
	var err error
	loadGuard(t, "LoadDir", func() { _, err = s.LoadDir(dir) })
	for _, tc := range tests {
		if want := "theme " + filepath.Join(dir, tc.file) + ": " + tc.want; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadDir error = %v, want it to say %q", err, want)
		}
	}
	if _, lerr := s.Lookup("good", true); lerr != nil {
		t.Errorf("Lookup(good) after LoadDir = %v, want the good theme loaded beside the bad files", lerr)
	}

	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			var err error
			loadGuard(t, "LoadFile("+tc.file+")", func() { _, _, err = NewThemeSet().LoadFile(path) })
			if want := "theme " + path + ": " + tc.want; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("LoadFile(%q) error = %v, want it to say %q", tc.file, err, want)
			}
		})
	}
}
