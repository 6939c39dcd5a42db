package ext_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

// A command, a tool, a registration that depends on the host, and a
// guardrail, served on stdin and stdout.
func Example() {
	e := ext.New("hello", "1.0.0")
	e.Command("hello", "say hi", func(args string) ext.Response {
		return ext.Prompt("Greet me in one short sentence.")
	})
	e.Tool("weather", "Current weather for a city.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		func(args json.RawMessage) ext.ToolResult {
			var in struct {
				City string `json:"city"`
			}
			if err := json.Unmarshal(args, &in); err != nil || in.City == "" {
				return ext.TextErrorResult(`pass {"city": "..."}`)
			}
			return ext.TextResult(in.City + ": sunny")
		})
	e.OnHello(func(h ext.HostInfo) {
		e.Command("cwd", "show the project directory", func(string) ext.Response {
			return ext.Display(h.CWD)
		})
	})
	e.InterceptToolCall(func(tool string, args json.RawMessage) (bool, string) {
		if tool == "bash" && strings.Contains(string(args), "rm -rf /") {
			return false, "refused: rm -rf /"
		}
		return true, ""
	})
	e.Run()
}

// An interactive tool waits for the user on a panel and gives up when the
// host cancels the call.
func ExampleExtension_InteractiveTool() {
	e := ext.New("ask", "1.0.0")
	answers := make(chan string, 1)
	e.OnPanelKey(func(k ext.PanelKey) {
		if k.PanelID == "question" && k.Key == "rune" {
			select {
			case answers <- k.Text:
			default:
			}
		}
	})
	e.InteractiveTool("ask_user", "Ask the user a yes/no question", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			e.OpenPanel(ext.Panel{ID: "question", Title: "Question", Lines: []string{string(args)}, Footer: "y / n"})
			defer e.ClosePanel("question")
			select {
			case a := <-answers:
				return ext.TextResult("the user answered " + a)
			case <-ctx.Done():
				return ext.TextErrorResult("question cancelled")
			}
		})
	e.Run()
}

// A tool keeps state per session branch in its result's details, and
// session events hand it back. Events and tool calls run on different
// goroutines, so the state has a lock.
func ExampleJSONDetails() {
	e := ext.New("counter", "1.0.0")
	var (
		mu    sync.Mutex
		count int
	)
	e.On(ext.EventSessionOpened, func(ev ext.Event) {
		var saved struct{ Count int }
		json.Unmarshal(ev.State, &saved) // no state: zero
		mu.Lock()
		count = saved.Count
		mu.Unlock()
	})
	e.Tool("count", "Count calls in this branch.", nil, func(json.RawMessage) ext.ToolResult {
		mu.Lock()
		count++
		r := ext.TextResult("counted")
		r.Details = ext.JSONDetails(struct{ Count int }{count})
		mu.Unlock()
		return r
	})
	e.Run()
}
