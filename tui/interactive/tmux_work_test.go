//go:build unix

package interactive

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tmuxWorkScript is the model's side of TestTmuxWork; %[1]s is the
// test's directory, which the long commands name so that the test can
// find them.
const tmuxWorkScript = `[
 {"text": "Planning.", "tools": [
   {"id": "p1", "name": "plan", "args": {"items": [{"text": "Count the files", "status": "in_progress"}, {"text": "Report", "status": "pending"}]}},
   {"id": "s1", "name": "subagent_spawn", "args": {"task": "count the files", "wait": 60}}]},
 {"text": "There are 3 files.", "delay_ms": 2500},
 {"text": "All done: 3 files.", "tools": [{"id": "p2", "name": "plan", "args": {"items": [{"text": "Count the files", "status": "done"}, {"text": "Report", "status": "in_progress"}]}}]},
 {"text": "Reported."},
 {"text": "Working on it."},
 {"tools": [{"id": "g1", "name": "update_goal", "args": {"status": "complete", "reason": "shipped to main"}}]},
 {"text": "Shipped."},
 {"tools": [{"id": "s2", "name": "subagent_spawn", "args": {"task": "run the long job"}}]},
 {"tools": [{"id": "b1", "name": "bash", "args": {"command": "sleep 120; echo %[1]s", "timeout": 600}}]},
 {"tools": [{"id": "b2", "name": "bash", "args": {"command": "sleep 120; echo %[1]s", "timeout": 600}}]}
]`

// TestTmuxWork runs zut in tmux: the plan widget, a subagent in the side
// rail, a goal in the footer, and an exit while a subagent runs a
// command, which leaves nothing running.
func TestTmuxWork(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	script := filepath.Join(dir, "work.json")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(tmuxWorkScript, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	url := runFakeModel(t, bin["fakemodel"], script)

	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-work-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --provider anthropic --model claude-sonnet-4-5 --base-url %q --yolo --no-extensions; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "110", "-y", "32", cmd)
	tm.wait("the prompt", "ask anything")

	tm.submit("count the files")
	tm.wait("the plan widget", "Plan 0/2 · ctrl+t folds")
	tm.wait("the active item", "▶ Count the files")
	tm.wait("the subagent in the side rail", "Subagents (1) · /subagents")
	tm.wait("its state", "sa-1 running")
	tm.wait("the answer", "Reported.")
	tm.wait("the plan moved on", "✓ Count the files")
	tm.waitGone("the side rail to go", "Subagents (1)")
	tm.keys("C-t")
	tm.wait("the folded plan", "Plan 1/2 · Report  (ctrl+t unfolds)")

	tm.submit("/goal ship it")
	tm.wait("the goal's end", "Shipped.")
	tm.wait("the goal in the footer", "◎ ship it (complete)")
	tm.wait("the goal's note", "goal complete: shipped to main")

	// A subagent runs a long command while the parent does too; quitting
	// ends both.
	tm.submit("start the long job")
	tm.wait("the running subagent", "sa-2 running")
	tm.waitFor("both commands to run", func(string) bool { return len(sleeps(t, dir)) == 2 })
	transcript := tm.capture(true)
	if *update {
		os.MkdirAll(filepath.Join(uiGoldenDir, "tmux"), 0o755)
		os.WriteFile(filepath.Join(uiGoldenDir, "tmux", "work.txt"), []byte(transcript), 0o644)
	}
	t.Logf("session transcript:\n%s", transcript)
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
	if left := sleeps(t, dir); len(left) > 0 {
		t.Errorf("commands left running after zut exited:\n%s", strings.Join(left, "\n"))
	}
	if left := processesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left after zut exited:\n%s", strings.Join(left, "\n"))
	}
}

// sleeps lists the shells running "sleep 120; echo dir".
func sleeps(t *testing.T, dir string) []string {
	var out []string
	for _, l := range processesUnder(t, dir) {
		if strings.Contains(l, "sleep 120") {
			out = append(out, l)
		}
	}
	return out
}

// runFakeModel runs the scripted model server on the script file and
// returns its URL.
func runFakeModel(t *testing.T, bin, script string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, script)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("fakemodel printed no URL: %v", err)
	}
	return strings.TrimSpace(line)
}
