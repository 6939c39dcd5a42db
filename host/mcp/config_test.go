package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfig(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, GlobalFile(home), `{"mcpServers": {
		"shared": {"command": "global-cmd"},
		"remote": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN:-none}"}},
		"legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse", "enabled": false},
		"gone": {"command": "x", "args": ["${MISSING}"]}
	}, "otherKey": true}`)
	writeFile(t, ProjectFile(project), `{"mcpServers": {
		"shared": {"command": "project-cmd", "args": ["-v", "${HOME_DIR:-/h}/x"], "env": {"K": "${VAL}"}, "cwd": "sub",
			"allowed_tools": ["a"], "disabled_tools": ["b"], "timeout": 90},
		"dur": {"command": "d", "timeout": "2m"},
		"badtype": {"type": "ws", "url": "x"},
		"nothing": {}
	}}`)
	flagFile := filepath.Join(t.TempDir(), "one.json")
	writeFile(t, flagFile, `{"mcpServers": {"dur": {"command": "flag-cmd"}}}`)
	env := map[string]string{"HOST": "mcp.example.com", "VAL": "v1"}
	cfg, err := LoadConfig(LoadOptions{Home: home, CWD: project, Flags: []string{flagFile}, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, s := range cfg.Servers {
		fmt.Fprintf(&b, "%s origin=%s transport=%s command=%q args=%q env=%v dir=%q url=%q headers=%v allowed=%q disabled=%q enabled=%v timeout=%v",
			s.Name, s.Origin, s.Transport, s.Command, s.Args, s.Env, strings.TrimPrefix(s.Dir, project), s.URL, s.Headers,
			s.AllowedTools, s.DisabledTools, s.Enabled, s.Timeout)
		if s.Err != nil {
			fmt.Fprintf(&b, " err=%v", strings.ReplaceAll(strings.ReplaceAll(s.Err.Error(), project, "<project>"), home, "<home>"))
		}
		b.WriteString("\n")
	}
	golden(t, "config.golden", b.String())
	if len(cfg.Problems) != 0 {
		t.Errorf("Problems = %v", cfg.Problems)
	}
	s, _ := cfg.Server("shared")
	if !strings.HasPrefix(s.Digest, "sha256:") || len(s.Digest) != 71 {
		t.Errorf("Digest = %q", s.Digest)
	}
}

func TestConfigDigest(t *testing.T) {
	a := digest("s", []byte(`{"command":"x","args":["1"]}`))
	b := digest("s", []byte("{ \"args\": [\"1\"],\n \"command\": \"x\" }"))
	c := digest("s", []byte(`{"command":"x","args":["2"]}`))
	d := digest("t", []byte(`{"command":"x","args":["1"]}`))
	if a != b {
		t.Errorf("digest depends on key order or spacing: %s != %s", a, b)
	}
	if a == c || a == d {
		t.Errorf("digest does not change with the definition or the name")
	}
}

func TestReadConfigFileRejects(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	writeFile(t, big, `{"mcpServers":{}, "x":"`+strings.Repeat("a", MaxConfigSize)+`"}`)
	link := filepath.Join(dir, "link.json")
	writeFile(t, filepath.Join(dir, "real.json"), `{"mcpServers":{}}`)
	if err := os.Symlink(filepath.Join(dir, "real.json"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
	}{
		{fifo, "it is a named pipe"},
		{dir, "it is a directory"},
		{big, "limit"},
		{filepath.Join(dir, "missing.json"), "does not exist"},
		{link, ""},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadConfigFile(tc.path); done <- err }()
			select {
			case err := <-done:
				if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
					t.Errorf("ReadConfigFile(%s) = %v, want %q", tc.path, err, tc.want)
				}
			case <-time.After(hangGuard):
				t.Fatalf("ReadConfigFile(%s) hangs", tc.path)
			}
		})
	}
	// A flag file that cannot be read is an error; a project file is a problem.
	if _, err := LoadConfig(LoadOptions{Flags: []string{fifo}}); err == nil {
		t.Errorf("LoadConfig with a FIFO --mcp-config = nil error")
	}
	writeFile(t, ProjectFile(dir), `{"mcpServers": [1]}`)
	cfg, err := LoadConfig(LoadOptions{CWD: dir})
	if err != nil || len(cfg.Problems) != 1 || !strings.Contains(cfg.Problems[0].Error(), ".mcp.json") {
		t.Errorf("LoadConfig with a bad .mcp.json = %v, %v; want one problem naming the file", cfg, err)
	}
}

func TestNaming(t *testing.T) {
	parts := serverParts([]string{"a.b", "a_b", "files", "my__server_", strings.Repeat("s", 40), "ünïcode"})
	var b strings.Builder
	for _, n := range []string{"a.b", "a_b", "files", "my__server_", strings.Repeat("s", 40), "ünïcode"} {
		fmt.Fprintf(&b, "server %q -> %q\n", n, parts[n])
	}
	nm := newNamer(parts["files"])
	for _, tool := range []string{"read_file", "get.user", "get_user", "get user", strings.Repeat("long_name_", 8), strings.Repeat("long_name_", 8) + "2", "", "x__y"} {
		name := nm.name(tool)
		fmt.Fprintf(&b, "tool %q -> %q (%d)\n", tool, name, len(name))
		if len(name) > MaxNameLength {
			t.Errorf("name %q is longer than %d", name, MaxNameLength)
		}
		if srv, _, ok := SplitName(name); !ok || srv != "files" {
			t.Errorf("SplitName(%q) = %q, %v; want files", name, srv, ok)
		}
	}
	long := newNamer(parts[strings.Repeat("s", 40)]).name(strings.Repeat("t", 80))
	fmt.Fprintf(&b, "long server, long tool -> %q (%d)\n", long, len(long))
	golden(t, "naming.golden", b.String())
	// Stable: the same input gives the same names.
	if again := serverParts([]string{"a.b", "a_b"}); again["a_b"] != parts["a_b"] {
		t.Errorf("serverParts is not deterministic")
	}
}
