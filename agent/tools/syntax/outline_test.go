package syntax

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/internal/golden"

	"github.com/zut-go/zut/agent/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got, *update)
}

// run calls tool with args given as a Go value.
func run(t *testing.T, tool tools.Tool, args any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(context.Background(), raw, nil)
}

// TestOutlineGolden outlines every sample file under testdata/outline and
// compares the text with the file's .golden beside it.
func TestOutlineGolden(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "outline"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tool := New(tools.Config{CWD: dir}, Config{})
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".golden") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			r := run(t, tool, map[string]any{"action": "outline", "path": name})
			if r.IsError {
				t.Fatalf("outline %s failed: %s", name, r.Text())
			}
			var d Details
			if err := json.Unmarshal(r.Details, &d); err != nil {
				t.Fatalf("Details of outline %s = %s: %v", name, r.Details, err)
			}
			if len(d.Symbols) == 0 || len(d.Files) != 1 || d.Files[0].Language != languageOf(name).name {
				t.Errorf("Details of outline %s: %d symbols, files %+v; want symbols and one file in %s", name, len(d.Symbols), d.Files, languageOf(name).name)
			}
			for _, s := range d.Symbols {
				if s.Line < 1 || s.Line > d.Files[0].Lines || s.EndLine != 0 && s.EndLine < s.Line || s.Name == "" {
					t.Errorf("outline %s: symbol %+v has a bad line range or no name (file has %d lines)", name, s, d.Files[0].Lines)
				}
			}
			checkGolden(t, filepath.Join("outline", name+".golden"), r.Text()+"\n")
		})
	}
	if n < 9 {
		t.Errorf("found %d samples in %s, want at least 9 (one per language)", n, dir)
	}
}
