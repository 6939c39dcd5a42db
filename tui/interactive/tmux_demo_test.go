//go:build unix

package interactive

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxDemoScreen runs zut --demo in tmux, as the README's first
// command does, and checks what a newcomer tripped on: the footer stays on
// the terminal's last row when a dialog closes (blank rows stayed below
// it), and narrowing the terminal from 120 to 50 columns adds no blank
// rows to the scrollback (rows overwritten by shorter ones were rewrapped
// at their old length); /session's file path, longer than a row, is one
// line the terminal wraps, so it is copied in one piece.
func TestTmuxDemoScreen(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	zut := buildE2ETools(t, dir)["zut"]
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "README.md"), []byte("# A project\n"), 0o644)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-demo-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ZUT_DEMO_DELAY_MS=0 %q --demo --no-extensions; sleep 600",
		proj, dir, filepath.Join(dir, ".zut"), zut)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "120", "-y", "24", cmd)
	tm.wait("the prompt", "ask anything")

	// Fill the terminal, so that a dialog scrolls it.
	tm.submit("what is this project?")
	tm.wait("the confirmation", "Allow bash?")
	tm.keys("y")
	tm.wait("the answer", "Nothing was changed on disk")
	tm.submit("/settings")
	tm.wait("the settings", "Auto-compact at")
	tm.keys("Escape")
	tm.waitGone("the settings to close", "Auto-compact at")
	tm.waitFor("the footer on the last row", func(string) bool {
		rows := strings.Split(strings.TrimSuffix(tm.run("capture-pane", "-p", "-t", "zut"), "\n"), "\n")
		return len(rows) == 24 && strings.Contains(rows[23], "demo/scripted")
	})

	tm.run("resize-window", "-t", "zut", "-x", "50", "-y", "24")
	tm.waitFor("the editor redrawn 50 cells wide", func(s string) bool {
		return strings.Contains(s, strings.Repeat("─", 50)) && !strings.Contains(s, strings.Repeat("─", 51))
	})
	all := strings.Split(tm.capture(true), "\n")
	for i, l := range all {
		if strings.HasPrefix(l, "› what is this project?") {
			// The user's line, then one blank row, then the answer.
			if i+2 >= len(all) || strings.TrimSpace(all[i+1]) != "" || strings.TrimSpace(all[i+2]) == "" {
				t.Errorf("the prompt's line is not followed by exactly one blank row after narrowing:\n%s", strings.Join(all[max(i-3, 0):min(i+6, len(all))], "\n"))
			}
		}
		if strings.HasPrefix(l, "model ") && (i+1 >= len(all) || strings.TrimSpace(all[i+1]) == "") {
			t.Errorf("a blank row follows the header's model line after narrowing:\n%s", strings.Join(all[:min(i+5, len(all))], "\n"))
		}
	}

	tm.submit("/session")
	tm.wait("the session's file", "file:")
	files, _ := filepath.Glob(filepath.Join(dir, ".zut", "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	joined := tm.run("capture-pane", "-p", "-J", "-t", "zut")
	if !strings.Contains(joined, "\n"+files[0]+"\n") {
		t.Errorf("the path %s is not one line of the scrollback (tmux capture-pane -J):\n%s", files[0], joined)
	}
}
