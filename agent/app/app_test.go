package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestEmptySessionRemoved checks that a session nothing was written to
// leaves no file behind, while one with a message stays.
func TestEmptySessionRemoved(t *testing.T) {
	cases := []struct {
		name    string
		write   bool
		wantLen int
	}{
		{"empty session is deleted", false, 0},
		{"session with a title stays", true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("ZUT_HOME", home)
			t.Setenv("ANTHROPIC_API_KEY", "k")
			var stderr bytes.Buffer
			e := NewEnv(bytes.NewReader(nil), io.Discard, &stderr)
			a, err := New(context.Background(), e, Options{NoExtensions: true}, Frontend{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.write {
				if err := a.sess.SetTitle("kept"); err != nil {
					t.Fatal(err)
				}
			}
			a.Close()
			files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*"))
			if len(files) != tc.wantLen {
				t.Errorf("files after Close = %v, want %d", files, tc.wantLen)
			}
			if _, err := os.Stat(home); err != nil {
				t.Fatal(err)
			}
		})
	}
}
