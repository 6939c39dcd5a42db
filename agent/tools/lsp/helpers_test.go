package lsp

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// hangGuard bounds waits that only a bug would make long; tests wait for
// events, and this is only there so a bug fails instead of hanging.
const hangGuard = 60 * time.Second

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(runFake(mode))
	}
	os.Exit(m.Run())
}

// copyDir copies the files of the testdata directory src into a fresh
// temporary directory and returns it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Resolve symlinks (a temp dir under a linked /tmp) so that paths the
	// server sends back compare equal.
	if r, err := filepath.EvalSymlinks(dst); err == nil {
		dst = r
	}
	return dst
}

// newManager returns a Manager for cwd with the given servers and a log
// directory, closed when the test ends.
func newManager(t *testing.T, cwd string, servers ...ServerConfig) *Manager {
	t.Helper()
	m := NewManager(Config{
		CWD:                  cwd,
		Home:                 t.TempDir(),
		ZutHome:              t.TempDir(),
		LogDir:               t.TempDir(),
		DiagnosticsAfterEdit: true,
		DiagnosticsWait:      hangGuard,
		RequestTimeout:       hangGuard,
		Apply:                WriteEdits,
		Servers:              servers,
		Env:                  append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off"),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// run calls the lsp tool of m with args given as a JSON object.
func run(t *testing.T, m *Manager, args string) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return m.Tool().Run(ctx, json.RawMessage(args), nil)
}

// details decodes the Details of r.
func details(t *testing.T, r tools.Result) Details {
	t.Helper()
	var d Details
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("Details %s do not decode: %v", r.Details, err)
	}
	return d
}

// golden compares got with testdata/<name>.golden, rewriting it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
	}
}

// goplsPath finds gopls through ZUT_GOPLS or PATH, or skips the test.
func goplsPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ZUT_GOPLS"); p != "" {
		return p
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	t.Skip("gopls not found: set ZUT_GOPLS to its path or put it on PATH " +
		"(GOBIN=$HOME/.cache/zut-ci/bin go install golang.org/x/tools/gopls@v0.23.0)")
	return ""
}

// goplsConfig is the gopls server at path.
func goplsConfig(path string) ServerConfig {
	sc := builtinServers()[0]
	sc.Command = path
	return sc
}

// writeFile replaces a test file's content.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceIn replaces old by new in the file at path.
func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	writeFile(t, path, strings.Replace(string(data), old, new, 1))
}
