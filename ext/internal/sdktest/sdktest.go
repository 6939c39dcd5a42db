// Package sdktest is test support for the SDK packages of other languages
// (ext/python, ext/node): it owns the tests that run one language's SDK in
// real processes of its interpreter under the real host, so that each SDK
// package's tests are a thin table naming its scripts and the texts its
// language prints. It holds the harness of those tests: an extension
// directory with a copy of the SDK and a test program, a recording of the
// host's callbacks, a fake of zut's app answering host requests, and an
// SDK process driven on raw pipes.
//
// Every test skips, saying why, when the interpreter is not on PATH. The
// tests read the calling package's testdata/ and the module's proto and
// examples directories relative to the working directory, so they run
// from the directory of an SDK package (ext/<language>), as go test runs
// them.
package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// SDK is one language's SDK under test: how to run it, the scripts of
// its package's testdata/ that exercise it, and the texts its language
// prints where the tests compare them.
type SDK struct {
	Name     string // the language in messages: "Python", "Node"
	Runtime  string // the interpreter on PATH: "python3", "node"
	Language string // the language extension.json names: "python", "javascript"
	Package  string // the SDK package, for messages: "ext/python"
	FileName string // the SDK file an extension carries: "zut_ext.py"
	Source   []byte // the SDK file's contents

	// Scripts under testdata/.
	Full  string   // the extension using every feature: "full/full.py"
	Bare  string   // the extension declaring no additions: "bare/bare.py"
	Bench []string // the benchmark's extensions, raw JSON then the SDK: "bench/raw.py", "bench/sdk.py"
	Keys  string   // the key-table check, run as Runtime testdata/Keys KeyArgs... table: "keys.py"

	// KeyArgs go between the key script and the table's path.
	KeyArgs []string
	// KeyEnv, when set, returns the variables added to the key script's
	// environment, given the SDK's directory (absolute).
	KeyEnv func(dir string) []string

	// Examples names the examples that carry the SDK at least, for
	// messages: "hello-py and ask".
	Examples string

	Want Want
}

// Want holds the texts of the language that the tests expect from
// testdata/<Full> and testdata/<Bare>: error names, the way values print.
type Want struct {
	Fail       string   // the error of /fail (a thrown error)
	BadReturn  string   // the error of /badreturn (a number returned)
	StrayLog   []string // what /stray and /fail leave in the log
	Boom       string   // the result text of the tool boom (a thrown error)
	BadResult  string   // the result text of the tool badresult
	Events     string   // what /events displays after the test's events
	Ask        string   // what /ask displays
	LLM        string   // what /llm displays
	Entries    string   // what /entries displays
	App        string   // what /app displays
	Undeclared string   // what /try of the bare extension displays
	OldHost    string   // the error of /ask behind a host without the additions
	FutureLog  string   // the log line on a frame of an unknown type
}

// waitLimit guards waits for something that must happen; it is not a
// timing assertion.
const waitLimit = 30 * time.Second

func (s *SDK) needRuntime(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(s.Runtime); err != nil {
		t.Skipf("%s is not on PATH; the %s SDK tests run the SDK in real %s processes", s.Runtime, s.Name, s.Name)
	}
}

// extDir writes an extension directory for the program testdata/<prog>:
// extension.json, the program and the SDK. A non-empty filter is a sed
// command that every line from the host goes through before the program
// reads it (a shell wrapper runs both).
func (s *SDK) extDir(t testing.TB, name, prog, filter string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", prog)) //zut:open test support: the test's own files
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(prog)
	write(t, filepath.Join(dir, base), src, 0o755)
	write(t, filepath.Join(dir, s.FileName), s.Source, 0o644)
	exe := "./" + base
	if filter != "" {
		write(t, filepath.Join(dir, "wrap.sh"), []byte(fmt.Sprintf(wrapScript, filter, exe)), 0o755)
		exe = "./wrap.sh"
	}
	m, _ := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "exec": exe, "language": s.Language})
	write(t, filepath.Join(dir, "extension.json"), m, 0o644)
	return dir
}

// wrapScript runs a filter (%s) on the host's lines through a FIFO and
// execs the program (%s) on its output, so that the program's exit is the
// extension's exit; the host kills the filter with the process group.
const wrapScript = `#!/bin/sh
fifo=./in.fifo
rm -f "$fifo" && mkfifo "$fifo" || exit 1
exec 3<&0
%s <&3 >"$fifo" &
exec 3<&-
exec %s <"$fifo"
`

func write(t testing.TB, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// start starts a host on dirs and fails the test unless every extension
// is ok. At the end of the test it closes the host and checks that every
// extension acknowledged shutdown and exited in time.
func start(t *testing.T, cb host.Callbacks, dirs ...string) *host.Host {
	t.Helper()
	home := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{
		Home: home, CWD: t.TempDir(), ExtDirs: dirs, ZutVersion: "test", Provider: "fake", Model: "m1",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range h.Diagnostics() {
		if r.Status != host.StatusOK {
			log, _ := os.ReadFile(r.Log) //zut:open test support: the test's own files
			h.Close(context.Background())
			t.Fatalf("%s: status %s (%s); log:\n%s", r.Name, r.Status, r.Error, log)
		}
	}
	t.Cleanup(func() {
		names := []string{}
		for _, r := range h.Diagnostics() {
			names = append(names, r.Name)
		}
		h.Close(context.Background())
		for _, name := range names {
			log, _ := os.ReadFile(host.LogPath(home, name)) //zut:open test support: the test's own files
			if !strings.Contains(string(log), "shutdown acknowledged") || strings.Contains(string(log), "no exit within") {
				t.Errorf("%s did not acknowledge shutdown and exit in time; log:\n%s", name, log)
			}
		}
	})
	return h
}

func logOf(t *testing.T, h *host.Host, name string) string {
	t.Helper()
	for _, r := range h.Diagnostics() {
		if r.Name == name {
			b, _ := os.ReadFile(r.Log) //zut:open test support: the test's own files
			return string(b)
		}
	}
	t.Fatalf("no extension %s", name)
	return ""
}

// command invokes /name args and returns the response without its id.
func command(t *testing.T, h *host.Host, name, args string) proto.CommandResponse {
	t.Helper()
	r, err := h.InvokeCommand(context.Background(), name, args)
	if err != nil {
		t.Fatalf("InvokeCommand(%q, %q): %v", name, args, err)
	}
	r.ID = ""
	return r
}

func display(t *testing.T, h *host.Host, name, args string) string {
	t.Helper()
	r := command(t, h, name, args)
	if r.Error != "" {
		t.Fatalf("/%s %s: error %q", name, args, r.Error)
	}
	return r.Display
}

func toolText(r host.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Type+":"+c.Text+c.MIMEType+c.Data)
	}
	return strings.Join(parts, " ")
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
