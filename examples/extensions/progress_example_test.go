package extensions_test

// progress-py, the raw Python example of docs/protocol.md (no SDK),
// loaded through the real host: its steps tool with tool_progress and
// tool_cancel, a command that blocks on a dialog while other frames keep
// flowing, the ui2 frames, the added interceptions, and the same program
// on a zut without the additions.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// dialog is a ui.* request the test answers when it chooses to.
type dialog struct {
	req    proto.UIRequest
	answer func(proto.UIResponse)
}

// startProgress starts a host on dir with a recorder whose lines also
// show prints, status priorities and widget positions. Dialogs are sent
// to the returned channel. At the end it checks that the extension
// acknowledged shutdown.
func startProgress(t *testing.T, dir string) (*host.Host, *recorder, <-chan dialog) {
	t.Helper()
	rec := newRecorder()
	dialogs := make(chan dialog, 4)
	cb := rec.callbacks()
	cb.Print = func(ext string, p proto.Print) { rec.add("print %s %s %s", ext, p.Style, p.Text) }
	cb.StatusPriority = func(ext, key string, p int) { rec.add("status_priority %s %s %d", ext, key, p) }
	cb.Widget = func(ext string, w proto.Widget) {
		rec.add("widget %s %s %s %s", ext, w.ID, w.Position, strings.Join(w.Lines, " | "))
	}
	cb.UIRequest = func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
		rec.add("dialog %s %s %s", ext, req.Kind, req.Message)
		dialogs <- dialog{req, answer}
	}
	home := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{
		Home: home, CWD: t.TempDir(), ExtDirs: []string{dir}, ZutVersion: "test", Provider: "test", Model: "test-model",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Close(context.Background())
		log, _ := os.ReadFile(host.LogPath(home, "progress-py"))
		if !strings.Contains(string(log), "shutdown acknowledged") || strings.Contains(string(log), "no exit within") {
			t.Errorf("progress-py did not acknowledge shutdown and exit; log:\n%s", log)
		}
	})
	if r := h.Diagnostics(); len(r) != 1 || r[0].Status != host.StatusOK {
		log, _ := os.ReadFile(r[0].Log)
		t.Fatalf("Diagnostics() = %+v, want progress-py ok; log:\n%s", r, log)
	}
	return h, rec, dialogs
}

// waitMatch waits until a recorded line matches re and returns it.
func (r *recorder) waitMatch(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	var found string
	eventually(t, func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, l := range r.lines {
			if re.MatchString(l) {
				found = l
				return ""
			}
		}
		return fmt.Sprintf("callbacks never got a line matching %s; they got:\n%s", re, strings.Join(r.lines, "\n"))
	})
	return found
}

// nextDialog waits for the next dialog.
func nextDialog(t *testing.T, dialogs <-chan dialog) dialog {
	t.Helper()
	select {
	case d := <-dialogs:
		return d
	case <-time.After(waitLimit):
		t.Fatal("no dialog came")
		return dialog{}
	}
}

// progressLog collects tool_progress texts; the host calls it on its
// reader goroutine.
type progressLog struct {
	mu    sync.Mutex
	texts []string
}

func (p *progressLog) add(text string) {
	p.mu.Lock()
	p.texts = append(p.texts, text)
	p.mu.Unlock()
}

func (p *progressLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.texts)
}

