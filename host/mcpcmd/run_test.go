package mcpcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zut-go/zut/host/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The test binary re-executed with ZUT_MCPCMD_FAKE=1 is a small MCP
// server with two tools.
func TestMain(m *testing.M) {
	if os.Getenv("ZUT_MCPCMD_FAKE") != "" {
		serveFake()
		return
	}
	if os.Getenv("ZUT_MCPCMD_CONFORMANCE_CLIENT") != "" {
		os.Exit(conformanceClient())
	}
	os.Exit(m.Run())
}

func serveFake() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "tiny", "version": "0.1"},
				"capabilities": map[string]any{"tools": map[string]any{}}}
		case "tools/list":
			obj := map[string]any{"type": "object"}
			result = map[string]any{"tools": []any{map[string]any{"name": "add", "inputSchema": obj}, map[string]any{"name": "now", "inputSchema": obj}}}
		default:
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			continue
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}
}

type testEnv struct {
	Env
	home, project string
	out, errOut   *bytes.Buffer
}

func newTestEnv(t *testing.T) *testEnv {
	e := &testEnv{home: t.TempDir(), project: t.TempDir(), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	e.Env = Env{Stdin: strings.NewReader(""), Stdout: e.out, Stderr: e.errOut, ZutHome: e.home, CWD: e.project,
		Getenv: func(k string) string { return map[string]string{"TOKEN": "s3cret"}[k] }, Version: "test",
		Trusted: func(c mcp.ServerConfig) bool { return c.Name != "stranger" }}
	return e
}

func (e *testEnv) run(t *testing.T, args ...string) error {
	t.Helper()
	e.out.Reset()
	e.errOut.Reset()
	return Run(context.Background(), args, e.Env)
}

// scrub replaces what changes between runs: temporary paths, the test
// binary and start times.
func (e *testEnv) scrub(s string) string {
	exe, _ := os.Executable()
	s = strings.ReplaceAll(s, exe, "<fake>")
	s = strings.ReplaceAll(s, e.home, "<home>")
	s = strings.ReplaceAll(s, e.project, "<project>")
	s = regexp.MustCompile(`ready in \d+ ms`).ReplaceAllString(s, "ready in <t> ms")
	s = regexp.MustCompile(`"start_ms": \d+`).ReplaceAllString(s, `"start_ms": <t>`)
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// setup writes a global and a project configuration with a working
// server, a failing one, a disabled one and an untrusted project one.
func setup(t *testing.T, e *testEnv) {
	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	os.WriteFile(mcp.GlobalFile(e.home), []byte(fmt.Sprintf(`{"mcpServers": {
		"tiny": {"command": %s, "args": ["-test.run=^$"], "env": {"ZUT_MCPCMD_FAKE": "1"}},
		"off": {"command": "nothing", "enabled": false},
		"missing": {"command": "/nonexistent/server"}
	}}`, cmd)), 0o600)
	os.WriteFile(mcp.ProjectFile(e.project), []byte(`{"mcpServers": {"stranger": {"command": "rm", "args": ["-rf", "/"]},
		"needsenv": {"type": "http", "url": "https://${NOPE}/mcp"}}, "keep": 1}`), 0o644)
}

func TestListAndDoctor(t *testing.T) {
	e := newTestEnv(t)
	setup(t, e)
	for _, tc := range []struct {
		args   []string
		golden string
		fails  bool
	}{
		{[]string{"list"}, "list.golden", false},
		{[]string{"list", "--json"}, "list.json.golden", false},
		{[]string{"doctor"}, "doctor.golden", true},
		{[]string{"doctor", "--json"}, "doctor.json.golden", true},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			err := e.run(t, tc.args...)
			if (err != nil) != tc.fails {
				t.Errorf("Run(%q) = %v, want failure %v", tc.args, err, tc.fails)
			}
			golden(t, tc.golden, e.scrub(e.out.String()))
		})
	}
}

func TestListEmpty(t *testing.T) {
	e := newTestEnv(t)
	if err := e.run(t, "list"); err != nil {
		t.Fatal(err)
	}
	golden(t, "list_empty.golden", e.scrub(e.out.String()))
}

