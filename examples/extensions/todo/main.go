// Command todo is an example zut extension that keeps a todo list: an
// interactive panel (/todo), a tool the model uses to edit the list, the
// list as session state in tool result details (so each session branch
// restores its own list), and a todos.json file in the extension's data
// directory.
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zut-go/zut/ext"
)

const panelID = "todo-main"

const schema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["add", "done", "undo", "remove", "list"]},
    "text": {"type": "string", "description": "the item, for add"},
    "index": {"type": "integer", "minimum": 1, "description": "1-based item number, for done, undo and remove"}
  },
  "required": ["action"]
}`

func main() {
	t := &todo{e: ext.New("todo", "1.0.0")}
	e := t.e
	e.OnHello(func(h ext.HostInfo) { t.load(h.DataDir) })
	for _, ev := range []string{ext.EventSessionOpened, ext.EventSessionSwitched, ext.EventSessionForked, ext.EventSessionCompacted} {
		e.On(ev, t.restore)
	}
	e.Tool("todo", "Read or edit the user's todo list. Actions: add (text), done/undo/remove (index, 1-based), list.",
		json.RawMessage(schema), t.tool)
	e.Command("todo", "open the todo panel, or: /todo add TEXT, /todo done N, /todo clear", t.command)
	e.OnPanelKey(t.key)
	e.OnPanelClose(func(id string) {
		if id == panelID {
			t.mu.Lock()
			t.open = false
			t.mu.Unlock()
		}
	})
	e.Run()
}

// tool is the model's access to the list. Every result carries the whole
// list in Details: the host saves it as this extension's state on the
// active branch.
func (t *todo) tool(args json.RawMessage) ext.ToolResult {
	var in struct {
		Action string `json:"action"`
		Text   string `json:"text"`
		Index  int    `json:"index"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return ext.TextErrorResult(`todo: the arguments must be an object like {"action":"add","text":"write tests"}: ` + err.Error())
	}
	var err error
	switch in.Action {
	case "add":
		err = t.add(in.Text)
	case "done", "undo":
		err = t.setDone(in.Index, in.Action == "done")
	case "remove":
		err = t.remove(in.Index)
	case "list":
	default:
		err = fmt.Errorf("todo: unknown action %q; use add, done, undo, remove or list", in.Action)
	}
	if err != nil {
		return ext.TextErrorResult(err.Error())
	}
	r := ext.TextResult(t.text())
	r.Details = ext.JSONDetails(t.snapshot())
	return r
}

// command handles /todo.
func (t *todo) command(args string) ext.Response {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "":
		t.mu.Lock()
		t.open = true
		p := t.panelLocked()
		t.mu.Unlock()
		return ext.OpenPanelResponse(p)
	case "add":
		if err := t.add(rest); err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Display("added: " + rest)
	case "done":
		n, err := strconv.Atoi(rest)
		if err == nil {
			err = t.setDone(n, true)
		} else {
			err = fmt.Errorf("todo: /todo done needs an item number, got %q", rest)
		}
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Display(t.text())
	case "clear":
		n := t.clearDone()
		return ext.Display(fmt.Sprintf("removed %d finished items", n))
	}
	return ext.ErrorResponse(fmt.Sprintf("todo: unknown /todo %s; use /todo, /todo add TEXT, /todo done N or /todo clear", verb))
}

// restore takes the list saved on the session branch, when there is one.
func (t *todo) restore(ev ext.Event) {
	if len(ev.State) == 0 {
		return
	}
	var s state
	if err := json.Unmarshal(ev.State, &s); err != nil {
		t.e.Logf("ignored unreadable session state: %v", err)
		return
	}
	t.mu.Lock()
	t.items = s.Items
	t.cursor = 0
	t.mu.Unlock()
	t.changed()
}

// key moves the cursor and edits the list from the panel.
func (t *todo) key(k ext.PanelKey) {
	if k.PanelID != panelID {
		return
	}
	t.mu.Lock()
	n := len(t.items)
	edited := false
	switch {
	case k.Key == "up" && t.cursor > 0:
		t.cursor--
	case k.Key == "down" && t.cursor < n-1:
		t.cursor++
	case (k.Key == "enter" || k.Key == "rune" && (k.Text == "x" || k.Text == " ")) && n > 0:
		t.items[t.cursor].Done = !t.items[t.cursor].Done
		edited = true
	case (k.Key == "delete" || k.Key == "rune" && k.Text == "d") && n > 0:
		t.items = append(t.items[:t.cursor], t.items[t.cursor+1:]...)
		t.cursor = min(t.cursor, len(t.items)-1)
		edited = true
	}
	t.cursor = max(t.cursor, 0)
	t.mu.Unlock()
	if edited {
		t.changed()
	} else {
		t.render()
	}
}

// changed saves the list and redraws the panel.
func (t *todo) changed() {
	if err := t.save(); err != nil {
		t.e.Notify(ext.LevelError, err.Error())
	}
	t.render()
}

func (t *todo) render() {
	t.mu.Lock()
	open, p := t.open, t.panelLocked()
	t.mu.Unlock()
	if open {
		t.e.RenderPanel(p)
	}
}

// panelLocked is the panel's content. t.mu held.
func (t *todo) panelLocked() ext.Panel {
	lines := []string{}
	for i, it := range t.items {
		mark, box := "  ", "□"
		if i == t.cursor {
			mark = "› "
		}
		if it.Done {
			box = "✓"
		}
		lines = append(lines, mark+box+" "+it.Text)
	}
	if len(lines) == 0 {
		lines = append(lines, "(empty: /todo add TEXT, or ask the model)")
	}
	return ext.Panel{ID: panelID, Title: "Todos", Lines: lines, Footer: "↑/↓ move · x toggle · d delete · esc close"}
}
