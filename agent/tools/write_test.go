package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"old.txt": "before\n", "exec.sh": "#!/bin/sh\n", "dir/keep": ""})
	os.Chmod(filepath.Join(cfg.CWD, "exec.sh"), 0o755)
	tl := &writeTool{cfg}
	tests := []struct {
		name, path, content string
		wantText            string
		wantFile            string // path relative to CWD or absolute
		fc                  FileChange
	}{
		{"create with parents", "a/b/c.txt", "one\ntwo\n", "created a/b/c.txt (2 lines, 8 bytes)", "a/b/c.txt",
			FileChange{Path: "a/b/c.txt", Created: true, New: "one\ntwo\n", FirstChangedLine: 1}},
		{"overwrite", "old.txt", "after", "wrote old.txt (1 line, 5 bytes)", "old.txt",
			FileChange{Path: "old.txt", Old: "before\n", New: "after", FirstChangedLine: 1}},
		{"same content", "old.txt", "after", "wrote old.txt (1 line, 5 bytes)", "old.txt",
			FileChange{Path: "old.txt", Old: "after", New: "after"}},
		{"empty", "empty.txt", "", "created empty.txt (0 lines, 0 bytes)", "empty.txt",
			FileChange{Path: "empty.txt", Created: true}},
		{"keeps mode", "exec.sh", "#!/bin/sh\necho hi\n", "wrote exec.sh (2 lines, 18 bytes)", "exec.sh",
			FileChange{Path: "exec.sh", Old: "#!/bin/sh\n", New: "#!/bin/sh\necho hi\n", FirstChangedLine: 2}},
		{"home", "~/notes/n.md", "# n\n", "created " + filepath.Join(cfg.Home, "notes/n.md") + " (1 line, 4 bytes)", filepath.Join(cfg.Home, "notes/n.md"),
			FileChange{Path: filepath.Join(cfg.Home, "notes/n.md"), Created: true, New: "# n\n", FirstChangedLine: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tl, map[string]any{"path": tc.path, "content": tc.content})
			if r.IsError || r.Text() != tc.wantText {
				t.Fatalf("write(%q) = %q (error %v), want %q", tc.path, r.Text(), r.IsError, tc.wantText)
			}
			p := tc.wantFile
			if !filepath.IsAbs(p) {
				p = filepath.Join(cfg.CWD, p)
			}
			if got := readFile(t, p); got != tc.content {
				t.Errorf("file %s = %q, want %q", p, got, tc.content)
			}
			var fc FileChange
			if err := json.Unmarshal(r.Details, &fc); err != nil || fc != tc.fc {
				t.Errorf("write(%q) Details = %+v (%v), want %+v", tc.path, fc, err, tc.fc)
			}
		})
	}
	if fi, _ := os.Stat(filepath.Join(cfg.CWD, "exec.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("write changed the mode of exec.sh to %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(cfg.CWD, "empty.txt")); fi.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteErrors(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"dir/x": "", "file": ""})
	tl := &writeTool{cfg}
	tests := []struct{ name, path, want string }{
		{"directory", "dir", "write: dir: is a directory; give a file path"},
		{"parent is a file", "file/child.txt", "write: file/child.txt: a parent of it is a file, not a directory"},
		{"empty path", "", "write: path is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tl, map[string]any{"path": tc.path, "content": "x"})
			if !r.IsError || !strings.HasPrefix(r.Text(), tc.want) {
				t.Errorf("write(%q) = %q, want an error starting %q", tc.path, r.Text(), tc.want)
			}
		})
	}
}

func TestWriteLargeDetails(t *testing.T) {
	cfg := testConfig(t)
	big := strings.Repeat("x", maxDetailText+1)
	writeFiles(t, cfg.CWD, map[string]string{"big": big})
	r := call(t, &writeTool{cfg}, map[string]any{"path": "big", "content": "small"})
	var fc FileChange
	json.Unmarshal(r.Details, &fc)
	if !fc.Truncated || fc.Old != "" || fc.New != "" {
		t.Errorf("Details of a write over a %d-byte file = truncated %v, %d/%d bytes; want texts left out", len(big), fc.Truncated, len(fc.Old), len(fc.New))
	}
	if got := readFile(t, filepath.Join(cfg.CWD, "big")); got != "small" {
		t.Errorf("big = %q after write", got)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"real/target.txt": "old"})
	link := filepath.Join(cfg.CWD, "link.txt")
	os.Symlink(filepath.Join("real", "target.txt"), link)
	r := call(t, &writeTool{cfg}, map[string]any{"path": "link.txt", "content": "new"})
	if r.IsError {
		t.Fatal(r.Text())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("write replaced the symlink %s", link)
	}
	if got := readFile(t, filepath.Join(cfg.CWD, "real/target.txt")); got != "new" {
		t.Errorf("symlink target = %q, want %q", got, "new")
	}
}
