//go:build unix

package interactive

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

// TestTmuxPlantedFiles starts the real zut binary in a terminal (tmux)
// with a hostile file planted where it reads its configuration at start,
// in a folder nobody trusted: a symbolic link to /dev/stdin (the
// terminal zut reads keys from) or a FIFO. zut must come up, name the
// file, answer a prompt and quit on Ctrl-D; before, a .zut/settings.json
// linked to /dev/stdin froze it at "Starting… 0s" with every key
// swallowed, and FIFOs as $ZUT_HOME/config.json or lsp.json hung it.
func TestTmuxPlantedFiles(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	zut := buildE2ETools(t, dir)["zut"]
	tests := []struct {
		name  string
		path  string // under the project, or home/... under $ZUT_HOME
		plant func(path string) error
		named bool // the UI names the file
	}{
		{"settings.json linked to /dev/stdin", ".zut/settings.json", func(p string) error { return os.Symlink("/dev/stdin", p) }, true},
		{"settings.json a FIFO", ".zut/settings.json", func(p string) error { return syscall.Mkfifo(p, 0o600) }, true},
		{"lsp.json linked to /dev/stdin", ".zut/lsp.json", func(p string) error { return os.Symlink("/dev/stdin", p) }, true},
		{"$ZUT_HOME/config.json a FIFO", "home/config.json", func(p string) error { return syscall.Mkfifo(p, 0o600) }, true},
		{"$ZUT_HOME/lsp.json a FIFO", "home/lsp.json", func(p string) error { return syscall.Mkfifo(p, 0o600) }, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.NewServer(providertest.Reply{Text: "answered despite the plant"})
			defer srv.Close()
			base := filepath.Join(dir, fmt.Sprint(i))
			home, proj := filepath.Join(base, "zuthome"), filepath.Join(base, "proj")
			for _, d := range []string{home, filepath.Join(proj, ".git"), filepath.Join(proj, ".zut")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(proj, tc.path)
			if rest, ok := strings.CutPrefix(tc.path, "home/"); ok {
				path = filepath.Join(home, rest)
			}
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-planted-%d-%d", os.Getpid(), i)}
			t.Cleanup(tm.kill)
			cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --no-session --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
				proj, base, home, zut, srv.URL)
			tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "120", "-y", "40", cmd)
			tm.waitFor("the prompt, the trust question or zut's exit", func(s string) bool {
				return strings.Contains(s, "ask anything") || strings.Contains(s, "Trust this folder?") || strings.Contains(s, "ZUT-EXIT=")
			})
			if !strings.HasPrefix(tc.path, "home/") {
				// A project file is project configuration: the question comes.
				tm.wait("the trust question", "Trust this folder?")
			}
			if s := tm.capture(false); strings.Contains(s, "Trust this folder?") {
				// The question names the planted file; the folder stays
				// untrusted.
				if !strings.Contains(s, filepath.Base(path)) {
					t.Errorf("the trust question does not name %s:\n%s", path, s)
				}
				tm.keys("Down")
				tm.keys("Enter")
				tm.wait("the answer to the question", "stay off")
				tm.wait("the prompt", "ask anything")
			}
			if s := tm.capture(true); strings.Contains(s, "ZUT-EXIT=") {
				// A broken config.json may end zut, if it says which file.
				if !strings.Contains(s, filepath.Base(path)) || !strings.Contains(s, "not a regular file") {
					t.Fatalf("zut ended without naming %s:\n%s", path, s)
				}
				return
			}
			if tc.named {
				tm.wait("the note naming the file", filepath.Base(path))
			}
			tm.submit("hi")
			tm.wait("the answer", "answered despite the plant")
			tm.keys("C-d")
			tm.wait("zut's exit", "ZUT-EXIT=0")
		})
	}
}
