// Command rpcext is a test extension for zut's RPC mode: each command
// sends the frames that RPC mode turns into one kind of event, so that the
// golden transcripts in testdata/rpc show every ext_* event.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zut-go/zut/ext"
)

func main() {
	e := ext.New("rpcext", "1.0.0")
	e.Use(ext.CapHostRequests, ext.CapUI2)
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
	// Additions beyond v2: dialogs, which RPC mode forwards as
	// ext_ui_request events, and transcript notes, headers, footers,
	// hidden chrome and status priorities.
	e.Command("ask", "ask the four kinds of dialog, then show the answers", func(args string) ext.Response {
		ctx := context.Background()
		sel, err := e.Select(ctx, ext.SelectRequest{Title: "Colour", Message: "Pick a colour", Options: []string{"red", "green", "blue"}, Default: "red"})
		if err != nil {
			return ext.ErrorResponse("select: " + err.Error())
		}
		yes, err := e.Confirm(ctx, ext.ConfirmRequest{Message: "Paint the shed?", Default: true})
		if err != nil {
			return ext.ErrorResponse("confirm: " + err.Error())
		}
		name, err := e.Input(ctx, ext.InputRequest{Message: "Name the shed", Placeholder: "shed", Default: "Shed"})
		if err != nil {
			return ext.ErrorResponse("input: " + err.Error())
		}
		ov, err := e.Overlay(ctx, ext.OverlayRequest{Title: "Plan", Text: "**paint** the shed", Markdown: true, Actions: []string{"go", "stop"}})
		if err != nil {
			return ext.ErrorResponse("overlay: " + err.Error())
		}
		return ext.Display(fmt.Sprintf("select=%s/%d/%v confirm=%v/%v input=%q/%v overlay=%s/%d/%v",
			sel.Value, sel.Index, sel.Cancelled, yes.Value, yes.Cancelled, name.Value, name.Cancelled, ov.Action, ov.Index, ov.Cancelled))
	})
	e.Command("quick", "ask a question that times out at once", func(args string) ext.Response {
		r, err := e.Confirm(context.Background(), ext.ConfirmRequest{Message: "Quick?", Default: true, Timeout: 50 * time.Millisecond})
		if err != nil {
			return ext.ErrorResponse("confirm: " + err.Error())
		}
		return ext.Display(fmt.Sprintf("confirm=%v/%v", r.Value, r.Cancelled))
	})
	e.Command("decorate", "print a note, set a header, a footer, a prioritised status, a side widget and hide chrome", func(args string) ext.Response {
		e.Print("info", "a plain note")
		e.PrintBlock(ext.Block{Text: "## Plan\n1. paint", Markdown: true, BorderColor: "#5f87ff", Subtitle: "plan"})
		e.SetHeader(ext.Bar{Text: "PLAN MODE", BorderColor: "yellow"})
		e.SetFooter(ext.Bar{Text: "*read-only*", Markdown: true})
		e.SetUIVisibility(ext.UIVisibility{HideStatusBar: true})
		e.SetStatusItem("mode", ext.LevelWarn, "plan", -1)
		e.SetStyledWidget(ext.Widget{ID: "steps", Position: ext.WidgetPositionRightBar, Title: "Steps",
			Lines: []string{"**1.** paint"}, Priority: 2, Markdown: true, BorderColor: "#5f87ff", NoBorder: true})
		e.ClearHeader()
		return ext.Noop()
	})
	e.Command("edit", "replace the client's input text", func(args string) ext.Response {
		if err := e.SetEditorText(context.Background(), "Refactor "+args); err != nil {
			return ext.ErrorResponse("edit: " + err.Error())
		}
		return ext.Noop()
	})
	e.Command("bye", "ask zut to quit", func(args string) ext.Response {
		if err := e.Exit(context.Background()); err != nil {
			return ext.ErrorResponse("bye: " + err.Error())
		}
		return ext.Noop()
	})
	e.AddTool(ext.ToolSpec{Name: "steps", Description: "Run two steps.", Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, tc ext.ToolContext, args json.RawMessage) ext.ToolResult {
			tc.Progress("step 1/2")
			tc.Progress("step 2/2")
			return ext.TextResult("both steps done")
		}})
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
