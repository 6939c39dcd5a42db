package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/proto"
)

// addedAck is a hello_ack from a host offering every addition.
var addedAck = func() proto.HelloAck {
	a := testAck
	a.Capabilities = proto.HostCapabilities
	return a
}()

// newAddedDemo is an extension that uses every addition of the SDK.
func newAddedDemo() *Extension {
	e := New("plus", "0.1.0")
	e.Use(CapHostRequests, CapUI2)
	ctx := context.Background()
	show := func(v any, err error) Response {
		if err != nil {
			return ErrorResponse(err.Error())
		}
		b, _ := json.Marshal(v)
		return Display(string(b))
	}
	e.Command("select", "ask to choose", func(args string) Response {
		return show(e.Select(ctx, SelectRequest{Title: "Deploy", Message: args, Options: []string{"staging", "production"}, Default: "staging"}))
	})
	e.Command("confirm", "ask yes or no", func(args string) Response {
		return show(e.Confirm(ctx, ConfirmRequest{Message: args, Default: true}))
	})
	e.Command("input", "ask for text", func(args string) Response {
		return show(e.Input(ctx, InputRequest{Message: args, Placeholder: "name"}))
	})
	e.Command("overlay", "show a dialog", func(args string) Response {
		return show(e.Overlay(ctx, OverlayRequest{Title: "Note", Text: args, Markdown: true, Actions: []string{"OK", "Cancel"}, Anchor: AnchorTop}))
	})
	e.Command("session", "session calls", func(string) Response {
		msgs, err := e.Messages(ctx)
		if err != nil {
			return ErrorResponse(err.Error())
		}
		info, err := e.SessionInfo(ctx)
		if err != nil {
			return ErrorResponse(err.Error())
		}
		st, _ := e.ContextStats(ctx)
		id, _ := e.AppendEntry(ctx, "note", map[string]int{"n": 1})
		entries, _ := e.Entries(ctx, "note")
		return Display(fmt.Sprintf("%d messages, session %s branch %s, %d tokens, entry %s, %d entries", len(msgs), info.ID, info.Branch.ID, st.EstimatedTokens, id, len(entries)))
	})
	e.Command("model", "model calls", func(args string) Response {
		m, err := e.SetModel(ctx, args)
		if err != nil {
			return ErrorResponse(err.Error())
		}
		ms, _ := e.Models(ctx)
		cur, _ := e.Model(ctx)
		return Display(fmt.Sprintf("%s of %d, now %s", m.Model, len(ms), cur.Model))
	})
	e.Command("tools", "tool calls", func(args string) Response {
		if err := e.SetActiveTools(ctx, strings.Fields(args)); err != nil {
			return ErrorResponse(err.Error())
		}
		return show(e.Tools(ctx))
	})
	e.Command("complete", "a model call", func(args string) Response {
		r, err := e.Complete(ctx, CompleteRequest{Prompt: args, OnChunk: func(s string) { e.Notify(LevelInfo, "chunk "+s) }})
		return show(r, err)
	})
	e.Command("app", "app calls", func(args string) Response {
		for _, err := range []error{
			e.Send(ctx, "next", SendSteer), e.SetEditorText(ctx, "draft"), e.EmitCustom(ctx, "ping", map[string]bool{"ok": true}),
			e.SetOption(ctx, "plan", "true"),
		} {
			if err != nil {
				return ErrorResponse(err.Error())
			}
		}
		v, err := e.Option(ctx, "plan")
		if err != nil {
			return ErrorResponse(err.Error())
		}
		if err := e.Reload(ctx); err != nil {
			return ErrorResponse(err.Error())
		}
		return show(v, e.Exit(ctx))
	})
	e.Command("suspend", "run with the terminal", func(string) Response {
		ran := false
		err := e.SuspendTUI(ctx, func() { ran = true })
		return show(ran, err)
	})
	e.Command("chrome", "ui2 one-way frames", func(string) Response {
		e.Print(StyleInfo, "Plan mode ON")
		e.PrintBlock(Block{Text: "**done**", Markdown: true, BorderColor: "#a6e3a1", Subtitle: "tests"})
		e.RenderMessage("success", "All tests passed")
		e.SetHeader(Bar{Text: "Header", BorderColor: "#89b4fa"})
		e.ClearHeader()
		e.SetFooter(Bar{Text: "*footer*", Markdown: true})
		e.ClearFooter()
		e.SetUIVisibility(UIVisibility{HideStatusBar: true})
		e.SetStatusItem("plan", LevelWarn, "PLAN MODE", 10)
		e.SetStyledWidget(Widget{ID: "clock", Position: WidgetPositionBelowInput, Lines: []string{"12:00"}, Priority: -1, NoBorder: true})
		e.SetEditor([]string{"ctrl+s"}, func(k EditorKey) EditorAction {
			switch k.Key {
			case "ctrl+s":
				return SubmitText("saved: " + k.Text)
			case "up":
				return Remap("down")
			case "x":
				return Consumed()
			}
			return Passthrough()
		})
		return Noop()
	})
	e.Command("reset", "give the keys back", func(string) Response {
		e.ResetEditor()
		return Noop()
	})
	e.CommandWithCompletion("deploy", "deploy somewhere", func(args string) Response { return Display("deploying " + args) },
		func(prefix string) []string {
			var out []string
			for _, s := range []string{"staging", "production"} {
				if strings.HasPrefix(s, prefix) {
					out = append(out, s)
				}
			}
			return out
		})
	e.Shortcut("Ctrl+Alt+P", "toggle plan mode", func() { e.Notify(LevelInfo, "plan toggled") })
	e.RegisterOption("plan", "start in plan mode", "false")
	e.ToolRenderer(ToolRenderer{ToolName: "bash", DisplayName: "Shell", BorderColor: "#89b4fa",
		Header: func(args json.RawMessage, width int) string {
			var in struct{ Command string }
			json.Unmarshal(args, &in)
			return fmt.Sprintf("$ %s (%d)", in.Command, width)
		},
		Body: func(result string, isError bool, width int) string {
			if isError {
				return "ERROR: " + result
			}
			return result
		}})
	e.MessageRenderer("success", func(content string, width int) []string { return []string{"✓ " + content} })
	e.AddTool(ToolSpec{Name: "slow_task", Description: "reports progress", Schema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, tc ToolContext, args json.RawMessage) ToolResult {
			tc.Progress("Step 1/2")
			tc.Progress("Step 2/2")
			return TextResult("done")
		}})
	e.On(EventAgentStart, func(ev Event) {
		m, err := e.Model(ctx) // a request from an event handler
		e.Notify(LevelInfo, fmt.Sprintf("agent_start prompt=%q model=%s err=%v", ev.Prompt, m.Model, err))
	})
	for _, name := range []string{EventAgentEnd, EventToolResult, EventMessageUpdate, EventModelChange, EventInput, EventSessionShutdown} {
		e.On(name, func(ev Event) {
			e.Notify(LevelInfo, fmt.Sprintf("%s response=%q stop=%s content=%q chunk=%q model=%s<-%s source=%s is_error=%v",
				ev.Name, ev.Response, ev.Stop, ev.Content, ev.Chunk, ev.Model, ev.PreviousModel, ev.Source, ev.IsError))
		})
	}
	e.OnCustom("ping", func(c CustomEvent) { e.Notify(LevelInfo, "custom "+c.Name+" from "+c.From+" "+string(c.Data)) })
	e.InterceptInput(func(text, source string) InputDecision {
		switch {
		case text == "/todo":
			return InputDecision{Handled: true}
		case strings.HasPrefix(text, "plz "):
			return InputDecision{Text: strings.TrimPrefix(text, "plz ") + " please"}
		}
		return InputDecision{}
	})
	e.InterceptInput(func(text, source string) InputDecision { return InputDecision{Text: text + " [" + source + "]"} })
	e.InterceptBeforeAgentStart(func(prompt string) BeforeAgentStartDecision {
		return BeforeAgentStartDecision{SystemPrompt: "PLAN MODE", InjectText: "[plan]"}
	})
	e.InterceptBeforeAgentStart(func(prompt string) BeforeAgentStartDecision { return BeforeAgentStartDecision{SystemPrompt: "second"} })
	e.InterceptToolResult(func(r ToolResultEvent) ToolResultDecision {
		if !strings.Contains(r.Content, "sk-") {
			return ToolResultDecision{}
		}
		s, yes := "[redacted]", true
		return ToolResultDecision{Content: &s, IsError: &yes}
	})
	e.InterceptContextPrepare(func(msgs []ContextMessage) []ContextMessage {
		return append([]ContextMessage{{Index: -1, Role: "system", Content: "notes"}}, msgs...)
	})
	e.InterceptBeforeFork(func(ev BeforeForkEvent) CancelDecision {
		return CancelDecision{Cancel: ev.IsUserMessage, Reason: "keep " + ev.UserText}
	})
	e.InterceptBeforeSessionSwitch(func(reason string) CancelDecision {
		return CancelDecision{Cancel: reason == "clear", Reason: "unsaved"}
	})
	e.InterceptBeforeCompact(func(c CompactEvent) CancelDecision {
		return CancelDecision{Cancel: c.IsAutomatic, Reason: fmt.Sprintf("at %.0f%%", c.UsagePercent)}
	})
	return e
}

