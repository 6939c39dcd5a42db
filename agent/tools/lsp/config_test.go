package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// summary prints settings for the golden file, with dir replaced.
func summary(st settings, dir string) string {
	var b strings.Builder
	for _, sc := range st.servers {
		if sc.source == "built-in" && sc.Name != "gopls" {
			continue
		}
		fmt.Fprintf(&b, "  %s: %s %s exts=%s roots=%s", sc.Name, sc.Command, strings.Join(sc.Args, " "), strings.Join(sc.Extensions, ","), strings.Join(sc.RootMarkers, ","))
		if sc.Disabled {
			b.WriteString(" disabled")
		}
		if len(sc.InitializationOptions) > 0 {
			fmt.Fprintf(&b, " init=%s", sc.InitializationOptions)
		}
		if len(sc.Settings) > 0 {
			fmt.Fprintf(&b, " settings=%s", sc.Settings)
		}
		if len(sc.LanguageIDs) > 0 {
			fmt.Fprintf(&b, " ids=%v", sc.LanguageIDs)
		}
		fmt.Fprintf(&b, " (%s)\n", sc.source)
	}
	if st.afterEditOff {
		b.WriteString("  diagnostics after edits: off\n")
	}
	if st.wait > 0 {
		fmt.Fprintf(&b, "  wait: %s\n", st.wait)
	}
	if st.ready > 0 {
		fmt.Fprintf(&b, "  ready timeout: %s\n", st.ready)
	}
	if st.projectIgnored != "" {
		fmt.Fprintf(&b, "  ignored: %s\n", st.projectIgnored)
	}
	for _, p := range st.problems {
		fmt.Fprintf(&b, "  problem: %s\n", p)
	}
	return strings.ReplaceAll(b.String(), dir, "$DIR")
}

func TestLoadSettings(t *testing.T) {
	tests := []struct {
		name          string
		home, project string
		trust         bool
		host          []ServerConfig
	}{
		{name: "none"},
		{name: "patch gopls", home: `{"servers": {"gopls": {"args": ["-remote=auto"], "initializationOptions": {"staticcheck": true}, "settings": {"gopls": {"hints": {}}}}}}`},
		{name: "new server", home: `{"servers": {"zls": {"command": "zls", "extensions": [".zig", "build.zig.zon"], "rootMarkers": ["build.zig"], "languageIds": {".zig": "zig"}}}}`},
		{name: "disable", home: `{"servers": {"gopls": {"disabled": true}}, "diagnosticsAfterEdit": false, "diagnosticsWaitMs": 1500}`},
		{name: "syntax error", home: "{\n  \"servers\": {\n    \"gopls\": {\"args\": [1,]}\n  }\n}"},
		{name: "unknown field", home: `{"servers": {"gopls": {"comand": "x"}}}`},
		{name: "unknown top field", home: `{"server": {}}`},
		{name: "wrong type", home: `{"servers": {"gopls": {"args": "serve"}}}`},
		{name: "new server without command", home: `{"servers": {"x": {"extensions": [".x"]}}}`},
		{name: "bad wait", home: `{"diagnosticsWaitMs": 0}`},
		{name: "ready timeout", home: `{"readyTimeoutMs": 90000}`},
		{name: "bad ready timeout", home: `{"readyTimeoutMs": 700000}`},
		{name: "bad server ready timeout", home: `{"servers": {"gopls": {"args": ["x"], "readyTimeoutMs": -5}}}`},
		{name: "project untrusted", project: `{"servers": {"evil": {"command": "/bin/evil", "extensions": [".go"]}}}`},
		{name: "project trusted", trust: true, home: `{"servers": {"gopls": {"args": ["home"]}}}`, project: `{"servers": {"gopls": {"command": "./bin/gopls"}}}`},
		{name: "host wins", home: `{"servers": {"gopls": {"args": ["home"]}}}`, host: []ServerConfig{{Name: "gopls", Command: "/opt/gopls", Extensions: []string{".go"}}}},
	}
	var out strings.Builder
	for _, tc := range tests {
		dir := t.TempDir()
		home, cwd := filepath.Join(dir, "zut"), filepath.Join(dir, "work")
		os.MkdirAll(home, 0o755)
		os.MkdirAll(filepath.Join(cwd, ".zut"), 0o755)
		if tc.home != "" {
			writeFile(t, filepath.Join(home, "lsp.json"), tc.home)
		}
		if tc.project != "" {
			writeFile(t, filepath.Join(cwd, ".zut", "lsp.json"), tc.project)
		}
		st := loadSettings(Config{CWD: cwd, ZutHome: home, TrustProject: tc.trust, Servers: tc.host})
		fmt.Fprintf(&out, "%s:\n%s", tc.name, summary(st, dir))
	}
	golden(t, "config", out.String())
}

