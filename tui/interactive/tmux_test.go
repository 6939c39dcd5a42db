//go:build unix

package interactive

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The end-to-end test runs the zut binary in tmux, as a user would,
// against the scripted model server (cmd/fakemodel) and the real example
// extensions todo and hello.

// tmuxScript is the model's side of the session, one reply per request.
const tmuxScript = `[
 {"text": "Hello! I am the **fake model**. Ask me anything.", "chunks": 6},
 {"text": "A slow answer that streams in several parts while you type.", "chunks": 12, "event_delay_ms": 120},
 {"text": "This answers the queued prompt."},
 {"hang": true},
 {"text": "Hi there, nice to meet you!"},
 {"text": "Adding it to your list.", "tools": [{"id": "call_1", "name": "todo", "args": {"action": "add", "text": "water the plants"}}]},
 {"text": "Done: the list has two items now."}
]`

func TestTmuxSession(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	url := startFakeModel(t, bin["fakemodel"], filepath.Join(dir, "script.json"))

	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	sock := fmt.Sprintf("zut-e2e-%d", os.Getpid())
	tm := &tmuxServer{t: t, sock: sock}
	t.Cleanup(tm.kill)
	// The "editor" for Ctrl+G appends to the file it is given.
	editor := filepath.Join(dir, "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nprintf ' and more from the editor' >> \"$1\"\n"), 0o755)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q VISUAL=%q ANTHROPIC_API_KEY=test-key %q --provider anthropic --model claude-sonnet-4-5 --base-url %q --ext %q --ext %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), editor, bin["zut"], url, bin["todo"], bin["hello"])
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "100", "-y", "30", cmd)
	tm.wait("the prompt", "ask anything")
	tm.wait("the extensions in the header", "todo, hello")

	// Edit in the external editor, then send.
	tm.keys("-l", "hi there")
	tm.keys("C-g")
	tm.wait("the text from the editor", "› hi there and more from the editor")
	tm.keys("C-u")
	tm.submit("hi there")
	tm.wait("the answer", "Ask me anything.")

	// Queue while busy.
	tm.submit("a slow one please")
	tm.wait("the spinner", "Working…")
	tm.submit("and then this")
	tm.wait("the queued prompt", "queued: and then this")
	tm.wait("the answer to the queued prompt", "This answers the queued prompt.")

	// Abort.
	tm.submit("this one hangs")
	tm.wait("the spinner", "esc to interrupt")
	time.Sleep(300 * time.Millisecond) // let the request reach the server
	tm.keys("Escape")
	tm.wait("the interruption", "interrupted")

	// An extension command that opens a panel, driven with keys.
	tm.submit("/todo add buy milk")
	tm.wait("the display note", "added: buy milk")
	tm.submit("/todo")
	tm.wait("the panel", "Todos")
	tm.wait("the item in the panel", "□ buy milk")
	tm.keys("-l", "x")
	tm.wait("the item checked", "✓ buy milk")
	if *update {
		os.MkdirAll(filepath.Join(uiGoldenDir, "tmux"), 0o755)
		os.WriteFile(filepath.Join(uiGoldenDir, "tmux", "panel.txt"), []byte(tm.capture(false)), 0o644)
	}
	tm.keys("Escape")
	tm.waitGone("the panel to close", "esc close")

	// An extension command that prompts the model.
	tm.submit("/hello")
	tm.wait("the greeting", "nice to meet you")

	// The model calls the extension's tool: confirm it.
	tm.submit("add water the plants to my list")
	tm.wait("the confirmation", "Allow todo?")
	tm.keys("y")
	tm.wait("the final answer", "two items now")

	// Resize and keep working.
	tm.run("resize-window", "-t", "zut", "-x", "60", "-y", "20")
	tm.waitFor("the editor redrawn 60 cells wide", func(s string) bool {
		return strings.Contains(s, strings.Repeat("─", 60)) && !strings.Contains(s, strings.Repeat("─", 61))
	})
	screen := tm.capture(false)
	for i, l := range strings.Split(screen, "\n") {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line %d is %d cells wide after resizing to 60:\n%s", i, w, screen)
		}
	}
	tm.run("resize-window", "-t", "zut", "-x", "100", "-y", "30")
	tm.wait("the editor redrawn 100 cells wide", strings.Repeat("─", 100))

	// Suspend with Ctrl+Z, resize while stopped, continue: zut lays out
	// for the new size. (sh -c has no job control, so the test sends the
	// SIGCONT that fg would.)
	tm.keys("C-z")
	tm.waitGone("the live region to be cleared", "› ask anything")
	tm.run("resize-window", "-t", "zut", "-x", "80", "-y", "24")
	pid := processID(t, bin["zut"])
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatalf("continue zut: %v", err)
	}
	tm.waitFor("the editor redrawn 80 cells wide after fg", func(s string) bool {
		return strings.Contains(s, "› ask anything") && strings.Contains(s, strings.Repeat("─", 80)) && !strings.Contains(s, strings.Repeat("─", 81))
	})
	tm.run("resize-window", "-t", "zut", "-x", "100", "-y", "30")
	tm.wait("the editor redrawn 100 cells wide", strings.Repeat("─", 100))

	transcript := tm.capture(true)
	if *update {
		os.MkdirAll(filepath.Join(uiGoldenDir, "tmux"), 0o755)
		os.WriteFile(filepath.Join(uiGoldenDir, "tmux", "session.txt"), []byte(transcript), 0o644)
	}
	t.Logf("session transcript:\n%s", transcript)

	// Exit, and nothing zut started is left.
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
	if left := processesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left after zut exited:\n%s", strings.Join(left, "\n"))
	}
}

