//go:build unix

package regular

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogCap writes many times a log's cap, in writes of every size, and
// checks that no file passes the cap, one older file is kept, and the
// lines the log adds say what happened.
func TestLogCap(t *testing.T) {
	tests := []struct {
		name  string
		write int // bytes per Write
	}{
		{"small writes", 100},
		{"writes of the cap", 4096},
		{"one write of many caps", 40000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.log")
			l, err := OpenLog(path, 4096)
			if err != nil {
				t.Fatal(err)
			}
			line := bytes.Repeat([]byte("y"), tc.write)
			for total := 0; total < 40000; total += tc.write {
				if n, err := l.Write(line); n != len(line) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
				}
			}
			dropped, rotations := l.Dropped()
			if rotations < 9 || dropped == 0 {
				t.Errorf("Dropped() = %d, %d; want bytes dropped after 9 or more rotations", dropped, rotations)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			cur, _ := os.ReadFile(path)
			old, _ := os.ReadFile(path + ".1")
			for name, b := range map[string][]byte{path: cur, path + ".1": old} {
				if len(b) > 4096 {
					t.Errorf("%s holds %d bytes, over the 4096 cap", name, len(b))
				}
			}
			if !strings.HasSuffix(string(old), "it continues in "+path+"]\n") {
				t.Errorf("the last line of %s.1 does not say where the log continues: %q", path, tail(old))
			}
			if !strings.HasPrefix(string(cur), "[zut: log rotated ") || !strings.Contains(string(cur[:200]), "dropped]") {
				t.Errorf("the first line of %s does not say what was dropped: %q", path, cur[:100])
			}
			if !strings.Contains(tail(cur), "log closed after ") || !strings.Contains(tail(cur), "dropped]") {
				t.Errorf("the last line of %s does not say what was dropped: %q", path, tail(cur))
			}
			if _, err := l.Write([]byte("late")); err == nil {
				t.Error("Write after Close succeeded")
			}
		})
	}
}

// TestLogPlanted checks that a log planted as a FIFO or a directory is
// refused at once, and that a full log is rotated when opened.
func TestLogPlanted(t *testing.T) {
	dir := planted(t)
	for _, name := range []string{"fifo.json", "dir.json", "zero.json", "linkfifo.json"} {
		var err error
		hangGuard(t, "OpenLog("+name+")", func() {
			var l *Log
			if l, err = OpenLog(filepath.Join(dir, name), 0); err == nil {
				l.Close()
			}
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenLog(%q) error = %v, want ErrNotRegular", name, err)
		}
	}
	full := filepath.Join(dir, "full.log")
	os.WriteFile(full, bytes.Repeat([]byte("z"), 5000), 0o600)
	l, err := OpenLog(full, 4096)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if fi, err := os.Stat(full + ".1"); err != nil || fi.Size() < 5000 {
		t.Errorf("a log opened over its cap was not rotated: %v", err)
	}
}

func tail(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
