package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Output bounds of one lsp call.
const (
	maxOutputLines = 400
	maxOutputBytes = 32 << 10
)

// actions are the values of the action argument.
var actions = []string{"diagnostics", "definition", "references", "hover", "symbols", "rename", "status"}

// argNames are the arguments the tool takes.
var argNames = []string{"action", "path", "line", "column", "query", "new_name", "apply"}

// lspTool is the lsp tool of a Manager.
type lspTool struct{ m *Manager }

// Tool returns the lsp tool, which runs its calls on m's servers. It
// implements tools.Previewer and tools.Mutator.
func (m *Manager) Tool() tools.Tool { return &lspTool{m: m} }

func (t *lspTool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the lsp tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "lsp"
	ToolDescription = "Ask the language server of a file's language (gopls, rust-analyzer, pyright, typescript-language-server, clangd, or one configured) about code. Actions: diagnostics (errors and warnings of path, or of every file checked so far), definition, references, hover (type and docs), symbols (outline of path; or search the workspace with query), rename (to new_name: returns the edits; applies them with apply: true), status (which servers are known and running). Positions are 1-based, columns counted in characters; instead of column you may give query, the identifier on that line (or, without line, its first occurrence in the file)."
	ToolSchema      = `{"additionalProperties":false,"properties":{"action":{"description":"What to ask.","enum":["diagnostics","definition","references","hover","symbols","rename","status"],"type":"string"},"apply":{"description":"rename: write the edits to the files (default false: only show them).","type":"boolean"},"column":{"description":"1-based column of the identifier, in characters.","minimum":1,"type":"integer"},"line":{"description":"1-based line of the identifier.","minimum":1,"type":"integer"},"new_name":{"description":"rename: the new name.","type":"string"},"path":{"description":"Source file (relative to the working directory, absolute, or starting with ~/). Required except for status, workspace symbols and all diagnostics.","type":"string"},"query":{"description":"symbols: text to search the workspace for. Other actions: the identifier to point at, instead of column.","type":"string"}},"required":["action"],"type":"object"}`
)

// call is one validated lsp call.
type call struct {
	action, path, query, newName string
	line, column                 int
	apply                        bool
}

func parseCall(raw json.RawMessage) (call, error) {
	a, err := tools.ParseArgs("lsp", raw, argNames...)
	if err != nil {
		return call{}, err
	}
	var c call
	if c.action, err = a.String("action", true); err != nil {
		return call{}, err
	}
	if !slices.Contains(actions, c.action) {
		return call{}, a.Errorf("action must be one of %s, got %q", strings.Join(actions, ", "), c.action)
	}
	if c.path, err = a.String("path", false); err != nil {
		return call{}, err
	}
	if c.query, err = a.String("query", false); err != nil {
		return call{}, err
	}
	if c.newName, err = a.String("new_name", false); err != nil {
		return call{}, err
	}
	if c.line, err = a.Int("line", 0, 1, 1<<30, "a positive integer (1-based line)"); err != nil {
		return call{}, err
	}
	if c.column, err = a.Int("column", 0, 1, 1<<30, "a positive integer (1-based column, in characters)"); err != nil {
		return call{}, err
	}
	if c.apply, err = a.Bool("apply"); err != nil {
		return call{}, err
	}
	switch c.action {
	case "definition", "references", "hover", "rename":
		if c.path == "" {
			return call{}, a.Errorf("%s needs path, the file the identifier is in", c.action)
		}
		if c.column == 0 && c.query == "" {
			return call{}, a.Errorf("%s needs line and column of the identifier, or query naming it", c.action)
		}
		if c.column != 0 && c.line == 0 {
			return call{}, a.Errorf("column needs line")
		}
	case "symbols":
		if c.path == "" && c.query == "" {
			return call{}, a.Errorf("symbols needs path (a file's outline) or query (a workspace search)")
		}
	}
	if c.action == "rename" && strings.TrimSpace(c.newName) == "" {
		return call{}, a.Errorf("rename needs new_name")
	}
	if c.apply && c.action != "rename" {
		return call{}, a.Errorf("apply is only for rename")
	}
	return c, nil
}

func (t *lspTool) Preview(raw json.RawMessage) string {
	c, err := parseCall(raw)
	if err != nil {
		return "lsp (bad arguments)"
	}
	var b strings.Builder
	b.WriteString("lsp " + c.action)
	if c.path != "" {
		b.WriteString(" " + c.path)
		if c.line > 0 {
			fmt.Fprintf(&b, ":%d", c.line)
			if c.column > 0 {
				fmt.Fprintf(&b, ":%d", c.column)
			}
		}
	}
	if c.query != "" {
		fmt.Fprintf(&b, " %q", tools.Clip(c.query, 40))
	}
	if c.action == "rename" {
		fmt.Fprintf(&b, " → %s", tools.Clip(c.newName, 40))
		if c.apply {
			b.WriteString(" (apply)")
		}
	}
	return b.String()
}

// Mutates is true only for a rename with apply: true.
func (t *lspTool) Mutates(raw json.RawMessage) bool {
	c, err := parseCall(raw)
	return err == nil && c.action == "rename" && c.apply
}

func (t *lspTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	c, err := parseCall(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if progress == nil {
		progress = func(string) {}
	}
	if ctx.Err() != nil {
		return tools.ErrorResult("lsp: aborted before %s", c.action)
	}
	var out string
	det := Details{Action: c.action}
	switch c.action {
	case "status":
		out, det = t.status()
	case "diagnostics":
		out, err = t.diagnostics(ctx, c, &det, progress)
	case "definition", "references":
		out, err = t.locations(ctx, c, &det, progress)
	case "hover":
		out, err = t.hover(ctx, c, &det, progress)
	case "symbols":
		out, err = t.symbols(ctx, c, &det, progress)
	case "rename":
		out, err = t.rename(ctx, c, &det, progress)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.ErrorResult("lsp %s: aborted", c.action)
		}
		return tools.ErrorResult("lsp %s: %v", c.action, err).WithDetails(det)
	}
	hint := "narrow the call (a path, a more specific query)"
	out, _ = tools.CapText(strings.TrimRight(out, "\n"), maxOutputLines, maxOutputBytes, hint)
	return tools.TextResult(out).WithDetails(det)
}