func TestCandidates(t *testing.T) {
	st := settings{servers: builtinServers()}
	for i := range st.servers {
		st.servers[i].source = "built-in"
	}
	st.servers = append(st.servers, ServerConfig{Name: "mypy", Command: "x", Extensions: []string{".py"}, source: "lsp.json"})
	tests := []struct{ path, want string }{
		{"/a/b.go", "gopls"},
		{"/a/B.GO", "gopls"},
		{"/a/b.py", "mypy pyright basedpyright"},
		{"/a/b.tsx", "typescript-language-server"},
		{"/a/b.hpp", "clangd"},
		{"/a/README.md", ""},
		{"/a/Makefile", ""},
	}
	for _, tc := range tests {
		var names []string
		for _, sc := range st.candidates(tc.path) {
			names = append(names, sc.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("candidates(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestLanguageID(t *testing.T) {
	ts := builtinServers()[4]
	tests := []struct{ path, want string }{{"/a.ts", "typescript"}, {"/a.tsx", "typescriptreact"}, {"/a.mjs", "javascript"}, {"/a.JSX", "javascriptreact"}}
	for _, tc := range tests {
		if got := ts.languageID(tc.path); got != tc.want {
			t.Errorf("languageID(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	custom := ServerConfig{Extensions: []string{".zig", "build.zig.zon"}, LanguageIDs: map[string]string{"build.zig.zon": "zon"}}
	if got := custom.languageID("/x/build.zig.zon"); got != "zon" {
		t.Errorf("languageID(build.zig.zon) = %q, want zon", got)
	}
	if got := custom.languageID("/x/a.zig"); got != "zig" {
		t.Errorf("languageID(a.zig) = %q, want zig", got)
	}
}

func TestFindRoot(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"repo/.git/HEAD", "repo/go.work", "repo/mod/go.mod", "repo/mod/pkg/a.go", "loose/x.go", "repo/other/b.go"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		writeFile(t, filepath.Join(dir, p), "")
	}
	markers := []string{"go.work", "go.mod", ".git"}
	tests := []struct {
		file, cwd, want string
	}{
		{"repo/mod/pkg/a.go", "", "repo"},    // go.work beats the nearer go.mod
		{"repo/other/b.go", "", "repo"},      // go.work above
		{"loose/x.go", "loose", "loose"},     // no marker: the working directory
		{"loose/x.go", "elsewhere", "loose"}, // outside it: the file's directory
	}
	for _, tc := range tests {
		got := findRoot(filepath.Join(dir, tc.file), markers, filepath.Join(dir, tc.cwd))
		if got != filepath.Join(dir, tc.want) {
			t.Errorf("findRoot(%s) = %s, want %s", tc.file, got, filepath.Join(dir, tc.want))
		}
	}
	if got := findRoot(filepath.Join(dir, "repo/mod/pkg/a.go"), []string{"go.mod"}, ""); got != filepath.Join(dir, "repo/mod") {
		t.Errorf("findRoot with go.mod only = %s, want repo/mod", got)
	}
}

// TestReadyTimeoutSetting checks which ready timeout a server gets: its
// own, else the host's, else lsp.json's, else the default; negative does
// not wait.
func TestReadyTimeoutSetting(t *testing.T) {
	perServer := `{"readyTimeoutMs": 2500, "servers": {"clangd": {"readyTimeoutMs": 1}}}`
	tests := []struct {
		name, server string
		host         time.Duration
		file         string
		want         time.Duration
	}{
		{"default", "gopls", 0, "", 30 * time.Second},
		{"lsp.json", "gopls", 0, `{"readyTimeoutMs": 2500}`, 2500 * time.Millisecond},
		{"host wins", "gopls", 5 * time.Second, `{"readyTimeoutMs": 2500}`, 5 * time.Second},
		{"off", "gopls", -1, `{"readyTimeoutMs": 2500}`, 0},
		{"the server's own", "clangd", 5 * time.Second, perServer, time.Millisecond},
		{"another server's", "gopls", 0, perServer, 2500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				writeFile(t, filepath.Join(home, "lsp.json"), tc.file)
			}
			m := NewManager(Config{CWD: t.TempDir(), ZutHome: home, ReadyTimeout: tc.host})
			sc := m.settings().servers[m.settings().index(tc.server)]
			if got := m.readyTimeout(sc); got != tc.want {
				t.Errorf("readyTimeout = %s, want %s", got, tc.want)
			}
		})
	}
}
