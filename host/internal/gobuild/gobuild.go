// Package gobuild is zut's one builder of extension source, shared by
// `zut ext install --build=go` (host/extcmd) and `zut ext test`
// (host/exttest): it runs `go build -trimpath` in the source directory and
// writes the manifest's relative exec under another directory, so that the
// source tree is left as it was.
package gobuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds the Go package in srcDir into outDir/exec. exec is the
// manifest's exec as written; it must be a relative path inside the
// extension directory (a bare command name is looked up on PATH, so there
// is nothing to build). The error says what to change, and for a failed
// build carries go's own output.
func Build(ctx context.Context, srcDir, execPath, outDir string) error {
	clean := filepath.Clean(execPath)
	switch {
	case execPath == "":
		return fmt.Errorf("--build=go: extension.json has no exec; set it to the binary to build, such as ./%s", filepath.Base(srcDir))
	case !strings.ContainsRune(execPath, '/') && !strings.ContainsRune(execPath, filepath.Separator):
		return fmt.Errorf("--build=go: exec %q is a command looked up on PATH; --build=go needs a relative path such as ./%s", execPath, execPath)
	case filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
		return fmt.Errorf("--build=go: exec %q leaves the extension directory; use a relative path inside it", execPath)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return errors.New("--build=go needs the go command on PATH; install Go from https://go.dev/dl/")
	}
	out := filepath.Join(outDir, clean)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("--build=go: %w", err)
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-trimpath", "-o", out, ".")
	cmd.Dir = srcDir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(buf.String())
		hint := ""
		if strings.Contains(msg, "go.mod file not found") || strings.Contains(msg, "cannot find main module") {
			hint = "\nthe directory needs a go.mod: go mod init example.com/" + filepath.Base(srcDir) +
				", then point the SDK at a checkout of zut with go mod edit -require github.com/zut-go/zut@v0.0.0 -replace github.com/zut-go/zut=/path/to/zut and go mod tidy (see the extension's README.md)"
		}
		return fmt.Errorf("go build in %s: %v\n%s%s", srcDir, err, msg, hint)
	}
	return nil
}

// IsGoSource reports whether dir holds Go source to build: a go.mod or a
// .go file.
func IsGoSource(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return true
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(matches) > 0
}
