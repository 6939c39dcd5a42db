package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// demo is an extension that uses every part of the SDK, for the scripted
// host scenarios.
type demo struct {
	*Extension
	answers     chan string   // answers to the ask tool, from panel keys
	askReturned chan string   // what each ask call returned with
	released    chan struct{} // closed by a test to let "slow" return
}

func newDemo() *demo {
	d := &demo{
		Extension:   New("demo", "1.2.3"),
		answers:     make(chan string, 1),
		askReturned: make(chan string, 4),
		released:    make(chan struct{}),
	}
	e := d.Extension
	e.Notify(LevelInfo, "starting") // before Run: sent after ready

	e.Command("prompt", "submit a prompt", func(args string) Response { return Prompt("say hi to " + args) })
	e.Command("insert", "insert text", func(args string) Response { return Insert("inserted: " + args) })
	e.Command("display", "show a note", func(args string) Response { return Display("shown: " + args) })
	e.Command("panel", "open a panel", func(string) Response {
		return OpenPanelResponse(Panel{ID: "p1", Title: "Demo", Lines: []string{"□ one", "✓ two"}, Footer: "esc close"})
	})
	e.Command("noop", "do nothing", func(string) Response { return Noop() })
	e.Command("fail", "fail", func(string) Response { return ErrorResponse("fail: nothing to do; try /prompt") })
	e.Command("zero", "zero response", func(string) Response { return Response{} })
	e.Command("boom", "panic", func(string) Response { panic("kaboom") })
	e.Command("MixedCase", "registered with capitals", func(args string) Response { return Display("case " + args) })
	e.Command("chrome", "send every one-way frame", func(string) Response {
		e.Notify(LevelWarn, "careful")
		e.ClearNotes()
		e.Alert(AlertRequest{Kind: AlertKindBell, Reason: "question_ready"})
		e.SetStatus("progress", LevelSuccess, "2/4 tasks checked")
		e.ClearStatus("progress")
		e.SetWidget("plan", WidgetPositionAboveInput, "Plan", []string{"Indexing files", "12/20 complete"})
		e.ClearWidget("plan")
		e.Submit("Summarize the workspace.")
		e.SubmitSlash("/prompt again")
		e.OpenPanel(Panel{ID: "p2", Title: "Side", Lines: []string{"a"}})
		e.RenderPanel(Panel{ID: "p2", Title: "Side", Lines: []string{"b"}, Footer: "done"})
		e.ClosePanel("p2")
		return Noop()
	})
	e.Command("late", "register more after ready", func(string) Response {
		e.Tool("late_tool", "registered after ready", nil, func(json.RawMessage) ToolResult { return TextResult("late and callable") })
		e.On(EventTurnEnd, d.describe)
		return Noop()
	})

	e.Tool("echo", "echo the arguments", json.RawMessage(`{"type":"object"}`), func(args json.RawMessage) ToolResult {
		return TextResult(string(args))
	})
	e.Tool("fails", "always fails", nil, func(json.RawMessage) ToolResult {
		return TextErrorResult("no such city; pass a city name")
	})
	e.Tool("image", "an image", nil, func(json.RawMessage) ToolResult {
		return ImageResult("image/png", []byte("\x89PNG"))
	})
	e.Tool("state", "state and activation", nil, func(json.RawMessage) ToolResult {
		r := TextResult("saved")
		r.Details = JSONDetails(map[string]int{"count": 1})
		r.ActivateTools = []string{"hidden"}
		return r
	})
	e.Tool("bad_details", "invalid details", nil, func(json.RawMessage) ToolResult {
		r := TextResult("details dropped")
		r.Details = json.RawMessage(`{"open":`)
		return r
	})
	e.Tool("panics", "panics", nil, func(json.RawMessage) ToolResult { panic("tool kaboom") })
	e.Tool("slow", "waits for the test", nil, func(json.RawMessage) ToolResult {
		<-d.released
		return TextResult("slow done")
	})
	e.DeferredTool("hidden", "deferred", json.RawMessage(`{"type":"object"}`), func(json.RawMessage) ToolResult {
		return TextResult("found me")
	})
	e.InteractiveTool("ask", "ask the user", json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		func(ctx context.Context, args json.RawMessage) ToolResult {
			var in struct{ Q string }
			json.Unmarshal(args, &in)
			e.OpenPanel(Panel{ID: "ask", Title: "Question", Lines: []string{in.Q}, Footer: "enter answer - esc cancel"})
			select {
			case a := <-d.answers:
				e.ClosePanel("ask")
				d.returned("answered")
				return TextResult("answer: " + a)
			case <-ctx.Done():
				e.ClosePanel("ask")
				d.returned("cancelled")
				return TextErrorResult("question cancelled")
			}
		})

	e.OnPanelKey(func(k PanelKey) {
		if k.PanelID == "ask" && k.Key == "enter" {
			select {
			case d.answers <- "yes":
			default: // nobody asks
			}
			return
		}
		if k.Key == "rune" && k.Text == "!" {
			panic("panel kaboom")
		}
		e.RenderPanel(Panel{ID: k.PanelID, Title: "Demo", Lines: []string{"key " + k.Key + " " + k.Text}})
	})
	e.OnPanelClose(func(id string) { e.Notify(LevelInfo, "closed "+id) })

	for _, ev := range []string{EventSessionOpened, EventTurnStart, EventToolCall, EventToolConfirmationRequested} {
		e.On(ev, d.describe)
	}

	e.InterceptToolCall(func(tool string, args json.RawMessage) (bool, string) {
		if tool == "bash" && strings.Contains(string(args), "rm -rf /") {
			return false, `refused: matches danger pattern "rm -rf /"`
		}
		return true, ""
	})
	e.InterceptToolCallX(func(tool string, args json.RawMessage) ToolCallDecision {
		switch tool {
		case "bash":
			var in map[string]any
			json.Unmarshal(args, &in)
			in["command"] = fmt.Sprint("echo GUARDED: ", in["command"])
			b, _ := json.Marshal(in)
			return ToolCallDecision{ModifiedArgs: b}
		case "badrewrite":
			return ToolCallDecision{ModifiedArgs: json.RawMessage(`[1]`)}
		case "boom":
			panic("interceptor kaboom")
		}
		return ToolCallDecision{}
	})
	e.InterceptTurnStart(func(step int) TurnStartDecision {
		if step == 99 {
			return TurnStartDecision{Block: true, Reason: "outside business hours"}
		}
		return TurnStartDecision{Context: fmt.Sprintf("  Current phase: parse\nstep %d  ", step)}
	})
	e.InterceptTurnStart(func(step int) TurnStartDecision { return TurnStartDecision{Context: "second"} })
	e.InterceptAssistantMessage(func(text string) AssistantMessageDecision {
		if text == "hide me" {
			return AssistantMessageDecision{Block: true, Reason: "hidden by demo"}
		}
		if strings.Contains(text, "SECRET") {
			return AssistantMessageDecision{ReplaceText: strings.ReplaceAll(text, "SECRET", "[redacted]")}
		}
		return AssistantMessageDecision{}
	})

	e.OnHello(func(h HostInfo) {
		e.Command("cwd", "show the project directory", func(string) Response { return Display(h.CWD) })
		e.SetStatus("host", LevelInfo, h.Provider+"/"+h.Model)
	})
	return d
}

// returned records how an ask call ended, without blocking when nobody
// reads it (the fuzz target).
func (d *demo) returned(how string) {
	select {
	case d.askReturned <- how:
	default:
	}
}

// describe is an event handler that reports the event as a note, so that
// the transcript shows what the handler saw and in which order.
func (d *demo) describe(ev Event) {
	var b strings.Builder
	b.WriteString(ev.Name)
	if ev.Session != nil {
		fmt.Fprintf(&b, " session=%s parent=%s fork=%d", ev.Session.ID, ev.Session.ParentID, ev.Session.ForkPoint)
	}
	if ev.State != nil {
		fmt.Fprintf(&b, " state=%s", ev.State)
	}
	if ev.Step != 0 {
		fmt.Fprintf(&b, " step=%d", ev.Step)
	}
	if ev.ToolName != "" {
		fmt.Fprintf(&b, " tool=%s/%s args=%s preview=%q", ev.ToolID, ev.ToolName, ev.ToolArgs, ev.ToolPreview)
	}
	if ev.Stop != "" {
		fmt.Fprintf(&b, " stop=%s error=%q", ev.Stop, ev.Error)
	}
	d.Notify(LevelInfo, b.String())
}
