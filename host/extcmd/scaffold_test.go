package extcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// scaffoldRuntimes are what each language of zut ext init needs on PATH.
var scaffoldRuntimes = map[string]string{"go": "go", "python": "python3", "node": "node", "sh": "jq"}

// TestScaffoldsPassExtTest runs `zut ext init` for every language it
// offers, with every feature, and then `zut ext test` on the fresh
// directory with nothing in between: each must pass. A Go scaffold is
// written inside this module (where it builds as it is) and, in the
// "go-replace" case, outside any module with the go.mod its README tells
// the author to make (go mod init, go mod edit -replace to this checkout,
// go mod tidy), so that the README's route is checked too.
func TestScaffoldsPassExtTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every scaffold; not in -short")
	}
	modRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	inModule, err := os.MkdirTemp("testdata", "scaffold-")
	if err != nil {
		t.Fatal(err)
	}
	inModule, _ = filepath.Abs(inModule)
	t.Cleanup(func() { os.RemoveAll(inModule) })
	c := newExtCLI(t)
	for _, tc := range []struct{ name, lang string }{{"go", "go"}, {"go-replace", "go"}, {"python", "python"}, {"node", "node"}, {"sh", "sh"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each scaffold its own directory; zut ext test waits on builds and processes
			rt := scaffoldRuntimes[tc.lang]
			if _, err := exec.LookPath(rt); err != nil && !(rt == "go" && goBin() != "") {
				t.Skipf("%s is not on PATH; the %s scaffold needs it", rt, tc.lang)
			}
			name := "x-" + tc.name
			dir := filepath.Join(t.TempDir(), name)
			if tc.name == "go" {
				dir = filepath.Join(inModule, name)
			}
			c.mustRun("init", name, "--lang", tc.lang, "--command", "--tool", "--panel", "--dir", dir)
			if tc.name == "go-replace" {
				goIn(t, dir, "mod", "init", "example.com/"+name)
				goIn(t, dir, "mod", "edit", "-require", "github.com/zut-go/zut@v0.0.0", "-replace", "github.com/zut-go/zut="+modRoot)
				goIn(t, dir, "mod", "tidy")
			}
			out, errOut, status := c.run(nil, "test", dir)
			if status != 0 || !strings.Contains(out, "\nPASS "+name+":") {
				t.Errorf("zut ext test on a fresh %s scaffold: status %d\nstdout:\n%s\nstderr:\n%s", tc.lang, status, out, errOut)
			}
		})
	}
}

func goBin() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExistsAt(p) {
		return p
	}
	return ""
}

func fileExistsAt(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(goBin(), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}