// e2eTools holds the binaries buildE2ETools built, once for the whole
// test binary (go build links zut anew each time, seconds on a loaded
// machine); TestMain removes them.
var e2eTools struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if e2eTools.dir != "" {
		os.RemoveAll(e2eTools.dir)
	}
	os.Exit(code)
}

// e2eFiles are the files buildE2ETools puts into a test's directory,
// relative to it.
var e2eFiles = []string{"zut", "fakemodel", "ext/todo/todo", "ext/todo/extension.json", "ext/hello/hello", "ext/hello/extension.json"}

// buildE2ETools puts zut, the fake model server and the two example
// extensions into dir, built on the first call and linked (or copied)
// from there after.
func buildE2ETools(t *testing.T, dir string) map[string]string {
	t.Helper()
	e2eTools.once.Do(func() { e2eTools.dir, e2eTools.err = buildE2EOnce() })
	if e2eTools.err != nil {
		t.Fatal(e2eTools.err)
	}
	for _, f := range e2eFiles {
		src, dst := filepath.Join(e2eTools.dir, f), filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(src, dst); err != nil {
			if err := copyFile(src, dst); err != nil {
				t.Fatalf("copy %s: %v", f, err)
			}
		}
	}
	return map[string]string{
		"zut":       filepath.Join(dir, "zut"),
		"fakemodel": filepath.Join(dir, "fakemodel"),
		"todo":      filepath.Join(dir, "ext", "todo"),
		"hello":     filepath.Join(dir, "ext", "hello"),
	}
}

// buildE2EOnce builds the e2eFiles into a new temporary directory.
func buildE2EOnce() (string, error) {
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..") // the module root
	dir, err := os.MkdirTemp("", "zut-e2e-")
	if err != nil {
		return "", err
	}
	builds := [][2]string{
		{"fakemodel", "./provider/providertest/cmd/fakemodel"},
		{"ext/todo/todo", "./examples/extensions/todo"},
		{"ext/hello/hello", "./examples/extensions/hello"},
		{"zut", "."},
	}
	for _, b := range builds {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b[0]), b[1])
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			return dir, fmt.Errorf("go build %s: %v\n%s", b[1], err, msg)
		}
	}
	for _, name := range []string{"todo", "hello"} {
		m, err := os.ReadFile(filepath.Join(root, "examples", "extensions", name, "extension.json"))
		if err != nil {
			return dir, err
		}
		if err := os.WriteFile(filepath.Join(dir, "ext", name, "extension.json"), m, 0o644); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// copyFile copies src to dst with src's permission bits.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, fi.Mode().Perm())
}

// startFakeModel runs the scripted model server on tmuxScript and
// returns its URL.
func startFakeModel(t *testing.T, bin, script string) string {
	t.Helper()
	return startScriptedModel(t, bin, script, tmuxScript)
}

// processID returns the pid of the running program bin.
func processID(t *testing.T, bin string) int {
	t.Helper()
	out, err := exec.Command("ps", "-eo", "pid,args").Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[1] == bin {
			pid, _ := strconv.Atoi(f[0])
			return pid
		}
	}
	t.Fatalf("no process runs %s", bin)
	return 0
}

// processesUnder lists running processes whose command line mentions dir.
func processesUnder(t *testing.T, dir string) []string {
	out, err := exec.Command("ps", "-eo", "pid,args").Output()
	if err != nil {
		t.Logf("ps: %v; not checking for left-over processes", err)
		return nil
	}
	var left []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, dir) && !strings.Contains(l, "fakemodel") && !strings.Contains(l, "sleep 600") && !strings.Contains(l, "ZUT-EXIT") {
			left = append(left, strings.TrimSpace(l))
		}
	}
	return left
}

