package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// allCaps lists every additive capability, for -caps.
const allCaps = "commands,tool_cancel,host_requests,events2,intercepts2,ui2"

// withAdded adds recording fakes of the additive callbacks to cb. ui, when
// set, answers dialogs; otherwise the recorder leaves them unanswered.
func withAdded(r *recorder, cb Callbacks, ui func(req proto.UIRequest, answer func(proto.UIResponse))) Callbacks {
	cb.UIRequest = func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
		r.add("ui_request %s %s %s %q timeout>0=%v", ext, req.Kind, req.Message, req.Options, req.TimeoutMS > 0)
		if ui != nil {
			ui(req, answer)
		}
	}
	cb.UIRequestDone = func(ext, id string) { r.add("ui_request_done %s", ext) }
	cb.Print = func(ext string, p proto.Print) { r.add("print %s %s %s %s", ext, p.Style, p.Text, p.Renderer) }
	cb.Header = func(ext string, h proto.Header) { r.add("header %s %q %s", ext, h.Text, h.BorderColor) }
	cb.Footer = func(ext string, f proto.Footer) { r.add("footer %s %q %v", ext, f.Text, f.Markdown) }
	cb.UIVisibility = func(ext string, v proto.UIVisibility) { r.add("ui_visibility %s %+v", ext, v) }
	cb.StatusPriority = func(ext, key string, p int) { r.add("status_priority %s %s %d", ext, key, p) }
	cb.UIChanged = func() { r.add("ui_changed") }
	cb.Widget = func(ext string, w proto.Widget) {
		r.add("widget %s %s %s %v prio=%d border=%s", ext, w.ID, w.Position, w.Lines, w.Priority, w.BorderColor)
	}
	return cb
}

// addedFixture starts a host on the test extensions named in exts (name ->
// flags), loaded in the order given.
func addedFixture(t *testing.T, ui func(proto.UIRequest, func(proto.UIResponse)), tune func(*Config), exts ...[]string) (*Host, *fixture) {
	t.Helper()
	f := newFixture(t)
	var dirs []string
	for _, e := range exts {
		dirs = append(dirs, goExt(t, t.TempDir(), e[0], e[1:]...))
	}
	cfg := f.config(dirs...)
	cfg.Callbacks = withAdded(f.rec, cfg.Callbacks, ui)
	if tune != nil {
		tune(&cfg)
	}
	return f.start(t, cfg), f
}

// display runs the test extension's command and returns its display text.
func display(t *testing.T, h *Host, cmd, args string) string {
	t.Helper()
	r, err := h.InvokeCommand(context.Background(), cmd, args)
	if err != nil {
		t.Fatalf("InvokeCommand(%q, %q) error: %v", cmd, args, err)
	}
	return r.Display
}

// TestAddedHandshake checks hello_ack.capabilities: sent to an extension
// that asked for an addition, absent for a plain v2 one (C7).
func TestAddedHandshake(t *testing.T) {
	checkNoLeaks(t)
	h, f := addedFixture(t, nil, nil,
		[]string{"new", "-caps", allCaps, "-added"},
		[]string{"old", "-caps", "commands,tool_cancel,teleport"})
	f.rec.wait(t, "notify new info ack ", `"capabilities":["host_requests","events2","intercepts2","ui2"]`)
	old := f.rec.wait(t, "notify old info ack ")
	if strings.Contains(old, "capabilities") {
		t.Errorf("plain v2 hello_ack = %s, want no capabilities member", old)
	}
	reports := h.Diagnostics()
	if got := report(t, reports, "new").Capabilities; strings.Join(got, ",") != "events2,host_requests,intercepts2,ui2" {
		t.Errorf("Report.Capabilities of new = %v", got)
	}
	if got := report(t, reports, "old").Capabilities; got != nil {
		t.Errorf("Report.Capabilities of old = %v, want none", got)
	}
	if got := h.Capabilities("new"); len(got) != 4 {
		t.Errorf("Capabilities(new) = %v", got)
	}
}

