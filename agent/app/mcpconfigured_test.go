package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zut-go/zut/host/mcp"
)

// TestMCPConfigured: the run asks package mcp for its configuration
// whenever a file it reads is there (or a --mcp-config names one), and
// skips it only when mcp.LoadConfig would find nothing and say nothing.
func TestMCPConfigured(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, zutHome, userHome, cwd string) []string // returns --mcp-config files
		want  bool
	}{
		{"nothing", func(*testing.T, string, string, string) []string { return nil }, false},
		{"mcp.json", func(t *testing.T, zutHome, _, _ string) []string {
			write(t, filepath.Join(zutHome, "mcp.json"), `{"mcpServers": {"a": {"command": "true"}}}`)
			return nil
		}, true},
		{".mcp.json", func(t *testing.T, _, _, cwd string) []string {
			write(t, filepath.Join(cwd, ".mcp.json"), `{"mcpServers": {"a": {"command": "true"}}}`)
			return nil
		}, true},
		{"bad .mcp.json", func(t *testing.T, _, _, cwd string) []string {
			write(t, filepath.Join(cwd, ".mcp.json"), `{`)
			return nil
		}, true},
		{"codex config.toml", func(t *testing.T, _, userHome, _ string) []string {
			write(t, filepath.Join(userHome, ".codex", "config.toml"), "[mcp_servers.a]\ncommand = \"true\"\n")
			return nil
		}, true},
		{"dangling link", func(t *testing.T, _, _, cwd string) []string {
			if err := os.Symlink(filepath.Join(cwd, "gone"), filepath.Join(cwd, ".mcp.json")); err != nil {
				t.Fatal(err)
			}
			return nil
		}, true},
		{"mcp.json is a directory", func(t *testing.T, zutHome, _, _ string) []string {
			if err := os.Mkdir(filepath.Join(zutHome, "mcp.json"), 0o755); err != nil {
				t.Fatal(err)
			}
			return nil
		}, true},
		{"--mcp-config", func(t *testing.T, _, _, cwd string) []string { return []string{filepath.Join(cwd, "missing.json")} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zutHome, userHome, cwd := t.TempDir(), t.TempDir(), t.TempDir()
			flags := tc.setup(t, zutHome, userHome, cwd)
			getenv := func(k string) string {
				if k == "HOME" {
					return userHome
				}
				return ""
			}
			a := &App{env: &Env{Getenv: getenv}, home: zutHome, cwd: cwd, opts: Options{MCPConfigs: flags}}
			if got := a.mcpConfigured(); got != tc.want {
				t.Errorf("mcpConfigured() = %v, want %v", got, tc.want)
			}
			cfg, err := mcp.LoadConfig(mcp.LoadOptions{Home: zutHome, CWD: cwd, Flags: flags, Getenv: getenv, CodexFile: a.codexFile()})
			said := err != nil || len(cfg.Servers)+len(cfg.Problems)+len(cfg.Notes) > 0
			if said && !tc.want {
				t.Errorf("LoadConfig found %+v, %v, but mcpConfigured skips it", cfg, err)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
