package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// TestInterceptChains runs the three chains across two extensions in load
// order (C15).
func TestInterceptChains(t *testing.T) {
	all := "tool_call,turn_start,assistant_message"
	tests := []struct {
		name   string
		first  []string // flags of the first interceptor (loaded first: --ext)
		second []string
		check  func(t *testing.T, h *Host, f *fixture)
	}{
		{"tool_call rewrites chain", []string{"-rewrite", `{"command":"echo one","timeout":30}`}, []string{"-rewrite", `{"command":"echo two","timeout":30}`},
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptToolCall(context.Background(), "t1", "bash", json.RawMessage(`{"command":"rm -rf /"}`))
				if d.Block || d.By != "b" || string(d.Args) != `{"command":"echo two","timeout":30}` {
					t.Errorf("InterceptToolCall = %+v, want b's rewrite", d)
				}
				f.rec.wait(t, "notify b info saw args ", "echo one") // b saw a's output
			}},
		{"tool_call first block wins", []string{"-block", "no rm"}, []string{"-block", "never asked"},
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptToolCall(context.Background(), "t1", "bash", json.RawMessage(`{}`))
				if !d.Block || d.Reason != "no rm" || d.By != "a" {
					t.Errorf("InterceptToolCall = %+v, want a's block", d)
				}
				goExtCommandProbe(t, h, f, "b")
				if f.rec.count("notify b info saw args") != 0 {
					t.Errorf("b was asked after a blocked")
				}
			}},
		{"tool_call invalid rewrite ignored", []string{"-rewrite", `["not","object"]`}, nil,
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptToolCall(context.Background(), "t1", "bash", json.RawMessage(`{"x":1}`))
				if d.Block || string(d.Args) != `{"x":1}` {
					t.Errorf("InterceptToolCall = %+v, want the original args", d)
				}
				f.rec.wait(t, "log a ", "not a JSON object")
			}},
		{"turn_start context joined", []string{"-context", "  phase one \n"}, []string{"-context", "phase two"},
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptTurnStart(context.Background(), 3)
				if d.Block || d.Context != "[a] phase one\n\n[b] phase two" {
					t.Errorf("InterceptTurnStart = %+v", d)
				}
			}},
		{"turn_start block", nil, []string{"-block", "after hours"},
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptTurnStart(context.Background(), 1)
				if !d.Block || d.Reason != "after hours" || d.By != "b" || d.Context != "" {
					t.Errorf("InterceptTurnStart = %+v", d)
				}
			}},
		{"assistant_message replace chains", []string{"-replace", "[redacted]"}, []string{"-replace", "[redacted twice]"},
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptAssistantMessage(context.Background(), "key sk-123")
				if d.Block || d.Text != "[redacted twice]" || d.By != "b" {
					t.Errorf("InterceptAssistantMessage = %+v", d)
				}
				f.rec.wait(t, "notify b info saw text [redacted]")
			}},
		{"timeout allows", []string{"-intercept-sleep", "2s", "-block", "too late"}, nil,
			func(t *testing.T, h *Host, f *fixture) {
				d := h.InterceptToolCall(context.Background(), "t1", "read", json.RawMessage(`{}`))
				if d.Block {
					t.Errorf("InterceptToolCall = %+v, want allow after the timeout", d)
				}
				f.rec.wait(t, "log a did not answer the tool_call interception within 100ms")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkNoLeaks(t)
			f := newFixture(t)
			a := goExt(t, t.TempDir(), "a", append([]string{"-intercept", all}, tc.first...)...)
			dirs := []string{a}
			if tc.second != nil {
				dirs = append(dirs, goExt(t, t.TempDir(), "b", append([]string{"-intercept", all, "-events", "probe"}, tc.second...)...))
			}
			cfg := f.config(dirs...)
			cfg.Timeouts.Intercept = 100 * time.Millisecond
			if !strings.Contains(tc.name, "timeout") {
				cfg.Timeouts.Intercept = 30 * time.Second
			}
			h := f.start(t, cfg)
			if !h.Intercepts(proto.EventToolCall) || h.Intercepts(proto.EventTurnEnd) {
				t.Fatalf("Intercepts() does not match the subscriptions")
			}
			tc.check(t, h, f)
		})
	}
}