// tmux drives a private tmux server.
type tmuxServer struct {
	t    *testing.T
	sock string
}

func (x *tmuxServer) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.sock}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *tmuxServer) keys(keys ...string) {
	x.t.Helper()
	x.run(append([]string{"send-keys", "-t", "zut"}, keys...)...)
}

// submit types text literally and presses Enter.
func (x *tmuxServer) submit(text string) {
	x.t.Helper()
	x.keys("-l", text)
	x.keys("Enter")
}

// capture returns the pane, with the whole history when all is set.
func (x *tmuxServer) capture(all bool) string {
	x.t.Helper()
	args := []string{"capture-pane", "-p", "-t", "zut"}
	if all {
		args = append(args, "-S", "-")
	}
	return strings.TrimRight(x.run(args...), "\n")
}

func (x *tmuxServer) wait(what, text string) {
	x.t.Helper()
	x.waitFor(what, func(s string) bool { return strings.Contains(s, text) })
}

func (x *tmuxServer) waitGone(what, text string) {
	x.t.Helper()
	x.waitFor(what, func(s string) bool { return !strings.Contains(s, text) })
}

func (x *tmuxServer) waitFor(what string, cond func(string) bool) {
	x.t.Helper()
	start := time.Now()
	defer func() { x.t.Logf("%5dms  %s", time.Since(start).Milliseconds(), what) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := x.capture(false)
		if cond(s) {
			return
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (x *tmuxServer) kill() {
	exec.Command("tmux", "-L", x.sock, "kill-server").Run()
}

// idleExtension is a protocol v2 extension in plain sh: hello, one
// command, ready, and a reply to shutdown. Its name is its argument.
const idleExtension = `#!/bin/sh
name=$1
echo '{"type":"hello","protocol_version":2,"name":"'"$name"'","version":"1.0.0","capabilities":["commands"]}'
while IFS= read -r line; do
	case $line in
	*'"type":"hello_ack"'*)
		echo '{"type":"register_command","name":"'"$name"'","description":"an idle extension"}'
		echo '{"type":"ready"}' ;;
	*'"type":"shutdown"'*)
		echo '{"type":"shutdown_ack"}'
		exit 0 ;;
	esac
done
`

// TestTmuxIdleRSS measures an idle interactive session with ten
// extensions: its resident memory (the budget is 30 MiB) and how often it
// wakes up while idle.
func TestTmuxIdleRSS(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here: cannot read the resident memory")
	}
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	url := startFakeModel(t, bin["fakemodel"], filepath.Join(dir, "script.json"))
	home := filepath.Join(dir, "home")
	zutHome := filepath.Join(home, ".zut")
	var names []string
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("idle%d", i)
		names = append(names, name)
		d := filepath.Join(zutHome, "extensions", name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "ext.sh"), []byte(idleExtension), 0o755)
		manifest := fmt.Sprintf(`{"name": %q, "version": "1.0.0", "exec": "./ext.sh", "args": [%q], "language": "sh"}`, name, name)
		os.WriteFile(filepath.Join(d, "extension.json"), []byte(manifest), 0o644)
	}
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-rss-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key %q --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, zutHome, bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "100", "-y", "30", cmd)
	tm.wait("the prompt", "ask anything")
	tm.wait("the ten extensions", strings.Join(names, ", "))
	pid := processID(t, bin["zut"])
	time.Sleep(time.Second) // settle
	before := contextSwitches(t, pid)
	time.Sleep(2 * time.Second)
	wakeups := contextSwitches(t, pid) - before
	rss := statusKB(t, pid, "VmRSS")
	t.Logf("idle session with 10 extensions: RSS %.1f MiB; %d context switches in 2 s idle", float64(rss)/1024, wakeups)
	if rss > 30*1024 {
		t.Errorf("RSS of an idle session with 10 extensions is %.1f MiB, want under 30 MiB", float64(rss)/1024)
	}
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
	if left := processesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left after zut exited:\n%s", strings.Join(left, "\n"))
	}
}

// statusKB reads a kB field of /proc/pid/status.
func statusKB(t *testing.T, pid int, field string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// contextSwitches sums the context switches of every thread of pid.
func contextSwitches(t *testing.T, pid int) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	n := 0
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			}
		}
	}
	return n
}

// needTmux skips end-to-end terminal tests in -short mode and where tmux
// is missing.
func needTmux(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end tmux test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end terminal test needs it (apt install tmux)")
	}
}
