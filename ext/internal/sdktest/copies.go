package sdktest

// What the SDK shares with the rest of the module: the copies the
// examples carry, and the table of key names zut checks too.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ExampleCopies checks that the examples carry the SDK unchanged; with
// update it rewrites their copies.
func (s *SDK) ExampleCopies(t *testing.T, update bool) {
	root := filepath.Join("..", "..", "examples", "extensions")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		path := filepath.Join(root, d.Name(), s.FileName)
		got, err := os.ReadFile(path) //zut:open test support: the test's own files
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		n++
		if update {
			write(t, path, s.Source, 0o644)
			continue
		}
		if err != nil || !bytes.Equal(got, s.Source) {
			t.Errorf("%s differs from %s/%s (%v); run go test ./%s -update", path, s.Package, s.FileName, err, s.Package)
		}
	}
	if n < 2 {
		t.Errorf("%d examples carry %s, want %s at least", n, s.FileName, s.Examples)
	}
}

// keyTable is the table of key names that proto.CanonicalKey and every
// SDK check.
var keyTable = filepath.Join("..", "..", "proto", "testdata", "keys.txt")

// tableCases counts the cases of a table of testdata lines: the lines
// that are neither blank nor "#" comments.
func tableCases(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path) //zut:open test support: the test's own files
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// CanonicalKeyTable runs testdata/<Keys> in a real interpreter over the
// shared table of key names, so that the SDK names keys as zut does; the
// script prints "checked N" for the N cases it checked.
func (s *SDK) CanonicalKeyTable(t *testing.T) {
	s.needRuntime(t)
	want := tableCases(t, keyTable)
	var env []string
	if s.KeyEnv != nil {
		dir, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		env = append(os.Environ(), s.KeyEnv(dir)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	script := filepath.Join("testdata", s.Keys)
	args := append(append([]string{script}, s.KeyArgs...), keyTable)
	cmd := exec.CommandContext(ctx, s.Runtime, args...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", s.Runtime, script, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != fmt.Sprintf("checked %d", want) {
		t.Errorf("%s %s printed %q, want %q", s.Runtime, script, got, fmt.Sprintf("checked %d", want))
	}
}
