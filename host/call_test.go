package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

func TestCallTool(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "tk", "-tools", "echo,details,big_details,activate,lookup!,wrong_id,broken_reply")
	h := f.start(t, f.config())
	ctx := context.Background()

	text := func(r ToolResult) string {
		var parts []string
		for _, b := range r.Content {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "|")
	}
	tests := []struct {
		name      string
		tool      string
		args      string
		wantText  string
		wantState string // "-" for StateSet false, "<nil>" for a cleared state
		wantWarn  string
	}{
		{"echo", "echo", `{"a":1}`, `tk:echo:{"a":1}`, "-", ""},
		{"nil args become an object", "echo", ``, `tk:echo:{}`, "-", ""},
		{"C19 details saved", "details", `{"details":{"v":1}}`, "ok", `{"v":1}`, ""},
		{"C19 null clears", "details", `{"details":null}`, "ok", "<nil>", ""},
		{"C19 over 256 KiB not saved", "big_details", `{"size":300000}`, "big", "-", "over the 256 KiB limit"},
		{"C13 reply for an unknown id ignored", "wrong_id", `{}`, "right", "-", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.CallTool(ctx, tc.tool, json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("CallTool(%q, %s) error: %v", tc.tool, tc.args, err)
			}
			state := "-"
			if res.StateSet {
				state = "<nil>"
				if res.State != nil {
					state = string(res.State)
				}
			}
			if text(res) != tc.wantText || state != tc.wantState || !strings.Contains(res.Warning, tc.wantWarn) || res.Extension != "tk" {
				t.Errorf("CallTool(%q, %s) = text %q state %s warning %q, want %q %s %q",
					tc.tool, tc.args, text(res), state, res.Warning, tc.wantText, tc.wantState, tc.wantWarn)
			}
		})
	}
	if !strings.Contains(readLog(t, LogPath(f.home, "tk")), `ignored tool_result for id "no-such-`) {
		t.Errorf("log of tk does not mention the reply for an unknown id")
	}

	// The broken reply fails its call at once instead of timing out.
	_, err := h.CallTool(ctx, "broken_reply", nil)
	if err == nil || !strings.Contains(err.Error(), "unusable tool_result") {
		t.Errorf("CallTool(broken_reply) = %v, want an unusable tool_result error", err)
	}

	// Deferred tools are hidden until a result activates them.
	if hasTool(h, "lookup") {
		t.Fatalf("deferred tool lookup is offered before activation")
	}
	if _, err := h.CallTool(ctx, "lookup", nil); err == nil {
		t.Errorf("CallTool(lookup) before activation = nil error, want one")
	}
	res, err := h.CallTool(ctx, "activate", json.RawMessage(`{"names":["lookup","echo","nope"]}`))
	if err != nil || fmt.Sprint(res.Activated) != "[lookup]" {
		t.Fatalf("CallTool(activate) = %+v, %v, want lookup activated", res, err)
	}
	f.rec.wait(t, "tools_changed")
	if !hasTool(h, "lookup") {
		t.Errorf("Tools() lacks lookup after activation")
	}
	if _, err := h.CallTool(ctx, "lookup", nil); err != nil {
		t.Errorf("CallTool(lookup) after activation: %v", err)
	}
	if got := h.States(); string(got["tk"]) != "" {
		t.Errorf("States() = %s, want tk's state cleared by the null details", got)
	}
}

func hasTool(h *Host, name string) bool {
	for _, t := range h.Tools() {
		if t.Name == name {
			return true
		}
	}
	return false
}

// TestToolCancel checks tool_cancel: sent on timeout and on cancellation
// of a delivered call, only to extensions that advertised it (C6), and
// that an interactive tool has no deadline (C14).
func TestToolCancel(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "adv", "-caps", "tool_cancel", "-tools", "slow,ask?")
	goExt(t, f.global(), "plain", "-tools", "slow2")
	cfg := f.config()
	cfg.Timeouts.Tool = 200 * time.Millisecond
	h := f.start(t, cfg)

	_, err := h.CallTool(context.Background(), "slow", nil)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), `extension "adv" sent no tool_result within 200ms`) {
		t.Fatalf("CallTool(slow) = %v, want a *TimeoutError", err)
	}
	id := strings.TrimPrefix(f.rec.wait(t, "notify adv info started "), "notify adv info started ")
	f.rec.wait(t, "notify adv info tool_cancel "+id)

	// Interactive: outlives the tool timeout, ends with ctx.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(ctx, "ask", nil)
		done <- err
	}()
	f.rec.waitCount(t, 2, "notify adv info started ")
	// Past the tool timeout an interactive call still waits.
	time.Sleep(2 * cfg.Timeouts.Tool)
	select {
	case err := <-done:
		t.Fatalf("interactive CallTool returned %v before its context ended", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("interactive CallTool after cancel = %v, want context.Canceled", err)
	}
	f.rec.waitCount(t, 2, "notify adv info tool_cancel ")

	// Not advertised: no tool_cancel, ever. A command to the same
	// extension afterwards proves the frame would have arrived by now
	// (one FIFO per extension, C11).
	if _, err := h.CallTool(context.Background(), "slow2", nil); !errors.As(err, &te) {
		t.Fatalf("CallTool(slow2) = %v, want a timeout", err)
	}
	goExtCommandProbe(t, h, f, "plain")
	if n := f.rec.count("notify plain info tool_cancel"); n != 0 {
		t.Errorf("plain got %d tool_cancel frames, want none: it did not advertise tool_cancel", n)
	}
}

