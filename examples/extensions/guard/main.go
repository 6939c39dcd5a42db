// Command guard is an example zut extension that watches the agent's tool
// calls: it refuses bash commands that would destroy a system (rm -rf /, a
// fork bomb, mkfs, dd onto a device...), rewrites "git push --force" to
// "git push --force-with-lease", and keeps a status line with what it did.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

// guard counts what the extension saw and did.
type guard struct {
	e *ext.Extension

	mu        sync.Mutex
	calls     int // tool_call events seen
	blocked   int
	rewritten int
	last      string // the last refusal
}

func main() {
	g := &guard{e: ext.New("guard", "1.0.0")}
	g.e.InterceptToolCallX(g.intercept)
	g.e.On(ext.EventToolCall, func(ext.Event) {
		g.mu.Lock()
		g.calls++
		g.mu.Unlock()
	})
	g.e.On(ext.EventTurnEnd, func(ext.Event) { g.showStatus() })
	g.e.Command("guard", "show what guard refused and rewrote", func(string) ext.Response {
		return ext.Display(g.summary())
	})
	g.e.Run()
}

// intercept refuses dangerous bash commands and rewrites forced pushes,
// counting both for the status line.
func (g *guard) intercept(tool string, args json.RawMessage) ext.ToolCallDecision {
	if tool != "bash" {
		return ext.ToolCallDecision{}
	}
	d, why := decide(args)
	if !d.Block && d.ModifiedArgs == nil {
		return d
	}
	g.mu.Lock()
	if d.Block {
		g.blocked++
		g.last = why
	} else {
		g.rewritten++
	}
	g.mu.Unlock()
	g.showStatus()
	return d
}

// decide is the verdict on the arguments of one bash call, and why it
// refuses. A rewrite replaces the whole argument object, so every other
// member, including bash's required positive integer timeout, is kept as
// it was.
func decide(args json.RawMessage) (ext.ToolCallDecision, string) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(args, &members); err != nil {
		return ext.ToolCallDecision{}, ""
	}
	var command string
	if err := json.Unmarshal(members["command"], &command); err != nil {
		return ext.ToolCallDecision{}, ""
	}
	if why := danger(command); why != "" {
		reason := fmt.Sprintf("refused by guard: %s (%q). Do not retry it; ask the user to run it themselves if it is really wanted.", why, command)
		return ext.ToolCallDecision{Block: true, Reason: reason}, why
	}
	safer, changed := saferCommand(command)
	if !changed {
		return ext.ToolCallDecision{}, ""
	}
	members["command"], _ = json.Marshal(safer)
	out, err := json.Marshal(members)
	if err != nil {
		return ext.ToolCallDecision{}, ""
	}
	return ext.ToolCallDecision{ModifiedArgs: out}, ""
}

func (g *guard) showStatus() {
	g.mu.Lock()
	blocked, rewritten := g.blocked, g.rewritten
	g.mu.Unlock()
	if blocked+rewritten == 0 {
		return
	}
	level := ext.LevelInfo
	if blocked > 0 {
		level = ext.LevelWarn
	}
	g.e.SetStatus("guard", level, fmt.Sprintf("guard: %d refused, %d rewritten", blocked, rewritten))
}

func (g *guard) summary() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "guard: %d tool calls seen, %d refused, %d rewritten", g.calls, g.blocked, g.rewritten)
	if g.last != "" {
		fmt.Fprintf(&b, "\nlast refusal: %s", g.last)
	}
	b.WriteString("\nrefuses: " + strings.Join(refusals, "; "))
	b.WriteString("\nrewrites: git push --force -> git push --force-with-lease")
	return b.String()
}
