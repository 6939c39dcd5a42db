package sdktest

// The SDK under the real host: every feature of the SDK, in real
// processes of the language's interpreter (testdata/<Full> and
// testdata/<Bare> of the SDK package).

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// Commands runs the commands of testdata/<Full>: every action, errors,
// a handler that fails or returns a wrong value, completion, a panel, and
// output that is not a frame.
func (s *SDK) Commands(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, ""))
	tests := []struct {
		name, args string
		want       proto.CommandResponse
	}{
		{"prompt", "x", proto.CommandResponse{Action: "prompt", Prompt: "P:x"}},
		{"insert", "y", proto.CommandResponse{Action: "insert", Insert: "I:y"}},
		{"display", "z", proto.CommandResponse{Action: "display", Display: "D:z"}},
		{"noop", "", proto.CommandResponse{Action: "noop"}},
		{"err", "no", proto.CommandResponse{Action: "noop", Error: "bad input: no"}},
		{"fail", "", proto.CommandResponse{Action: "noop", Error: s.Want.Fail}},
		{"display", "after a failure", proto.CommandResponse{Action: "display", Display: "D:after a failure"}},
		{"badreturn", "", proto.CommandResponse{Action: "noop", Error: s.Want.BadReturn}},
		{"DISPLAY", "any case", proto.CommandResponse{Action: "display", Display: "D:any case"}},
		{"pick", "beta", proto.CommandResponse{Action: "display", Display: "picked beta"}},
	}
	for _, tc := range tests {
		t.Run(tc.name+" "+tc.args, func(t *testing.T) {
			if got := command(t, h, tc.name, tc.args); asJSON(got) != asJSON(tc.want) {
				t.Errorf("/%s %s = %s, want %s", tc.name, tc.args, asJSON(got), asJSON(tc.want))
			}
		})
	}
	t.Run("on_hello", func(t *testing.T) {
		if got := display(t, h, "late", ""); !strings.HasPrefix(got, "late /") {
			t.Errorf("/late = %q, want the cwd of hello_ack", got)
		}
		rec.wait(t, "notify sdkfull info early note")
	})
	t.Run("completion", func(t *testing.T) {
		for prefix, want := range map[string]string{"g": "gamma", "": "alpha,beta,gamma", "x": ""} {
			items, err := h.CompleteCommand(context.Background(), "pick", prefix)
			if err != nil || strings.Join(items, ",") != want {
				t.Errorf("CompleteCommand(pick, %q) = %v, %v; want %s", prefix, items, err, want)
			}
		}
	})
	t.Run("panel", func(t *testing.T) {
		r := command(t, h, "panel", "")
		if r.Action != "open_panel" || r.OpenPanel == nil || r.OpenPanel.ID != "sdk-panel" {
			t.Fatalf("/panel = %s, want open_panel sdk-panel", asJSON(r))
		}
		rec.wait(t, "open_panel sdkfull sdk-panel T a,b F")
		h.PanelKey("sdk-panel", "down", "")
		rec.wait(t, "render_panel sdkfull sdk-panel a,> b")
		h.PanelKey("sdk-panel", "rune", "x")
		rec.wait(t, "close_panel sdkfull sdk-panel")
		command(t, h, "panel", "")
		h.PanelClosed("sdk-panel")
		rec.wait(t, "notify sdkfull info closed sdk-panel")
	})
	t.Run("strict", func(t *testing.T) {
		if got := display(t, h, "stray", ""); got != "strayed" {
			t.Fatalf("/stray = %q", got)
		}
		// The host copies the extension's stderr into its log through a
		// pipe, so the lines may land a moment after the answer: wait for
		// them (a hang guard, not a timing assertion).
		log := waitLog(t, h, "sdkfull", s.Want.StrayLog...)
		for _, want := range s.Want.StrayLog {
			if !strings.Contains(log, want) {
				t.Errorf("the log lacks %q:\n%s", want, log)
			}
		}
		for _, w := range h.Diagnostics()[0].Warnings {
			// The one refusal testdata/<Full> asks for: the shortcut ctrl+bogus.
			if !strings.Contains(w, `register_shortcut key "ctrl+bogus"`) {
				t.Errorf("host warning %q, want none but the refused ctrl+bogus: the SDK wrote only valid frames", w)
			}
		}
	})
}

