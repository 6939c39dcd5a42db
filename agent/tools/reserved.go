package tools

import "strings"

// Reserved lists the tool names that belong to built-in tools (C9),
// those of the tools beyond the built-in six (the web tools, plan,
// update_goal, schedule and the subagent tools) among them. An
// extension cannot register a tool under one of these names even when zut
// does not offer that tool; IsReserved also reserves every name beginning
// with "web_".
var Reserved = [...]string{
	"read",
	"write",
	"edit",
	"bash",
	"python",
	"worktree",
	"grep",
	"ast",
	"lsp",
	"web_search",
	"web_open",
	"web_find",
	"web_click",
	"schedule",
	"update_goal",
	"plan",
	"skill",
	"subagent_spawn",
	"subagent_status",
	"subagent_stop",
	"subagent_resume",
}

// IsReserved reports whether name is reserved for a built-in tool.
func IsReserved(name string) bool {
	if strings.HasPrefix(name, "web_") {
		return true
	}
	for _, r := range Reserved {
		if r == name {
			return true
		}
	}
	return false
}
