package ext_test

// These tests run the SDK in a real extension process (this test binary,
// linked into an extension directory and re-executed) under the real
// host package.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/ext"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// testExtExe is the name under which this test binary runs as an SDK
// extension.
const testExtExe = "zut-sdk-test-extension"

// waitLimit bounds waits for something that must happen; it guards
// against hangs and is not a timing assertion.
const waitLimit = 60 * time.Second

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == testExtExe {
		if strings.HasPrefix(os.Args[1], "plus") {
			plusExtension(os.Args[1]).Run() // host_added_test.go
		} else {
			sdkExtension(os.Args[1]).Run()
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sdkExtension is the extension the test binary runs.
func sdkExtension(name string) *ext.Extension {
	e := ext.New(name, "0.0.1")
	e.Command("hi", "say hi", func(args string) ext.Response { return ext.Prompt("hi " + args) })
	e.Command("panel", "open a panel", func(string) ext.Response {
		return ext.OpenPanelResponse(ext.Panel{ID: "main", Title: "Main", Lines: []string{"one"}})
	})
	e.Command("chrome", "every one-way frame", func(string) ext.Response {
		e.Notify(ext.LevelSuccess, "done")
		e.ClearNotes()
		e.Alert(ext.AlertRequest{Kind: ext.AlertKindBell, Reason: "question_ready"})
		e.SetStatus("progress", ext.LevelInfo, "1/2")
		e.ClearStatus("progress")
		e.SetWidget("plan", ext.WidgetPositionAboveInput, "Plan", []string{"a", "b"})
		e.ClearWidget("plan")
		e.Submit("next prompt")
		e.SubmitSlash("/hi again")
		return ext.Noop()
	})
	e.Command("boom", "panics", func(string) ext.Response { panic("boom") })
	e.Tool("echo", "echo", json.RawMessage(`{"type":"object"}`), func(args json.RawMessage) ext.ToolResult {
		return ext.TextResult(string(args))
	})
	e.Tool("state", "save state", nil, func(args json.RawMessage) ext.ToolResult {
		r := ext.TextResult("saved")
		r.Details = args
		r.ActivateTools = []string{"hidden"}
		return r
	})
	e.Tool("panics", "panics", nil, func(json.RawMessage) ext.ToolResult { panic("tool boom") })
	e.DeferredTool("hidden", "deferred", nil, func(json.RawMessage) ext.ToolResult { return ext.TextResult("found") })
	e.InteractiveTool("ask", "ask", nil, func(ctx context.Context, args json.RawMessage) ext.ToolResult {
		e.OpenPanel(ext.Panel{ID: "ask", Title: "Question"})
		<-ctx.Done()
		e.ClosePanel("ask")
		e.Notify(ext.LevelInfo, "ask cancelled")
		return ext.TextErrorResult("cancelled")
	})
	e.OnPanelKey(func(k ext.PanelKey) {
		e.RenderPanel(ext.Panel{ID: k.PanelID, Title: "Main", Lines: []string{"key " + k.Key + k.Text}})
	})
	e.OnPanelClose(func(id string) { e.Notify(ext.LevelInfo, "closed "+id) })
	e.On(ext.EventSessionOpened, func(ev ext.Event) {
		e.Notify(ext.LevelInfo, fmt.Sprintf("opened %s state=%s", ev.Session.ID, ev.State))
	})
	e.On(ext.EventTurnEnd, func(ev ext.Event) { e.Notify(ext.LevelInfo, "turn ended: "+ev.Stop) })
	e.InterceptToolCallX(func(tool string, args json.RawMessage) ext.ToolCallDecision {
		if tool != "bash" {
			return ext.ToolCallDecision{}
		}
		if strings.Contains(string(args), "rm -rf /") {
			return ext.ToolCallDecision{Block: true, Reason: "refused"}
		}
		return ext.ToolCallDecision{ModifiedArgs: json.RawMessage(`{"command":"echo GUARDED","timeout":30}`)}
	})
	e.InterceptTurnStart(func(step int) ext.TurnStartDecision {
		return ext.TurnStartDecision{Context: fmt.Sprintf("step %d", step)}
	})
	e.InterceptAssistantMessage(func(text string) ext.AssistantMessageDecision {
		return ext.AssistantMessageDecision{ReplaceText: strings.ReplaceAll(text, "SECRET", "[redacted]")}
	})
	e.OnHello(func(h ext.HostInfo) {
		e.Command("where", "project and data directories", func(string) ext.Response {
			return ext.Display(h.CWD + " " + filepath.Base(h.DataDir) + " " + h.Model)
		})
	})
	return e
}

// linkExtension makes an extension directory under parent whose exec is
// this test binary, run as the SDK extension named name.
func linkExtension(tb testing.TB, parent, name string) string {
	tb.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	exe := filepath.Join(dir, testExtExe)
	if err := os.Link(self, exe); err != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	manifest := fmt.Sprintf(`{"name":%q,"version":"0.0.1","exec":"./%s","args":[%q],"language":"go"}`, name, testExtExe, name)
	if err := os.WriteFile(filepath.Join(dir, "extension.json"), []byte(manifest), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// recorder is a recording fake of host.Callbacks: every call is a line.
type recorder struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newRecorder() *recorder { return &recorder{added: make(chan struct{}, 1)} }

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recorder) callbacks() host.Callbacks {
	return host.Callbacks{
		Notify:     func(ext, level, msg string) { r.add("notify %s %s %s", ext, level, msg) },
		ClearNotes: func(ext string) { r.add("clear_notes %s", ext) },
		Alert:      func(ext, kind, reason string) { r.add("alert %s %s %s", ext, kind, reason) },
		Status:     func(ext, key, level, text string) { r.add("status %s %s %s %q", ext, key, level, text) },
		Widget: func(ext string, w proto.Widget) {
			r.add("widget %s %s %s %s %v", ext, w.ID, w.Position, w.Title, w.Lines)
		},
		WidgetClear: func(ext, id string) { r.add("widget_clear %s %s", ext, id) },
		OpenPanel:   func(ext string, p proto.Panel) { r.add("open_panel %s %s %v", ext, p.ID, p.Lines) },
		RenderPanel: func(ext string, p proto.Panel) { r.add("render_panel %s %s %v", ext, p.ID, p.Lines) },
		ClosePanel:  func(ext, id string) { r.add("close_panel %s %s", ext, id) },
		Submit:      func(ext, text string) { r.add("submit %s %s", ext, text) },
		SubmitSlash: func(ext, text string) { r.add("submit_slash %s %s", ext, text) },
		Exited:      func(ext string, err error, log string) { r.add("exited %s %v", ext, err) },
	}
}

// wait waits for the line want to be recorded.
func (r *recorder) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := slices.Contains(r.lines, want)
		lines := slices.Clone(r.lines)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.added:
		case <-deadline.C:
			t.Fatalf("callbacks never got %q; they got:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

func startHost(t *testing.T, rec *recorder) (*host.Host, string) {
	t.Helper()
	home := t.TempDir()
	dir := linkExtension(t, t.TempDir(), "sdk")
	cfg := host.Config{Home: home, CWD: "/project", ExtDirs: []string{dir}, ZutVersion: "test",
		Provider: "prov", Model: "mod", Callbacks: rec.callbacks()}
	h, err := host.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h, home
}

func TestSDKUnderRealHost(t *testing.T) {
	rec := newRecorder()
	h, home := startHost(t, rec)
	ctx := context.Background()

	reports := h.Diagnostics()
	if len(reports) != 1 || reports[0].Status != host.StatusOK {
		t.Fatalf("Diagnostics() = %+v, want one extension with status ok", reports)
	}
	var cmds, tools []string
	for _, c := range reports[0].Commands {
		cmds = append(cmds, c.Name+":"+c.State)
	}
	for _, c := range reports[0].Tools {
		tools = append(tools, c.Name+":"+c.State)
	}
	wantCmds := "hi:active panel:active chrome:active boom:active where:active"
	wantTools := "echo:active state:active panics:active hidden:active ask:active"
	if got := strings.Join(cmds, " "); got != wantCmds {
		t.Errorf("commands = %s, want %s", got, wantCmds)
	}
	if got := strings.Join(tools, " "); got != wantTools {
		t.Errorf("tools = %s, want %s", got, wantTools)
	}

	t.Run("commands", func(t *testing.T) {
		tests := []struct {
			name, args string
			want       proto.CommandResponse
		}{
			{"hi", "there", proto.CommandResponse{Action: "prompt", Prompt: "hi there"}},
			{"HI", "", proto.CommandResponse{Action: "prompt", Prompt: "hi "}},
			{"where", "", proto.CommandResponse{Action: "display", Display: "/project sdk mod"}},
			{"boom", "", proto.CommandResponse{Action: "noop", Error: `command /boom of extension "sdk" failed with an internal error; its log has the details`}},
		}
		for _, tc := range tests {
			got, err := h.InvokeCommand(ctx, tc.name, tc.args)
			got.ID = ""
			if err != nil || got != tc.want {
				t.Errorf("InvokeCommand(%q, %q) = %+v, %v; want %+v", tc.name, tc.args, got, err, tc.want)
			}
		}
	})

	t.Run("one-way frames", func(t *testing.T) {
		if _, err := h.InvokeCommand(ctx, "chrome", ""); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"notify sdk success done", "clear_notes sdk", "alert sdk bell question_ready",
			`status sdk progress info "1/2"`, `status sdk progress info ""`,
			"widget sdk plan above_input Plan [a b]", "widget_clear sdk plan",
			"submit sdk next prompt", "submit_slash sdk /hi again",
		} {
			rec.wait(t, want)
		}
	})

	t.Run("tools", func(t *testing.T) {
		res, err := h.CallTool(ctx, "echo", json.RawMessage(`{"city":"Berlin"}`))
		if err != nil || res.IsError || res.Content[0].Text != `{"city":"Berlin"}` {
			t.Errorf("CallTool(echo) = %+v, %v", res, err)
		}
		if _, err := h.CallTool(ctx, "hidden", nil); err == nil {
			t.Errorf("CallTool(hidden) before activation succeeded, want an error")
		}
		res, err = h.CallTool(ctx, "state", json.RawMessage(`{"v":1}`))
		if err != nil || !res.StateSet || string(res.State) != `{"v":1}` || !slices.Equal(res.Activated, []string{"hidden"}) {
			t.Errorf("CallTool(state) = %+v, %v; want state {\"v\":1} and hidden activated", res, err)
		}
		res, err = h.CallTool(ctx, "hidden", nil)
		if err != nil || res.Content[0].Text != "found" {
			t.Errorf("CallTool(hidden) after activation = %+v, %v", res, err)
		}
		res, err = h.CallTool(ctx, "panics", nil)
		if err != nil || !res.IsError {
			t.Errorf("CallTool(panics) = %+v, %v; want an is_error result", res, err)
		}
	})

	t.Run("interactive tool cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := h.CallTool(cctx, "ask", nil)
			done <- err
		}()
		rec.wait(t, "open_panel sdk ask []")
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool(ask) after cancel = %v, want context.Canceled", err)
		}
		// The SDK got tool_cancel (it advertised the capability) and
		// cancelled the handler's context.
		rec.wait(t, "close_panel sdk ask")
		rec.wait(t, "notify sdk info ask cancelled")
	})

	t.Run("panels", func(t *testing.T) {
		resp, err := h.InvokeCommand(ctx, "panel", "")
		if err != nil || resp.Action != "open_panel" {
			t.Fatalf("InvokeCommand(panel) = %+v, %v", resp, err)
		}
		rec.wait(t, "open_panel sdk main [one]")
		h.PanelKey("main", "rune", "x")
		rec.wait(t, "render_panel sdk main [key runex]")
		h.PanelClosed("main")
		rec.wait(t, "notify sdk info closed main")
	})

	t.Run("events", func(t *testing.T) {
		h.SetSession(&proto.Session{ID: "b7"}, map[string]json.RawMessage{"sdk": json.RawMessage(`{"n":2}`)})
		h.Emit(proto.Event{Name: proto.EventSessionOpened})
		rec.wait(t, `notify sdk info opened b7 state={"n":2}`)
		h.Emit(proto.Event{Name: proto.EventTurnEnd, Stop: proto.StopEndTurn})
		rec.wait(t, "notify sdk info turn ended: end_turn")
	})

	t.Run("intercepts", func(t *testing.T) {
		d := h.InterceptToolCall(ctx, "tu1", "bash", json.RawMessage(`{"command":"rm -rf /","timeout":5}`))
		if !d.Block || d.Reason != "refused" {
			t.Errorf("InterceptToolCall(rm -rf /) = %+v, want blocked", d)
		}
		d = h.InterceptToolCall(ctx, "tu2", "bash", json.RawMessage(`{"command":"ls","timeout":5}`))
		if d.Block || string(d.Args) != `{"command":"echo GUARDED","timeout":30}` {
			t.Errorf("InterceptToolCall(ls) = %+v, want rewritten args", d)
		}
		ts := h.InterceptTurnStart(ctx, 4)
		if ts.Block || ts.Context != "[sdk] step 4" {
			t.Errorf("InterceptTurnStart(4) = %+v, want context [sdk] step 4", ts)
		}
		am := h.InterceptAssistantMessage(ctx, "a SECRET")
		if am.Block || am.Text != "a [redacted]" {
			t.Errorf("InterceptAssistantMessage = %+v, want redacted text", am)
		}
	})

	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(host.LogPath(home, "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shutdown acknowledged", "command /boom panicked: boom", `tool "panics" panicked: tool boom`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "no exit within") {
		t.Errorf("the extension did not exit after shutdown_ack:\n%s", log)
	}
}

// BenchmarkToolRoundTrip measures host.CallTool to an SDK extension
// process and back; the target is a median under 150 µs.
func BenchmarkToolRoundTrip(b *testing.B) {
	dir := linkExtension(b, b.TempDir(), "bench")
	h, err := host.Start(context.Background(), host.Config{Home: b.TempDir(), CWD: b.TempDir(), ExtDirs: []string{dir}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	if r := h.Diagnostics(); r[0].Status != host.StatusOK {
		b.Fatalf("extension did not load: %+v", r)
	}
	ctx := context.Background()
	args := json.RawMessage(`{"city":"Berlin"}`)
	var durations []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := h.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "µs-median")
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "µs-p99")
}

// BenchmarkSDKToolCall measures one tool call through RunIO alone, with
// the host side scripted over pipes: the SDK's share of a round trip.
func BenchmarkSDKToolCall(b *testing.B) {
	e := ext.New("bench", "1")
	e.Tool("echo", "echo", nil, func(args json.RawMessage) ext.ToolResult { return ext.TextResult(string(args)) })
	hostR, hostW := io.Pipe()
	extR, extW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- e.RunIO(context.Background(), hostR, extW); extW.Close() }()
	rd := proto.NewReader(extR, 0)
	w := proto.NewWriter(hostW)
	rd.Read() // hello
	w.Write(proto.HelloAck{ProtocolVersion: 2})
	for f, err := rd.Read(); err == nil && f.Type() != "ready"; f, err = rd.Read() {
	}
	args := json.RawMessage(`{"city":"Berlin"}`)
	i := 0
	for b.Loop() {
		i++
		w.Write(proto.ToolCall{ID: fmt.Sprint(i), Name: "echo", Args: args})
		if _, err := rd.Read(); err != nil {
			b.Fatal(err)
		}
	}
	hostW.Close()
	<-done
}