// Tools calls the tools of testdata/<Full>: results, errors, state,
// deferred tools, progress, cancellation and renderers.
func (s *SDK) Tools(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, ""))
	ctx := context.Background()
	tests := []struct {
		name, args, want string
		isError          bool
	}{
		{"echo", `{"text":"héllo"}`, "text:héllo", false},
		{"echo", `{"text":5}`, "text:echo: text must be a string", true},
		{"image", `{}`, "text:image/pngiVBORw==", false},
		{"boom", `{}`, s.Want.Boom, true},
		{"badresult", `{}`, s.Want.BadResult, true},
		{"echo", `{"text":"still alive"}`, "text:still alive", false},
	}
	for _, tc := range tests {
		t.Run(tc.name+tc.args, func(t *testing.T) {
			r, err := h.CallTool(ctx, tc.name, json.RawMessage(tc.args))
			if err != nil || strings.Replace(toolText(r), "image:", "text:", 1) != tc.want || r.IsError != tc.isError {
				t.Errorf("CallTool(%s, %s) = %q (error %v), %v; want %q (error %v)", tc.name, tc.args, toolText(r), r.IsError, err, tc.want, tc.isError)
			}
		})
	}
	t.Run("state", func(t *testing.T) {
		for _, tc := range []struct {
			args, state string
			set         bool
		}{{`{"v":7}`, `{"v":7}`, true}, {`{"mode":"keep"}`, ``, false}, {`{"mode":"clear"}`, ``, true}} {
			r, err := h.CallTool(ctx, "state", json.RawMessage(tc.args))
			if err != nil || r.StateSet != tc.set || string(r.State) != tc.state {
				t.Errorf("state(%s): StateSet %v State %s, %v; want %v %s", tc.args, r.StateSet, r.State, err, tc.set, tc.state)
			}
		}
	})
	t.Run("deferred", func(t *testing.T) {
		if slices.ContainsFunc(h.Tools(), func(x host.Tool) bool { return x.Name == "hidden" }) {
			t.Fatalf("the deferred tool is offered before activation")
		}
		r, err := h.CallTool(ctx, "loader", nil)
		if err != nil || strings.Join(r.Activated, ",") != "hidden" {
			t.Fatalf("loader = %+v, %v; want hidden activated", r, err)
		}
		if r, err := h.CallTool(ctx, "hidden", nil); err != nil || toolText(r) != "text:hidden ran" {
			t.Errorf("hidden = %q, %v", toolText(r), err)
		}
	})
	t.Run("progress", func(t *testing.T) {
		var got []string
		r, err := h.CallToolProgress(ctx, "progress", nil, func(p string) { got = append(got, p) })
		if err != nil || !strings.HasPrefix(toolText(r), "text:done ") || strings.Join(got, ",") != "half,all" {
			t.Errorf("progress = %q, %v, progress %v", toolText(r), err, got)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := h.CallTool(cctx, "wait", nil)
			done <- err
		}()
		rec.wait(t, "notify sdkfull info waiting wait")
		cancel()
		rec.wait(t, "notify sdkfull info cancelled wait")
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool(wait) after cancel = %v, want context.Canceled", err)
		}
	})
	t.Run("cancel a host request", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := h.CallTool(cctx, "askwait", nil)
			done <- err
		}()
		rec.wait(t, "dialog sdkfull select nobody answers")
		cancel()
		rec.wait(t, "notify sdkfull info request cancelled: ui.select: the tool call was cancelled")
		<-done
		if got := display(t, h, "display", "after"); got != "D:after" {
			t.Errorf("/display after a cancelled call = %q", got)
		}
	})
	t.Run("renderer", func(t *testing.T) {
		res := "out"
		r, err := h.RenderTool(ctx, proto.RenderTool{ToolName: "echo", Args: json.RawMessage(`{"text":"hi"}`), Result: &res, IsError: true, Width: 80})
		if err != nil || r.Header != "echo hi (80)" || r.Body != "OUT ERR" {
			t.Errorf("RenderTool = %+v, %v", r, err)
		}
		lines, err := h.RenderMessage(ctx, "box", "c", 40)
		if err != nil || strings.Join(lines, "|") != "[c]|40" {
			t.Errorf("RenderMessage = %q, %v", lines, err)
		}
	})
}

