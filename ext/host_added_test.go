package ext_test

// The SDK's additions beyond v2, run in real extension processes under
// the real host package.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/ext"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// plusExtension is the SDK extension of these tests (named plus-*).
func plusExtension(name string) *ext.Extension {
	e := ext.New(name, "0.0.1")
	e.Use(ext.CapHostRequests, ext.CapUI2)
	ctx := context.Background()
	e.Command("ask", "ask the user", func(args string) ext.Response {
		r, err := e.Select(ctx, ext.SelectRequest{Message: args, Options: []string{"staging", "production"}})
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		ok, err := e.Confirm(ctx, ext.ConfirmRequest{Message: "deploy to " + r.Value + "?"})
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Display(fmt.Sprintf("%s %v %v", r.Value, ok.Value, ok.Cancelled))
	})
	e.Command("info", "session and model", func(string) ext.Response {
		s, err := e.SessionInfo(ctx)
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		m, err := e.Model(ctx)
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		var chunks []string
		c, err := e.Complete(ctx, ext.CompleteRequest{Prompt: "hi", OnChunk: func(s string) { chunks = append(chunks, s) }})
		if err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Display(fmt.Sprintf("%s %s %s %s %v", s.ID, s.Branch.ID, m.Model, c.Text, chunks))
	})
	e.Command("emit", "emit a custom event", func(args string) ext.Response {
		if err := e.EmitCustom(ctx, "ping", args); err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Noop()
	})
	e.Command("none", "nothing", func(string) ext.Response { return ext.Noop() })
	e.Command("one", "one host request", func(string) ext.Response {
		if _, err := e.Model(ctx); err != nil {
			return ext.ErrorResponse(err.Error())
		}
		return ext.Noop()
	})
	e.Command("print", "a note", func(args string) ext.Response {
		e.Print(ext.StyleInfo, args)
		return ext.Noop()
	})
	e.OnCustom("ping", func(c ext.CustomEvent) {
		e.Notify(ext.LevelInfo, "custom "+c.Name+" "+string(c.Data)+" from "+c.From)
	})
	e.Shortcut("ctrl+alt+p", "toggle", func() {
		// A shortcut handler may ask the host too.
		m, _ := e.Model(ctx)
		e.Notify(ext.LevelInfo, "shortcut with model "+m.Model)
	})
	// Any accepted spelling claims the key; a name no key has is refused.
	e.Shortcut("Alt + Ctrl + Q", "spelled loosely", func() { e.Notify(ext.LevelInfo, "shortcut q") })
	e.Shortcut("ctrl+bogus", "no such key", func() { e.Notify(ext.LevelInfo, "shortcut bogus") })
	e.AddTool(ext.ToolSpec{Name: name + "_task", Description: "progress", Handler: func(ctx context.Context, tc ext.ToolContext, args json.RawMessage) ext.ToolResult {
		tc.Progress("half")
		return ext.TextResult("done")
	}})
	e.On(ext.EventAgentEnd, func(ev ext.Event) { e.Notify(ext.LevelInfo, "agent_end "+ev.Stop+" "+ev.Response) })
	e.InterceptToolResult(func(r ext.ToolResultEvent) ext.ToolResultDecision {
		s := strings.ToUpper(r.Content)
		return ext.ToolResultDecision{Content: &s}
	})
	e.InterceptInput(func(text, source string) ext.InputDecision {
		if text == "/handled" {
			// An interceptor may ask the user before it decides.
			r, err := e.Confirm(ctx, ext.ConfirmRequest{Message: "consume?"})
			return ext.InputDecision{Handled: err == nil && r.Value}
		}
		return ext.InputDecision{}
	})
	return e
}

