package interactive

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

// TestUIMCP: a server of --mcp-config starts in the background; /mcp
// shows it, its tool is confirmed like bash (the dialog names the server
// and the tool) and its result shows; its prompt is a slash command.
func TestUIMCP(t *testing.T) {
	needPython(t, "the MCP server is a Python script")
	server, err := filepath.Abs("../../testdata/mcp/notes_server.py")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "servers.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"command": "python3", "args": []string{server}}}})
	os.WriteFile(cfg, data, 0o644)
	h := startUI(t, uiOptions{base: base, width: 100, height: 30, args: []string{"--mcp-config", cfg}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "m1", Name: "mcp__notes__add", Args: `{"text":"water the plants"}`}}},
		{Text: "Added it."},
		{Text: "Brief written."},
	}})
	h.idle()
	// The server starts in the background: ask until it is ready.
	h.waitFor("the server to be ready", func(s string) bool {
		if strings.Contains(s, "notes  ready  stdio, flag  1 tool, 1 prompt, 1 resource") {
			return true
		}
		h.enter("/mcp")
		h.idle()
		return false
	})
	h.enter("add a note")
	h.waitText("Allow mcp__notes__add?")
	h.waitText(`notes add {"text":"water the plants"}`)
	h.send("y")
	h.waitText("Added it.")
	h.waitText("added: water the plants (2 notes)")
	// The call's label names the server and the tool once.
	if s := h.screen(true); !strings.Contains(s, `✓ notes add {"text":"water the plants"}`) || strings.Contains(s, "mcp__notes__add notes add") {
		t.Errorf("the call's label is not \"notes add …\" once:\n%s", s)
	}

	h.enter("/mcp__notes__brief topic=plants")
	h.waitText("Brief written.")
	// /mcp reconnect starts it again and reports it once it is up.
	ready := "notes  ready  stdio, flag  1 tool, 1 prompt, 1 resource"
	before := strings.Count(h.screen(true), ready)
	h.enter("/mcp reconnect notes")
	h.waitText("starting MCP server notes again…")
	h.waitFor("the report after the restart", func(s string) bool { return strings.Count(s, ready) > before })

	if got := h.srv.Requests(); len(got) != 3 || !strings.Contains(string(got[2].Raw), "Write a brief about plants, in 3 lines.") {
		t.Errorf("the prompt's text did not reach the model; requests: %d", len(got))
	}
}

// TestUIMCPElicit: a server's elicitation during a call is asked in the
// UI's dialogs: whether to answer, then each field (a default is taken
// by Enter, a value out of bounds is asked again); the server gets the
// answer and the call's result shows it.
func TestUIMCPElicit(t *testing.T) {
	needPython(t, "the MCP server is a Python script")
	server, err := filepath.Abs("../../testdata/mcp/odd_server.py")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "servers.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"ask": map[string]any{"command": "python3", "args": []string{server, "elicit"}}}})
	os.WriteFile(cfg, data, 0o644)
	h := startUI(t, uiOptions{base: base, width: 100, height: 30, args: []string{"--yolo", "--mcp-config", cfg}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "a1", Name: "mcp__ask__ask", Args: `{}`}}},
		{Text: "Asked."},
	}})
	h.idle()
	h.waitFor("the server to be ready", func(s string) bool {
		if strings.Contains(s, "ask  ready  stdio, flag  1 tool") {
			return true
		}
		h.enter("/mcp")
		h.idle()
		return false
	})
	h.enter("ask me")
	h.waitText(`╭─ MCP server "ask" asks`)
	h.waitText("It asks for: name, size (required)")
	h.send("\r") // Answer
	h.waitText("╭─ name ─")
	h.send("\r") // the default, Ada
	h.waitText("╭─ size (required) ─")
	h.send("12\r")
	h.waitText("size must be within 1 to 9")
	h.send("4\r")
	h.waitText("Asked.")
	h.waitText(`answer: {"action": "accept", "content": {"name": "Ada", "size": 4}}`)
}
