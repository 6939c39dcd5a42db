package lsp

import (
	"encoding/json"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

func TestToolArguments(t *testing.T) {
	m := NewManager(Config{CWD: t.TempDir()})
	tool := m.Tool()
	tests := []struct {
		args    string
		preview string
		mutates bool
		err     string // the Run error for bad arguments, "" when valid
	}{
		{`{"action":"status"}`, "lsp status", false, ""},
		{`{"action":"definition","path":"a.go","line":3,"column":7}`, "lsp definition a.go:3:7", false, ""},
		{`{"action":"hover","path":"a.go","query":"Foo"}`, `lsp hover a.go "Foo"`, false, ""},
		{`{"action":"symbols","query":"Greet"}`, `lsp symbols "Greet"`, false, ""},
		{`{"action":"rename","path":"a.go","line":1,"column":2,"new_name":"B"}`, "lsp rename a.go:1:2 → B", false, ""},
		{`{"action":"rename","path":"a.go","line":1,"column":2,"new_name":"B","apply":true}`, "lsp rename a.go:1:2 → B (apply)", true, ""},
		{`{"action":"rename","path":"a.go","line":1,"column":2,"new_name":"B","apply":false}`, "lsp rename a.go:1:2 → B", false, ""},
		{`{}`, "lsp (bad arguments)", false, "lsp: action is required"},
		{`{"action":"jump"}`, "lsp (bad arguments)", false, `lsp: action must be one of diagnostics, definition, references, hover, symbols, rename, status, got "jump"`},
		{`{"action":"status","colour":1}`, "lsp (bad arguments)", false, `lsp: unknown argument "colour" (allowed: action, path, line, column, query, new_name, apply)`},
		{`{"action":"definition","line":1,"column":1}`, "lsp (bad arguments)", false, "lsp: definition needs path, the file the identifier is in"},
		{`{"action":"definition","path":"a.go","line":1}`, "lsp (bad arguments)", false, "lsp: definition needs line and column of the identifier, or query naming it"},
		{`{"action":"definition","path":"a.go","column":1}`, "lsp (bad arguments)", false, "lsp: column needs line"},
		{`{"action":"definition","path":"a.go","line":0,"column":1}`, "lsp (bad arguments)", false, "lsp: line must be a positive integer (1-based line), got 0"},
		{`{"action":"definition","path":"a.go","line":1.5,"column":1}`, "lsp (bad arguments)", false, "lsp: line must be a positive integer (1-based line), got 1.5"},
		{`{"action":"symbols"}`, "lsp (bad arguments)", false, "lsp: symbols needs path (a file's outline) or query (a workspace search)"},
		{`{"action":"rename","path":"a.go","line":1,"column":1}`, "lsp (bad arguments)", false, "lsp: rename needs new_name"},
		{`{"action":"hover","path":"a.go","line":1,"column":1,"apply":true}`, "lsp (bad arguments)", false, "lsp: apply is only for rename"},
		{`[1]`, "lsp (bad arguments)", false, "lsp: arguments must be a JSON object, got an array"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			raw := json.RawMessage(tc.args)
			if got := tool.(tools.Previewer).Preview(raw); got != tc.preview {
				t.Errorf("Preview(%s) = %q, want %q", tc.args, got, tc.preview)
			}
			if got := tool.(tools.Mutator).Mutates(raw); got != tc.mutates {
				t.Errorf("Mutates(%s) = %v, want %v", tc.args, got, tc.mutates)
			}
			_, err := parseCall(raw)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("parseCall(%s) = %v, want no error", tc.args, err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("parseCall(%s) = %v, want %q", tc.args, err, tc.err)
			}
			if tc.err != "" {
				if r := tool.Run(t.Context(), raw, nil); !r.IsError || r.Text() != tc.err {
					t.Errorf("Run(%s) = %q, want the error %q", tc.args, r.Text(), tc.err)
				}
			}
		})
	}
	if len(m.servers) != 0 {
		t.Errorf("bad arguments started a server")
	}
}

func TestDefinitionSchema(t *testing.T) {
	def := NewManager(Config{}).Tool().Definition()
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional bool                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(def.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if def.Name != "lsp" || schema.Type != "object" || len(schema.Required) != 1 || schema.Additional {
		t.Fatalf("definition = %s %s", def.Name, def.Schema)
	}
	for _, a := range argNames {
		if _, ok := schema.Properties[a]; !ok {
			t.Errorf("schema has no property %q", a)
		}
	}
	if len(schema.Properties) != len(argNames) {
		t.Errorf("schema has %d properties, the tool takes %d", len(schema.Properties), len(argNames))
	}
}