// handshakeWith runs the handshake with ack and reads up to ready.
func (h *scriptHost) handshakeWith(ack proto.HelloAck) {
	h.t.Helper()
	if f := h.recv(); f.Type() != "hello" {
		h.t.Fatalf("first frame = %s, want hello", f.Type())
	}
	h.send(ack)
	for h.recv().Type() != "ready" {
	}
}

// answer reads the host_request the extension sent and answers it.
func (h *scriptHost) answer(method, result string) {
	h.t.Helper()
	f := h.recv()
	r, ok := f.(*proto.HostRequest)
	if !ok || r.Method != method {
		h.t.Fatalf("frame = %#v, want a host_request %s", f, method)
	}
	h.send(proto.HostResponse{ID: r.ID, Result: json.RawMessage(result)})
}

// addedScenarios script a host against newAddedDemo; transcripts are
// golden files testdata/added_<name>.golden.
var addedScenarios = []struct {
	name   string
	script func(h *scriptHost)
}{
	{"handshake", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		h.shutdown()
	}},
	{"dialogs", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		h.note("a command waits for the user's answer; the reader goes on")
		h.send(proto.CommandInvoked{ID: "c1", Name: "select", Args: "Where to?"})
		h.answer("ui.select", `{"value":"production","index":1,"cancelled":false}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c2", Name: "confirm", Args: "Sure?"})
		h.answer("ui.confirm", `{"value":true,"cancelled":true}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c3", Name: "input", Args: "Name?"})
		h.answer("ui.input", `{"value":"zut","cancelled":false}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c4", Name: "overlay", Args: "Proceed?"})
		f := h.recv().(*proto.HostRequest)
		h.send(proto.HostResponse{ID: f.ID, Error: "ui.overlay: the user has no time"})
		h.recv()
		h.note("an answer for an unknown request is logged and ignored")
		h.send(proto.HostResponse{ID: "h999", Result: json.RawMessage(`{}`)})
		h.send(proto.HostStream{ID: "h999", Text: "lost"})
		h.shutdown()
	}},
	{"requests", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		h.send(proto.CommandInvoked{ID: "c1", Name: "session"})
		h.answer("session.messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
		h.answer("session.info", `{"id":"s1","cwd":"/p","branch":{"id":"b2","fork_point":3}}`)
		h.answer("session.context_stats", `{"estimated_tokens":120,"context_limit":1000,"usage_percent":12,"message_count":1}`)
		h.answer("session.append_entry", `{"id":"e7"}`)
		h.answer("session.entries", `{"entries":[{"id":"e7","entry_type":"note","data":{"n":1},"time":"2026-01-02T03:04:05Z"}]}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c2", Name: "model", Args: "openai/gpt-5"})
		h.answer("model.set", `{"model":"openai/gpt-5","provider":"openai","id":"gpt-5"}`)
		h.answer("model.list", `{"models":[{"model":"openai/gpt-5","provider":"openai","id":"gpt-5"},{"model":"a/b","provider":"a","id":"b"}]}`)
		h.answer("model.get", `{"model":"openai/gpt-5","provider":"openai","id":"gpt-5"}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c3", Name: "tools", Args: "read grep"})
		h.answer("tools.set_active", `{}`)
		h.answer("tools.list", `{"tools":[{"name":"read","source":"builtin","enabled":true},{"name":"weather","source":"extension","extension":"w","enabled":false}]}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c4", Name: "tools"})
		h.answer("tools.set_active", `{}`)
		h.answer("tools.list", `{"tools":[]}`)
		h.recv()
		h.note("streamed chunks reach OnChunk, in order, before the result")
		h.send(proto.CommandInvoked{ID: "c5", Name: "complete", Args: "Summarise"})
		f := h.recv().(*proto.HostRequest)
		h.send(proto.HostStream{ID: f.ID, Text: "Sum"})
		h.send(proto.HostStream{ID: f.ID, Text: "mary"})
		h.send(proto.HostResponse{ID: f.ID, Result: json.RawMessage(`{"text":"Summary","input_tokens":5,"output_tokens":2,"model":"a/b"}`)})
		h.recvN(3)
		h.send(proto.CommandInvoked{ID: "c6", Name: "app"})
		h.answer("app.send", `{}`)
		h.answer("editor.set_text", `{}`)
		h.answer("app.notify_custom", `{}`)
		h.answer("options.set", `{"name":"plan","value":"true","source":"set"}`)
		h.answer("options.get", `{"name":"plan","value":"true","source":"set"}`)
		h.answer("app.reload_extensions", `{}`)
		h.answer("app.exit", `{}`)
		h.recv()
		h.send(proto.CommandInvoked{ID: "c7", Name: "suspend"})
		h.answer("tui.suspend", `{"suspended":true}`)
		h.answer("tui.resume", `{}`)
		h.recv()
		h.shutdown()
	}},
	{"ui", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		h.call(proto.CommandInvoked{ID: "c1", Name: "chrome"})
		h.recvN(11)
		h.call(proto.Shortcut{Key: "ctrl+alt+p"})
		h.call(proto.CommandComplete{ID: "k1", Name: "deploy", Prefix: "sta"})
		h.call(proto.CommandComplete{ID: "k2", Name: "deploy", Prefix: ""})
		h.call(proto.EditorKey{ID: "e1", Key: "ctrl+s", Text: "draft"})
		h.call(proto.EditorKey{ID: "e2", Key: "up", Text: ""})
		h.call(proto.EditorKey{ID: "e3", Key: "tab", Text: ""})
		res := "exit 1"
		h.call(proto.RenderTool{ID: "r1", ToolName: "bash", Args: json.RawMessage(`{"command":"make"}`), Width: 80})
		h.call(proto.RenderTool{ID: "r2", ToolName: "bash", Args: json.RawMessage(`{"command":"make"}`), Result: &res, IsError: true, Width: 80})
		h.call(proto.RenderMessage{ID: "m1", Name: "success", Content: "All tests passed", Width: 80})
		h.call(proto.RenderMessage{ID: "m2", Name: "unknown", Content: "plain", Width: 80})
		h.call(proto.ToolCall{ID: "t1", Name: "slow_task", Args: json.RawMessage(`{}`)})
		h.recvN(2)
		h.call(proto.CommandInvoked{ID: "c2", Name: "reset"})
		h.recv()
		h.shutdown()
	}},
	{"events", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		h.note("an event handler waits on a request; later events wait for it, in order")
		h.send(proto.Event{Name: EventAgentStart, Prompt: "fix it"})
		h.send(proto.Event{Name: EventMessageUpdate, Chunk: "Fi"})
		h.answer("model.get", `{"model":"a/b","provider":"a","id":"b"}`)
		h.recvN(2)
		h.call(proto.Event{Name: EventToolResult, ToolID: "t1", ToolName: "read", ToolArgs: json.RawMessage(`{}`), Content: "x", IsError: true})
		h.call(proto.Event{Name: EventInput, Text: "hi", Source: "rpc"})
		h.call(proto.Event{Name: EventModelChange, Model: "a/b", PreviousModel: "c/d", Source: "extension"})
		h.call(proto.Event{Name: EventAgentEnd, Response: "Fixed.", Stop: "completed"})
		h.call(proto.Event{Name: "custom", CustomName: "ping", Data: json.RawMessage(`{"n":1}`), From: "other"})
		h.send(proto.Event{Name: "custom", CustomName: "other-name", From: "other"})
		h.call(proto.Event{Name: EventSessionShutdown})
		h.shutdown()
	}},
	{"intercepts", func(h *scriptHost) {
		h.handshakeWith(addedAck)
		for _, f := range []proto.EventIntercept{
			{ID: "i1", Name: "input", Text: "/todo", Source: "interactive"},
			{ID: "i2", Name: "input", Text: "plz fix", Source: "rpc"},
			{ID: "i3", Name: "input", Text: "as is", Source: "cli"},
			{ID: "i4", Name: "before_agent_start", Prompt: "fix"},
			{ID: "i5", Name: "tool_result", ToolID: "t1", ToolName: "read", ToolArgs: json.RawMessage(`{}`), Content: "key sk-123"},
			{ID: "i6", Name: "tool_result", ToolID: "t2", ToolName: "read", ToolArgs: json.RawMessage(`{}`), Content: "fine"},
			{ID: "i7", Name: "context_prepare", Messages: []proto.ContextMessage{{Index: 0, Role: "user", Content: "hi"}}},
			{ID: "i8", Name: "before_fork", TargetID: "e3", IsUserMessage: true, UserText: "retry"},
			{ID: "i9", Name: "before_fork", TargetID: "e4"},
			{ID: "i10", Name: "before_session_switch", Reason: "clear"},
			{ID: "i11", Name: "before_session_switch", Reason: "new"},
			{ID: "i12", Name: "before_compact", UsagePercent: 91, IsAutomatic: true},
		} {
			h.call(f)
		}
		h.shutdown()
	}},
}

