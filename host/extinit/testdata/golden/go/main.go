// Command demo is a zut extension on the Go SDK,
// github.com/zut-go/zut/ext. Build it with `go build -o demo .`, run
// it with `zut --ext .` in this directory, and test it with `go test`.
package main

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

func main() { newExtension().Run() }

// newExtension returns the extension with everything registered; the
// test drives it without a process.
func newExtension() *ext.Extension {
	e := ext.New("demo", "0.1.0")
	e.Command("demo", "say hello from demo (/demo some text)", func(args string) ext.Response {
		if args == "" {
			return ext.Display("demo: hello! Try /demo some text")
		}
		return ext.Display("demo: " + args)
	})
	e.Tool("demo", "Return the text in capital letters.", json.RawMessage(toolSchema), shout)
	p := &picker{e: e}
	e.Command("demo-panel", "pick an item in a panel", p.open)
	e.OnPanelKey(p.key)
	return e
}

const toolSchema = `{"type":"object","properties":{"text":{"type":"string","description":"the text to shout"}},"required":["text"]}`

func shout(raw json.RawMessage) ext.ToolResult {
	var args struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &args); err != nil || args.Text == nil {
		return ext.TextErrorResult(`demo: text must be a string, for example {"text": "hi"}`)
	}
	return ext.TextResult(strings.ToUpper(*args.Text))
}

const panelID = "demo-panel"

var items = []string{"first item", "second item", "third item"}

// picker is the panel: the command opens it, keys move its cursor.
type picker struct {
	e      *ext.Extension
	mu     sync.Mutex
	cursor int
}

func (p *picker) panelLocked() ext.Panel {
	lines := make([]string, len(items))
	for i, item := range items {
		lines[i] = "  " + item
		if i == p.cursor {
			lines[i] = "› " + item
		}
	}
	return ext.Panel{ID: panelID, Title: "demo", Lines: lines, Footer: "↑/↓ move · enter pick · esc close"}
}

func (p *picker) open(args string) ext.Response {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cursor = 0
	return ext.OpenPanelResponse(p.panelLocked())
}

func (p *picker) key(k ext.PanelKey) {
	if k.PanelID != panelID {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch k.Key {
	case "up", "down":
		step := len(items) - 1
		if k.Key == "down" {
			step = 1
		}
		p.cursor = (p.cursor + step) % len(items)
		p.e.RenderPanel(p.panelLocked())
	case "enter":
		p.e.ClosePanel(panelID)
		p.e.Notify(ext.LevelInfo, "picked "+items[p.cursor])
	}
}
