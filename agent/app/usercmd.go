package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/host"
)

// The user's own shell commands (!cmd in the interactive UI) go through
// the extensions like the model's bash calls: a tool_call event and
// interception with source "user", so that a guard can block or rewrite
// them, and a tool_result event once they ran.

// UserCommandBlocked is a user command an extension refused.
type UserCommandBlocked struct {
	By, Reason string
}

func (e *UserCommandBlocked) Error() string {
	if e.By == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s (blocked by extension %q)", e.Reason, e.By)
}

// CheckUserCommand tells the extensions about the shell command the user
// asked for, as bash call id, and returns the command to run: as typed,
// or as an extension rewrote it. A *UserCommandBlocked means an extension
// refused it.
func (a *App) CheckUserCommand(ctx context.Context, id, cmdline string) (string, error) {
	args, _ := json.Marshal(map[string]string{"command": cmdline})
	if a.host == nil {
		return cmdline, nil
	}
	a.bridge.Notify(agent.LifecycleEvent{Name: "tool_call", ToolID: id, ToolName: "bash", ToolArgs: args, Source: host.SourceUser})
	if !a.host.Intercepts("tool_call") {
		return cmdline, nil
	}
	d := a.host.InterceptToolCallFrom(ctx, host.SourceUser, id, "bash", args)
	if d.Block {
		return "", &UserCommandBlocked{By: d.By, Reason: d.Reason}
	}
	var rewritten struct {
		Command string `json:"command"`
	}
	if len(d.Args) > 0 && json.Unmarshal(d.Args, &rewritten) == nil && rewritten.Command != "" {
		return rewritten.Command, nil
	}
	return cmdline, nil
}

// UserCommandDone tells the extensions what the user's command printed
// (the events2 tool_result event).
func (a *App) UserCommandDone(id, cmdline, output string, failed bool) {
	if a.host == nil {
		return
	}
	args, _ := json.Marshal(map[string]string{"command": cmdline})
	a.bridge.Notify(agent.LifecycleEvent{Name: "tool_result", ToolID: id, ToolName: "bash", ToolArgs: args, Content: output, IsError: failed, Source: host.SourceUser})
}
