package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/host/mcp"
)

// TestSetupFilesPlanted: a FIFO or /dev/zero planted as a Claude Code
// settings file, a prompt template, Codex's config.toml or an @import is
// refused at once with a message naming it, never a hang.
func TestSetupFilesPlanted(t *testing.T) {
	plants := []struct {
		name string
		link bool // a link to /dev/zero instead of a FIFO
	}{{"fifo", false}, {"link to /dev/zero", true}}
	for _, pl := range plants {
		t.Run(pl.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			plant := func(p string) {
				os.MkdirAll(filepath.Dir(p), 0o755)
				var err error
				if pl.link {
					err = os.Symlink("/dev/zero", p)
				} else {
					err = syscall.Mkfifo(p, 0o644)
				}
				if err != nil {
					t.Skip("cannot plant:", err)
				}
			}
			plant(filepath.Join(cwd, ".claude", "settings.json"))
			plant(filepath.Join(cwd, ".claude", "commands", "x.md"))
			plant(filepath.Join(home, ".codex", "config.toml"))
			plant(filepath.Join(cwd, "imported.md"))
			os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte("see @imported.md"), 0o644)
			done := make(chan string, 1)
			go func() {
				var out []string
				for _, f := range loadClaude(home, cwd) {
					if f.Err != nil {
						out = append(out, f.Err.Error())
					}
				}
				out = append(out, skills.DiscoverTemplates(skills.TemplateOptions{CWD: cwd, Home: home}).Warnings()...)
				cfg, _ := mcp.LoadConfig(mcp.LoadOptions{CodexFile: mcp.CodexFile(home), Getenv: func(string) string { return "" }})
				for _, p := range cfg.Problems {
					out = append(out, p.Error())
				}
				for _, f := range agent.ContextFiles(agent.ContextOptions{CWD: cwd}) {
					if f.Skipped != "" {
						out = append(out, f.Path+": "+f.Skipped)
					}
				}
				done <- strings.Join(out, "\n")
			}()
			var got string
			select {
			case got = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("reading the planted files did not return within 30 s: it blocks")
			}
			for _, want := range []string{filepath.Join(".claude", "settings.json"), "x.md", "config.toml", "imported.md"} {
				if !strings.Contains(got, want) {
					t.Errorf("the problems do not name %s:\n%s", want, got)
				}
			}
		})
	}
}

// TestTemplateAllowedTools: a project template's allowed-tools count
// only in a trusted folder; the user's own always count.
func TestTemplateAllowedTools(t *testing.T) {
	tests := []struct {
		name             string
		project, trusted bool
		want             permissions.Effect
	}{
		{"project, untrusted", true, false, permissions.None},
		{"project, trusted", true, true, permissions.Allow},
		{"user's own, untrusted folder", false, false, permissions.Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cwd := t.TempDir()
			a := &App{cwd: cwd, rules: permissions.NewSet(), trust: Trust{Trusted: tc.trusted},
				env: &Env{Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}, emit: func(agent.Event) {}}
			a.templateRules(skills.Template{Name: "t", Project: tc.project, AllowedTools: []string{"Bash(git diff:*)", "bash(go test *)"}})
			for _, cmd := range []string{"git diff --stat", "go test ./..."} {
				args, _ := json.Marshal(map[string]string{"command": cmd})
				if got, _ := a.rules.Decide(permissions.Call{Tool: "bash", Args: args, CWD: cwd}); got != tc.want {
					t.Errorf("%s: Decide(%s) = %v, want %v", tc.name, cmd, got, tc.want)
				}
			}
		})
	}
}

// TestClaudeInput: the tool_input hooks see has Claude Code's names
// beside zut's.
func TestClaudeInput(t *testing.T) {
	b := &hookBridge{}
	b.run.Dir = "/proj"
	tests := []struct{ tool, args, want string }{
		{"read", `{"path":"a.go"}`, `{"file_path":"/proj/a.go","path":"a.go"}`},
		{"write", `{"path":"/x/b.go","content":"c"}`, `{"content":"c","file_path":"/x/b.go","path":"/x/b.go"}`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, `{"edits":[{"newText":"y","oldText":"x"}],"file_path":"/proj/a","new_string":"y","old_string":"x","path":"a"}`},
		{"bash", `{"command":"ls"}`, `{"command":"ls"}`},
		{"bash", `not json`, `not json`},
	}
	for _, tc := range tests {
		if got := string(b.claudeInput(tc.tool, json.RawMessage(tc.args))); got != tc.want {
			t.Errorf("claudeInput(%s, %s) = %s, want %s", tc.tool, tc.args, got, tc.want)
		}
	}
	for zut, claude := range map[string]string{"bash": "Bash", "web_open": "WebFetch", "mcp__gh__x": "mcp__gh__x", "python": "python"} {
		if got := claudeName(zut); got != claude {
			t.Errorf("claudeName(%s) = %s, want %s", zut, got, claude)
		}
	}
}
