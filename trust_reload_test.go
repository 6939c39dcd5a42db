//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/provider/providertest"
)

// shoutyExt is a Python project extension with one tool, started as
// "python3 shouty.py": the manifest does not change when the script does.
const shoutyExt = `import json, sys

def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()

emit({"type": "hello", "protocol_version": 2, "name": "shouty", "capabilities": ["tools"]})
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello_ack":
        emit({"type": "register_tool", "name": "shout", "description": "shout text", "schema": {"type": "object"}})
        emit({"type": "ready"})
    elif m["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
`

// TestReloadChecksTrust trusts a folder whose extension runs through an
// interpreter, then, while zut runs in RPC mode, edits the script (which
// its manifest does not name as exec) and asks for reload_extensions: the
// extension must not start again, and zut says why on stderr. Before,
// trust was decided once at start, and the digest covered the manifest
// alone.
func TestReloadChecksTrust(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	srv := providertest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	work, home := filepath.Join(dir, "work"), filepath.Join(dir, "home")
	ext := filepath.Join(work, ".zut", "extensions", "shouty")
	must(t, os.MkdirAll(filepath.Join(work, ".git"), 0o700))
	must(t, os.MkdirAll(ext, 0o700))
	must(t, os.MkdirAll(home, 0o700))
	must(t, os.WriteFile(filepath.Join(ext, "extension.json"), []byte(`{"name":"shouty","version":"1.0.0","exec":"python3","args":["shouty.py"]}`), 0o600))
	must(t, os.WriteFile(filepath.Join(ext, "shouty.py"), []byte(shoutyExt), 0o600))
	var project []host.Entry
	for _, e := range host.Discover(home, work, nil) {
		if e.Scope == host.ScopeProject && e.RunsCode() {
			project = append(project, e)
		}
	}
	digest, _ := host.ProjectDigest(project, work)
	must(t, host.OpenTrust(home).Allow(host.ProjectRoot(work), digest))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zutBinary, "--no-session", "--mode", "rpc")
	cmd.Dir = work
	cmd.Env = []string{"ZUT_HOME=" + home, "HOME=" + dir, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	response := func(id int) string {
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), fmt.Sprintf(`"type":"response","id":%d,`, id)) {
				return lines.Text()
			}
		}
		t.Fatalf("no response %d; stderr:\n%s", id, stderr.String())
		return ""
	}
	fmt.Fprintln(stdin, `{"type":"get_extensions","id":1}`)
	if r := response(1); !strings.Contains(r, `"status":"ok"`) {
		t.Fatalf("the trusted extension did not start: %s\nstderr:\n%s", r, stderr.String())
	}
	must(t, os.WriteFile(filepath.Join(ext, "shouty.py"), []byte(shoutyExt+"# edited after it was trusted\n"), 0o600))
	fmt.Fprintln(stdin, `{"type":"reload_extensions","id":2}`)
	r := response(2)
	stdin.Close()
	go func() {
		for lines.Scan() {
		}
	}()
	cmd.Wait()
	if !strings.Contains(r, `"untrusted"`) {
		t.Errorf("after the script changed, reload_extensions = %s, want the extension untrusted", r)
	}
	if !strings.Contains(stderr.String(), "changed since it was trusted") {
		t.Errorf("stderr does not say the project code changed:\n%s", stderr.String())
	}
}
