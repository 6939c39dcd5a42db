//go:build unix

package interactive

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// firstHourScript is the model's side of a newcomer's first five
// minutes: a streamed answer with markdown, an edit, a command run twice
// (the second time under the rule the first confirmation saved).
const firstHourScript = `[
 {"text": "## Reading a file\n\nUse **os.ReadFile**, which reads it whole:\n\n- it returns the bytes\n- and an error\n\n` + "```go" + `\ndata, err := os.ReadFile(\"notes.txt\")\n` + "```" + `\n\nSee [the os package](https://pkg.go.dev/os).", "chunks": 8, "usage": {"input": 1200, "output": 80}},
 {"text": "I will change the greeting.", "tools": [{"id": "e1", "name": "edit", "args": {"path": "main.go", "edits": [{"oldText": "println(\"hi\")", "newText": "println(\"hello, world\")"}]}}], "usage": {"input": 1500, "output": 40}},
 {"text": "Changed it: main.go now greets the world.", "usage": {"input": 1700, "output": 12}},
 {"text": "Let me look.", "tools": [{"id": "b1", "name": "bash", "args": {"command": "ls -1", "timeout": 10}}], "usage": {"input": 1800, "output": 20}},
 {"text": "And once more.", "tools": [{"id": "b2", "name": "bash", "args": {"command": "ls -1", "timeout": 10}}], "usage": {"input": 1900, "output": 20}},
 {"text": "There is one file, **main.go**.", "usage": {"input": 2000, "output": 10}}
]`

// TestTmuxFirstHour runs a new user's first minutes in tmux: start, a
// streamed answer with markdown, an edit confirmed with its diff in the
// dialog, a permission rule added from a confirmation and listed, /theme
// opened and closed, exit. The transcript is the golden
// testdata/tmux/firsthour.txt.
func TestTmuxFirstHour(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	url := startScriptedModel(t, bin["fakemodel"], filepath.Join(dir, "firsthour.json"), firstHourScript)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
	// gopls may be on PATH; its diagnostics after the edit would make the
	// edit's time and result depend on the machine.
	os.MkdirAll(filepath.Join(home, ".zut"), 0o700)
	os.WriteFile(filepath.Join(home, ".zut", "config.json"), []byte(`{"lsp": {"diagnostics_after_edit": false}}`), 0o600)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-first-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "100", "-y", "30", cmd)
	tm.wait("the prompt", "ask anything")
	// The golden holds the screens of the dialogs (the live region, which
	// the scrollback does not keep) and the whole transcript at the end.
	var golden strings.Builder
	screen := func(title string) {
		fmt.Fprintf(&golden, "==== screen: %s ====\n%s\n\n", title, strings.TrimRight(tm.capture(false), "\n "))
	}

	// A streamed answer with markdown: the link's URL shows, since tmux
	// is not known to pass OSC 8 hyperlinks.
	tm.submit("how do I read a file in Go?")
	tm.wait("the answer", "the os package (https://pkg.go.dev/os)")

	// An edit: the dialog shows the diff; y allows it.
	tm.submit("greet the world in main.go")
	tm.wait("the confirmation with the diff", `+     println("hello, world")`)
	tm.wait("the waiting state", "waiting for you")
	screen("the edit's confirmation, with its diff")
	tm.keys("y")
	tm.wait("the answer after the edit", "now greets the world")
	if b, _ := os.ReadFile(filepath.Join(proj, "main.go")); !strings.Contains(string(b), "hello, world") {
		t.Errorf("main.go after the edit:\n%s", b)
	}

	// A command: a allows it in this project; the same command runs next
	// without asking.
	tm.submit("what files are here?")
	tm.wait("the confirmation", "Always allow bash(ls -1) in this project")
	screen("a command's confirmation")
	tm.keys("a")
	tm.wait("the answer", "There is one file")
	tm.submit("/permissions")
	tm.wait("the rule", "config.json, this project")
	screen("/permissions")
	tm.keys("Escape")
	tm.waitGone("the permissions to close", "enter remove the rule")

	// /theme opens and closes: Down previews the light theme, Esc undoes.
	tm.submit("/theme")
	tm.wait("the theme picker", "esc undo")
	screen("/theme")
	tm.keys("Down")
	tm.keys("Escape")
	tm.waitGone("the theme picker to close", "esc undo")
	tm.wait("the editor", "ask anything")

	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
	fmt.Fprintf(&golden, "==== the whole transcript, after exit ====\n%s", tm.capture(true))
	got := maskFirstHour(golden.String())
	path := filepath.Join(uiGoldenDir, "tmux", "firsthour.txt")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (go test -run TestTmuxFirstHour -update writes it)", path, err)
	}
	if got+"\n" != string(want) {
		t.Errorf("the first-hour transcript differs from %s:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
	if left := processesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left after zut exited:\n%s", strings.Join(left, "\n"))
	}
}

// maskFirstHour hides what changes from run to run: the session id, the
// temporary directory.
func maskFirstHour(s string) string {
	s = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).ReplaceAllString(s, "<session-id>")
	s = regexp.MustCompile(`ZUT-EXIT=0\s*$`).ReplaceAllString(s, "ZUT-EXIT=0")
	return strings.TrimRight(s, "\n ")
}

// startScriptedModel runs the scripted model server on script and
// returns its URL; flags go to fakemodel before the script (for example
// -record FILE).
func startScriptedModel(t *testing.T, bin, path, script string, flags ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append(flags, path)...)
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
