package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/zutfile"
)

// fullSupport is a machine with every mechanism of the sandbox.
var fullSupport = sandbox.Support{OS: "linux", LandlockABI: 6, UserNS: true, MountNS: true, NetNS: true, Seccomp: true}

// testPackaged is the agent of manifest in a run in a fresh workspace,
// with the sandbox of a machine that supports sup.
func testPackaged(t *testing.T, manifest string, sup sandbox.Support) (*packaged, *appSandbox, string) {
	t.Helper()
	dir := t.TempDir()
	home, cwd, agentDir := filepath.Join(dir, "zuthome"), filepath.Join(dir, "work"), filepath.Join(dir, "agent")
	for _, d := range []string{home, cwd, agentDir} {
		os.MkdirAll(d, 0o755)
	}
	m, _, err := zutfile.Parse([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	ag := &zutfile.Agent{Manifest: m, Dir: agentDir, Source: agentDir}
	env := &Env{Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
		if k == "HOME" {
			return filepath.Join(dir, "home")
		}
		return ""
	}}
	a := &App{env: env, home: home, cwd: cwd, opts: Options{Agent: ag}}
	c, err := m.Ceiling(AgentVars(env, a.opts, cwd))
	if err != nil {
		t.Fatal(err)
	}
	p := &packaged{ag: ag, name: m.Name, ceiling: c, data: zutfile.AgentDataDir(home, m.Name), home: home}
	a.packaged = p
	s := &appSandbox{a: a, sb: sandbox.New(sandbox.Config{Exe: "/bin/true", Probe: func(string) sandbox.Support { return sup }})}
	return p, s, cwd
}

// TestPackagedPolicy: the sandbox of an agent's children reads the
// ceiling's trees, the agent's own files and the system's directories
// (never "/", /proc or the home directory), writes only the ceiling's
// Write trees and its temp dir, has no network without net.allow and the
// proxy with it, keeps only env.read's variables and hides the system's
// secrets; the user's read-only sandbox takes every write away.
func TestPackagedPolicy(t *testing.T) {
	tests := []struct {
		name, manifest string
		readOnly       bool
		wantWrite      []string // besides the temp dir; "W" is the workspace
		wantNet        sandbox.Network
		wantHosts      []string
		wantEnv        []string
	}{
		{"read-only", `{"zutfile":1,"name":"r","permissions":{"bash":"none"}}`, false, nil, sandbox.NetworkNone, nil, zutfile.DefaultEnv},
		{"workspace write", `{"zutfile":1,"name":"w","permissions":{"fs":{"write":["${workspace}"]},"env":{"read":["PATH"]}}}`, false, []string{"W"}, sandbox.NetworkNone, nil, []string{"PATH"}},
		{"narrowed by read-only", `{"zutfile":1,"name":"w","permissions":{"fs":{"write":["${workspace}"]}}}`, true, nil, sandbox.NetworkNone, nil, zutfile.DefaultEnv},
		{"hosts", `{"zutfile":1,"name":"n","permissions":{"net":{"allow":["GitHub.com","*.example.org"]},"env":{"read":[]}}}`, false, nil, sandbox.NetworkProxy, []string{"github.com", "*.example.org"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, s, cwd := testPackaged(t, tc.manifest, fullSupport)
			p.readOnly = tc.readOnly
			tmp := t.TempDir()
			pol, err := p.sandboxPolicy(s, tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range append([]string{cwd, p.ag.Dir, tmp}, systemReadDirs...) {
				if !slices.Contains(pol.Read, want) && !slices.Contains(pol.Write, want) {
					t.Errorf("Read %v lacks %s", pol.Read, want)
				}
			}
			for _, never := range []string{"/", "/proc", "/sys", s.a.env.Getenv("HOME")} {
				if slices.Contains(pol.Read, never) {
					t.Errorf("Read %v holds %s", pol.Read, never)
				}
			}
			var write []string
			for _, w := range tc.wantWrite {
				write = append(write, strings.ReplaceAll(w, "W", cwd))
			}
			if got, want := pol.Write, append(write, tmp); !slices.Equal(got, want) {
				t.Errorf("Write = %v, want %v", got, want)
			}
			if pol.Network != tc.wantNet || !slices.Equal(pol.Hosts, tc.wantHosts) {
				t.Errorf("network %q %v, want %q %v", pol.Network, pol.Hosts, tc.wantNet, tc.wantHosts)
			}
			if pol.Env == nil || !slices.Equal(pol.Env, tc.wantEnv) {
				t.Errorf("Env = %#v, want %#v", pol.Env, tc.wantEnv)
			}
			for _, w := range write {
				if !slices.Contains(pol.ReadOnly, filepath.Join(w, ".git", "hooks")) || !slices.Contains(pol.ReadOnly, filepath.Join(w, ".zut")) {
					t.Errorf("ReadOnly %v lacks the hooks and .zut of %s", pol.ReadOnly, w)
				}
			}
			if !slices.Contains(pol.Hidden, "/etc/shadow") || pol.TempDir != tmp {
				t.Errorf("Hidden %v, TempDir %q", pol.Hidden, pol.TempDir)
			}
			if sc := p.scope(); tc.readOnly && len(sc.Write) > 0 {
				t.Errorf("the tools' scope writes %v under a read-only sandbox", sc.Write)
			}
		})
	}
}

// TestPackagedUnenforceable: on a machine that lacks a mechanism the
// agent's sandbox needs, zut run refuses to start it, naming the
// permission and the mechanism.
func TestPackagedUnenforceable(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		sup      func(*sandbox.Support)
		want     []string
	}{
		{"no Landlock", `{"zutfile":1,"name":"a","permissions":{"bash":"none"}}`, func(s *sandbox.Support) { s.LandlockABI = 0 },
			[]string{"fs.read and fs.write (what its commands may read and write) cannot be enforced: it needs Landlock, which this machine lacks"}},
		{"no network namespaces", `{"zutfile":1,"name":"a","permissions":{"bash":"ask"}}`, func(s *sandbox.Support) { s.NetNS = false },
			[]string{"net.allow (no network at all) cannot be enforced: it needs network namespaces"}},
		{"no network namespaces, hosts", `{"zutfile":1,"name":"a","permissions":{"net":{"allow":["github.com"]}}}`, func(s *sandbox.Support) { s.NetNS = false },
			[]string{"net.allow (only github.com) cannot be enforced: it needs network namespaces"}},
		{"no seccomp, no user namespaces", `{"zutfile":1,"name":"a","permissions":{}}`, func(s *sandbox.Support) { s.Seccomp, s.UserNS = false, false },
			[]string{"cannot be enforced: it needs user namespaces", "every permission (the filter that keeps commands from leaving the sandbox) cannot be enforced: it needs seccomp filters"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sup := fullSupport
			tc.sup(&sup)
			p, s, _ := testPackaged(t, tc.manifest, sup)
			_, err := p.sandboxPolicy(s, t.TempDir())
			if err == nil {
				t.Fatal("the agent's sandbox was accepted")
			}
			for _, w := range append(tc.want, "this machine cannot enforce the agent's permissions, so it was not started") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