// TestPlainV2SeesNoAdditions drives every addition of the host while a
// plain v2 extension, subscribed to every name, is loaded: it must receive
// no additive frame, event or interception (C6).
func TestPlainV2SeesNoAdditions(t *testing.T) {
	checkNoLeaks(t)
	everything := strings.Join(append(append([]string{"turn_start"}, proto.Events2...), proto.Intercepts2...), ",")
	h, f := addedFixture(t, nil, nil,
		[]string{"new", "-caps", allCaps, "-added", "-commands", "req,raw"},
		[]string{"old", "-caps", "commands", "-events", everything, "-intercept", everything, "-commands", "ping"})
	ctx := context.Background()
	for _, n := range proto.Events2 {
		h.Emit(proto.Event{Name: n})
	}
	h.EmitCustom("new", "hi", json.RawMessage(`1`))
	h.InterceptInput(ctx, "x", "cli")
	h.InterceptBeforeAgentStart(ctx, "x")
	h.InterceptToolResult(ctx, ToolResultInfo{ToolName: "read"})
	h.InterceptContextPrepare(ctx, []proto.ContextMessage{{Role: "user", Content: "x"}})
	h.InterceptBeforeFork(ctx, "e1", false, "")
	h.InterceptBeforeSessionSwitch(ctx, "new")
	h.InterceptBeforeCompact(ctx, CompactInfo{})
	h.PressShortcut("ctrl+x")
	h.Emit(proto.Event{Name: proto.EventTurnStart, Step: 1})
	f.rec.wait(t, "notify old info event ", `"turn_start"`)
	display(t, h, "ping", "") // everything sent before has been read
	r := report(t, h.Diagnostics(), "old")
	for _, l := range strings.Split(f.rec.dump(), "\n") {
		if strings.HasPrefix(l, "notify old") && !strings.Contains(l, "ack ") && !strings.Contains(l, `"turn_start"`) {
			t.Errorf("plain v2 extension got an additive frame: %s", l)
		}
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), `needs the capability "events2"`) ||
		!strings.Contains(strings.Join(r.Warnings, "\n"), `needs the capability "intercepts2"`) {
		t.Errorf("warnings of old = %q, want the ignored subscriptions named", r.Warnings)
	}
}

// TestAdditiveFrameWithoutCapability checks that a frame of an addition
// from an extension that did not ask for it is ignored, warned about once
// per type, and never answered.
func TestAdditiveFrameWithoutCapability(t *testing.T) {
	checkNoLeaks(t)
	h, f := addedFixture(t, nil, nil,
		[]string{"old", "-caps", "commands", "-added", "-commands", "raw,ping"})
	for _, line := range []string{
		`{"type":"print","text":"hello"}`,
		`{"type":"print","text":"again"}`,
		`{"type":"host_request","id":"x1","method":"session.info"}`,
		`{"type":"register_shortcut","key":"ctrl+p"}`,
		`{"type":"header","text":"h"}`,
		`{"type":"status","key":"k","text":"t","priority":3}`,
		`{"type":"widget","id":"w","position":"floating","lines":["l"],"priority":2,"border_color":"red"}`,
		`{"type":"widget","id":"r","position":"right_bar","lines":["l"],"priority":2,"border_color":"red"}`,
		`{"type":"widget","id":"b","position":"below_input","lines":["l"],"markdown":true}`,
		`{"type":"register_command","name":"deploy","complete":true}`,
	} {
		display(t, h, "raw", line)
	}
	display(t, h, "ping", "")
	// A plain v2 extension keeps its placement (an unknown one falls back
	// to above_input, C18) but not the members of ui2.
	f.rec.wait(t, "widget old w above_input [l] prio=0 border=")
	f.rec.wait(t, "widget old r right_bar [l] prio=0 border=")
	f.rec.wait(t, "widget old b below_input [l] prio=0 border=")
	for _, bad := range []string{"print ", "header ", "status_priority", "ui_changed", "stray", "got "} {
		if f.rec.count(bad) > 0 {
			t.Errorf("a frame without its capability had an effect (%q):\n%s", bad, f.rec.dump())
		}
	}
	if len(h.Shortcuts()) != 0 {
		t.Errorf("Shortcuts() = %v, want none", h.Shortcuts())
	}
	for _, c := range h.Commands() {
		if c.Name == "deploy" && c.Complete {
			t.Errorf("command deploy has Complete without ui2")
		}
	}
	w := strings.Join(report(t, h.Diagnostics(), "old").Warnings, "\n")
	if strings.Count(w, "ignored a print frame") != 1 || !strings.Contains(w, `ignored a host_request frame: it needs the capability "host_requests"`) {
		t.Errorf("warnings = %s, want one warning per ignored frame type", w)
	}
}