// goExtCommandProbe sends an event to ext and waits for its echo, which
// proves every frame queued before it was delivered.
func goExtCommandProbe(t *testing.T, h *Host, f *fixture, ext string) {
	t.Helper()
	e := h.ext(ext)
	marker := fmt.Sprintf("probe-%d", time.Now().UnixNano())
	h.subscribed.Store(true)
	e.mu.Lock()
	e.events["probe"] = true
	e.mu.Unlock()
	h.Emit(proto.Event{Name: "probe", Text: marker})
	f.rec.wait(t, "notify "+ext+" info event ", marker)
}

// TestCrashMidCall: the pending call fails at once naming the extension
// (C14), the extension leaves the indexes and the UI is told (C20).
func TestCrashMidCall(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "crashy", "-tools", "crash,other", "-commands", "boom")
	goExt(t, f.global(), "steady", "-tools", "echo")
	cfg := f.config()
	cfg.Timeouts.Tool = time.Hour // a failure must not wait for it
	h := f.start(t, cfg)
	pid := h.ext("crashy").p.pid
	_, err := h.CallTool(context.Background(), "crash", nil)
	var se *StoppedError
	if !errors.As(err, &se) || se.Extension != "crashy" || !strings.Contains(err.Error(), "exit status 7") ||
		!strings.Contains(err.Error(), LogPath(f.home, "crashy")) {
		t.Fatalf("CallTool(crash) = %v, want a *StoppedError naming crashy, exit status 7 and its log", err)
	}
	f.rec.wait(t, "clear_chrome crashy")
	line := f.rec.wait(t, "exited crashy")
	if !strings.Contains(line, "exit status 7") || !strings.Contains(line, "log "+LogPath(f.home, "crashy")) {
		t.Errorf("Exited callback = %q, want the exit status and log", line)
	}
	f.rec.wait(t, "tools_changed")
	if hasTool(h, "other") || len(h.Commands()) != 0 {
		t.Errorf("crashy's tools or commands are still offered: %v %v", h.Tools(), h.Commands())
	}
	if _, err := h.CallTool(context.Background(), "echo", nil); err != nil {
		t.Errorf("steady stopped working after crashy crashed: %v", err)
	}
	if r := report(t, h.Diagnostics(), "crashy"); r.Status != StatusError || !strings.Contains(r.Error, "exit status 7") {
		t.Errorf("report of crashy = %+v, want error with the exit status", r)
	}
	waitGone(t, pid)
}

// TestReplyThenExit: a reply written just before exiting is delivered.
func TestReplyThenExit(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "brief", "-tools", "exit_after_reply")
	h := f.start(t, f.config())
	res, err := h.CallTool(context.Background(), "exit_after_reply", nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "last words" {
		t.Fatalf("CallTool(exit_after_reply) = %+v, %v, want its last words", res, err)
	}
	f.rec.wait(t, "exited brief")
}

func TestInvokeCommand(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "cmds", "-commands", "Weather,silent")
	cfg := f.config()
	cfg.Timeouts.Command = 2 * time.Second // answering commands must not miss it on a loaded machine
	h := f.start(t, cfg)
	tests := []struct {
		name, cmd, args, want string
	}{
		{"canonical spelling", "weather", "  berlin  ", "ran Weather berlin"},
		{"any case with slash", "/WEATHER", "", "ran Weather "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := h.InvokeCommand(context.Background(), tc.cmd, tc.args)
			if err != nil || resp.Action != proto.ActionDisplay || resp.Display != tc.want {
				t.Errorf("InvokeCommand(%q, %q) = %+v, %v, want display %q", tc.cmd, tc.args, resp, err, tc.want)
			}
		})
	}
	var te *TimeoutError
	if _, err := h.InvokeCommand(context.Background(), "silent", ""); !errors.As(err, &te) {
		t.Errorf("InvokeCommand(silent) = %v, want a *TimeoutError", err)
	}
	if _, err := h.InvokeCommand(context.Background(), "nope", ""); err == nil {
		t.Errorf("InvokeCommand(nope) = nil error, want one")
	}
}

// TestChromeFrames checks the one-way frames reach the callbacks,
// normalised (C18), in order.
func TestChromeFrames(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "ui", "-commands", "chrome")
	h := f.start(t, f.config())
	if _, err := h.InvokeCommand(context.Background(), "chrome", ""); err != nil {
		t.Fatal(err)
	}
	f.rec.wait(t, "clear_notes ui")
	want := []string{
		"status ui k warn busy",
		"widget ui w above_input [l]",
		"alert ui bell r",
		"submit ui go on",
		"submit_slash ui /other x",
		"open_panel ui standalone [s]",
		"widget_clear ui w",
		"clear_notes ui",
	}
	var got []string
	for _, l := range strings.Split(f.rec.dump(), "\n") {
		if strings.HasPrefix(l, "notify") || strings.HasPrefix(l, "tools_") || strings.HasPrefix(l, "commands_") {
			continue
		}
		got = append(got, l)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("callbacks =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
