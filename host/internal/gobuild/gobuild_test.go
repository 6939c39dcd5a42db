package gobuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildRefuses checks the execs Build refuses before running go.
func TestBuildRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ exec, want string }{
		{"", "has no exec; set it to the binary to build"},
		{"weather", `exec "weather" is a command looked up on PATH`},
		{"../weather", `exec "../weather" leaves the extension directory`},
		{"/usr/bin/weather", `exec "/usr/bin/weather" leaves the extension directory`},
	}
	for _, tc := range tests {
		t.Run(tc.exec, func(t *testing.T) {
			err := Build(context.Background(), dir, tc.exec, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build(exec %q) = %v, want %q", tc.exec, err, tc.want)
			}
		})
	}
}

// TestBuild builds a tiny main package into another directory, and a
// directory without go.mod, whose error points to the replace route.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	src := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	err := Build(context.Background(), src, "./tiny", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "go mod edit -require github.com/zut-go/zut@v0.0.0 -replace github.com/zut-go/zut=/path/to/zut") {
		t.Errorf("Build without go.mod = %v, want the replace route in the error", err)
	}
	write("go.mod", "module example.com/tiny\n\ngo 1.21\n")
	out := t.TempDir()
	if err := Build(context.Background(), src, "./bin/tiny", out); err != nil {
		t.Fatalf("Build = %v", err)
	}
	if fi, err := os.Stat(filepath.Join(out, "bin", "tiny")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("no executable bin/tiny in the output directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(src, "bin")); err == nil {
		t.Errorf("Build wrote into the source directory")
	}
	if !IsGoSource(src) || IsGoSource(t.TempDir()) {
		t.Errorf("IsGoSource is wrong")
	}
}
