package zutfilecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/zutfile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// example is the code reviewer of examples/agents.
const example = "../../../examples/agents/code-reviewer"

// testEnv is an Env of fixed places, writing into buffers.
func testEnv(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	e := &Env{Stdout: &out, Stderr: &errb, ZutHome: "/home/me/.local/state/zut", CWD: t.TempDir(), UserHome: "/home/me",
		Version: "0.1.0", GOOS: "linux", GOARCH: "amd64",
		LookPath: func(name string) (string, error) {
			if name == "git" {
				return "/usr/bin/git", nil
			}
			return "", errors.New("not found")
		}}
	return e, &out, &errb
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// writeAgent writes an agent of every field under a new directory.
func writeAgent(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "full")
	files := map[string]string{
		"manifest.json": `{"zutfile":1,"name":"full","version":"2.0.0","description":"Every field.","author":"A. Author","license":"Apache-2.0",
  "homepage":"https://example.org/full","keywords":["a","b"],
  "model":{"provider":"anthropic","id":"claude-sonnet-4-5","min_context":100000,"capabilities":["tools","vision","telepathy"]},
  "requires":{"zut":">=9.0.0","os":["linux"],"arch":["arm64"],"binaries":["git","no-such-tool"]},
  "replace_system_prompt":true,"extensions":["extensions/guard"],"colour":"blue",
  "permissions":{"filesystem":{"read":["~/notes","/srv/data"],"write":["${agent_data}","${workspace}/out"]},
    "bash":{"mode":"allowlist","allow":["git diff *","go test ./..."]},"network":{"allow":["api.github.com","*.example.org:443"]},"env":{"read":["PATH","GOPATH"]}}}`,
		"AGENT.md":                        "You are everything.\n",
		"extensions/guard/run.sh":         "#!/bin/sh\nexit 0\n",
		"extensions/guard/extension.json": `{"name":"guard"}`,
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(full, mode)
	}
	return dir
}

// TestInspect checks the text and the JSON of zut inspect against
// golden files, for the example and for an agent of every field.
func TestInspect(t *testing.T) {
	full := writeAgent(t)
	tests := []struct {
		name, src string
		args      []string
		golden    string
	}{
		{name: "example", src: example, golden: "inspect-example.txt"},
		{name: "example JSON", src: example, args: []string{"--json"}, golden: "inspect-example.json"},
		{name: "every field", src: full, golden: "inspect-full.txt"},
		{name: "every field JSON", src: full, args: []string{"--json"}, golden: "inspect-full.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, out, _ := testEnv(t)
			e.CWD = "/home/me/project"
			if err := Inspect(context.Background(), e, append([]string{tc.src}, tc.args...)); err != nil {
				t.Fatalf("Inspect(%s) = %v", tc.src, err)
			}
			got := strings.ReplaceAll(out.String(), tc.src, "SOURCE")
			golden(t, tc.golden, []byte(got))
			if strings.HasSuffix(tc.golden, ".json") {
				var v map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Errorf("--json printed no JSON object: %v", err)
				}
			}
		})
	}
}

// TestPackVerify packs the example, verifies the archive with its digest
// and with another, and checks the errors and usage errors.
func TestPackVerify(t *testing.T) {
	e, out, _ := testEnv(t)
	if err := Pack(context.Background(), e, []string{example}); err != nil {
		t.Fatalf("Pack = %v", err)
	}
	archive := filepath.Join(e.CWD, "code-reviewer-1.0.0.zut")
	a, _, err := zutfile.Load(context.Background(), example, zutfile.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "wrote code-reviewer-1.0.0.zut ("; !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "\ndigest "+a.Digest+"\n") {
		t.Errorf("Pack printed %q, want %q... and the digest %s", out.String(), want, a.Digest)
	}
	first, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	// Again, with -o after the operand: the same bytes.
	other := filepath.Join(t.TempDir(), "again.zut")
	if err := Pack(context.Background(), e, []string{example, "-o", other}); err != nil {
		t.Fatalf("Pack -o = %v", err)
	}
	if second, _ := os.ReadFile(other); !bytes.Equal(first, second) {
		t.Errorf("two packs differ")
	}

	absExample, _ := filepath.Abs(example)
	tests := []struct {
		name   string
		run    func(context.Context, *Env, []string) error
		args   []string
		out    string // a part of stdout
		err    string // a part of the error
		status int    // 2 for a usage error
	}{
		{name: "verify the archive", run: Verify, args: []string{archive}, out: "ok code-reviewer 1.0.0 (3 files)\ndigest " + a.Digest},
		{name: "verify with its digest", run: Verify, args: []string{"--digest", a.Digest, archive}, out: "digest matches " + a.Digest},
		{name: "verify the directory with the archive's digest", run: Verify, args: []string{example, "--digest", a.Digest}, out: "digest matches"},
		{name: "verify another digest", run: Verify, args: []string{archive, "--digest", "sha256:" + strings.Repeat("0", 64)},
			err: "digest mismatch: the agent code-reviewer is " + a.Digest + ", not sha256:" + strings.Repeat("0", 64)},
		{name: "verify a malformed digest", run: Verify, args: []string{archive, "--digest", "abc"}, err: `--digest "abc" is not a digest`, status: 2},
		{name: "verify nothing", run: Verify, args: nil, err: "usage: zut verify SOURCE", status: 2},
		{name: "verify an unknown flag", run: Verify, args: []string{archive, "--digset", "x"}, err: "zut verify: unknown flag -digset; zut help verify", status: 2},
		{name: "verify a damaged archive", run: Verify, args: []string{func() string {
			p := filepath.Join(t.TempDir(), "cut.zut")
			os.WriteFile(p, first[:len(first)/2], 0o644)
			return p
		}()}, err: "the archive is cut short or damaged"},
		{name: "pack two dirs", run: Pack, args: []string{example, example}, err: "usage: zut pack DIR", status: 2},
		{name: "pack a file", run: Pack, args: []string{archive}, err: "not a directory", status: 2},
		{name: "pack into itself", run: Pack, args: []string{absExample, "-o", filepath.Join(absExample, "x.zut")}, err: "would be inside the agent", status: 2},
		{name: "inspect two", run: Inspect, args: []string{example, example}, err: "usage: zut inspect SOURCE", status: 2},
		{name: "help", run: Inspect, args: []string{"-h"}, out: "zut inspect — show what a packaged agent is and may do"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, out, _ := testEnv(t)
			err := tc.run(context.Background(), e, tc.args)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("%v = %v", tc.args, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("%v = %v, want an error with %q", tc.args, err, tc.err)
			}
			var coded interface{ ExitCode() int }
			if got := errors.As(err, &coded) && coded.ExitCode() == 2; got != (tc.status == 2) {
				t.Errorf("%v: usage error = %v, want %v", tc.args, got, tc.status == 2)
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("%v printed %q, want %q", tc.args, out.String(), tc.out)
			}
		})
	}
}