// TestEmit checks subscriptions, ordering (C11) and that session events
// carry only the receiver's own state.
func TestEmit(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "s1", "-events", "session_switched,turn_start,turn_end")
	goExt(t, f.global(), "s2", "-events", "session_switched")
	h := f.start(t, f.config())
	h.SetSession(&proto.Session{ID: "b2", ParentID: "b1", ForkPoint: 3}, map[string]json.RawMessage{
		"s1": json.RawMessage(`{"mine":1}`), "s2": json.RawMessage(`{"theirs":2}`),
	})
	h.Emit(proto.Event{Name: proto.EventSessionSwitched})
	for i := 1; i <= 20; i++ {
		h.Emit(proto.Event{Name: proto.EventTurnStart, Step: i, State: json.RawMessage(`{"leak":true}`)})
	}
	h.Emit(proto.Event{Name: proto.EventTurnEnd, Stop: proto.StopEndTurn})
	f.rec.wait(t, "notify s1 info event ", `"turn_end"`)
	s1 := f.rec.wait(t, "notify s1 info event ", "session_switched")
	s2 := f.rec.wait(t, "notify s2 info event ", "session_switched")
	if !strings.Contains(s1, `"session":{"id":"b2","parent_id":"b1","fork_point":3},"state":{"mine":1}`) || strings.Contains(s1, "theirs") {
		t.Errorf("s1 got %s, want its own state only", s1)
	}
	if !strings.Contains(s2, `"state":{"theirs":2}`) || strings.Contains(s2, "mine") {
		t.Errorf("s2 got %s, want its own state only", s2)
	}
	if f.rec.count("notify s2 info event ", "turn_") != 0 {
		t.Errorf("s2 got turn events it did not subscribe to")
	}
	// Order: session_switched, turn_start 1..20, turn_end.
	var seq []string
	for _, l := range strings.Split(f.rec.dump(), "\n") {
		if strings.HasPrefix(l, "notify s1 info event ") {
			var ev proto.Event
			json.Unmarshal([]byte(strings.TrimPrefix(l, "notify s1 info event ")), &ev)
			if ev.State != nil && ev.Name == proto.EventTurnStart {
				t.Errorf("turn_start carried state %s", ev.State)
			}
			seq = append(seq, ev.Name+string(rune('@'+ev.Step)))
		}
	}
	want := []string{"session_switched@"}
	for i := 1; i <= 20; i++ {
		want = append(want, "turn_start"+string(rune('@'+i)))
	}
	want = append(want, "turn_end@")
	if strings.Join(seq, " ") != strings.Join(want, " ") {
		t.Errorf("s1 saw %v, want %v", seq, want)
	}
}

// TestPanels checks the single panel slot (C17).
func TestPanels(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "p1", "-commands", "panel,render,close")
	goExt(t, f.global(), "p2", "-commands", "panel2")
	h := f.start(t, f.config())
	ctx := context.Background()
	resp, err := h.InvokeCommand(ctx, "panel", "first")
	if err != nil || resp.Action != proto.ActionOpenPanel {
		t.Fatalf("InvokeCommand(panel) = %+v, %v", resp, err)
	}
	f.rec.wait(t, "open_panel p1 p1-panel [first]")
	if ext, id := h.Panel(); ext != "p1" || id != "p1-panel" {
		t.Errorf("Panel() = %s, %s", ext, id)
	}
	h.PanelKey("p1-panel", "rune", "x")
	h.PanelKey("other", "down", "")
	f.rec.wait(t, "notify p1 info key p1-panel rune x")
	h.InvokeCommand(ctx, "render", "")
	f.rec.wait(t, "render_panel p1 p1-panel [redrawn]")

	// p2's panel replaces p1's: p1 is told.
	if _, err := h.InvokeCommand(ctx, "panel2", "second"); err != nil {
		t.Fatal(err)
	}
	f.rec.wait(t, "notify p1 info panel_close p1-panel")
	// p1's render for a closed panel is ignored.
	h.InvokeCommand(ctx, "render", "")
	goExtCommandProbe(t, h, f, "p1")
	if f.rec.count("render_panel") != 1 {
		t.Errorf("a render for a replaced panel reached the UI")
	}
	// The user closes p2's panel.
	_, id := h.Panel()
	h.PanelClosed(id)
	f.rec.wait(t, "notify p2 info panel_close "+id)
	if ext, _ := h.Panel(); ext != "" {
		t.Errorf("Panel() = %s after close, want empty", ext)
	}
	// The owner closes its own panel.
	h.InvokeCommand(ctx, "panel", "again")
	h.InvokeCommand(ctx, "close", "")
	f.rec.wait(t, "close_panel p1 p1-panel")
}
