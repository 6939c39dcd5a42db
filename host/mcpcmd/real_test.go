package mcpcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorRealServers runs `zut mcp doctor` on the npm reference
// servers (see host/mcp/realserver_test.go for the install command).
func TestDoctorRealServers(t *testing.T) {
	dir := os.Getenv("ZUT_MCP_SERVERS_DIR")
	if dir == "" {
		t.Skip("set ZUT_MCP_SERVERS_DIR to a directory where @modelcontextprotocol/server-everything and server-filesystem are npm-installed")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	pkg := func(name string) string {
		p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s not installed: %v", name, err)
		}
		return p
	}
	e := newTestEnv(t)
	ev, _ := json.Marshal(pkg("server-everything"))
	fs, _ := json.Marshal(pkg("server-filesystem"))
	root, _ := json.Marshal(e.project)
	os.WriteFile(filepath.Join(e.project, ".mcp.json"), []byte(fmt.Sprintf(`{"mcpServers": {
		"everything": {"command": "node", "args": [%s, "stdio"]},
		"files": {"command": "node", "args": [%s, %s]}
	}}`, ev, fs, root)), 0o644)
	if err := e.run(t, "doctor"); err != nil {
		t.Fatalf("doctor = %v\n%s", err, e.out.String())
	}
	out := e.out.String()
	for _, want := range []string{"everything (stdio, project:", "server:        mcp-servers/everything", "files (stdio, project:",
		"server:        secure-filesystem-server", "state:         ready in"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	r := strings.NewReplacer(e.home, "<home>", e.project, "<project>", filepath.Join(dir, "node_modules")+"/", "…/")
	t.Logf("transcript:\n%s", r.Replace(out))
}
