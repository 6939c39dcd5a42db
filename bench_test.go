package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

// BenchmarkVersion is the floor: starting the binary and printing the
// version.
func BenchmarkVersion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(zutBinary, "--version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkPrintMode runs zut -p against a local model server that answers
// at once, with sessions on and extensions discovered (none installed).
// Compare with BenchmarkVersion: the difference is zut's own work for a
// prompt.
func BenchmarkPrintMode(b *testing.B) {
	replies := make([]providertest.Reply, b.N)
	for i := range replies {
		replies[i] = providertest.Reply{Text: "ok"}
	}
	srv := providertest.NewServer(replies...)
	defer srv.Close()
	dir := b.TempDir()
	env := append(os.Environ(), "ZUT_HOME="+filepath.Join(dir, "home"), "HOME="+dir,
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL="+srv.URL)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(zutBinary, "-p", "hi")
		cmd.Env = env
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
