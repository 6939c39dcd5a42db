package provider

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withHangGuard runs fn and fails the test if it has not returned within
// a generous bound: the property under test is "never hangs".
func withHangGuard(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30 s: it blocks", what)
	}
}

func TestReadRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev/zero are Unix files")
	}
	dir := t.TempDir()
	regular := filepath.Join(dir, "auth.json")
	os.WriteFile(regular, []byte(`{"a":1}`), 0o600)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, 2000), 0o600)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(regular, link)
	tests := []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr error
		msg     string // substring of the error
	}{
		{name: "regular", path: regular, limit: 1 << 20, want: `{"a":1}`},
		{name: "symlink to regular", path: link, limit: 1 << 20, want: `{"a":1}`},
		{name: "exactly the limit", path: regular, limit: 7, want: `{"a":1}`},
		{name: "over the limit", path: big, limit: 1000, wantErr: ErrTooLarge, msg: "big.json: larger than the 1000 bytes limit"},
		{name: "fifo", path: fifo, limit: 1 << 20, wantErr: ErrNotRegular, msg: "a named pipe (FIFO), not a regular file"},
		{name: "dev zero", path: "/dev/zero", limit: 1 << 20, wantErr: ErrNotRegular, msg: "/dev/zero: it is a character device"},
		{name: "directory", path: dir, limit: 1 << 20, wantErr: ErrNotRegular, msg: "a directory, not a regular file"},
		{name: "missing", path: filepath.Join(dir, "none"), limit: 1, wantErr: fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			var err error
			withHangGuard(t, "ReadRegular("+tc.path+")", func() { got, err = ReadRegular(tc.path, tc.limit) })
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("ReadRegular(%q) = %v, want %v containing %q", tc.path, err, tc.wantErr, tc.msg)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("ReadRegular(%q) = %q, %v, want %q", tc.path, got, err, tc.want)
			}
		})
	}
}

func TestWriteFileLinks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(dir string) (path, target string)
		perm  fs.FileMode
		want  fs.FileMode
	}{
		{name: "new file", perm: 0o600, want: 0o600, setup: func(dir string) (string, string) {
			p := filepath.Join(dir, "config.json")
			return p, p
		}},
		{name: "existing file keeps its mode", perm: 0o600, want: 0o640, setup: func(dir string) (string, string) {
			p := filepath.Join(dir, "config.json")
			os.WriteFile(p, []byte("old"), 0o640)
			os.Chmod(p, 0o640)
			return p, p
		}},
		{name: "link to a file: the target is replaced, the link stays", perm: 0o600, want: 0o600, setup: func(dir string) (string, string) {
			target := filepath.Join(dir, "real", "config.json")
			os.Mkdir(filepath.Dir(target), 0o700)
			os.WriteFile(target, []byte("old"), 0o600)
			p := filepath.Join(dir, "config.json")
			os.Symlink("real/config.json", p)
			return p, target
		}},
		{name: "dangling link: the target is created, the link stays", perm: 0o600, want: 0o600, setup: func(dir string) (string, string) {
			target := filepath.Join(dir, "dotfiles", "auth.json")
			os.Mkdir(filepath.Dir(target), 0o700)
			p := filepath.Join(dir, "auth.json")
			os.Symlink(target, p)
			return p, target
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, target := tc.setup(dir)
			if err := WriteFile(path, []byte("new"), tc.perm); err != nil {
				t.Fatalf("WriteFile(%q) = %v", path, err)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "new" {
				t.Fatalf("target %s holds %q, %v; want new", target, b, err)
			}
			if path != target {
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("%s after WriteFile: %v, %v; want it still a symlink", path, fi.Mode(), err)
				}
			}
			if runtime.GOOS != "windows" {
				if fi, _ := os.Stat(target); fi.Mode().Perm() != tc.want {
					t.Errorf("mode of %s = %04o, want %04o", target, fi.Mode().Perm(), tc.want)
				}
			}
		})
	}
}

func TestWriteFileRefuses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix ownership and FIFOs")
	}
	t.Run("fifo", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "config.json")
		syscall.Mkfifo(p, 0o600)
		var err error
		withHangGuard(t, "WriteFile(fifo)", func() { err = WriteFile(p, []byte("x"), 0o600) })
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("WriteFile(fifo) = %v, want ErrNotRegular", err)
		}
	})
	t.Run("link owned by another user", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to give a symlink to another user")
		}
		dir := t.TempDir()
		target := filepath.Join(dir, "victim")
		os.WriteFile(target, []byte("keep"), 0o600)
		p := filepath.Join(dir, "config.json")
		os.Symlink(target, p)
		if err := os.Lchown(p, 4321, 4321); err != nil {
			t.Fatal(err)
		}
		err := WriteFile(p, []byte("x"), 0o600)
		if err == nil || !strings.Contains(err.Error(), "owned by another user (uid 4321)") {
			t.Fatalf("WriteFile through another user's link = %v, want a refusal naming uid 4321", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep" {
			t.Errorf("the link's target was changed to %q", b)
		}
	})
}
