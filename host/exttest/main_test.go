package exttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain puts the directory of the real python3 first on PATH, so that
// the extensions' "python3" and "#!/usr/bin/env python3" start the
// interpreter itself rather than a version manager's shim, which can take
// ten times longer to start.
func TestMain(m *testing.M) {
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		if exe := strings.TrimSpace(string(out)); filepath.IsAbs(exe) {
			os.Setenv("PATH", filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
	}
	os.Exit(m.Run())
}