// EventsAndInterceptions sends testdata/<Full> events and asks it for
// every decision the host intercepts.
func (s *SDK) EventsAndInterceptions(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, ""))
	ctx := context.Background()
	if got := strings.Join(h.Capabilities("sdkfull"), ","); got != "events2,host_requests,intercepts2,ui2" {
		t.Errorf("Capabilities = %s, want all four additions", got)
	}

	h.SetSession(&proto.Session{ID: "b2"}, map[string]json.RawMessage{"sdkfull": json.RawMessage(`{"v":1}`)})
	h.Emit(proto.Event{Name: proto.EventSessionOpened})
	h.Emit(proto.Event{Name: proto.EventTurnStart, Step: 1})
	h.Emit(proto.Event{Name: proto.EventTurnEnd, Stop: proto.StopEndTurn})
	h.Emit(proto.Event{Name: proto.EventAgentEnd, Stop: proto.AgentCompleted, Response: "Done."})
	h.EmitCustom("other", "ping", json.RawMessage(`{"n":2}`))
	// A command runs after the events sent before it were handled.
	want := s.Want.Events
	if got := display(t, h, "events", ""); got != want {
		t.Errorf("/events = %q, want %q", got, want)
	}

	t.Run("tool_call", func(t *testing.T) {
		d := h.InterceptToolCall(ctx, "tu1", "bash", json.RawMessage(`{"command":"ls","timeout":5}`))
		if d.Block || string(d.Args) != `{"command":"ls","timeout":5,"guarded":true}` {
			t.Errorf("InterceptToolCall(ls) = %+v (args %s)", d, d.Args)
		}
		d = h.InterceptToolCall(ctx, "tu2", "bash", json.RawMessage(`{"command":"rm -rf /","timeout":5}`))
		if !d.Block || d.Reason != "refused: rm -rf" {
			t.Errorf("InterceptToolCall(rm) = %+v, want the second interceptor's block after the first's rewrite", d)
		}
	})
	t.Run("turn_start", func(t *testing.T) {
		if d := h.InterceptTurnStart(ctx, 3); d.Context != "[sdkfull] first 3\n\nsecond" {
			t.Errorf("InterceptTurnStart = %q", d.Context)
		}
	})
	t.Run("assistant_message", func(t *testing.T) {
		if d := h.InterceptAssistantMessage(ctx, "the SECRET"); d.Block || d.Text != "the [redacted]" {
			t.Errorf("InterceptAssistantMessage = %+v", d)
		}
		if d := h.InterceptAssistantMessage(ctx, "hide"); !d.Block || d.Reason != "hidden" {
			t.Errorf("InterceptAssistantMessage(hide) = %+v", d)
		}
	})
	t.Run("input", func(t *testing.T) {
		if d := h.InterceptInput(ctx, "/handled", "cli"); !d.Handled {
			t.Errorf("InterceptInput(/handled) = %+v", d)
		}
		if d := h.InterceptInput(ctx, "shout hi", "cli"); d.Handled || d.Text != "HI" {
			t.Errorf("InterceptInput(shout hi) = %+v", d)
		}
	})
	t.Run("before_agent_start", func(t *testing.T) {
		if d := h.InterceptBeforeAgentStart(ctx, "fix"); d.SystemPrompt != "SP for fix" || d.InjectText != "inject" {
			t.Errorf("InterceptBeforeAgentStart = %+v", d)
		}
	})
	t.Run("tool_result", func(t *testing.T) {
		if d := h.InterceptToolResult(ctx, host.ToolResultInfo{ToolName: "read", Content: "abc"}); !d.ContentSet || d.Content != "ABC" {
			t.Errorf("InterceptToolResult = %+v", d)
		}
		if d := h.InterceptToolResult(ctx, host.ToolResultInfo{ToolName: "bash", Content: "abc"}); d.ContentSet {
			t.Errorf("InterceptToolResult(bash) = %+v, want unchanged", d)
		}
	})
	t.Run("context_prepare", func(t *testing.T) {
		msgs, ok := h.InterceptContextPrepare(ctx, []proto.ContextMessage{{Index: 0, Role: "user", Content: "hi"}})
		if !ok || asJSON(msgs) != `[{"index":-1,"role":"system","content":"notes"},{"index":0,"role":"user","content":"hi"}]` {
			t.Errorf("InterceptContextPrepare = %s, %v", asJSON(msgs), ok)
		}
	})
	t.Run("cancel decisions", func(t *testing.T) {
		if d := h.InterceptBeforeFork(ctx, "e1", true, "x"); !d.Cancel || d.Reason != "no fork of e1" {
			t.Errorf("InterceptBeforeFork = %+v", d)
		}
		if d := h.InterceptBeforeSessionSwitch(ctx, "clear"); !d.Cancel || d.Reason != "keep it" {
			t.Errorf("InterceptBeforeSessionSwitch(clear) = %+v", d)
		}
		if d := h.InterceptBeforeSessionSwitch(ctx, "new"); d.Cancel {
			t.Errorf("InterceptBeforeSessionSwitch(new) = %+v", d)
		}
		if d := h.InterceptBeforeCompact(ctx, host.CompactInfo{IsAutomatic: true}); !d.Cancel || d.Reason != "not now" {
			t.Errorf("InterceptBeforeCompact = %+v", d)
		}
	})
}

