package interactive

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTmuxSandbox: with --sandbox workspace-write the footer names the
// mode; a bash call that writes beside the project is blocked, the
// transcript says so, and the dialog without "always" runs it again
// without the sandbox only after y. /sandbox shows and changes the mode;
// !cmd runs in it, and its refusal is not rerun on a no.
func TestTmuxSandbox(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	if out, _ := exec.Command(bin["zut"], "sandbox", "check").CombinedOutput(); !regexp.MustCompile(`(?m)^workspace-write: +available`).Match(out) {
		t.Skipf("this machine cannot run the sandbox (agent/sandbox's tests check the refusal):\n%s", out)
	}
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	outside := filepath.Join(home, "outside.txt")
	script := `[
 {"tools": [{"id": "b1", "name": "bash", "args": {"command": "echo out > ../outside.txt", "timeout": 30}}]},
 {"text": "Done with the write."}
]`
	url := startScriptedModel(t, bin["fakemodel"], filepath.Join(dir, "sandbox.json"), script)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-sandbox-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --yolo --sandbox workspace-write --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "120", "-y", "40", cmd)
	tm.wait("the prompt", "ask anything")
	tm.wait("the footer", "sandbox: workspace-write")
	tm.submit("write outside")
	tm.wait("the rerun dialog", "Run again WITHOUT the sandbox?")
	screen := tm.capture(true)
	for _, want := range []string{"blocked by the sandbox: write outside the workspace: " + outside, "Allow once", "No, tell the model why"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "Always allow") {
		t.Errorf("the rerun dialog offers always:\n%s", screen)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("%s was written before the user confirmed", outside)
	}
	tm.keys("y")
	tm.wait("the answer", "Done with the write.")
	if b, err := os.ReadFile(outside); err != nil || string(b) != "out\n" {
		t.Errorf("after y: %s = %q, %v; want it written by the rerun", outside, b, err)
	}
	tm.submit("/sandbox")
	tm.wait("the mode", "sandbox: workspace-write; /sandbox read-only")
	tm.submit("/sandbox read-only")
	tm.wait("the new mode", "sandbox: read-only for the commands started from now on")
	tm.wait("the footer", "sandbox: read-only")
	// !cmd runs in the mode in force too, and a no keeps the refusal.
	tm.submit("!echo hi > inside.txt")
	tm.wait("the rerun dialog of !cmd", "Run again WITHOUT the sandbox?")
	tm.keys("n")
	tm.wait("the reason", "Reason (sent to the model)")
	tm.keys("Enter")
	tm.wait("the refusal of !cmd", "blocked by the sandbox: write in read-only mode: "+filepath.Join(proj, "inside.txt"))
	if _, err := os.Stat(filepath.Join(proj, "inside.txt")); err == nil {
		t.Errorf("!cmd wrote in read-only mode")
	}
	tm.submit("/sandbox everything")
	tm.wait("the refusal", `/sandbox: sandbox mode "everything": not one of`)
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
}
