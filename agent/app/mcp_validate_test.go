package app

import (
	"encoding/json"
	"testing"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/host/mcp"
)

// TestMCPToolValidate: an MCP tool's call is checked against the server's
// input schema before anyone is asked about it.
func TestMCPToolValidate(t *testing.T) {
	var tl tools.Tool = &mcpTool{t: mcp.Tool{Name: "mcp__gh__create_issue", Server: "gh", Tool: "create_issue",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["title"]}`)}}
	v, ok := tl.(tools.Validator)
	if !ok {
		t.Fatal("mcpTool is no tools.Validator")
	}
	tests := []struct{ args, want string }{
		{`{"title":"bug"}`, ""},
		{`{"title":"bug","labels":["a","b"]}`, ""},
		{`{"labels":["a"]}`, "mcp__gh__create_issue: title is required"},
		{`{"title":"bug","labels":"a"}`, "mcp__gh__create_issue: labels must be an array, got a string"},
	}
	for _, tc := range tests {
		got := ""
		if err := v.Validate(json.RawMessage(tc.args)); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Validate(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