// HostRequestsAndUI checks the requests testdata/<Full> makes of the host
// and of the UI, shortcuts and options.
func (s *SDK) HostRequestsAndUI(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, ""))
	ctx := context.Background()
	tests := []struct{ name, want string }{
		{"ask", s.Want.Ask},
		{"info", "s1 b1 fake/m1 1 1200 read 2"},
		{"llm", s.Want.LLM},
		{"opt", "blue red red"},
		{"entries", s.Want.Entries},
		{"app", s.Want.App},
		{"hosterr", "HostError no.such_method: no.such_method: not in this test"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := display(t, h, tc.name, ""); got != tc.want {
				t.Errorf("/%s = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
	t.Run("requests", func(t *testing.T) {
		got := strings.Join(app.requests(), "\n")
		for _, want := range []string{
			`sdkfull app.send {"text":"queued prompt","mode":"steer"}`,
			`sdkfull editor.set_text {"text":"new text"}`,
			`sdkfull tools.set_active {"names":["read"]}`,
			`sdkfull tools.set_active {"names":null}`,
			`sdkfull model.set {"model":"fake/m2"}`,
			`sdkfull tui.suspend {}`, `sdkfull tui.resume {}`, `sdkfull app.exit {}`, `sdkfull app.reload_extensions {}`,
			`sdkfull llm.complete {"system":"be brief","prompt":"hi","stream":true}`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("the app got no %s; it got:\n%s", want, got)
			}
		}
	})
	t.Run("ui", func(t *testing.T) {
		command(t, h, "ui", "")
		for _, want := range []string{
			"print sdkfull info  a note", "print sdkfull plain box boxed", "header sdkfull head true", "footer sdkfull foot",
			"header sdkfull  false", "footer sdkfull ", "ui_visibility sdkfull {HideStartupMessage:false HideStatusBar:true HideSeparator:false HideInputHint:false}",
			"status_priority sdkfull st 5", "status sdkfull st warn status text", "status sdkfull plain info ",
			"widget sdkfull w above_input W one,two 0 ", "widget sdkfull w2 below_input  below 2 #ff0000", "widget_clear sdkfull w2",
			"notify sdkfull warn warned", "clear_notes sdkfull", "alert sdkfull bell question_ready",
			"submit sdkfull submitted text", "submit_slash sdkfull /pick alpha",
		} {
			rec.wait(t, want)
		}
		if k := h.EditorKeys(); strings.Join(k, ",") != "ctrl+s" {
			t.Fatalf("EditorKeys() = %v", k)
		}
		r, ok := h.EditorKey(ctx, "ctrl+s", "draft")
		if !ok || r.Action != proto.EditorSubmit || r.Text != "draft!" {
			t.Errorf("EditorKey = %+v, %v", r, ok)
		}
	})
	t.Run("shortcut and option", func(t *testing.T) {
		if !h.PressShortcut("ctrl+alt+s") {
			t.Fatal("PressShortcut found no owner")
		}
		rec.wait(t, "notify sdkfull info shortcut model fake/m1")
		if !h.PressShortcut("ctrl+alt+q") {
			t.Fatal("PressShortcut(ctrl+alt+q) found no owner; want the key claimed as \"Ctrl + Alt + Q\"")
		}
		rec.wait(t, "notify sdkfull info shortcut q")
		if h.PressShortcut("ctrl+bogus") {
			t.Error("PressShortcut(ctrl+bogus) = true, want the claim refused")
		}
		wants := []string{
			`shortcut: key "ctrl+bogus": unknown key name "bogus"`, "zut will refuse it",
			`ignored register_shortcut key "ctrl+bogus": unknown key name "bogus"`,
		}
		log := waitLog(t, h, "sdkfull", wants...)
		for _, want := range wants {
			if !strings.Contains(log, want) {
				t.Errorf("the log of sdkfull does not say %q:\n%s", want, log)
			}
		}
		if strings.Contains(log, "no handler") {
			t.Errorf("the log of sdkfull reports a shortcut without a handler:\n%s", log)
		}
		if o := h.Options(); len(o) != 1 || o[0].Name != "color" || o[0].Default != "blue" {
			t.Errorf("Options() = %+v", o)
		}
	})
}

// Undeclared checks that an addition the extension did not declare
// fails at once with a CapabilityError, and that an extension without
// additions sees plain v2.
func (s *SDK) Undeclared(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkbare", s.Bare, ""))
	if c := h.Capabilities("sdkbare"); len(c) != 0 {
		t.Errorf("Capabilities = %v, want none", c)
	}
	want := s.Want.Undeclared
	if got := display(t, h, "try", ""); got != want {
		t.Errorf("/try = %q\nwant %q", got, want)
	}
	if r := app.requests(); len(r) != 0 {
		t.Errorf("the app got requests %v, want none", r)
	}
}

// OldHost runs the full extension behind a filter that removes
// capabilities from hello_ack, as a zut without the additions sends it:
// host requests fail at once with a CapabilityError naming the host.
func (s *SDK) OldHost(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	filter := `sed -u 's/,"capabilities":\[[^]]*\]//'`
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, filter))
	r := command(t, h, "ask", "")
	if r.Error != s.Want.OldHost {
		t.Errorf("/ask on an old host = %s", asJSON(r))
	}
	if got := display(t, h, "display", "v2 still works"); got != "D:v2 still works" {
		t.Errorf("/display = %q", got)
	}
	if r := app.requests(); len(r) != 0 {
		t.Errorf("the app got requests %v, want none", r)
	}
}

