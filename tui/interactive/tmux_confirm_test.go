//go:build unix

package interactive

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// commandOf is a command of n lines "echo <word> 1" to "echo <word> n".
func commandOf(word string, n int) string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("echo %s %d", word, i))
	}
	return strings.Join(lines, "\n")
}

// TestTmuxConfirm runs the confirmation in a real terminal 80 columns
// wide: a 12-line command shows every line at once; a 60-line one shows
// a window and PgDn scrolls to its last line; Esc there ends the turn (the
// model is not asked again until the next prompt, which carries the
// denied call's result); and a call with bad arguments gets no dialog at
// all, its error going to the model.
func TestTmuxConfirm(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	bash := func(id, command string, timeout bool) map[string]any {
		args := map[string]any{"command": command}
		if timeout {
			args["timeout"] = 5
		}
		return map[string]any{"id": id, "name": "bash", "args": args}
	}
	script, _ := json.Marshal([]map[string]any{
		{"tools": []any{bash("c1", commandOf("twelve", 12), true)}},
		{"text": "Twelve done."},
		{"tools": []any{bash("c2", commandOf("sixty", 60), true)}},
		// Only the prompt after the stop gets this reply: a turn that went
		// on after Esc would take it first.
		{"tools": []any{bash("c3", "echo no timeout", false)}},
		{"text": "I will add the timeout."},
	})
	record := filepath.Join(dir, "requests.jsonl")
	url := startScriptedModel(t, bin["fakemodel"], filepath.Join(dir, "confirm.json"), string(script), "-record", record)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-confirm-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "80", "-y", "40", cmd)
	tm.wait("the prompt", "ask anything")

	// Twelve lines: all of them at once, counted, and the choices fit.
	tm.submit("run twelve")
	tm.wait("the dialog", "command · 12 lines")
	screen := tm.capture(false)
	for i := 1; i <= 12; i++ {
		if row := fmt.Sprintf("%2d echo twelve %d", i, i); !strings.Contains(screen, row) {
			t.Errorf("the dialog lacks line %d (%q):\n%s", i, row, screen)
		}
	}
	for _, want := range []string{"Allow once", "Allow (no rule can name exactly this command)", "No, tell the model why…", "No, and stop the turn", "esc stop the turn"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "pgup/pgdn") {
		t.Errorf("the 12-line command does not fit the dialog:\n%s", screen)
	}
	checkWidth(t, screen, 80)
	tm.keys("y")
	tm.wait("the answer", "Twelve done.")

	// Sixty lines: a window, then PgDn until the last line shows.
	tm.submit("run sixty")
	tm.wait("the dialog", "command · 60 lines")
	screen = tm.capture(false)
	if strings.Contains(screen, "60 echo sixty 60") || !strings.Contains(screen, " 1 echo sixty 1") {
		t.Fatalf("the dialog does not open on the head of the command:\n%s", screen)
	}
	pos := regexp.MustCompile(`lines (\d+)–(\d+) of 60 · pgup/pgdn`)
	last := pos.FindString(screen)
	if last == "" {
		t.Fatalf("the dialog does not say which lines show:\n%s", screen)
	}
	for i := 0; !strings.Contains(tm.capture(false), "60 echo sixty 60"); i++ {
		if i == 20 {
			t.Fatalf("20 PgDn did not reach the last line:\n%s", tm.capture(false))
		}
		tm.keys("NPage")
		prev := last
		tm.waitFor("the window to move", func(s string) bool {
			last = pos.FindString(s)
			return last != prev || strings.Contains(s, "60 echo sixty 60")
		})
	}
	if !strings.Contains(tm.capture(false), "of 60 · pgup/pgdn") {
		t.Errorf("the scroll line is gone at the end:\n%s", tm.capture(false))
	}

	// Esc: the call is denied and the turn ends.
	tm.keys("Escape")
	tm.wait("the turn to end", "interrupted")
	if n := len(readRequests(t, record)); n != 3 {
		t.Errorf("%d model requests after Esc, want 3", n)
	}

	// Bad arguments: no dialog (nobody answers one), the model gets the
	// error and answers.
	tm.submit("run one without a timeout")
	tm.wait("the answer after the error", "I will add the timeout.")

	reqs := readRequests(t, record)
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if last := lastMessage(reqs[3]); !strings.Contains(last, "run one without a timeout") || strings.Contains(last, "tool_result") {
		t.Errorf("the request after Esc ends with %s, want the next prompt", last)
	}
	if s := reqs[3]["messages"]; !strings.Contains(s, `"tool_use_id":"c2"`) || !strings.Contains(s, "the user stopped the turn") {
		t.Errorf("the request after Esc lacks the result of the stopped call: %s", s)
	}
	if last := lastMessage(reqs[4]); !strings.Contains(last, `"tool_use_id":"c3"`) || !strings.Contains(last, "bash: timeout is required") {
		t.Errorf("the model did not get the argument error: %s", last)
	}
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
}

// checkWidth fails when a line of screen is wider than width.
func checkWidth(t *testing.T, screen string, width int) {
	t.Helper()
	for i, l := range strings.Split(screen, "\n") {
		if w := len([]rune(l)); w > width {
			t.Errorf("line %d is %d cells wide, want at most %d:\n%s", i, w, width, screen)
		}
	}
}

// readRequests reads the requests fakemodel recorded: each body's
// members as JSON text.
func readRequests(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("read the recorded requests: %v", err)
	}
	defer f.Close()
	var out []map[string]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r struct{ Body map[string]json.RawMessage }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("recorded request %q: %v", sc.Text(), err)
		}
		m := map[string]string{}
		for k, v := range r.Body {
			m[k] = string(v)
		}
		out = append(out, m)
	}
	return out
}

// lastMessage is the last message of a recorded request, as JSON text.
func lastMessage(req map[string]string) string {
	var msgs []json.RawMessage
	json.Unmarshal([]byte(req["messages"]), &msgs)
	if len(msgs) == 0 {
		return ""
	}
	return string(msgs[len(msgs)-1])
}
