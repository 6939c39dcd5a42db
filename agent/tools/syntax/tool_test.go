package syntax

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// writeTree creates files under root from slash paths to contents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// repoTree is a small repository: Go and Python files, an ignored
// directory, a file too large for the test's limit and a binary one.
func repoTree(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":          "gen/\n*.tmp.go\n",
		"main.go":             "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(helper()) }\n",
		"util/helper.go":      "package util\n\nfunc helper() string { return fmt.Sprintf(\"%d\", 1) }\n",
		"util/scratch.tmp.go": "package util\n\nfunc ignoredTmp() { fmt.Println() }\n",
		"gen/generated.go":    "package gen\n\nfunc ignoredGen() { fmt.Println() }\n",
		"tools/run.py":        "import sys\n\ndef helper():\n    print('x')\n",
		"big/huge.go":         "package big\n\n" + strings.Repeat("// padding line\n", 200) + "func helper() {}\n",
		"bin/blob.c":          "int x;\x00\x01\x02",
		"notes.md":            "func helper() in prose is not code\n",
		"broken/bad.go":       "package bad\n\nfunc ok() {}\n\nfunc broken( {\n\nfunc helper() {}\n",
	})
	return dir
}

func TestDirectorySearch(t *testing.T) {
	dir := repoTree(t)
	tool := New(tools.Config{CWD: dir}, Config{MaxFileSize: 1000})
	tests := []struct {
		name string
		args map[string]any
	}{
		{"definition", map[string]any{"action": "definition", "query": "helper"}},
		{"calls", map[string]any{"action": "find", "query": "call:fmt.*"}},
		{"outline", map[string]any{"action": "outline", "path": "."}},
		{"none", map[string]any{"action": "find", "query": "type:Nothing", "path": "util"}},
		{"references", map[string]any{"action": "references", "query": "helper", "path": "."}},
	}
	var b strings.Builder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tool, tc.args)
			if r.IsError {
				t.Fatalf("ast %v: error %s", tc.args, r.Text())
			}
			text := r.Text()
			for _, ignored := range []string{"ignoredTmp", "ignoredGen", "notes.md"} {
				if strings.Contains(text, ignored) {
					t.Errorf("ast %v showed %s, which .gitignore or the language filter excludes:\n%s", tc.args, ignored, text)
				}
			}
			fmt.Fprintf(&b, "== %s\n%s\n", tc.name, text)
		})
	}
	checkGolden(t, "directory.golden", b.String())
}

func TestDirectoryDetails(t *testing.T) {
	dir := repoTree(t)
	tool := New(tools.Config{CWD: dir}, Config{MaxFileSize: 1000})
	r := run(t, tool, map[string]any{"action": "definition", "query": "helper"})
	var d Details
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("Details = %s: %v", r.Details, err)
	}
	// broken/bad.go declares helper after a syntax error in broken's
	// parameters: the parser resumes at the next line that starts a
	// declaration, and finds it.
	want := []string{"broken/bad.go:7", "tools/run.py:3", "util/helper.go:3"}
	var got []string
	for _, s := range d.Symbols {
		got = append(got, fmt.Sprintf("%s:%d", s.File, s.Line))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("definition helper found %q, want %q", got, want)
	}
	skipped := map[string]string{}
	for _, s := range d.Skipped {
		skipped[s.Path] = s.Reason
	}
	if !strings.HasPrefix(skipped["big/huge.go"], "too large") || !strings.HasPrefix(skipped["bin/blob.c"], "binary") || d.SkippedCount != 2 {
		t.Errorf("skipped = %v (count %d), want big/huge.go too large and bin/blob.c binary", skipped, d.SkippedCount)
	}
	if d.Searched != 4 || d.Partial || d.TimedOut {
		t.Errorf("searched %d files, partial %v, timed out %v; want 4, false, false", d.Searched, d.Partial, d.TimedOut)
	}
}

func TestLimits(t *testing.T) {
	dir := repoTree(t)
	tests := []struct {
		name string
		c    Config
		want string
	}{
		{"timeout", Config{Timeout: time.Nanosecond}, "(the ast time limit): searched 0 files; results are partial; narrow path to search the rest]"},
		{"results", Config{MaxResults: 2}, "[stopped at 2 results (the limit): searched 3 files; results are partial; narrow path to search the rest]"},
		{"files", Config{MaxFiles: 1}, "[stopped after reading 1 file (the limit): searched 1 file; results are partial; narrow path to search the rest]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, New(tools.Config{CWD: dir}, tc.c), map[string]any{"action": "find", "query": "call:*"})
			if r.IsError || !strings.HasSuffix(r.Text(), tc.want) {
				t.Errorf("ast with %+v = %q, want it to end in %q", tc.c, r.Text(), tc.want)
			}
			var d Details
			json.Unmarshal(r.Details, &d)
			if !d.Partial || d.TimedOut != (tc.name == "timeout") {
				t.Errorf("Details partial %v timed out %v, want true, %v", d.Partial, d.TimedOut, tc.name == "timeout")
			}
		})
	}
}

