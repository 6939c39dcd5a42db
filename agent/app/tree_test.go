package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// TestTreeRows lays out a session with a !cmd context block, a tool call
// and its result, a title and a fork: the rows show the user's words, no
// markdown or JSON, the title is no row, the branches hang under the
// entry they fork from, and the current one is marked.
func TestTreeRows(t *testing.T) {
	n := 0
	s := session.NewMemory("/proj", session.WithIDs(func() string { n++; return fmt.Sprintf("e%d", n) }))
	add := func(role provider.Role, blocks ...provider.Block) string {
		t.Helper()
		if err := s.AppendMessage(provider.Message{Role: role, Content: blocks}, session.Meta{}); err != nil {
			t.Fatal(err)
		}
		return s.Leaf()
	}
	args, _ := json.Marshal(map[string]any{"command": "go test ./...", "timeout": 60})
	add(provider.RoleUser, provider.ContextBlock("$ ls\nmain.go"), provider.TextBlock("why does the **test** fail?"))
	s.SetTitle("why does the test fail")
	add(provider.RoleAssistant, provider.TextBlock("## Let me run it"), provider.Block{Type: provider.BlockToolUse, ID: "c1", Name: "bash", Input: args})
	add(provider.RoleUser, provider.Block{Type: provider.BlockToolResult, ToolUseID: "c1", Content: []provider.Block{provider.TextBlock("FAIL")}})
	fork := add(provider.RoleAssistant, provider.TextBlock("The fixture lost a line."))
	add(provider.RoleUser, provider.TextBlock("fix it"))
	add(provider.RoleAssistant, provider.TextBlock("Fixed."))
	if err := s.Fork(fork); err != nil {
		t.Fatal(err)
	}
	add(provider.RoleUser, provider.TextBlock("explain instead"))

	var got []string
	for _, r := range TreeRows(s) {
		mark := " "
		switch {
		case r.Current:
			mark = "●"
		case r.OnBranch:
			mark = "•"
		}
		got = append(got, fmt.Sprintf("%s %-3s %s%s", mark, r.ID, r.Graph, r.Label))
	}
	want := []string{
		"• e2  › why does the **test** fail?",
		"• e4  Let me run it → bash go test ./...",
		"• e6  The fixture lost a line.",
		"  e7  ├─ › fix it",
		"  e8  │  Fixed.",
		"● e10 └─ › explain instead",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("TreeRows =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
