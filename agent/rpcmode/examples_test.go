package rpcmode

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rpcBinaries builds zut and the scripted model server (fakemodel) into
// a temporary directory of t.
func rpcBinaries(t *testing.T) (zut, fakemodel string) {
	t.Helper()
	dir := t.TempDir()
	zut = filepath.Join(dir, "zut")
	fakemodel = filepath.Join(dir, "fakemodel")
	for _, b := range []struct{ out, pkg string }{{zut, "github.com/zut-go/zut"}, {fakemodel, "github.com/zut-go/zut/provider/providertest/cmd/fakemodel"}} {
		if out, err := exec.Command("go", "build", "-o", b.out, b.pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return zut, fakemodel
}

// startFakemodel serves script (providertest format) in a child process
// and returns its base URL; the process is stopped when t ends.
func startFakemodel(t *testing.T, bin, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-loop", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("fakemodel printed no URL: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestRPCBinary runs the zut binary in RPC mode as a child process, built
// once for its subtests, against fakemodel.
func TestRPCBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	zut, fakemodel := rpcBinaries(t)
	t.Run("examples", func(t *testing.T) { testRPCExamples(t, zut, fakemodel) })
	t.Run("backpressure", func(t *testing.T) { testRPCBinaryBackpressure(t, zut, fakemodel) })
	t.Run("signal", func(t *testing.T) { testRPCBinarySignal(t, zut, fakemodel) })
}

// testRPCExamples runs the example clients of examples/rpc (Python, Node,
// POSIX shell) against the zut binary and the scripted model: each sends
// a prompt that makes the model read a file with a tool, and prints the
// tool call, its result, the answer and the usage.
func testRPCExamples(t *testing.T, zut, fakemodel string) {
	url := startFakemodel(t, fakemodel, `[
 {"text": "Let me read it.", "tools": [{"id": "c1", "name": "read", "args": {"path": "hello.txt"}}], "usage": {"input": 100, "output": 10}},
 {"text": "It says: hello from the example.", "usage": {"input": 150, "output": 12}}
]`)
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples", "rpc"))
	if err != nil {
		t.Fatal(err)
	}
	clients := []struct {
		name, interpreter, file string
	}{
		{"python", "python3", "client.py"},
		{"node", "node", "client.js"},
		{"sh", "sh", "client.sh"},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			interp, err := exec.LookPath(c.interpreter)
			if err != nil {
				t.Skipf("%s is not installed", c.interpreter)
			}
			work := t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "hello.txt"), []byte("hello from the example\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(interp, filepath.Join(examples, c.file), "Read hello.txt and tell me what it says.",
				"--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", url, "--no-context-files")
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "ZUT="+zut, "ZUT_HOME="+filepath.Join(work, "zuthome"),
				"ANTHROPIC_API_KEY=test-key", "ZUTCORE_RPC_TOKEN=example-token")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := runBounded(t, cmd)
			if err != nil {
				t.Fatalf("%s client: %v\nstdout:\n%s\nstderr:\n%s", c.name, err, out, stderr.String())
			}
			for _, want := range []string{
				"> Read hello.txt and tell me what it says.",
				`[tool] read {"path":"hello.txt"}`,
				"[result] hello from the example",
				"It says: hello from the example.",
				"[done]",
				"[usage] 250 input, 22 output tokens, $0.00108",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("%s client output lacks %q:\n%s\nstderr:\n%s", c.name, want, out, stderr.String())
				}
			}
		})
	}
}

// runBounded runs cmd and returns its stdout; a run past rpcWait is
// killed (a guard against hangs, not a timing assertion).
func runBounded(t *testing.T, cmd *exec.Cmd) (string, error) {
	t.Helper()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return stdout.String(), err
	case <-time.After(rpcWait):
		cmd.Process.Kill()
		<-done
		return stdout.String(), errors.New("killed: still running after " + rpcWait.String())
	}
}

// testRPCBinaryBackpressure runs the zut binary with a client that sends
// a prompt and never reads stdout. The answer's events overflow the
// bounded queue: zut says why on stderr and exits with status 1.
func testRPCBinaryBackpressure(t *testing.T, zut, fakemodel string) {
	url := startFakemodel(t, fakemodel, `[{"text": "`+strings.Repeat("w ", 20000)+`", "chunks": 20000}]`)
	home := t.TempDir()
	cmd := exec.Command(zut, "rpc", "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", url,
		"--no-context-files", "--no-extensions")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "ZUT_HOME="+home, "ANTHROPIC_API_KEY=test-key")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe() // never read until zut exits
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"type":"prompt","id":1,"message":"talk"}`+"\n")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(rpcWait):
		cmd.Process.Kill()
		<-done
		t.Fatalf("zut still runs %v after its client stopped reading; stderr:\n%s", rpcWait, stderr.String())
	}
	_ = stdout
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("zut exited with %v, want status 1; stderr:\n%s", werr, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the client stopped reading stdout") {
		t.Errorf("stderr does not say why:\n%s", stderr.String())
	}
}

// testRPCBinarySignal sends SIGTERM to the zut binary while a prompt
// waits for the model: zut aborts it, answers the prompt waiting behind
// it with an error, shuts down and exits with status 143 (128 + SIGTERM).
func testRPCBinarySignal(t *testing.T, zut, fakemodel string) {
	url := startFakemodel(t, fakemodel, `[{"hang": true}]`)
	home := t.TempDir()
	cmd := exec.Command(zut, "rpc", "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", url,
		"--no-context-files", "--no-extensions")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "ZUT_HOME="+home, "ANTHROPIC_API_KEY=test-key")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io.WriteString(stdin, `{"type":"prompt","id":1,"message":"wait"}`+"\n"+`{"type":"prompt","id":2,"message":"queued"}`+"\n")
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var got []string
	for l := range lines {
		got = append(got, l)
		if strings.Contains(l, `"type":"assistant_start"`) {
			cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Fatalf("zut exited with %v, want status 143 (128 + SIGTERM); stderr:\n%s", err, stderr.String())
	}
	out := strings.Join(got, "\n")
	for _, want := range []string{
		`{"type":"response","id":2,"command":"prompt","success":false,"error":"zut is exiting: interrupted"}`,
		`{"type":"turn_end","stop":"aborted"}`,
		`{"type":"done"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr = %q, want it to say zut was interrupted", stderr.String())
	}
}