// TestDialogs runs ui.select, ui.confirm, ui.input and ui.overlay through
// a scripted UI: answers, cancellations, timeouts and bad params.
func TestDialogs(t *testing.T) {
	checkNoLeaks(t)
	answers := map[string]proto.UIResponse{
		"pick":       proto.SelectAnswer("b", 1),
		"pick-value": {Value: json.RawMessage(`"c"`)},
		"sure":       proto.ConfirmAnswer(true),
		"name":       proto.InputAnswer("zut"),
		"notice":     proto.OverlayAnswer("", 1),
		"esc":        proto.CancelledAnswer(),
	}
	ui := func(req proto.UIRequest, answer func(proto.UIResponse)) {
		if a, ok := answers[req.Message]; ok {
			go answer(a) // from another goroutine, as a UI would
		}
	}
	h, f := addedFixture(t, ui, func(c *Config) { c.Timeouts.UI = 5 * time.Second },
		[]string{"d", "-caps", allCaps, "-added", "-commands", "req"})
	tests := []struct {
		name, params string
		method       string
		want         string
	}{
		{"select by index", `{"message":"pick","options":["a","b","c"]}`, "ui.select", `result {"value":"b","index":1,"cancelled":false}`},
		{"select by value", `{"message":"pick-value","options":["a","b","c"]}`, "ui.select", `result {"value":"c","index":2,"cancelled":false}`},
		{"select cancelled keeps default", `{"message":"esc","options":["a","b"],"default":"b"}`, "ui.select", `result {"value":"b","index":1,"cancelled":true}`},
		{"select timeout", `{"message":"ignored","options":["a"],"timeout_ms":50}`, "ui.select", `result {"value":"","index":-1,"cancelled":true}`},
		{"select without options", `{"message":"pick","options":[]}`, "ui.select", `error ui.select: options is empty`},
		{"confirm", `{"message":"sure"}`, "ui.confirm", `result {"value":true,"cancelled":false}`},
		{"confirm timeout default", `{"message":"ignored","default":true,"timeout_ms":50}`, "ui.confirm", `result {"value":true,"cancelled":true}`},
		{"input", `{"message":"name","placeholder":"my-project"}`, "ui.input", `result {"value":"zut","cancelled":false}`},
		{"input cancelled", `{"message":"esc","default":"x"}`, "ui.input", `result {"value":"x","cancelled":true}`},
		{"overlay action by index", `{"message":"notice","title":"T","text":"body","actions":["Confirm","Cancel"]}`, "ui.overlay", `result {"action":"Cancel","index":1,"cancelled":false}`},
		{"overlay needs content", `{"message":"notice"}`, "ui.overlay", `error ui.overlay: title and text are both empty`},
		{"bad params", `{"options":"a"}`, "ui.select", `error ui.select: params are not what the method takes`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := display(t, h, "req", tc.method+" "+tc.params)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s %s = %q, want %q", tc.method, tc.params, got, tc.want)
			}
		})
	}
	f.rec.waitCount(t, 2, "ui_request_done d")
}

// TestDialogWithoutUI checks that dialogs are cancelled at once when no
// UI can show them (print and JSON modes).
func TestDialogWithoutUI(t *testing.T) {
	checkNoLeaks(t)
	h, _ := addedFixture(t, nil, func(c *Config) { c.Callbacks.UIRequest = nil },
		[]string{"d", "-caps", allCaps, "-added", "-commands", "req"})
	got := display(t, h, "req", `ui.confirm {"message":"deploy?","default":false}`)
	if got != `result {"value":false,"cancelled":true}` {
		t.Errorf("ui.confirm without a UI = %q, want cancelled at once", got)
	}
}

// TestCommandWaitsForDialog checks that a command's deadline does not
// expire while its extension waits for the user's answer (C14 with
// host_requests).
func TestCommandWaitsForDialog(t *testing.T) {
	checkNoLeaks(t)
	ui := func(req proto.UIRequest, answer func(proto.UIResponse)) {
		// The user answers well after the command deadline; what follows
		// the answer has a whole deadline of its own, generous enough for a
		// loaded machine under the race detector.
		time.AfterFunc(2*time.Second, func() { answer(proto.InputAnswer("late but fine")) })
	}
	h, _ := addedFixture(t, ui, func(c *Config) { c.Timeouts.Command = 1500 * time.Millisecond },
		[]string{"d", "-caps", allCaps, "-added", "-commands", "req"})
	got := display(t, h, "req", `ui.input {"message":"name?"}`)
	if got != `result {"value":"late but fine","cancelled":false}` {
		t.Errorf("command asking a slow user = %q", got)
	}
}