func TestAddRemove(t *testing.T) {
	e := newTestEnv(t)
	setup(t, e)
	steps := []struct {
		args []string
		err  string
	}{
		{[]string{"add", "files", "--scope", "project", "--env", "A=1", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, ""},
		{[]string{"add", "remote", "--url", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer ${TOKEN}"}, ""},
		{[]string{"add", "old", "--url", "http://127.0.0.1:3001/sse", "--transport", "sse", "--scope", "project"}, ""},
		{[]string{"add", "files", "--scope", "project", "--", "x"}, "already has a server of that name"},
		{[]string{"add", "bad name", "--", "x"}, "use letters, digits"},
		{[]string{"add", "x", "--url", "ftp://x"}, "not an http"},
		{[]string{"add", "x"}, "give the server's command"},
		{[]string{"add", "x", "--scope", "moon", "--", "y"}, "--scope must be project or global"},
		{[]string{"remove", "stranger"}, ""},
		{[]string{"remove", "nosuch"}, "no server \"nosuch\""},
	}
	var log strings.Builder
	for _, s := range steps {
		err := e.run(t, s.args...)
		switch {
		case s.err == "" && err != nil:
			t.Errorf("Run(%q) = %v", s.args, err)
		case s.err != "" && (err == nil || !strings.Contains(err.Error(), s.err)):
			t.Errorf("Run(%q) = %v, want %q", s.args, err, s.err)
		}
		fmt.Fprintf(&log, "$ zut mcp %s\n%s", strings.Join(s.args, " "), e.scrub(e.out.String()))
		if err != nil {
			var u *UsageError
			fmt.Fprintf(&log, "error (usage %v): %s\n", errors.As(err, &u), e.scrub(err.Error()))
		}
	}
	project, _ := os.ReadFile(mcp.ProjectFile(e.project))
	global, _ := os.ReadFile(mcp.GlobalFile(e.home))
	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	golden(t, "add_remove.golden", log.String()+"--- .mcp.json\n"+string(project)+"--- mcp.json\n"+strings.ReplaceAll(string(global), string(cmd), `"<fake>"`))
	if fi, _ := os.Stat(mcp.GlobalFile(e.home)); fi.Mode().Perm() != 0o600 {
		t.Errorf("global config mode = %v, want 0600", fi.Mode().Perm())
	}
	// Both scopes hold "dup": remove must ask which.
	e.run(t, "add", "dup", "--", "a")
	e.run(t, "add", "dup", "--scope", "project", "--", "b")
	if err := e.run(t, "remove", "dup"); err == nil || !strings.Contains(err.Error(), "--scope") {
		t.Errorf("remove of a name in both scopes = %v", err)
	}
	if err := e.run(t, "remove", "dup", "--scope", "global"); err != nil {
		t.Errorf("remove --scope global = %v", err)
	}
}

func TestUsage(t *testing.T) {
	e := newTestEnv(t)
	for _, args := range [][]string{nil, {"frob"}, {"list", "--bogus"}, {"list", "extra"}} {
		var u *UsageError
		if err := e.run(t, args...); !errors.As(err, &u) {
			t.Errorf("Run(%q) = %v, want a UsageError", args, err)
		}
	}
}

// TestClaudeForms: zut mcp add in Claude Code's forms, add-json, get, and
// the servers of Codex's config.toml.
func TestClaudeForms(t *testing.T) {
	e := newTestEnv(t)
	userHome := t.TempDir()
	e.Getenv = func(k string) string {
		return map[string]string{"TOKEN": "s3cret", "HOME": userHome, "LINEAR_TOKEN": "lin"}[k]
	}
	os.MkdirAll(filepath.Join(userHome, ".codex"), 0o755)
	os.WriteFile(mcp.CodexFile(userHome), []byte(`model = "gpt-5"
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { API_KEY = "k" }
startup_timeout_sec = 20
tool_timeout_sec = 90

[mcp_servers.linear]
url = "https://mcp.linear.app/mcp"
bearer_token_env_var = "LINEAR_TOKEN"
enabled = false
`), 0o644)
	steps := []struct {
		args []string
		err  string
	}{
		{[]string{"add", "--transport", "http", "notion", "https://mcp.notion.com/mcp", "-H", "X-Key: ${TOKEN}"}, ""},
		{[]string{"add", "-t", "sse", "-s", "project", "events", "https://events.example.com/sse"}, ""},
		{[]string{"add", "-s", "user", "-e", "A=1", "-e", "B=2", "fs", "--", "npx", "-y", "server-fs", "/tmp"}, ""},
		{[]string{"add", "-s", "local", "plain", "uvx", "server"}, ""},
		{[]string{"add-json", "weather", `{"type": "stdio", "command": "weather-mcp", "args": ["--units", "metric"]}`, "-s", "project"}, ""},
		{[]string{"add-json", "broken", `[1]`}, "must be a JSON object"},
		{[]string{"add-json", "nocmd", `{"args": []}`}, "needs \"command\""},
		{[]string{"get", "notion"}, ""},
		{[]string{"get", "fs"}, ""},
		{[]string{"get", "docs"}, ""},
		{[]string{"get", "linear"}, ""},
		{[]string{"get", "nosuch"}, "no server \"nosuch\""},
	}
	var log strings.Builder
	for _, s := range steps {
		err := e.run(t, s.args...)
		switch {
		case s.err == "" && err != nil:
			t.Errorf("Run(%q) = %v", s.args, err)
		case s.err != "" && (err == nil || !strings.Contains(err.Error(), s.err)):
			t.Errorf("Run(%q) = %v, want %q", s.args, err, s.err)
		}
		out := strings.ReplaceAll(e.scrub(e.out.String()+e.errOut.String()), userHome, "<userhome>")
		fmt.Fprintf(&log, "$ zut mcp %s\n%s", strings.Join(s.args, " "), out)
		if err != nil {
			fmt.Fprintf(&log, "error: %s\n", strings.ReplaceAll(e.scrub(err.Error()), userHome, "<userhome>"))
		}
	}
	project, _ := os.ReadFile(mcp.ProjectFile(e.project))
	global, _ := os.ReadFile(mcp.GlobalFile(e.home))
	golden(t, "claude_forms.golden", log.String()+"--- .mcp.json\n"+string(project)+"--- mcp.json\n"+string(global))
}
