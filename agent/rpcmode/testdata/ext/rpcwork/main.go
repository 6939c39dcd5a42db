// Command rpcwork is a test extension for zut's RPC mode: an interactive
// tool (which scheduled turns and subagents never offer) and a
// subscription to the subagent events, echoed as notes.
package main

import (
	"context"
	"encoding/json"

	"github.com/zut-go/zut/ext"
)

func main() {
	e := ext.New("rpcwork", "1.0.0")
	e.InteractiveTool("pick_color", "Ask the user to pick a colour.", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) ext.ToolResult { return ext.TextResult("red") })
	for _, name := range []string{ext.EventSubagentStart, ext.EventSubagentEnd} {
		e.On(name, func(ev ext.Event) {
			var d struct{ ID, Status string }
			json.Unmarshal(ev.Data, &d)
			e.Notify(ext.LevelInfo, "saw "+ev.Name+" "+d.ID+" "+d.Status)
		})
	}
	e.On(ext.EventTurnStart, func(ext.Event) {})
	e.Run()
}