func TestAddedTranscripts(t *testing.T) {
	for _, tc := range addedScenarios {
		for _, oneByte := range []bool{false, true} {
			name := tc.name
			if oneByte {
				name += "/one-byte-reads"
			}
			t.Run(name, func(t *testing.T) {
				before := runtime.NumGoroutine()
				h := startScript(t, newAddedDemo(), oneByte)
				tc.script(h)
				if !oneByte || !*update {
					checkGolden(t, "added_"+tc.name, h.transcript())
				}
				checkNoLeak(t, before)
			})
		}
	}
}

// addedFrames are the additive frame types an extension sends.
var addedFrames = []string{
	"host_request", "register_option", "tool_progress", "print", "header", "footer", "header_clear",
	"footer_clear", "ui_visibility", "register_shortcut", "command_completions", "set_editor", "reset_editor",
	"editor_key_response", "register_tool_renderer", "render_tool_response", "register_message_renderer",
	"render_message_response",
}

// TestAddedTranscriptsCoverEveryFrame checks that the golden transcripts
// show the SDK sending every additive frame type and every method.
func TestAddedTranscriptsCoverEveryFrame(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range addedScenarios {
		data, err := os.ReadFile(filepath.Join("testdata", "added_"+tc.name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			if rest, ok := strings.CutPrefix(line, "ext  "); ok {
				f, err := proto.Unmarshal([]byte(rest))
				if err != nil {
					t.Fatalf("Unmarshal(%q): %v", rest, err)
				}
				seen[f.Type()] = true
				if r, ok := f.(*proto.HostRequest); ok {
					seen[r.Method] = true
				}
			}
		}
	}
	want := slices.Clone(addedFrames)
	for _, m := range []string{"ui.select", "ui.confirm", "ui.input", "ui.overlay", "session.messages", "session.info",
		"session.context_stats", "session.append_entry", "session.entries", "model.get", "model.set", "model.list",
		"tools.list", "tools.set_active", "llm.complete", "options.get", "options.set", "app.send", "app.notify_custom",
		"app.exit", "app.reload_extensions",
		"editor.set_text", "tui.suspend", "tui.resume"} {
		want = append(want, m)
	}
	for _, typ := range want {
		if !seen[typ] {
			t.Errorf("no golden transcript shows the SDK sending %s", typ)
		}
	}
	for _, typ := range addedFrames {
		if proto.AddedFrameCapability(typ) == "" {
			t.Errorf("%s is listed as additive but proto does not know its capability", typ)
		}
	}
}

// TestCapabilityErrors checks the errors of methods whose capability was
// not declared or that the host does not offer.
func TestCapabilityErrors(t *testing.T) {
	before := runtime.NumGoroutine()
	e := New("bare", "1")
	ctx := context.Background()
	results := make(chan error, 3)
	e.Command("try", "", func(string) Response {
		results <- e.Print(StyleInfo, "x")
		_, err := e.Select(ctx, SelectRequest{Options: []string{"a"}})
		results <- err
		return Noop()
	})
	h := startScript(t, e, false)
	h.handshake() // testAck: the host offers no additions
	h.call(proto.CommandInvoked{ID: "c1", Name: "try"})
	var ce *CapabilityError
	if err := <-results; !errors.As(err, &ce) || ce.Capability != CapUI2 || ce.Host || !strings.Contains(err.Error(), "e.Use(ext.CapUI2)") {
		t.Errorf("Print without Use = %v, want a CapabilityError for ui2", err)
	}
	if err := <-results; !errors.As(err, &ce) || ce.Capability != CapHostRequests {
		t.Errorf("Select without Use = %v", err)
	}
	h.shutdown()
	checkNoLeak(t, before)

	e2 := New("declared", "1")
	e2.Use(CapHostRequests)
	e2.Command("try", "", func(string) Response {
		_, err := e2.Select(ctx, SelectRequest{Options: []string{"a"}})
		results <- err
		return Noop()
	})
	h = startScript(t, e2, false)
	h.handshake()
	h.call(proto.CommandInvoked{ID: "c1", Name: "try"})
	if err := <-results; !errors.As(err, &ce) || !ce.Host {
		t.Errorf("Select on a host without host_requests = %v, want a host CapabilityError", err)
	}
	h.shutdown()
}

// TestRequestEndsWithConnection checks that a request in flight fails
// with ErrClosed when the host closes the connection.
func TestRequestEndsWithConnection(t *testing.T) {
	before := runtime.NumGoroutine()
	e := New("gone", "1")
	e.Use(CapHostRequests)
	errs := make(chan error, 1)
	e.Command("ask", "", func(string) Response {
		_, err := e.Confirm(context.Background(), ConfirmRequest{Message: "still there?"})
		errs <- err
		return Noop()
	})
	h := startScript(t, e, false)
	h.handshakeWith(addedAck)
	h.send(proto.CommandInvoked{ID: "c1", Name: "ask"})
	h.recv()
	h.in.Close()
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Errorf("Confirm when the host left = %v, want ErrClosed", err)
	}
	if f := h.recv(); f.Type() != "command_response" {
		t.Errorf("after the host left: %s, want the command's response", f.Type())
	}
	h.wait()
	checkNoLeak(t, before)
}