// FutureHost runs the extension behind a filter that adds a frame of
// an unknown type before every line and an unknown member to every frame:
// the SDK ignores both.
func (s *SDK) FutureHost(t *testing.T) {
	s.needRuntime(t)
	rec, app := newRecorder(), &fakeApp{}
	filter := `sed -u -e 's/^{"type":"\([a-z_]*\)",/{"type":"\1","from_the_future":[1,{"x":2}],/' -e 's/^/{"type":"future_frame","n":1}\n/'`
	h := start(t, rec.callbacks(app), s.extDir(t, "sdkfull", s.Full, filter))
	if got := display(t, h, "display", "x"); got != "D:x" {
		t.Errorf("/display = %q", got)
	}
	if r, err := h.CallTool(context.Background(), "echo", json.RawMessage(`{"text":"t"}`)); err != nil || toolText(r) != "text:t" {
		t.Errorf("echo = %q, %v", toolText(r), err)
	}
	if got := display(t, h, "info", ""); got != "s1 b1 fake/m1 1 1200 read 2" {
		t.Errorf("/info = %q", got)
	}
	if log := waitLog(t, h, "sdkfull", s.Want.FutureLog); !strings.Contains(log, s.Want.FutureLog) {
		t.Errorf("the log does not note the unknown frames:\n%s", log)
	}
}

// waitLog returns the extension's log once it holds every one of wants,
// or after 30 s (a hang guard): the host copies the extension's stderr
// through a pipe, so a line may land a moment after the frame that
// followed it.
func waitLog(t *testing.T, h *host.Host, name string, wants ...string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log := logOf(t, h, name)
		if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(log, w) }) || time.Now().After(deadline) {
			return log
		}
	}
}
