//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func bash(t *testing.T, cfg Config, command string, timeout int) (Result, BashDetails) {
	t.Helper()
	r := call(t, &bashTool{cfg}, map[string]any{"command": command, "timeout": timeout})
	var d BashDetails
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("bash(%q) Details %s: %v", command, r.Details, err)
	}
	return r, d
}

func TestBashOutput(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{"here.txt": "x"})
	tests := []struct {
		name, command string
		want          string
		isError       bool
		exit          int
	}{
		{"stdout and stderr merged", "echo out; echo err >&2; echo out2", "out\nerr\nout2", false, 0},
		{"no output", "true", "(no output)", false, 0},
		{"exit code", "echo failing; exit 3", "failing\n[exit 3]", true, 3},
		{"exit without output", "exit 1", "[exit 1]", true, 1},
		{"signal", "kill -SEGV $$", "[killed by signal SIGSEGV]", true, -1},
		{"working directory", "ls", "here.txt", false, 0},
		{"stdin is empty", "cat; echo done", "done", false, 0},
		{"no trailing newline", "printf abc", "abc", false, 0},
		{"pipes and bash syntax", "for i in 1 2 3; do echo $i; done | tac | tr '\\n' ,", "3,2,1,", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, d := bash(t, cfg, tc.command, 10)
			if r.Text() != tc.want || r.IsError != tc.isError || d.ExitCode != tc.exit {
				t.Errorf("bash(%q) = %q (error %v, exit %d), want %q (error %v, exit %d)", tc.command, r.Text(), r.IsError, d.ExitCode, tc.want, tc.isError, tc.exit)
			}
		})
	}
}

func TestBashMissingDir(t *testing.T) {
	cfg := testConfig(t)
	cfg.CWD = filepath.Join(cfg.CWD, "gone")
	r := call(t, &bashTool{cfg}, map[string]any{"command": "true", "timeout": 5})
	if !r.IsError || !strings.Contains(r.Text(), "working directory "+cfg.CWD+" does not exist") {
		t.Errorf("bash in a missing directory = %q", r.Text())
	}
}

