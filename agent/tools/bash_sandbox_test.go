//go:build linux

package tools

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
	"testing"
	"time"

	"github.com/zut-go/zut/agent/sandbox"
)

// TestMain makes the test binary the sandbox's shim, as main.go makes
// zut.
func TestMain(m *testing.M) {
	if args, ok := sandbox.IsShim(os.Args); ok {
		os.Exit(sandbox.Shim(args))
	}
	os.Exit(m.Run())
}

// wsSandbox is Sandbox over a real sandbox.Sandbox in workspace-write;
// Unconfined answers rerun and records the question.
type wsSandbox struct {
	sb    *sandbox.Sandbox
	pr    sandbox.Project
	hosts []string // not nil: NetworkProxy to these hosts
	rerun bool
	asked []string
}

func (s *wsSandbox) Confine(cmd *exec.Cmd) (*sandbox.Confined, error) {
	p, _ := sandbox.WorkspaceWrite.Policy(s.pr)
	if s.hosts != nil {
		p.Network, p.Hosts = sandbox.NetworkProxy, s.hosts
	}
	return s.sb.Confine(cmd, string(sandbox.WorkspaceWrite), p)
}
func (s *wsSandbox) Generation() uint64 { return 0 }
func (s *wsSandbox) Unconfined(_ context.Context, tool, command string, blocked []string) bool {
	s.asked = append(s.asked, tool+": "+command+": "+strings.Join(blocked, "; "))
	return s.rerun
}

// TestBashSandbox: a bash call the sandbox blocks says so to the model
// (and in Details); the user is asked whether to run it again without
// the sandbox, and only a yes runs it unconfined. A machine without the
// sandbox's mechanisms refuses the command instead.
func TestBashSandbox(t *testing.T) {
	root := t.TempDir()
	cfg := testConfig(t)
	cfg.CWD = filepath.Join(root, "project")
	os.MkdirAll(cfg.CWD, 0o755)
	outside := filepath.Join(root, "outside.txt")
	command := "echo hi > inside.txt && echo out > ../outside.txt"
	tests := []struct {
		name    string
		rerun   bool
		written bool
		want    []string
	}{
		{"refused rerun", false, false, []string{"Permission denied", "[exit 1]",
			"blocked by the sandbox: write outside the workspace: " + outside, "[the command ran in sandbox workspace-write;"}},
		{"rerun", true, true, []string{"[the sandbox blocked the command (blocked by the sandbox: write outside the workspace: " + outside + "); the user had it run again without the sandbox:]", "(no output)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(outside)
			s := &wsSandbox{sb: sandbox.New(sandbox.Config{Exe: os.Args[0]}), pr: sandbox.Project{Dir: cfg.CWD, TempDir: t.TempDir()}, rerun: tc.rerun}
			cfg := cfg
			cfg.Sandbox = s
			p, _ := sandbox.WorkspaceWrite.Policy(s.pr)
			if _, err := s.sb.Confine(exec.Command("true"), "workspace-write", p); err != nil {
				r, _ := bash(t, cfg, command, 30)
				if !r.IsError || !strings.Contains(r.Text(), "the command was not run") || !strings.Contains(r.Text(), "danger-full-access") {
					t.Errorf("without the mechanisms: %q, want the refusal", r.Text())
				}
				t.Skipf("this machine cannot run workspace-write (%v); checked the refusal instead", err)
			}
			r, d := bash(t, cfg, command, 30)
			for _, w := range tc.want {
				if !strings.Contains(r.Text(), w) {
					t.Errorf("text %q does not hold %q", r.Text(), w)
				}
			}
			if len(s.asked) != 1 || !strings.Contains(s.asked[0], "bash: "+command+": blocked by the sandbox") {
				t.Errorf("asked %q, want one question about the command", s.asked)
			}
			if d.Sandbox != "workspace-write" || len(d.Blocked) != 1 || d.Unconfined != tc.rerun {
				t.Errorf("Details = %+v", d)
			}
			if _, err := os.Stat(outside); (err == nil) != tc.written {
				t.Errorf("%s written: %v, want %v", outside, err == nil, tc.written)
			}
		})
	}
}

// TestBashProxy: under a proxy network a bash call reaches a listed host
// through the sandbox's proxy, the refusal of another host is in its
// result, and when the call has returned the proxy is gone: the
// goroutines are back to what they were before it.
func TestBashProxy(t *testing.T) {
	for _, tool := range []string{"curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "through the proxy") }))
	defer srv.Close()
	cfg := testConfig(t)
	s := &wsSandbox{sb: sandbox.New(sandbox.Config{Exe: os.Args[0]}), pr: sandbox.Project{Dir: cfg.CWD, TempDir: t.TempDir()}, hosts: []string{"127.0.0.1"}}
	cfg.Sandbox = s
	p, _ := sandbox.WorkspaceWrite.Policy(s.pr)
	p.Network = sandbox.NetworkProxy
	if c, err := s.sb.Confine(exec.Command("true"), "workspace-write", p); err != nil {
		t.Skipf("this machine cannot run workspace-write with a proxy network (%v)", err)
	} else {
		c.Close()
	}
	before := runtime.NumGoroutine()
	r, d := bash(t, cfg, "curl -sS "+srv.URL+"/ && echo && curl -sSf http://other.example/", 30)
	for _, w := range []string{"through the proxy", "403", "blocked by the sandbox: the sandbox's proxy refused host other.example (not in net.allow)"} {
		if !strings.Contains(r.Text(), w) {
			t.Errorf("text %q does not hold %q", r.Text(), w)
		}
	}
	if len(d.Blocked) != 1 {
		t.Errorf("Blocked = %q, want the proxy's refusal", d.Blocked)
	}
	// The server's side of the connection ends a moment after the
	// proxy's; a proxy left running never does (60 s guard).
	srv.CloseClientConnections()
	for deadline := time.Now().Add(60 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after the call, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
