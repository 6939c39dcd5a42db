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

// TestTmuxZutRun: zut run asks for consent before anything of the agent
// runs, listing its permissions; "no" exits without running it. After
// "yes", remembered for the digest, a bash call of an agent whose bash is
// "ask" is confirmed by the user even with --yolo, with no "always" to
// choose, and runs in the agent's sandbox (the footer names it), as !cmd
// does, whose refusal offers no unconfined rerun; the next run does not
// ask again.
func TestTmuxZutRun(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	if out, _ := exec.Command(bin["zut"], "sandbox", "check").CombinedOutput(); !regexp.MustCompile(`(?m)^workspace-write: +available`).Match(out) {
		t.Skipf("this machine cannot run the sandbox (agent/sandbox's tests check the refusal):\n%s", out)
	}
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	agentDir := filepath.Join(dir, "ask-ui")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(agentDir, 0o755)
	manifest := `{"zutfile": 1, "name": "ask-ui", "permissions": {"fs": {"read": ["${workspace}"], "write": ["${workspace}"]}, "bash": "ask"}}`
	if err := os.WriteFile(filepath.Join(agentDir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "AGENT.md"), []byte("You make files.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret-4471\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `[
 {"tools": [{"id": "b1", "name": "bash", "args": {"command": "touch made.txt", "timeout": 30}}]},
 {"text": "Made the file."}
]`
	url := startScriptedModel(t, bin["fakemodel"], filepath.Join(dir, "zutrun.json"), script)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-zutrun-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && for i in 1 2 3; do env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q run --yolo --provider anthropic --model claude-sonnet-4-5 --base-url %q %q; echo ZUT-EXIT-$i=$?; done; sleep 600",
		proj, home, filepath.Join(home, ".zut"), bin["zut"], url, agentDir)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "140", "-y", "45", cmd)

	// The first run: the question, answered no.
	tm.wait("the consent dialog", "Run the agent ask-ui?")
	screen := tm.capture(true)
	for _, want := range []string{"read files under ${workspace} = " + proj, "run commands: any, each after you confirm it (bash ask)", "network: none", "Run it with these permissions", "Do not run it"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the consent dialog lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("Escape")
	tm.wait("the refusal", "you did not consent to its permissions")
	tm.wait("the first exit", "ZUT-EXIT-1=1")

	// The second run: yes; the command is asked about despite --yolo.
	tm.wait("the consent dialog again", "Run the agent ask-ui?")
	tm.keys("Enter")
	tm.wait("the prompt", "ask anything")
	tm.wait("the footer", "agent ask-ui")
	tm.submit("make a file")
	tm.wait("the confirmation", "touch made.txt")
	if _, err := os.Stat(filepath.Join(proj, "made.txt")); err == nil {
		t.Fatal("made.txt exists before the user confirmed the command")
	}
	if screen := tm.capture(false); strings.Contains(screen, "Always allow") {
		t.Errorf("the confirmation of an always-asked command offers always:\n%s", screen)
	}
	tm.keys("y")
	tm.wait("the answer", "Made the file.")
	if _, err := os.Stat(filepath.Join(proj, "made.txt")); err != nil {
		t.Errorf("after y: %v", err)
	}
	// !cmd runs in the agent's sandbox too, and its refusal is final.
	tm.submit("!cat " + secret)
	tm.wait("the refusal of !cmd", "Permission denied")
	if screen := tm.capture(true); strings.Contains(screen, "secret-4471") || strings.Contains(screen, "WITHOUT the sandbox") {
		t.Errorf("!cmd read the secret or offered to run unconfined:\n%s", screen)
	}
	tm.submit("/sandbox")
	tm.wait("the sandbox's note", "which /sandbox does not change")
	tm.submit("/sandbox danger-full-access")
	tm.wait("the refusal of /sandbox", "runs in the sandbox of its own permissions, which no mode changes")
	tm.keys("C-d")
	tm.wait("the second exit", "ZUT-EXIT-2=0")

	// The third run starts without asking: the consent is remembered.
	tm.waitFor("the third run's prompt", func(s string) bool {
		i := strings.Index(s, "ZUT-EXIT-2=0")
		return i >= 0 && strings.Contains(s[i:], "ask anything") && !strings.Contains(s[i:], "Run the agent ask-ui?")
	})
	tm.keys("C-d")
	tm.wait("the third exit", "ZUT-EXIT-3=0")
}
