// Command rpcext is a test extension for zut's RPC mode: each command
// sends the frames that RPC mode turns into one kind of event, so that the
// golden transcripts in testdata/rpc show every ext_* event.
package main

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/zut-go/zut/ext"
)

func main() {
	e := ext.New("rpcext", "1.0.0")
	e.Command("chrome", "send notify, status, widget and alert frames", func(args string) ext.Response {
		e.Notify(ext.LevelWarn, "disk almost full")
		e.SetStatus("sync", ext.LevelSuccess, "synced 3 files")
		e.SetWidget("queue", ext.WidgetPositionAboveInput, "Queue", []string{"a.go", "b.go"})
		e.Alert(ext.AlertRequest{Kind: ext.AlertKindBell, Reason: "question_ready"})
		return ext.Display("chrome sent")
	})
	e.Command("unchrome", "clear what chrome showed", func(args string) ext.Response {
		e.ClearStatus("sync")
		e.ClearWidget("queue")
		e.ClearNotes()
		return ext.Noop()
	})
	e.Command("insert", "put text in the client's input box", func(args string) ext.Response {
		return ext.Insert("@" + args)
	})
	e.Command("fail", "answer with an error", func(args string) ext.Response {
		return ext.ErrorResponse("fail: nothing to do for " + strings.TrimSpace(args))
	})
	e.Command("submit", "send a submit frame (ignored in RPC mode)", func(args string) ext.Response {
		e.Submit("prompt from an extension")
		return ext.Noop()
	})
	e.Command("crash", "exit at once", func(args string) ext.Response {
		os.Exit(3)
		return ext.Noop()
	})
	e.Command("panel", "open a panel that counts keys", func(args string) ext.Response {
		return ext.OpenPanelResponse(panel(nil))
	})
	var keys []string
	e.OnPanelKey(func(k ext.PanelKey) {
		keys = append(keys, k.Key+":"+k.Text)
		if k.Key == "enter" {
			e.ClosePanel(k.PanelID)
			return
		}
		e.RenderPanel(panel(keys))
	})
	e.OnPanelClose(func(id string) {
		e.Notify(ext.LevelInfo, "panel "+id+" closed by the client")
	})
	e.Tool("shout", "Upper-case a text.", json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		func(args json.RawMessage) ext.ToolResult {
			var in struct{ Text string }
			if err := json.Unmarshal(args, &in); err != nil {
				return ext.TextErrorResult(err.Error())
			}
			return ext.TextResult(strings.ToUpper(in.Text))
		})
	e.Run()
}

func panel(keys []string) ext.Panel {
	lines := []string{"keys: " + strings.Join(keys, " ")}
	return ext.Panel{ID: "keys", Title: "Keys", Lines: lines, Footer: "enter closes"}
}
