//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

// hostileLocations are the files zut reads at start that a repository
// (project files, relative to the work directory) or a mistake under
// $ZUT_HOME can plant. named says the run must name the file in what it
// prints (it is a file zut reads and reports; the others, such as a
// skill a planted directory hides, are skipped quietly).
//
// The language servers' configuration is read when the lsp tool first
// runs: for those the model calls it (action status), and the tool's
// result, in the next request, must name the file.
var hostileLocations = []struct {
	path  string // "home/..." is under $ZUT_HOME, else in the project
	named bool
	lsp   bool // the model calls the lsp tool first
}{
	{".zut/settings.json", true, false},
	{"home/config.json", true, false},
	{"home/lsp.json", false, true},
	{".zut/lsp.json", true, true},
	{".mcp.json", true, false},
	{"AGENTS.md", false, false},
	{".zut/extensions/planted/extension.json", false, false}, // untrusted: not loaded, so not reported
	{".zut/skills/planted/SKILL.md", false, false},
	{"home/models.json", true, false},
	{"home/auth.json", true, false},
	{"home/trust.json", false, false},
	{"home/history.jsonl", false, false},
}

// hostileKinds are what is planted there.
var hostileKinds = []struct {
	name    string
	missing bool // the file reads as missing, so nothing need be said
	plant   func(t *testing.T, path string)
}{
	{"symlink to /dev/stdin", false, func(t *testing.T, path string) { must(t, os.Symlink("/dev/stdin", path)) }},
	{"FIFO", false, func(t *testing.T, path string) { must(t, syscall.Mkfifo(path, 0o600)) }},
	{"huge file", false, func(t *testing.T, path string) {
		f, err := os.Create(path)
		must(t, err)
		must(t, f.Truncate(64<<20)) // sparse: 64 MiB of zeros
		f.Close()
	}},
	{"directory", false, func(t *testing.T, path string) { must(t, os.Mkdir(path, 0o700)) }},
	{"dangling link", true, func(t *testing.T, path string) {
		must(t, os.Symlink(filepath.Join(filepath.Dir(path), "nowhere"), path))
	}},
}

// hostileModes are the modes run against each planted file. rpc gets a
// stdin pipe that stays open until it answered, so a read of /dev/stdin
// would wait for good; -p reads its stdin to the end as part of the
// prompt, so there a planted FIFO is what would hang.
var hostileModes = []struct {
	name string
	args []string
	rpc  bool
}{
	{"print", []string{"-p", "hi"}, false},
	{"json", []string{"--mode", "json", "hi"}, false},
	{"rpc", []string{"--mode", "rpc"}, true},
}

// TestHostileFiles plants every kind of hostile file in every location
// zut reads at start and runs every headless mode against it: each run
// must end (well inside the 60 s guard, which only catches a hang) with a
// model answer, and name the file when it is one zut reports. The UI is
// checked the same way by interactive.TestUIPlantedSettings (tmux).
func TestHostileFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs zut 180 times")
	}
	for _, loc := range hostileLocations {
		for _, kind := range hostileKinds {
			for _, mode := range hostileModes {
				t.Run(fmt.Sprintf("%s/%s/%s", loc.path, kind.name, mode.name), func(t *testing.T) {
					hostileRun(t, loc.path, loc.named && !kind.missing, loc.lsp && !kind.missing, kind.plant, mode.args, mode.rpc)
				})
			}
		}
	}
}

func hostileRun(t *testing.T, loc string, named, lsp bool, plant func(*testing.T, string), args []string, rpc bool) {
	replies := []providertest.Reply{{Text: "answer-from-model"}}
	if lsp {
		replies = append([]providertest.Reply{{Tools: []providertest.ToolCall{{ID: "t1", Name: "lsp", Args: `{"action":"status"}`}}}}, replies...)
	}
	srv := providertest.NewServer(replies...)
	defer srv.Close()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	must(t, os.MkdirAll(filepath.Join(work, ".git"), 0o700))
	must(t, os.MkdirAll(home, 0o700))
	path := filepath.Join(work, loc)
	if rest, ok := strings.CutPrefix(loc, "home/"); ok {
		path = filepath.Join(home, rest)
	}
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	plant(t, path)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zutBinary, append([]string{"--no-session"}, args...)...)
	cmd.Dir = work
	cmd.Env = []string{"ZUT_HOME=" + home, "HOME=" + dir, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	stdinR, stdinW, err := os.Pipe()
	must(t, err)
	defer stdinW.Close()
	cmd.Stdin = stdinR
	var stdout, stderr bytes.Buffer
	var outR *os.File
	if rpc {
		var outW *os.File
		outR, outW, err = os.Pipe()
		must(t, err)
		defer outR.Close()
		cmd.Stdout = outW
		defer outW.Close()
	} else {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	start := time.Now()
	must(t, cmd.Start())
	stdinR.Close()
	if !rpc {
		stdinW.Close() // -p reads the prompt from stdin to its end
	}
	if rpc {
		cmd.Stdout.(*os.File).Close()
		fmt.Fprintln(stdinW, `{"type":"prompt","id":1,"message":"hi"}`)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			stdout.Write(sc.Bytes())
			stdout.WriteByte('\n')
			if strings.Contains(sc.Text(), `"type":"done"`) {
				break
			}
		}
		stdinW.Close()
		go func() {
			for sc.Scan() {
			}
		}()
	}
	err = cmd.Wait()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("zut %v with %s planted did not end within 60 s (it hangs)\nstdout:\n%s\nstderr:\n%s", args, loc, stdout.String(), stderr.String())
	}
	out := stdout.String() + stderr.String()
	// A broken auth.json, models.json or config.json may end the run, as
	// long as the message names it; anything else must not.
	fatal := strings.Contains(loc, "auth.json") || strings.Contains(loc, "models.json") || strings.Contains(loc, "config.json")
	if err != nil && !fatal {
		t.Errorf("zut %v with %s planted: %v after %v\n%s", args, loc, err, took.Round(time.Millisecond), out)
	}
	if !strings.Contains(stdout.String(), "answer-from-model") && !(fatal && strings.Contains(out, filepath.Base(path))) {
		t.Errorf("zut %v with %s planted ended without the model's answer\n%s", args, loc, out)
	}
	if named && !strings.Contains(out, filepath.Base(path)) {
		t.Errorf("zut %v with %s planted says nothing of it\n%s", args, loc, out)
	}
	if lsp {
		reqs := srv.Requests()
		if len(reqs) < 2 {
			t.Fatalf("zut %v with %s planted: the model got %d requests, want the lsp tool's result in a second\n%s", args, loc, len(reqs), out)
		}
		if body, _ := json.Marshal(reqs[1].Body); !strings.Contains(string(body), filepath.Base(path)) {
			t.Errorf("zut %v with %s planted: the lsp tool's result does not name it:\n%s", args, loc, body)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
