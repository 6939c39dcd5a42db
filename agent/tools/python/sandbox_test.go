//go:build linux

package python

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/tools"
)

// TestMain makes the test binary the sandbox's shim, as main.go makes
// zut.
func TestMain(m *testing.M) {
	if args, ok := sandbox.IsShim(os.Args); ok {
		os.Exit(sandbox.Shim(args))
	}
	os.Exit(m.Run())
}

// modeSandbox is tools.Sandbox over a real sandbox.Sandbox in one mode.
type modeSandbox struct {
	sb   *sandbox.Sandbox
	mode atomic.Value // sandbox.Mode
	pr   sandbox.Project
	gen  atomic.Uint64
}

func (s *modeSandbox) Confine(cmd *exec.Cmd) (*sandbox.Confined, error) {
	m := s.mode.Load().(sandbox.Mode)
	p, ok := m.Policy(s.pr)
	if !ok {
		return nil, nil
	}
	return s.sb.Confine(cmd, string(m), p)
}
func (s *modeSandbox) Generation() uint64 { return s.gen.Load() }
func (s *modeSandbox) Unconfined(context.Context, string, string, []string) bool {
	return false
}

// TestSandbox: the interpreter runs in the sandbox in force: in
// workspace-write it writes the project and the temp dir, not /etc nor
// beside the project, and the refusal says so; a change of mode restarts
// it in the new one (read-only: no write in the project).
func TestSandbox(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; the python tool needs it")
	}
	root := t.TempDir()
	dir, tmp := filepath.Join(root, "project"), filepath.Join(root, "tmp")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(tmp, 0o755)
	s := &modeSandbox{sb: sandbox.New(sandbox.Config{Exe: os.Args[0]}), pr: sandbox.Project{Dir: dir, TempDir: tmp}}
	s.mode.Store(sandbox.WorkspaceWrite)
	p, _ := sandbox.WorkspaceWrite.Policy(s.pr)
	if _, err := s.sb.Confine(exec.Command("true"), "workspace-write", p); err != nil {
		// The machine lacks a mechanism: the tool refuses to start the
		// interpreter, with the sandbox's message.
		tl := New(tools.Config{CWD: dir, Sandbox: s}, Config{})
		defer tl.Close()
		r, _ := call(t, tl, map[string]any{"code": "1"})
		if !r.IsError || !strings.Contains(r.Text(), "danger-full-access") {
			t.Errorf("without the sandbox's mechanisms: %q, want the refusal", r.Text())
		}
		t.Skipf("this machine cannot run workspace-write (%v); checked the refusal instead", err)
	}
	etc := fmt.Sprintf("/etc/zut-python-sandbox-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(etc); os.Remove(filepath.Join(root, "x")) })
	tl := New(tools.Config{CWD: dir, Sandbox: s}, Config{})
	defer tl.Close()
	tests := []struct {
		name, code string
		mode       sandbox.Mode
		want       string
		isError    bool
	}{
		{"project", "open('in.txt', 'w').write('hi')", sandbox.WorkspaceWrite, "2", false},
		{"temp dir", "import os, tempfile\nopen(os.path.join(tempfile.gettempdir(), 't'), 'w').write('abc')", sandbox.WorkspaceWrite, "3", false},
		{"etc", fmt.Sprintf("open(%q, 'w')", etc), sandbox.WorkspaceWrite, "blocked by the sandbox: write outside the workspace: " + etc, true},
		{"beside", "open('../x', 'w')", sandbox.WorkspaceWrite, "blocked by the sandbox: write outside the workspace: " + filepath.Join(root, "x"), true},
		{"read-only", "open('in2.txt', 'w')", sandbox.ReadOnly, "blocked by the sandbox: write in read-only mode: " + filepath.Join(dir, "in2.txt"), true},
		{"read-only reads", "open('in.txt').read()", sandbox.ReadOnly, "'hi'", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s.mode.Load().(sandbox.Mode) != tc.mode {
				s.mode.Store(tc.mode)
				s.gen.Add(1)
			}
			r, _ := call(t, tl, map[string]any{"code": tc.code})
			if r.IsError != tc.isError || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("python %q: IsError %v, text %q; want %v and %q", tc.code, r.IsError, r.Text(), tc.isError, tc.want)
			}
		})
	}
	if _, err := os.Stat(etc); err == nil {
		t.Errorf("%s was written from the sandbox", etc)
	}
}
