package interactive

import (
	"context"
	"strings"
	"time"
)

// mcpCommand runs /mcp: the servers' report, or /mcp reconnect [name]
// (every failed or stopped server without a name), which starts servers
// again and reports when they are up.
func (u *ui) mcpCommand(args string) {
	verb, name, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch verb {
	case "":
		u.chat.AddNotice("info", "", u.app.MCPReport())
	case "reconnect", "restart":
		name = strings.TrimSpace(name)
		what := "the MCP servers that failed or stopped"
		if name != "" {
			what = "MCP server " + name
		}
		u.chat.AddNotice("info", "", "starting "+what+" again…")
		u.goJob(func() {
			ctx, cancel := context.WithTimeout(u.ctx, 2*time.Minute)
			defer cancel()
			err := u.app.RestartMCP(ctx, name)
			u.inbox.post(func(u *ui) {
				if err != nil {
					u.chat.AddNotice("error", "", err.Error())
				} else {
					u.chat.AddNotice("info", "", u.app.MCPReport())
				}
				u.dirty = true
			})
		})
	default:
		u.chat.AddNotice("warn", "", "use /mcp to list the MCP servers, or /mcp reconnect [name] to start them again")
	}
}
