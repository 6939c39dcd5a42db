package app

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestToolDefinitions holds what the model is told of every built-in
// tool (name, description, JSON schema) to testdata/definitions.golden,
// byte for byte: the definitions are constant data, and a change to
// them is a change to every request.
func TestToolDefinitions(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "definitions.golden"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkApp(t, func(providertest.Recorded) providertest.Reply { return providertest.Reply{Text: "ok"} }, Frontend{})
	var b bytes.Buffer
	for _, tool := range w.a.buildTools(w.a.Skills()) {
		d := tool.Definition()
		b.WriteString("== " + d.Name + "\n" + d.Description + "\n" + string(d.Schema) + "\n")
	}
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("definitions differ from %s (go test ./agent/app -run TestToolDefinitions -update rewrites it):\n%s", golden, b.Bytes())
	}
}

// BenchmarkToolDefinitions is what a turn pays for the tools it offers:
// the list built and every definition asked for.
func BenchmarkToolDefinitions(b *testing.B) {
	b.Chdir(b.TempDir())
	home := b.TempDir()
	vars := map[string]string{"ZUT_HOME": home, "HOME": home, "ANTHROPIC_API_KEY": "k"}
	e := &Env{Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }}
	o, err := ParseOptions([]string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", "http://127.0.0.1:1", "--no-extensions", "--no-session"}, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	a, err := New(context.Background(), e, o, Frontend{OneShot: true})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, t := range a.buildTools(a.Skills()) {
			n += len(t.Definition().Schema)
		}
		if n == 0 {
			b.Fatal("no schemas")
		}
	}
}
