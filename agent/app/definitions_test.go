package app

import (
	"bytes"
	"flag"
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
