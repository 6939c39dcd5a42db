// Package golden is test support for the agent's packages: it compares a
// test's output with its golden file under testdata and rewrites the file
// when the package's own -update flag is set.
package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with the file testdata/name. With update it writes
// got there instead (creating testdata). A difference is reported at its
// first line, with both versions of that line.
func Check(t testing.TB, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path) //zut:open test support: the test's own files
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s differs at line %d:\n got  %q\n want %q\n(run go test -update and review the diff)", name, i+1, g, w)
			return
		}
	}
}
