package session

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noHang runs fn and fails if it does not return within a generous bound.
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return within 30 s: it blocks", what)
	}
}

// TestLockRefusesPlantedFiles: a <session>.lock that zut did not create
// is never followed, truncated or written, and the error says why.
func TestLockRefusesPlantedFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix lock files")
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, lock, victim string)
		want  string
	}{
		{name: "symlink to a file of the user", want: "is a symbolic link; zut never follows", plant: func(t *testing.T, lock, victim string) {
			os.Symlink(victim, lock)
		}},
		{name: "dangling symlink", want: "is a symbolic link", plant: func(t *testing.T, lock, victim string) {
			os.Remove(victim)
			os.Symlink(victim, lock)
		}},
		{name: "hard link to a file of the user", want: "2 hard links", plant: func(t *testing.T, lock, victim string) {
			if err := os.Link(victim, lock); err != nil {
				t.Skip(err)
			}
		}},
		{name: "a file that is not a lock", want: "not a PID", plant: func(t *testing.T, lock, victim string) {
			os.WriteFile(lock, []byte("export PATH=x\n"), 0o600)
		}},
		{name: "a fifo", want: "a named pipe (FIFO)", plant: func(t *testing.T, lock, victim string) {
			syscall.Mkfifo(lock, 0o600)
		}},
		{name: "another user's file", want: "belongs to another user (uid 4321)", plant: func(t *testing.T, lock, victim string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			os.WriteFile(lock, []byte("1\n"), 0o600)
			os.Chown(lock, 4321, 4321)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFile(t)
			mustAppend(t, s, user("mine"))
			s.Close()
			victim := filepath.Join(t.TempDir(), "bashrc")
			os.WriteFile(victim, []byte("alias ll='ls -l'\n"), 0o644)
			lock := lockPath(s.Path())
			tc.plant(t, lock, victim)
			var err error
			noHang(t, "Open with a planted lock", func() {
				var r *Session
				r, _, err = Open(s.Path())
				if r != nil {
					r.Close()
				}
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "remove") {
				t.Fatalf("Open with a planted lock = %v, want a refusal containing %q that says to remove it", err, tc.want)
			}
			if b, err := os.ReadFile(victim); err == nil && string(b) != "alias ll='ls -l'\n" {
				t.Errorf("the file behind the lock now holds %q", b)
			}
			if _, err := os.Lstat(lock); err != nil {
				t.Errorf("the planted lock was removed: %v", err)
			}
		})
	}
}

// TestLockReusesStaleOwnLock: a stale lock zut left (a PID, owned by the
// user) is still taken over.
func TestLockReusesStaleOwnLock(t *testing.T) {
	s := newFile(t)
	s.Close()
	os.WriteFile(lockPath(s.Path()), []byte("999999\n"), 0o600)
	r, _, err := Open(s.Path())
	if err != nil {
		t.Fatalf("Open over a stale lock = %v", err)
	}
	r.Close()
}

// TestOpenNotRegular: a session path that is a FIFO, a device or a
// directory is refused at once.
func TestOpenNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix special files")
	}
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	syscall.Mkfifo(fifo, 0o600)
	for _, p := range []string{fifo, "/dev/zero", t.TempDir()} {
		var err error
		noHang(t, "Open("+p+")", func() { _, _, err = Open(p) })
		if err == nil || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("Open(%q) = %v, want a not-a-regular-file error", p, err)
		}
	}
}

// TestLineOverLimitSkipped: an entry longer than MaxLine is skipped with
// a warning naming its line, and the entries around it are kept.
func TestLineOverLimitSkipped(t *testing.T) {
	s := newFile(t, testOpts()...)
	mustAppend(t, s, user("before"))
	s.Close()
	f, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"big","message":{"role":"user","content":[{"type":"text","text":"`)
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range MaxLine >> 20 {
		f.Write(chunk)
	}
	f.WriteString("\"}]}}\n")
	f.Close()
	r, _, err := Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, r, user("after"))
	r.Close()
	r, warns, err := Open(r.Path())
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer r.Close()
	if len(warns) != 1 || warns[0].Line != 3 || !strings.Contains(warns[0].Text, "longer than the 64 MiB limit") {
		t.Fatalf("warnings = %v, want one for line 3 naming the 64 MiB limit", warns)
	}
	if got := texts(r.Messages()); strings.Join(got, ",") != "u:before,u:after" {
		t.Errorf("messages = %q, want before, after", got)
	}
}

// TestContinueReportsSkipped: -c passes over a newer file it cannot read
// and says so.
func TestContinueReportsSkipped(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/work/project")
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("older"))
	s.Close()
	newer := filepath.Join(filepath.Dir(s.Path()), "2099-01-01T00-00-00.000Z_ffff.jsonl")
	os.WriteFile(newer, []byte("not json\n"), 0o600)
	future := time.Now().Add(time.Hour)
	os.Chtimes(newer, future, future)
	r, warns, err := Continue(dir, "/work/project")
	if err != nil {
		t.Fatalf("Continue = %v", err)
	}
	defer r.Close()
	if r.Path() != s.Path() {
		t.Fatalf("Continue opened %s, want %s", r.Path(), s.Path())
	}
	if len(warns) != 1 || warns[0].Path != newer || !strings.Contains(warns[0].String(), "skipped by --continue") {
		t.Fatalf("warnings = %v, want one naming the skipped %s", warns, newer)
	}
	os.Remove(s.Path())
	if _, warns, err := Continue(dir, "/work/project"); !errors.Is(err, ErrNotFound) || len(warns) != 1 || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("Continue with only the unreadable file = %v, %v; want ErrNotFound saying what it skipped", warns, err)
	}
}

// TestCreateFileThroughDanglingLink: --session naming a dangling link is
// refused, and nothing is created at the link's target.
func TestCreateFileThroughDanglingLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.jsonl")
	link := filepath.Join(dir, "s.jsonl")
	os.Symlink(target, link)
	_, _, err := Open(link)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open(dangling link) = %v, want ErrNotExist (the app then creates)", err)
	}
	_, err = CreateFile(link, "/work/project")
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("CreateFile(dangling link) = %v, want a refusal naming the link", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
}