func TestProgressPy(t *testing.T) {
	needTool(t, "python3")
	h, rec, dialogs := startProgress(t, buildExample(t, "progress-py"))
	ctx := context.Background()

	t.Run("registrations", func(t *testing.T) {
		if got := strings.Join(h.Capabilities("progress-py"), ","); got != "events2,host_requests,intercepts2,ui2" {
			t.Errorf("Capabilities() = %s, want all four additions", got)
		}
		if s := h.Shortcuts(); len(s) != 1 || s[0].Key != "ctrl+alt+s" {
			t.Errorf("Shortcuts() = %+v, want ctrl+alt+s", s)
		}
		if r, ok := h.ToolRenderer("steps"); !ok || !r.RenderHeader || r.DisplayName != "Steps" {
			t.Errorf("ToolRenderer(steps) = %+v, %v; want a header renderer named Steps", r, ok)
		}
	})

	t.Run("tool_progress replaces", func(t *testing.T) {
		var p progressLog
		r, err := h.CallToolProgress(ctx, "steps", json.RawMessage(`{"count":3,"delay_ms":0}`), p.add)
		if err != nil || r.IsError || text(r) != "ran 3 of 3 steps" {
			t.Fatalf("steps {count 3} = %q (error %v), %v; want ran 3 of 3 steps", text(r), r.IsError, err)
		}
		// Each text is the whole progress line, so that the UI can show
		// the last one in place of the others.
		want := []string{"step 1/3 [###.......]", "step 2/3 [######....]", "step 3/3 [##########]"}
		if got := p.all(); !slices.Equal(got, want) {
			t.Errorf("progress = %q, want %q", got, want)
		}
		rec.wait(t, "status_priority progress-py steps 5")
		rec.wait(t, "widget progress-py steps right_bar 3 of 3 | [##########]")
		rec.wait(t, "widget_clear progress-py steps")
		rec.wait(t, "print progress-py info **steps**: 3 of 3 done")
	})

	t.Run("interceptions", func(t *testing.T) {
		d := h.InterceptToolResult(ctx, host.ToolResultInfo{ToolID: "t1", ToolName: "steps", Args: json.RawMessage(`{"count":3}`), Content: "ran 3 of 3 steps"})
		if !d.ContentSet || d.Content != "ran 3 of 3 steps\n(the user saw 3 progress updates)" {
			t.Errorf("InterceptToolResult(steps) = %+v, want the progress count appended", d)
		}
		if d := h.InterceptToolResult(ctx, host.ToolResultInfo{ToolID: "t2", ToolName: "read", Content: "x"}); d.ContentSet {
			t.Errorf("InterceptToolResult(read) = %+v, want it unchanged", d)
		}
		b := h.InterceptBeforeAgentStart(ctx, "go on")
		if !strings.Contains(b.SystemPrompt, "run the steps tool") || b.InjectText != "[progress-py] the last steps run: 3 of 3 steps done." {
			t.Errorf("InterceptBeforeAgentStart = %+v, want the system prompt and the last run injected", b)
		}
		if b := h.InterceptBeforeAgentStart(ctx, "again"); b.InjectText != "" {
			t.Errorf("second InterceptBeforeAgentStart inject_text = %q, want none (told once)", b.InjectText)
		}
		if d := h.InterceptInput(ctx, "?steps", "interactive"); !d.Handled {
			t.Errorf("InterceptInput(?steps) = %+v, want handled", d)
		}
		rec.wait(t, "print progress-py info last steps run: 3 of 3 steps done")
		if d := h.InterceptInput(ctx, "fix the bug", "interactive"); d.Handled || d.Text != "fix the bug" {
			t.Errorf("InterceptInput(fix the bug) = %+v, want it unchanged", d)
		}
	})

	t.Run("render_tool", func(t *testing.T) {
		done, failed := "ran 4 of 4 steps", "cancelled"
		tests := []struct {
			name string
			req  proto.RenderTool
			want string
		}{
			{"running", proto.RenderTool{ToolName: "steps", Args: json.RawMessage(`{"count":4}`), Width: 80}, "steps: 4 steps"},
			{"done", proto.RenderTool{ToolName: "steps", Args: json.RawMessage(`{"count":4}`), Result: &done, Width: 80}, "steps: 4 steps (done)"},
			{"failed", proto.RenderTool{ToolName: "steps", Args: json.RawMessage(`{"count":4}`), Result: &failed, IsError: true, Width: 80}, "steps: 4 steps (failed)"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r, err := h.RenderTool(ctx, tc.req)
				if err != nil || r.Header != tc.want || r.Body != "" {
					t.Errorf("RenderTool(%s) = %+v, %v; want header %q", tc.name, r, err, tc.want)
				}
			})
		}
	})

	t.Run("completion and shortcut", func(t *testing.T) {
		for _, tc := range []struct {
			prefix string
			want   []string
		}{{"", []string{"3", "5", "10"}}, {"1", []string{"10"}}, {"7", nil}} {
			if got, err := h.CompleteCommand(ctx, "steps", tc.prefix); err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("CompleteCommand(steps, %q) = %q, %v; want %q", tc.prefix, got, err, tc.want)
			}
		}
		if !h.PressShortcut("Ctrl+Alt+S") {
			t.Fatal("PressShortcut(Ctrl+Alt+S) = false, want the extension's key (keys compare without case)")
		}
		eventually(t, func() string {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			n := 0
			for _, l := range rec.lines {
				if l == "print progress-py info last steps run: 3 of 3 steps done" {
					n++
				}
			}
			if n < 2 {
				return "the shortcut printed no note of the last run"
			}
			return ""
		})
	})

	t.Run("a command waits for a dialog while frames flow", func(t *testing.T) {
		type result struct {
			r   proto.CommandResponse
			err error
		}
		out := make(chan result, 1)
		go func() {
			r, err := h.InvokeCommand(ctx, "steps", "")
			out <- result{r, err}
		}()
		d := nextDialog(t, dialogs)
		if d.req.Kind != proto.UISelect || d.req.Message != "How many steps?" || !slices.Equal(d.req.Options, []string{"3", "5", "10"}) {
			t.Fatalf("dialog = %+v, want the select of the step count", d.req)
		}
		// The command's thread waits; the reader still answers the rest.
		if got, err := h.CompleteCommand(ctx, "steps", "5"); err != nil || !slices.Equal(got, []string{"5"}) {
			t.Errorf("CompleteCommand during the dialog = %q, %v", got, err)
		}
		if r, err := h.CallTool(ctx, "steps", json.RawMessage(`{"count":1,"delay_ms":0}`)); err != nil || text(r) != "ran 1 of 1 steps" {
			t.Errorf("steps during the dialog = %q, %v", text(r), err)
		}
		select {
		case r := <-out:
			t.Fatalf("/steps answered %+v before the dialog was", r)
		default:
		}
		d.answer(proto.SelectAnswer("5", 1))
		r := <-out
		if r.err != nil || r.r.Action != proto.ActionPrompt || r.r.Prompt != "Run the steps tool with count 5 and tell me when it is done." {
			t.Errorf("/steps after choosing 5 = %+v, %v", r.r, r.err)
		}

		go func() {
			r, err := h.InvokeCommand(ctx, "steps", "")
			out <- result{r, err}
		}()
		nextDialog(t, dialogs).answer(proto.CancelledAnswer())
		if r := <-out; r.err != nil || r.r.Display != "steps: cancelled" {
			t.Errorf("/steps with the dialog cancelled = %+v, %v", r.r, r.err)
		}
	})

	t.Run("command arguments", func(t *testing.T) {
		got, err := h.InvokeCommand(ctx, "steps", "7")
		if err != nil || got.Prompt != "Run the steps tool with count 7 and tell me when it is done." {
			t.Errorf("/steps 7 = %+v, %v", got, err)
		}
		got, err = h.InvokeCommand(ctx, "steps", "99")
		if err != nil || !strings.HasPrefix(got.Error, "/steps takes a number of steps from 1 to 50") {
			t.Errorf("/steps 99 = %+v, %v; want an error", got, err)
		}
	})

	t.Run("tool_cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_, err := h.CallToolProgress(cctx, "steps", json.RawMessage(`{"count":50,"delay_ms":100}`), func(string) { cancel() })
		if err == nil {
			t.Fatal("CallToolProgress cancelled after the first step returned no error")
		}
		line := rec.waitMatch(t, regexp.MustCompile(`^print progress-py error \*\*steps\*\* cancelled after (\d+) of 50 steps$`))
		if strings.Contains(line, "after 50 of") {
			t.Errorf("%q: the call ran to its end; tool_cancel did not stop it", line)
		}
	})

	t.Run("invalid arguments", func(t *testing.T) {
		for _, args := range []string{`{}`, `{"count":0}`, `{"count":3,"delay_ms":-1}`, `{"count":"3"}`} {
			if r := callSteps(t, h, args); !r.IsError || !strings.HasPrefix(text(r), "steps: ") {
				t.Errorf("steps %s = %q (error %v), want an is_error result", args, text(r), r.IsError)
			}
		}
	})
}

