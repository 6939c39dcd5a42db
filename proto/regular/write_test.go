package regular

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		perm os.FileMode
		data string
	}{
		{"new file private", 0o600, "a\n"},
		{"replaced, other mode", 0o644, "bb\n"},
	}
	path := filepath.Join(dir, "f.json")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := WriteAtomic(path, []byte(tc.data), tc.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != tc.data {
				t.Fatalf("file = %q, %v; want %q", got, err, tc.data)
			}
			fi, _ := os.Stat(path)
			if fi.Mode().Perm() != tc.perm {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tc.perm)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "f.json"), nil, 0o600); err == nil || !strings.Contains(err.Error(), "write ") {
		t.Errorf("WriteAtomic into a missing directory = %v, want a write error", err)
	}
}
