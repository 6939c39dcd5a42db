//go:build linux

package python

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	// hosts, when not nil, make the network NetworkProxy to them.
	hosts []string
}

func (s *modeSandbox) Confine(cmd *exec.Cmd) (*sandbox.Confined, error) {
	m := s.mode.Load().(sandbox.Mode)
	p, ok := m.Policy(s.pr)
	if !ok {
		return nil, nil
	}
	if s.hosts != nil {
		p.Network, p.Hosts = sandbox.NetworkProxy, s.hosts
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

// TestSandboxProxy: under a proxy network the interpreter reaches a
// listed host through the sandbox's proxy, a refused host is named in
// the result, and closing the tool stops the proxy: the goroutines are
// back to what they were before.
func TestSandboxProxy(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; the python tool needs it")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "through the proxy") }))
	defer srv.Close()
	dir, tmp := t.TempDir(), t.TempDir()
	s := &modeSandbox{sb: sandbox.New(sandbox.Config{Exe: os.Args[0]}), pr: sandbox.Project{Dir: dir, TempDir: tmp}, hosts: []string{"127.0.0.1"}}
	s.mode.Store(sandbox.WorkspaceWrite)
	if c, err := s.Confine(exec.Command("true")); err != nil {
		t.Skipf("this machine cannot run workspace-write with a proxy network (%v)", err)
	} else {
		c.Close()
	}
	before := runtime.NumGoroutine()
	tl := New(tools.Config{CWD: dir, Sandbox: s}, Config{})
	for _, tc := range []struct{ code, want string }{
		{fmt.Sprintf("import urllib.request\nurllib.request.urlopen(%q).read().decode()", srv.URL+"/"), "through the proxy"},
		{"import urllib.request\nurllib.request.urlopen('http://other.example/')", "blocked by the sandbox: the sandbox's proxy refused host other.example (not in net.allow)"},
	} {
		if r, _ := call(t, tl, map[string]any{"code": tc.code}); !strings.Contains(r.Text(), tc.want) {
			t.Errorf("python %q: text %q, want %q", tc.code, r.Text(), tc.want)
		}
	}
	tl.Close()
	srv.CloseClientConnections()
	for deadline := time.Now().Add(60 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