// pids extracts the numbers printed as "pid N".
func pids(t *testing.T, text string) []int {
	t.Helper()
	var out []int
	for _, m := range regexp.MustCompile(`pid (\d+)`).FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// gone reports whether pid has exited (a zombie counts as exited).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}

// waitGone waits (bounded) for every pid to exit and reports the others.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for _, p := range pids {
		for !gone(p) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !gone(p) {
			t.Errorf("process %d is still running", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// family starts children and grandchildren that outlive the shell's own
// work, one of which ignores SIGTERM.
const family = `
sleep 300 & echo "pid $!"
( sleep 300 & echo "pid $!"; wait ) & echo "pid $!"
bash -c 'trap "" TERM; echo "pid $$"; while :; do sleep 1; done' &
sleep 0.2
echo ready
wait
`

func TestBashTimeoutKillsGroup(t *testing.T) {
	cfg := testConfig(t)
	r, d := bash(t, cfg, family, 1)
	text := r.Text()
	if !r.IsError || !d.TimedOut || !strings.HasSuffix(text, "[timed out after 1 s; the command and its child processes were killed]") {
		t.Errorf("bash(timeout 1) = %q, %+v; want the timeout footer", text, d)
	}
	ps := pids(t, text)
	if len(ps) != 4 {
		t.Fatalf("bash printed %d pids, want 4:\n%s", len(ps), text)
	}
	waitGone(t, ps)
}

func TestBashAbortKillsGroup(t *testing.T) {
	cfg := testConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen string
	progress := func(s string) {
		seen = s
		if strings.Contains(s, "ready") {
			cancel()
		}
	}
	args, _ := json.Marshal(map[string]any{"command": family, "timeout": 60})
	r := (&bashTool{cfg}).Run(ctx, args, progress)
	if !r.IsError || !strings.HasSuffix(r.Text(), "[aborted by the user; the command and its child processes were killed]") {
		t.Errorf("aborted bash = %q, want the abort footer (last progress %q)", r.Text(), seen)
	}
	waitGone(t, pids(t, r.Text()))
}

func TestBashDaemonHoldingPipe(t *testing.T) {
	cfg := testConfig(t)
	start := time.Now()
	r, d := bash(t, cfg, `(sleep 30 & echo "pid $!"); echo started`, 20)
	elapsed := time.Since(start)
	ps := pids(t, r.Text())
	defer func() {
		for _, p := range ps {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	if r.IsError || d.TimedOut || !strings.HasSuffix(r.Text(), "started") || len(ps) != 1 {
		t.Errorf("bash with a daemon = %q, %+v; want its output and success", r.Text(), d)
	}
	// The call must end when the shell does, not when the daemon does
	// (30 s) or at the timeout (20 s).
	if elapsed > 10*time.Second {
		t.Errorf("bash with a daemon holding the pipe took %v", elapsed)
	}
	if len(ps) == 1 && gone(ps[0]) {
		t.Errorf("the background process %d was killed; a normal exit must leave it running", ps[0])
	}
}

func TestBashHugeOutput(t *testing.T) {
	cfg := testConfig(t)
	tests := []struct {
		name, command string
		head, tail    string // first and last lines kept
		marker        string
		full          string // the saved file's expected content, by command
	}{
		{"many lines", "seq 1 100000", "1\n2\n", "\n99999\n100000",
			"[... 98000 lines (565.4 KiB) omitted; full output (100000 lines, 575.1 KiB) saved to $TMP/zut-bash-N.log; read or grep it for the rest ...]", "seq 1 100000"},
		{"one long line", "head -c 200000 /dev/zero | tr '\\0' x", strings.Repeat("x", 100), strings.Repeat("x", 100),
			"[... 145.3 KiB omitted; full output (1 line, 195.3 KiB) saved to $TMP/zut-bash-N.log; read or grep it for the rest ...]", "head -c 200000 /dev/zero | tr '\\0' x"},
		{"2001 short lines", "seq 1 2001", "1\n", "\n2001",
			"[... 1 line (5 B) omitted; full output (2001 lines, 8.7 KiB) saved to $TMP/zut-bash-N.log; read or grep it for the rest ...]", "seq 1 2001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, d := bash(t, cfg, tc.command, 30)
			text := r.Text()
			if r.IsError || !strings.HasPrefix(text, tc.head) || !strings.HasSuffix(text, tc.tail) {
				t.Fatalf("bash(%q) = %q...%q, want head %q and tail %q", tc.command, text[:min(50, len(text))], text[max(0, len(text)-50):], tc.head, tc.tail)
			}
			if len(text) > bashMaxBytes+1024 || strings.Count(text, "\n") > bashMaxLines+2 {
				t.Errorf("bash(%q) returned %d bytes, %d lines: over the caps", tc.command, len(text), strings.Count(text, "\n"))
			}
			marker := regexp.MustCompile(`zut-bash-nosession-\d+\.log`).ReplaceAllString(strings.ReplaceAll(text, cfg.TempDir, "$TMP"), "zut-bash-N.log")
			if !strings.Contains(marker, "\n"+tc.marker+"\n") {
				t.Errorf("bash(%q) has no marker %q in\n%s", tc.command, tc.marker, marker[max(0, strings.Index(marker, "[..."))-20:][:300])
			}
			if d.FullOutput == "" || filepath.Dir(d.FullOutput) != cfg.TempDir || !strings.Contains(text, d.FullOutput) {
				t.Fatalf("Details.FullOutput = %q, want a file in %s named in the text", d.FullOutput, cfg.TempDir)
			}
			want := runShell(t, tc.command)
			if got := readFile(t, d.FullOutput); got != want {
				t.Errorf("saved output has %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

func runShell(t *testing.T, command string) string {
	t.Helper()
	cfg := testConfig(t)
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r, _ := bash(t, cfg, command+" > "+out.Name(), 30)
	if r.IsError {
		t.Fatal(r.Text())
	}
	return readFile(t, out.Name())
}

func TestBashProgress(t *testing.T) {
	cfg := testConfig(t)
	var got []string
	args, _ := json.Marshal(map[string]any{"command": "echo one; sleep 0.5; echo two; sleep 0.5", "timeout": 10})
	r := (&bashTool{cfg}).Run(context.Background(), args, func(s string) { got = append(got, s) })
	if r.Text() != "one\ntwo" {
		t.Fatalf("bash = %q", r.Text())
	}
	if len(got) < 2 || got[0] != "one\n" || got[len(got)-1] != "one\ntwo\n" {
		t.Errorf("progress calls = %q, want the tail growing from %q to %q", got, "one\n", "one\ntwo\n")
	}
}

func TestBashNoLeaks(t *testing.T) {
	cfg := testConfig(t)
	before := runtime.NumGoroutine()
	bash(t, cfg, "echo hi", 5)
	bash(t, cfg, "sleep 5", 1)
	bash(t, cfg, "(sleep 2 &); echo x", 5)
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestCaptureTail(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		maxLines  int
		maxBytes  int
		partial   bool
		wantFirst string
		wantLast  string
	}{
		{"lines", "a\nb\nc\n", 2, 100, false, "b\nc\n", ""},
		{"bytes", "aaaa\nbb\ncc\n", 10, 6, false, "bb\ncc\n", ""},
		{"partial first line dropped", "tail-of-a\nb\n", 10, 100, true, "b\n", ""},
		{"whole when not partial", "a\nb", 10, 100, false, "a\nb", ""},
		{"one long line", "xxxxxxxxxx", 10, 4, false, "xxxx", ""},
		{"utf8 not split", "ééééé", 10, 5, false, "éé", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(lastLines([]byte(tc.in), tc.maxLines, tc.maxBytes, tc.partial)); got != tc.wantFirst {
				t.Errorf("lastLines(%q, %d, %d, %v) = %q, want %q", tc.in, tc.maxLines, tc.maxBytes, tc.partial, got, tc.wantFirst)
			}
		})
	}
}

func TestCaptureFirst(t *testing.T) {
	tests := []struct {
		in                 string
		maxLines, maxBytes int
		want               string
	}{
		{"a\nb\nc\n", 2, 100, "a\nb\n"},
		{"aaaa\nbb\n", 10, 6, "aaaa\n"},
		{"xxxxxxxx", 10, 3, "xxx"},
		{"é\n", 10, 1, ""},
	}
	for _, tc := range tests {
		if got := string(firstLines([]byte(tc.in), tc.maxLines, tc.maxBytes)); got != tc.want {
			t.Errorf("firstLines(%q, %d, %d) = %q, want %q", tc.in, tc.maxLines, tc.maxBytes, got, tc.want)
		}
	}
}