// callSteps calls the steps tool with args.
func callSteps(t *testing.T, h *host.Host, args string) host.ToolResult {
	t.Helper()
	r, err := h.CallTool(context.Background(), "steps", json.RawMessage(args))
	if err != nil {
		t.Fatalf("CallTool(steps, %s): %v", args, err)
	}
	return r
}

// TestProgressPyOnOldHost runs progress-py behind a filter that removes
// capabilities from hello_ack, as a zut without the additions sends it:
// it says so once and keeps what protocol v2 offers.
func TestProgressPyOnOldHost(t *testing.T) {
	needTool(t, "python3")
	needTool(t, "sed")
	h, rec, _ := startProgress(t, oldHostCopy(t, "progress-py"))
	ctx := context.Background()
	rec.waitMatch(t, regexp.MustCompile(`^notify progress-py warn progress-py: this zut does not offer host_requests, events2, intercepts2, ui2 \(docs/protocol.md "Additions beyond v2"\)`))
	if s, r := h.Shortcuts(), h.ToolRenderers(); len(s) != 0 || len(r) != 0 {
		t.Errorf("Shortcuts() = %+v, ToolRenderers() = %+v; want none on a zut without ui2", s, r)
	}
	r, err := h.InvokeCommand(ctx, "steps", "")
	if err != nil || !strings.Contains(r.Error, "this zut does not offer dialogs (capability host_requests") {
		t.Errorf("/steps = %+v, %v; want an error naming host_requests", r, err)
	}
	if r, err := h.InvokeCommand(ctx, "steps", "2"); err != nil || r.Action != proto.ActionPrompt {
		t.Errorf("/steps 2 = %+v, %v; want the prompt", r, err)
	}
	var p progressLog
	res, err := h.CallToolProgress(ctx, "steps", json.RawMessage(`{"count":2,"delay_ms":0}`), p.add)
	if err != nil || text(res) != "ran 2 of 2 steps" || len(p.all()) != 0 {
		t.Errorf("steps = %q, %v, progress %q; want the result and no progress frames", text(res), err, p.all())
	}
	rec.wait(t, "notify progress-py info **steps**: 2 of 2 done")
	if d := h.InterceptBeforeAgentStart(ctx, "x"); d.InjectText != "" || d.SystemPrompt != "" {
		t.Errorf("InterceptBeforeAgentStart = %+v, want nothing (no intercepts2)", d)
	}
}
