package host

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestProjectRoot(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	plain := filepath.Join(root, "plain")
	os.Mkdir(plain, 0o755)
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	tests := []struct{ dir, want string }{
		{sub, real(repo)},
		{repo, real(repo)},
		{plain, real(plain)},
	}
	for _, tc := range tests {
		if got := ProjectRoot(tc.dir); got != tc.want {
			t.Errorf("ProjectRoot(%q) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}

func TestDigest(t *testing.T) {
	f := newFixture(t)
	writeScript(t, filepath.Join(f.project(), "p", "run.sh"), "#!/bin/sh\n")
	writeManifest(t, filepath.Join(f.project(), "p"), map[string]any{"name": "p", "exec": "./run.sh"})
	writeScript(t, filepath.Join(f.global(), "g", "run.sh"), "#!/bin/sh\n")
	writeManifest(t, filepath.Join(f.global(), "g"), map[string]any{"name": "g", "exec": "./run.sh"})
	d0 := Digest(Discover(f.home, f.cwd, nil))
	if !strings.HasPrefix(d0, "sha256:") || d0 != Digest(Discover(f.home, f.cwd, nil)) {
		t.Fatalf("Digest = %q, want a stable sha256: digest", d0)
	}
	changes := []struct {
		name   string
		change func()
		same   bool
	}{
		{"a global extension changes: same digest", func() {
			writeManifest(t, filepath.Join(f.global(), "g"), map[string]any{"name": "g", "exec": "./run.sh", "version": "2"})
		}, true},
		{"the project manifest changes", func() {
			writeManifest(t, filepath.Join(f.project(), "p"), map[string]any{"name": "p", "exec": "./run.sh", "args": []string{"-x"}})
		}, false},
		{"the project executable changes", func() {
			writeScript(t, filepath.Join(f.project(), "p", "run.sh"), "#!/bin/sh\ncurl evil\n")
		}, false},
		{"a script the interpreter runs changes (python3 main.py)", func() {
			writeManifest(t, filepath.Join(f.project(), "p"), map[string]any{"name": "p", "exec": "python3", "args": []string{"main.py"}})
		}, false},
		{"... its main.py is written", func() {
			os.WriteFile(filepath.Join(f.project(), "p", "main.py"), []byte("print('ok')\n"), 0o644)
		}, false},
		{"... and edited", func() {
			os.WriteFile(filepath.Join(f.project(), "p", "main.py"), []byte("import os; os.system('curl evil')\n"), 0o644)
		}, false},
		{"a module deep in the directory changes", func() {
			os.MkdirAll(filepath.Join(f.project(), "p", "lib", "deep"), 0o755)
			os.WriteFile(filepath.Join(f.project(), "p", "lib", "deep", "m.py"), []byte("x = 1\n"), 0o644)
		}, false},
		{"a link in the directory points elsewhere", func() {
			os.Symlink("/etc/passwd", filepath.Join(f.project(), "p", "lib", "l"))
		}, false},
		{"Python's own cache is written: same digest", func() {
			os.MkdirAll(filepath.Join(f.project(), "p", "__pycache__"), 0o755)
			os.WriteFile(filepath.Join(f.project(), "p", "__pycache__", "m.cpython-311.pyc"), []byte("x"), 0o644)
		}, true},
		{"a project extension is added", func() {
			writeScript(t, filepath.Join(f.project(), "q", "run.sh"), "#!/bin/sh\n")
			writeManifest(t, filepath.Join(f.project(), "q"), map[string]any{"name": "q", "exec": "./run.sh"})
		}, false},
	}
	prev := d0
	for _, c := range changes {
		c.change()
		d := Digest(Discover(f.home, f.cwd, nil))
		if (d == prev) != c.same {
			t.Errorf("%s: digest %s → %s, want same=%v", c.name, prev, d, c.same)
		}
		prev = d
	}
	mcp := filepath.Join(f.cwd, ".zut", "mcp.json")
	os.WriteFile(mcp, []byte(`{}`), 0o644)
	withFile := Digest(Discover(f.home, f.cwd, nil), mcp)
	os.WriteFile(mcp, []byte(`{"servers":{}}`), 0o644)
	if withFile == prev || withFile == Digest(Discover(f.home, f.cwd, nil), mcp) {
		t.Errorf("Digest with an extra file does not follow that file")
	}

	// The files an MCP or LSP configuration's commands name inside the
	// project count too: trusting "python3 server.py" trusts server.py.
	for _, cfg := range []string{filepath.Join(f.cwd, ".mcp.json"), filepath.Join(f.cwd, ".zut", "lsp.json")} {
		server := filepath.Join(f.cwd, "tools", "server.py")
		os.MkdirAll(filepath.Dir(server), 0o755)
		os.Remove(filepath.Join(f.cwd, "tools", "conf.json"))
		os.WriteFile(server, []byte("print('ok')\n"), 0o644)
		os.WriteFile(cfg, []byte(`{"mcpServers":{"s":{"command":"python3","args":["-u","tools/server.py","--conf=tools/conf.json"]}},"servers":{"l":{"command":"./tools/server.py"}}}`), 0o644)
		d1 := Digest(nil, cfg)
		os.WriteFile(server, []byte("import os; os.system('curl evil')\n"), 0o644)
		d2 := Digest(nil, cfg)
		os.WriteFile(filepath.Join(f.cwd, "tools", "conf.json"), []byte("{}"), 0o644)
		d3 := Digest(nil, cfg)
		if d1 == d2 || d2 == d3 {
			t.Errorf("Digest(%s) does not follow the files its commands name: %s, %s, %s", filepath.Base(cfg), d1, d2, d3)
		}
	}
}

func TestTrustStore(t *testing.T) {
	home := t.TempDir()
	s := OpenTrust(home)
	if ok, err := s.Trusted("/r", "sha256:a"); ok || err != nil {
		t.Fatalf("Trusted on an empty store = %v, %v; want false, nil", ok, err)
	}
	if err := s.Allow("/r", "sha256:a"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		root, digest string
		want         bool
	}{
		{"/r", "sha256:a", true},
		{"/r", "sha256:b", false}, // a changed manifest asks again
		{"/other", "sha256:a", false},
	}
	for _, st := range steps {
		if ok, err := OpenTrust(home).Trusted(st.root, st.digest); ok != st.want || err != nil {
			t.Errorf("Trusted(%q, %q) = %v, %v; want %v", st.root, st.digest, ok, err, st.want)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("mode of %s = %v, %v; want 0600", s.Path(), fi.Mode().Perm(), err)
		}
	}
	if err := s.Forget("/r"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted("/r", "sha256:a"); ok {
		t.Errorf("Trusted after Forget = true")
	}
	if runtime.GOOS != "windows" {
		s.Allow("/r", "sha256:a")
		os.Chmod(s.Path(), 0o666)
		if ok, err := s.Trusted("/r", "sha256:a"); ok || err == nil || !strings.Contains(err.Error(), "other users may write it") {
			t.Errorf("Trusted from a world-writable store = %v, %v; want false and an error", ok, err)
		}
	}
}

// TestUntrustedProjectExtensions: when TrustProject says no, project
// extensions are not started and claim no name.
func TestUntrustedProjectExtensions(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.project(), "shared", "-tools", "project_tool")
	goExt(t, f.global(), "shared", "-tools", "global_tool")
	goExt(t, f.project(), "local", "-tools", "local_tool")
	var asked []string
	cfg := f.config()
	cfg.TrustProject = func(project []Entry) bool {
		for _, e := range project {
			asked = append(asked, e.Name())
		}
		return false
	}
	h := f.start(t, cfg)
	if strings.Join(asked, ",") != "local,shared" {
		t.Errorf("TrustProject was asked about %q, want the two project extensions", asked)
	}
	var statuses []string
	for _, r := range h.Diagnostics() {
		statuses = append(statuses, r.Name+":"+r.Scope+":"+r.Status)
	}
	want := "local:project:untrusted,shared:project:untrusted,shared:global:ok"
	if strings.Join(statuses, ",") != want {
		t.Fatalf("statuses = %s, want %s", strings.Join(statuses, ","), want)
	}
	for _, tool := range h.Tools() {
		if tool.Name == "project_tool" || tool.Name == "local_tool" {
			t.Errorf("tool %s of an untrusted extension is offered", tool.Name)
		}
	}
}
