package tools

import "strings"

// Reserved lists the tool names the extension protocol reserves (spec:
// register_tool; C9): the native public-web names, grep, ast, python,
// schedule, update_goal and plan. An extension cannot register a tool
// under one of these names even when zut does not offer that tool;
// IsReserved also reserves every name beginning with "web_". The other
// built-in tools (read, bash, the subagent tools, ...) are not reserved:
// they shadow an extension's tool of the same name only while they are
// offered, so `--no-tools bash` lets an extension's bash through.
var Reserved = [...]string{
	"web_search",
	"web_open",
	"web_find",
	"web_click",
	"grep",
	"ast",
	"python",
	"schedule",
	"update_goal",
	"plan",
}

// IsReserved reports whether name is reserved by the protocol.
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
