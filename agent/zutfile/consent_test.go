package zutfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConsent remembers consents, per digest, across calls and
// processes' worth of concurrent writers, and refuses an unsafe store.
func TestConsent(t *testing.T) {
	home := t.TempDir()
	const d1, d2 = "sha256:aa", "sha256:bb"
	if Consented(home, d1) {
		t.Fatal("Consented before any consent")
	}
	if err := RememberConsent(home, "rev", d1); err != nil {
		t.Fatal(err)
	}
	if !Consented(home, d1) || Consented(home, d2) {
		t.Fatalf("after consenting to %s: Consented(%s) = %v, Consented(%s) = %v", d1, d1, Consented(home, d1), d2, Consented(home, d2))
	}
	path := filepath.Join(home, "agents", "consent.json")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("consent.json: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := RememberConsent(home, "rev", "sha256:"+strings.Repeat("c", i+1)); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for i := 0; i < 8; i++ {
		if d := "sha256:" + strings.Repeat("c", i+1); !Consented(home, d) {
			t.Errorf("concurrent consent %s lost", d)
		}
	}
	if !Consented(home, d1) {
		t.Error("the first consent was lost")
	}

	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		err   string
	}{
		{name: "writable by others", setup: func(t *testing.T, p string) { os.Chmod(p, 0o666) }, err: "other users may write it (mode 0666); run chmod 600 on it"},
		{name: "not JSON", setup: func(t *testing.T, p string) { os.WriteFile(p, []byte("{"), 0o600) }, err: "remove the file to start over"},
		{name: "a link", setup: func(t *testing.T, p string) {
			other := filepath.Join(filepath.Dir(p), "other.json")
			os.Rename(p, other)
			os.Symlink(other, p)
		}, err: "it is a symbolic link, not a regular file"},
		{name: "another user's", setup: func(t *testing.T, p string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a file to another user")
			}
			os.Chown(p, 65534, 65534)
		}, err: "it belongs to another user (uid 65534)"},
		{name: "too large", setup: func(t *testing.T, p string) { os.WriteFile(p, make([]byte, maxConsentFile+1), 0o600) }, err: "larger than the 1 MiB limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := RememberConsent(home, "rev", d1); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(home, filepath.FromSlash(ConsentFile))
			tc.setup(t, p)
			if Consented(home, d1) {
				t.Errorf("Consented trusts an unsafe store")
			}
			if err := ConsentError(home); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ConsentError = %v, want %q", err, tc.err)
			}
			if err := RememberConsent(home, "rev", d2); err == nil {
				t.Errorf("RememberConsent wrote over an unsafe store")
			}
		})
	}
}

// TestDataDirs checks the per-agent directories.
func TestDataDirs(t *testing.T) {
	if got, want := AgentDataDir("/z", "rev"), filepath.FromSlash("/z/agents/rev/data"); got != want {
		t.Errorf("AgentDataDir = %s, want %s", got, want)
	}
	if got, want := SessionsDir("/z", "rev"), filepath.FromSlash("/z/agents/rev/sessions"); got != want {
		t.Errorf("SessionsDir = %s, want %s", got, want)
	}
}
