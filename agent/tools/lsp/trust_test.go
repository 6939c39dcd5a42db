package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServersNeedTrust checks that no language server starts for a file
// in a repository the user has not trusted, that the tool says why, and
// that trust of that repository, or a file outside any repository, lets
// it start.
func TestServersNeedTrust(t *testing.T) {
	tests := []struct {
		name    string
		repo    bool // the workspace is a repository (has .git)
		trusted bool // Config.TrustedRepo is the workspace
		starts  bool
	}{
		{"untrusted repository", true, false, false},
		{"trusted repository", true, true, true},
		{"outside any repository", false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := fakeDir(t, map[string]string{"a.fake": "ERROR\n"})
			if tc.repo {
				if err := os.Mkdir(filepath.Join(dir, ".git"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			m := newManager(t, dir, fakeConfig("ok"))
			if tc.trusted {
				m.cfg.TrustedRepo = dir
			}
			r := run(t, m, `{"action":"diagnostics","path":"a.fake"}`)
			after := m.DiagnosticsAfterWrite(t.Context(), "a.fake")
			if started := len(m.running()) > 0; started != tc.starts {
				t.Fatalf("a server started: %v, want %v (tool: %s)", started, tc.starts, r.Text())
			}
			if !tc.starts {
				if !r.IsError || !strings.Contains(r.Text(), "a repository you have not trusted") || !strings.Contains(r.Text(), "--trust") {
					t.Errorf("diagnostics in an untrusted repository = %q, want why the servers are off and what to do", r.Text())
				}
				if after != "" {
					t.Errorf("DiagnosticsAfterWrite in an untrusted repository = %q, want \"\"", after)
				}
			}
		})
	}
}