func TestSDKAdditionsUnderRealHost(t *testing.T) {
	rec := newRecorder()
	home := t.TempDir()
	a := linkExtension(t, t.TempDir(), "plus-a")
	b := linkExtension(t, t.TempDir(), "plus-b")
	cb := rec.callbacks()
	cb.UIRequest = func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
		rec.add("dialog %s %s %s", ext, req.Kind, req.Message)
		switch req.Kind {
		case proto.UISelect:
			// Past the command deadline: waiting on the user must not count.
			time.AfterFunc(2*time.Second, func() { answer(proto.SelectAnswer("production", 1)) })
		case proto.UIConfirm:
			answer(proto.ConfirmAnswer(true))
		}
	}
	cb.Print = func(ext string, p proto.Print) { rec.add("print %s %s %s", ext, p.Style, p.Text) }
	cb.HostRequest = func(ctx context.Context, r *host.Request) {
		switch r.Method {
		case proto.MethodSessionInfo:
			r.Respond(proto.SessionInfo{ID: "s1", CWD: "/p", Branch: &proto.Session{ID: "b1"}}, nil)
		case proto.MethodModelGet:
			r.Respond(proto.ModelInfo{Model: "fake/m1", Provider: "fake", ID: "m1"}, nil)
		case proto.MethodLLMComplete:
			r.Stream("Hel")
			r.Stream("lo")
			r.Respond(proto.CompleteResult{Text: "Hello", Model: "fake/m1"}, nil)
		default:
			r.Respond(nil, fmt.Errorf("%s: not in this test", r.Method))
		}
	}
	h, err := host.Start(context.Background(), host.Config{
		Home: home, CWD: t.TempDir(), ExtDirs: []string{a, b}, ZutVersion: "test",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
		// A command deadline generous for a loaded machine under -race.
		Timeouts: host.Timeouts{Command: 1500 * time.Millisecond, Shutdown: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	for _, r := range h.Diagnostics() {
		if r.Status != host.StatusOK || len(r.Capabilities) != 4 {
			t.Fatalf("report %+v, want ok with the four additions", r)
		}
	}

	// A command that waits on two dialogs outlives its 500 ms deadline:
	// the host does not time it out while it waits on the user.
	resp, err := h.InvokeCommand(ctx, "ask", "where?")
	if err != nil || resp.Display != "production true false" {
		t.Fatalf("ask = %+v, %v", resp, err)
	}
	resp, err = h.InvokeCommand(ctx, "info", "")
	if err != nil || resp.Display != "s1 b1 fake/m1 Hello [Hel lo]" {
		t.Fatalf("info = %+v, %v", resp, err)
	}
	if _, err := h.InvokeCommand(ctx, "emit", "payload"); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, `notify plus-b info custom ping "payload" from plus-a`)
	if _, err := h.InvokeCommand(ctx, "print", "hello"); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "print plus-a info hello")

	if !h.PressShortcut("ctrl+alt+p") {
		t.Fatalf("PressShortcut found no owner")
	}
	rec.wait(t, "notify plus-a info shortcut with model fake/m1")
	if !h.PressShortcut("ctrl+alt+q") {
		t.Fatalf("PressShortcut(ctrl+alt+q) found no owner; want the key claimed as %q", "Alt + Ctrl + Q")
	}
	rec.wait(t, "notify plus-a info shortcut q")
	if h.PressShortcut("ctrl+bogus") {
		t.Errorf("PressShortcut(ctrl+bogus) = true, want the claim refused")
	}
	for _, r := range h.Diagnostics() {
		if r.Name == "plus-a" && !slices.ContainsFunc(r.Warnings, func(w string) bool {
			return strings.Contains(w, `ignored register_shortcut key "ctrl+bogus": unknown key name "bogus"`)
		}) {
			t.Errorf("warnings of plus-a = %q, want the refused ctrl+bogus", r.Warnings)
		}
	}

	var progress []string
	r, err := h.CallToolProgress(ctx, "plus-b_task", nil, func(s string) { progress = append(progress, s) })
	if err != nil || r.Content[0].Text != "done" || strings.Join(progress, ",") != "half" {
		t.Fatalf("CallToolProgress = %+v, %v, %v", r, err, progress)
	}

	d := h.InterceptToolResult(ctx, host.ToolResultInfo{ToolName: "read", Content: "abc"})
	if !d.ContentSet || d.Content != "ABC" {
		t.Errorf("InterceptToolResult = %+v, want both extensions' rewrite", d)
	}
	if d := h.InterceptInput(ctx, "/handled", "cli"); !d.Handled || d.By != "plus-a" {
		t.Errorf("InterceptInput = %+v, want plus-a's handled after its dialog", d)
	}
	h.Emit(proto.Event{Name: proto.EventAgentEnd, Response: "Done.", Stop: proto.AgentCompleted})
	rec.wait(t, "notify plus-b info agent_end completed Done.")
}

// BenchmarkHostRequest measures a command that makes one host request
// (model.get) against one that makes none, through the real host and a
// real SDK process; the difference is the cost of a host request round
// trip.
func BenchmarkHostRequest(b *testing.B) {
	dir := linkExtension(b, b.TempDir(), "plus-bench")
	cb := host.Callbacks{HostRequest: func(ctx context.Context, r *host.Request) {
		r.Respond(proto.ModelInfo{Model: "fake/m1"}, nil)
	}}
	h, err := host.Start(context.Background(), host.Config{Home: b.TempDir(), CWD: b.TempDir(), ExtDirs: []string{dir}, Callbacks: cb})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, cmd := range []string{"none", "one"} {
		b.Run(cmd, func(b *testing.B) {
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				if r, err := h.InvokeCommand(context.Background(), cmd, ""); err != nil || r.Error != "" {
					b.Fatal(err, r.Error)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "µs-median")
		})
	}
}
