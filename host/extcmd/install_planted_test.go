//go:build unix

package extcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExtInstallPlantedManifest installs a source whose extension.json is
// a FIFO, a link to a FIFO elsewhere, a link to /dev/zero or a file over
// 1 MiB, with and without --build=go: each install fails at once with a
// message naming the manifest and what is wrong, and installs nothing.
func TestExtInstallPlantedManifest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH (--build=go needs it)")
	}
	c := newExtCLI(t)
	outside := realPath(t, t.TempDir())
	tests := []struct {
		name  string
		plant func(file string)
		want  string
	}{
		{"fifo", func(file string) { syscall.Mkfifo(file, 0o644) }, "is not a regular file, directory or symlink"},
		{"link to a fifo", func(file string) {
			fifo := filepath.Join(outside, "fifo")
			syscall.Mkfifo(fifo, 0o644)
			os.Symlink(fifo, file)
		}, "manifest $SRC/extension.json: it is a named pipe (FIFO), not a regular file"},
		{"link to /dev/zero", func(file string) { os.Symlink("/dev/zero", file) }, "manifest $SRC/extension.json: it is a character device, not a regular file"},
		{"over 1 MiB", func(file string) {
			os.WriteFile(file, []byte(`{"name":"b","exec":"./b","pad":"`+strings.Repeat("a", 1<<20)+`"}`), 0o644)
		}, "manifest $SRC/extension.json: larger than the 1 MiB limit"},
	}
	for _, tc := range tests {
		for _, build := range []bool{false, true} {
			name := tc.name
			if build {
				name += " build=go"
			}
			t.Run(name, func(t *testing.T) {
				dir := realPath(t, t.TempDir())
				c.subst = append(c.subst, [2]string{dir, "$SRC"})
				os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/b\n\ngo 1.26\n"), 0o644)
				os.WriteFile(filepath.Join(dir, "main.go"), []byte(tinyGoExtension), 0o644)
				tc.plant(filepath.Join(dir, "extension.json"))
				args := []string{"install", dir}
				if build {
					args = []string{"install", "--build=go", dir}
				}
				var errOut string
				var status int
				done := make(chan struct{})
				go func() { defer close(done); _, errOut, status = c.run(nil, args...) }()
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					t.Fatalf("zut ext %s did not return within 60 s: it blocks on the manifest", strings.Join(args, " "))
				}
				if got := c.normalize(errOut); status != 1 || !strings.Contains(got, tc.want) || !strings.Contains(got, "nothing was installed") {
					t.Errorf("zut ext %s: status %d, stderr:\n%s\nwant status 1 and %q", strings.Join(args, " "), status, got, tc.want)
				}
				if got := c.installedNames(); got != "" {
					t.Errorf("after a refused install the extensions directory holds %q", got)
				}
			})
		}
	}
}