func TestOutputCap(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package big\n")
	for i := range 3000 {
		fmt.Fprintf(&src, "func F%d() {}\n", i)
	}
	writeTree(t, dir, map[string]string{"big.go": src.String()})
	r := run(t, New(tools.Config{CWD: dir}, Config{}), map[string]any{"action": "outline", "path": "big.go"})
	lines := strings.Split(r.Text(), "\n")
	last := lines[len(lines)-1]
	if len(lines) > maxLines+1 || !strings.HasPrefix(last, "[output cut: showed") || !strings.HasSuffix(last, "narrow path or query to see the rest]") {
		t.Errorf("outline of 3000 functions: %d lines ending %q; want at most %d and a cut note", len(lines), last, maxLines+1)
	}
	var d Details
	json.Unmarshal(r.Details, &d)
	if !d.Cut || len(d.Symbols) != 3001 {
		t.Errorf("Details cut %v with %d symbols, want true and 3001", d.Cut, len(d.Symbols))
	}
}

func TestErrors(t *testing.T) {
	dir := repoTree(t)
	tool := New(tools.Config{CWD: dir}, Config{})
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{"no action", `{}`, "ast: action is required"},
		{"bad action", `{"action":"list"}`, `ast: unknown action "list"; use outline, find, definition or references`},
		{"unknown argument", `{"action":"outline","file":"x"}`, `ast: unknown argument "file" (allowed: action, path, query)`},
		{"query for outline", `{"action":"outline","query":"x"}`, `ast: outline takes no query; use action find to search for "x"`},
		{"no query", `{"action":"find"}`, "ast: find needs a query, for example func:Parse, call:fmt.Errorf or a name"},
		{"bad kind", `{"action":"find","query":"fn:x"}`, `ast: unknown query kind "fn"; use one of func, method, type, field, var, const, import, call followed by ":" and a name, for example call:fmt.Errorf or method:Server.Close`},
		{"definition of call", `{"action":"definition","query":"call:x"}`, "ast: definition looks for declarations; use action find for call:x"},
		{"references kind", `{"action":"references","query":"func:x"}`, "ast: references takes a plain name or Type.Name, not func:; use action find for kinds"},
		{"missing", `{"action":"outline","path":"mian.go"}`, "ast: mian.go: no such file or directory; did you mean main.go?"},
		{"unknown language", `{"action":"outline","path":"notes.md"}`, "ast: notes.md is not in a language ast knows; it reads Go (.go), Python (.py), JavaScript (.js, .mjs, .jsx), TypeScript (.ts, .tsx), Rust (.rs), C (.c, .h), C++ (.cc, .cpp, .hpp ...) and Java (.java); use grep or read for other files"},
		{"binary", `{"action":"outline","path":"bin/blob.c"}`, "ast: bin/blob.c: binary (holds NUL bytes)"},
		{"not an object", `[1]`, "ast: arguments must be a JSON object, got an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tool.Run(context.Background(), json.RawMessage(tc.raw), nil)
			if !r.IsError || r.Text() != tc.want {
				t.Errorf("ast %s = %q (error %v), want error %q", tc.raw, r.Text(), r.IsError, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := tool.Run(ctx, json.RawMessage(`{"action":"outline"}`), nil); !r.IsError || r.Text() != "ast: aborted before the search started" {
		t.Errorf("ast with a cancelled context = %q, want the abort error", r.Text())
	}
}

func TestSniffedScript(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"deploy": "#!/usr/bin/env python3\ndef main():\n    pass\n"})
	r := run(t, New(tools.Config{CWD: dir}, Config{}), map[string]any{"action": "outline", "path": "deploy"})
	if r.IsError || !strings.Contains(r.Text(), "2: def main()") {
		t.Errorf("outline of a python script without extension = %q, want def main() on line 2", r.Text())
	}
}

func TestPreviewAndDefinition(t *testing.T) {
	tool := New(tools.Config{CWD: t.TempDir()}, Config{})
	p, ok := tool.(tools.Previewer)
	if !ok {
		t.Fatal("ast tool has no Preview")
	}
	tests := []struct{ raw, want string }{
		{`{"action":"find","query":"call:fmt.Errorf","path":"agent"}`, "ast find call:fmt.Errorf in agent"},
		{`{"action":"outline"}`, "ast outline"},
		{`{"bad":1}`, "ast (bad arguments)"},
	}
	for _, tc := range tests {
		if got := p.Preview(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("Preview(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	if _, ok := tool.(tools.Mutator); ok {
		t.Error("ast implements Mutator; it only reads")
	}
	def := tool.Definition()
	var schema struct {
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(def.Schema, &schema); err != nil || def.Name != "ast" || len(schema.Properties) != 3 || schema.Required[0] != "action" {
		t.Errorf("Definition = %s %s (%v), want ast with action, path and query", def.Name, def.Schema, err)
	}
}