// TestCommandDeadlineRestartsAfterAnswer checks that time spent waiting
// on the host does not count: the user answers 2900 ms into a 1500 ms
// command, just before the second tick, and the extension then takes
// 200 ms more, inside a fresh 1500 ms (1300 ms to spare on a loaded
// machine under -race; without the restart the tick at 3000 ms would end
// it).
func TestCommandDeadlineRestartsAfterAnswer(t *testing.T) {
	checkNoLeaks(t)
	ui := func(req proto.UIRequest, answer func(proto.UIResponse)) {
		time.AfterFunc(2900*time.Millisecond, func() { answer(proto.ConfirmAnswer(true)) })
	}
	h, _ := addedFixture(t, ui, func(c *Config) { c.Timeouts.Command = 1500 * time.Millisecond },
		[]string{"d", "-caps", allCaps, "-added", "-commands", "req-slow"})
	got := display(t, h, "req-slow", `ui.confirm {"message":"go?"}`)
	if got != `result {"value":true,"cancelled":false}` {
		t.Errorf("command finishing after a late answer = %q", got)
	}
}

// TestHostRequestCallback checks the methods handed to
// Callbacks.HostRequest: results, streams, errors, timeouts, and
// app.notify_custom served by the host itself.
func TestHostRequestCallback(t *testing.T) {
	checkNoLeaks(t)
	var mu sync.Mutex
	var seen []string
	handler := func(ctx context.Context, r *Request) {
		mu.Lock()
		seen = append(seen, r.Extension+" "+r.Method+" "+string(r.Params))
		mu.Unlock()
		switch r.Method {
		case "session.info":
			r.Respond(proto.SessionInfo{ID: "s1", CWD: "/p"}, nil)
		case "llm.complete":
			r.Stream("Hel")
			r.Stream("lo")
			r.Respond(proto.CompleteResult{Text: "Hello", Model: "m"}, nil)
			r.Stream("after")
		case "model.set":
			r.Respond(nil, fmt.Errorf("model.set: unknown model"))
		case "tui.suspend":
			<-ctx.Done() // never answers: the host times out
		default:
			go r.Respond(nil, nil) // from another goroutine
		}
	}
	h, f := addedFixture(t, nil, func(c *Config) {
		c.Callbacks.HostRequest = handler
		c.Timeouts.HostRequest = time.Second // answered at once but for tui.suspend
	}, []string{"a", "-caps", allCaps, "-added", "-commands", "req"},
		[]string{"b", "-caps", "commands,events2", "-events", "custom"},
		[]string{"c", "-caps", "commands", "-events", "custom"})
	tests := []struct{ args, want string }{
		{`session.info {}`, `result {"id":"s1","cwd":"/p"}`},
		{`session.info`, `result {"id":"s1","cwd":"/p"}`},
		{`llm.complete {"prompt":"hi","stream":true}`, `stream Hel|lo result {"text":"Hello","input_tokens":0,"output_tokens":0,"model":"m"}`},
		{`model.set {"model":"x/y"}`, `error model.set: unknown model`},
		{`app.exit {}`, `result {}`},
		{`tui.suspend {}`, `error tui.suspend: no answer within 1s`},
		{`app.notify_custom {"name":"plan","data":{"on":true}}`, `result {}`},
		{`app.notify_custom {}`, `error app.notify_custom: name is empty`},
	}
	for _, tc := range tests {
		if got := display(t, h, "req", tc.args); !strings.HasPrefix(got, tc.want) {
			t.Errorf("request %s = %q, want %q", tc.args, got, tc.want)
		}
	}
	f.rec.wait(t, "notify b info event ", `"event":"custom","name":"plan","data":{"on":true},"from":"a"`)
	if f.rec.count("notify a info event") > 0 || f.rec.count("notify c info event") > 0 {
		t.Errorf("a custom event reached its sender or an extension without events2:\n%s", f.rec.dump())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 6 || seen[1] != "a session.info {}" {
		t.Errorf("HostRequest saw %q", seen)
	}
}

// TestHostRequestCrash checks that an extension exiting while its dialog
// waits cancels the request and closes the dialog, and that a request
// handed to Callbacks.HostRequest sees its context end when its extension
// exits. (A request read after the exit was noticed is dropped without a
// call; either way nothing waits.)
func TestHostRequestCrash(t *testing.T) {
	checkNoLeaks(t)
	started, ended := make(chan struct{}, 2), make(chan struct{}, 2)
	h, f := addedFixture(t, nil, func(c *Config) {
		c.Callbacks.HostRequest = func(ctx context.Context, r *Request) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- struct{}{}
		}
	}, []string{"d", "-caps", allCaps, "-added", "-commands", "exit-during"},
		[]string{"e", "-caps", allCaps, "-added", "-commands", "exit-during"})
	if _, err := h.InvokeCommand(context.Background(), "exit-during", `ui.select {"message":"m","options":["a"]}`); err == nil {
		t.Fatalf("InvokeCommand on an exiting extension = nil error")
	}
	f.rec.wait(t, "ui_request_done d")
	f.rec.wait(t, "exited d")
	// e answers the command once d's registration is gone.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := h.InvokeCommand(context.Background(), "exit-during", `session.info {}`)
		if err == nil || !strings.Contains(err.Error(), "stopped") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("InvokeCommand still reaches the stopped d after 60s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.rec.wait(t, "exited e")
	select {
	case <-started:
		select {
		case <-ended:
		case <-time.After(60 * time.Second):
			t.Fatal("the HostRequest callback's context did not end within 60s of its extension's exit")
		}
	default:
	}
}

// TestUI2Frames checks the one-way frames of ui2 and the additive
// members of status and widget.
func TestUI2Frames(t *testing.T) {
	checkNoLeaks(t)
	h, f := addedFixture(t, nil, nil, []string{"u", "-caps", allCaps, "-added", "-commands", "raw"})
	for _, line := range []string{
		`{"type":"print","text":"Plan mode ON","style":"info"}`,
		`{"type":"print","text":"x","style":"fancy","renderer":"success"}`,
		`{"type":"header","text":"Head","border_color":"#89b4fa"}`,
		`{"type":"header_clear"}`,
		`{"type":"footer","text":"*Foot*","markdown":true}`,
		`{"type":"footer_clear"}`,
		`{"type":"ui_visibility","hide_status_bar":true}`,
		`{"type":"status","key":"plan","level":"warning","text":"PLAN","priority":10}`,
		`{"type":"widget","id":"clock","position":"below_input","lines":["12:00"],"priority":-1,"border_color":"#fff"}`,
		`{"type":"widget","id":"w2","position":"right_bar","lines":["x"]}`,
	} {
		display(t, h, "raw", line)
	}
	for _, want := range []string{
		"print u info Plan mode ON ",
		"print u plain x success",
		`header u "Head" #89b4fa`,
		`header u "" `,
		`footer u "*Foot*" true`,
		`footer u "" false`,
		"ui_visibility u {HideStartupMessage:false HideStatusBar:true HideSeparator:false HideInputHint:false}",
		"status_priority u plan 10",
		"status u plan warn PLAN",
		"widget u clock below_input [12:00] prio=-1 border=#fff",
		"widget u w2 right_bar [x] prio=0", // the UI decides where the rail goes
	} {
		f.rec.wait(t, want)
	}
}

// TestUI2Registrations covers shortcuts, editor keys, renderers, command
// completion, options, and tool progress.
func TestUI2Registrations(t *testing.T) {
	checkNoLeaks(t)
	h, f := addedFixture(t, nil, func(c *Config) { c.Timeouts.EditorKey = 2 * time.Second },
		[]string{"a", "-caps", allCaps, "-added", "-commands", "raw", "-tools", "progress"},
		[]string{"b", "-caps", allCaps, "-added", "-commands", "rawb"})
	ctx := context.Background()
	for _, line := range []string{
		`{"type":"register_shortcut","key":"Ctrl+Alt+P","description":"Toggle plan mode"}`,
		`{"type":"set_editor","keys":["ctrl+s","up","x","f2","f3","UP","f4"]}`,
		`{"type":"register_tool_renderer","tool_name":"bash","display_name":"Shell","render_header":true,"render_body":true}`,
		`{"type":"register_tool_renderer","tool_name":"read","display_name":"Read"}`,
		`{"type":"register_message_renderer","name":"success"}`,
		`{"type":"register_option","name":"plan","description":"start in plan mode","default":"false"}`,
		`{"type":"register_command","name":"deploy","description":"deploy","complete":true}`,
	} {
		display(t, h, "raw", line)
	}
	if got := h.Shortcuts(); len(got) != 1 || got[0].Key != "ctrl+alt+p" || got[0].Extension != "a" {
		t.Errorf("Shortcuts() = %+v", got)
	}
	if !h.PressShortcut("CTRL+ALT+P") || h.PressShortcut("ctrl+q") {
		t.Errorf("PressShortcut did not find exactly the registered key")
	}
	f.rec.wait(t, "notify a info shortcut ctrl+alt+p")

	if got := strings.Join(h.EditorKeys(), ","); got != "ctrl+s,up,x,f2,f3,f4" {
		t.Errorf("EditorKeys() = %s", got)
	}
	keys := []struct {
		key  string
		want proto.EditorKeyResponse
		ok   bool
	}{
		{"ctrl+s", proto.EditorKeyResponse{Action: "submit", Text: "saved: draft"}, true},
		{"up", proto.EditorKeyResponse{Action: "remap", Key: "down"}, true},
		{"x", proto.EditorKeyResponse{Action: "consumed"}, true},
		{"f2", proto.EditorKeyResponse{Action: "passthrough"}, true}, // an unknown action
		{"F3", proto.EditorKeyResponse{Action: "passthrough"}, true}, // no answer in time
		{"f4", proto.EditorKeyResponse{Action: "passthrough"}, true}, // a remap to no key
		{"odd", proto.EditorKeyResponse{}, false},                    // not a key
		{"z", proto.EditorKeyResponse{}, false},
	}
	for _, k := range keys {
		got, ok := h.EditorKey(ctx, k.key, "draft")
		got.ID = ""
		if ok != k.ok || got != k.want {
			t.Errorf("EditorKey(%q) = %+v, %v, want %+v, %v", k.key, got, ok, k.want, k.ok)
		}
	}
	display(t, h, "raw", `{"type":"reset_editor"}`)
	if got := h.EditorKeys(); len(got) != 0 {
		t.Errorf("EditorKeys() after reset_editor = %v", got)
	}

	if r, ok := h.ToolRenderer("read"); !ok || r.DisplayName != "Read" || r.Extension != "a" {
		t.Errorf("ToolRenderer(read) = %+v, %v", r, ok)
	}
	res := "ok"
	for i := 0; i < 2; i++ {
		got, err := h.RenderTool(ctx, proto.RenderTool{ToolName: "bash", Args: json.RawMessage(`{"command":"ls"}`), Result: &res, Width: 40})
		if err != nil || got.Header != "H:bash:40" || got.Body != "B:ok" {
			t.Errorf("RenderTool = %+v, %v", got, err)
		}
	}
	if _, err := h.RenderTool(ctx, proto.RenderTool{ToolName: "read", Width: 40}); err == nil {
		t.Errorf("RenderTool(read) = nil error, want the default rendering (no render flags)")
	}
	lines, err := h.RenderMessage(ctx, "success", "All tests passed", 80)
	if err != nil || strings.Join(lines, "") != "<All tests passed>" {
		t.Errorf("RenderMessage = %q, %v", lines, err)
	}
	h.RenderMessage(ctx, "success", "All tests passed", 80)
	if _, err := h.RenderMessage(ctx, "nope", "x", 80); err == nil {
		t.Errorf("RenderMessage(nope) = nil error")
	}
	display(t, h, "raw", `{"type":"print","text":"sync"}`)
	if n := f.rec.count("render_tool bash"); n != 1 {
		t.Errorf("%d render_tool requests for the same call, want 1 (cached)", n)
	}
	if n := f.rec.count("render_message success"); n != 1 {
		t.Errorf("%d render_message requests for the same content, want 1 (cached)", n)
	}

	if got := h.Options(); len(got) != 1 || got[0].Name != "plan" || got[0].Default != "false" || got[0].Extension != "a" {
		t.Errorf("Options() = %+v", got)
	}
	items, err := h.CompleteCommand(ctx, "/Deploy", "sta")
	if err != nil || strings.Join(items, ",") != "sta1,sta2" {
		t.Errorf("CompleteCommand = %v, %v", items, err)
	}
	if items, err := h.CompleteCommand(ctx, "raw", "x"); err != nil || items != nil {
		t.Errorf("CompleteCommand on a command without completion = %v, %v", items, err)
	}

	var progress []string
	r, err := h.CallToolProgress(ctx, "progress", nil, func(s string) { progress = append(progress, s) })
	if err != nil || r.Content[0].Text != "done" || strings.Join(progress, ",") != "step 1,step 2" {
		t.Errorf("CallToolProgress = %+v, %v, progress %q", r, err, progress)
	}
	f.rec.wait(t, "ui_changed")
}

// TestIntercepts2 runs each chain of intercepts2 across two extensions in
// load order.
func TestIntercepts2(t *testing.T) {
	all := strings.Join(proto.Intercepts2, ",")
	first := `{"input":{"action":"transform","text":"first"},"before_agent_start":{"system_prompt":" one ","inject_text":"i1"},` +
		`"tool_result":{"content":"scrubbed"},"context_prepare":{"messages":[{"index":-1,"role":"system","content":"notes"},{"index":0,"role":"user","content":"x"}]},` +
		`"before_fork":{},"before_session_switch":{"cancel":true,"reason":"unsaved plan"},"before_compact":{}}`
	second := `{"input":{"action":"handled"},"before_agent_start":{"system_prompt":"two"},"tool_result":{"is_error":true},` +
		`"context_prepare":{"messages":[{"index":7,"role":"user","content":"bad"}]},"before_fork":{"block":true},"before_session_switch":{"cancel":true,"reason":"never asked"},` +
		`"before_compact":{"cancel":true}}`
	h, f := addedFixture(t, nil, nil,
		[]string{"a", "-caps", allCaps, "-added", "-intercept", all, "-respond", first},
		[]string{"b", "-caps", allCaps, "-added", "-intercept", all, "-respond", second})
	ctx := context.Background()
	if d := h.InterceptInput(ctx, "hello", "rpc"); !d.Handled || d.By != "b" {
		t.Errorf("InterceptInput = %+v, want b's handled", d)
	}
	f.rec.wait(t, "notify b info intercept ", `"text":"first","source":"rpc"`)
	if d := h.InterceptBeforeAgentStart(ctx, "p"); d.SystemPrompt != "one\n\ntwo" || d.InjectText != "i1" {
		t.Errorf("InterceptBeforeAgentStart = %+v", d)
	}
	if d := h.InterceptToolResult(ctx, ToolResultInfo{ToolID: "t1", ToolName: "read", Content: "secret"}); !d.ContentSet || d.Content != "scrubbed" || !d.IsError || d.By != "b" {
		t.Errorf("InterceptToolResult = %+v", d)
	}
	f.rec.wait(t, "notify b info intercept ", `"content":"scrubbed","is_error":false`)
	msgs, ok := h.InterceptContextPrepare(ctx, []proto.ContextMessage{{Index: 0, Role: "user", Content: "hi"}})
	if !ok || len(msgs) != 2 || msgs[0].Content != "notes" {
		t.Errorf("InterceptContextPrepare = %+v, %v, want a's replacement (b's is out of range)", msgs, ok)
	}
	f.rec.wait(t, "log b sent context_prepare messages that cannot be used", "index 7")
	if d := h.InterceptBeforeFork(ctx, "e1", true, "again"); !d.Cancel || d.By != "b" || d.Reason != `cancelled by extension "b"` {
		t.Errorf("InterceptBeforeFork = %+v, want b's block as a cancel", d)
	}
	if d := h.InterceptBeforeSessionSwitch(ctx, "new"); !d.Cancel || d.By != "a" || d.Reason != "unsaved plan" {
		t.Errorf("InterceptBeforeSessionSwitch = %+v, want a's cancel first", d)
	}
	if d := h.InterceptBeforeCompact(ctx, CompactInfo{EstimatedTokens: 10, IsAutomatic: true}); !d.Cancel || d.By != "b" {
		t.Errorf("InterceptBeforeCompact = %+v", d)
	}
	f.rec.wait(t, "notify a info intercept ", `"event":"before_compact","estimated_tokens":10`, `"is_automatic":true`)
}

// TestSessionShutdown checks that Close sends session_shutdown (events2)
// before shutdown while a session is active.
func TestSessionShutdown(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	dir := goExt(t, t.TempDir(), "s", "-caps", allCaps, "-events", "session_shutdown")
	cfg := f.config(dir)
	cfg.Session = &proto.Session{ID: "b1"}
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	closeHost(t, h)
	f.rec.wait(t, "notify s info event ", `"event":"session_shutdown"`)
}
