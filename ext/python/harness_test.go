package python_test

// The harness of the SDK tests: an extension directory holding a copy of
// the SDK and a test program, a recording of the host's callbacks, and a
// fake of zut's app answering host requests.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/ext/python"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// waitLimit guards waits for something that must happen; it is not a
// timing assertion.
const waitLimit = 30 * time.Second

func needRuntime(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH; the Python SDK tests run the SDK in real Python processes")
	}
}

// extDir writes an extension directory for the program testdata/<prog>:
// extension.json, the program and the SDK. A non-empty filter is a sed
// command that every line from the host goes through before the program
// reads it (a shell wrapper runs both).
func extDir(t testing.TB, name, prog, filter string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", prog))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(prog)
	write(t, filepath.Join(dir, base), src, 0o755)
	write(t, filepath.Join(dir, python.FileName), python.Source(), 0o644)
	exe := "./" + base
	if filter != "" {
		write(t, filepath.Join(dir, "wrap.sh"), []byte(fmt.Sprintf(wrapScript, filter, exe)), 0o755)
		exe = "./wrap.sh"
	}
	m, _ := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "exec": exe, "language": "python"})
	write(t, filepath.Join(dir, "extension.json"), m, 0o644)
	return dir
}

// wrapScript runs a filter (%s) on the host's lines through a FIFO and
// execs the program (%s) on its output, so that the program's exit is the
// extension's exit; the host kills the filter with the process group.
const wrapScript = `#!/bin/sh
fifo=./in.fifo
rm -f "$fifo" && mkfifo "$fifo" || exit 1
exec 3<&0
%s <&3 >"$fifo" &
exec 3<&-
exec %s <"$fifo"
`

func write(t testing.TB, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// start starts a host on dirs and fails the test unless every extension
// is ok. At the end of the test it closes the host and checks that every
// extension acknowledged shutdown and exited in time.
func start(t *testing.T, cb host.Callbacks, dirs ...string) *host.Host {
	t.Helper()
	home := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{
		Home: home, CWD: t.TempDir(), ExtDirs: dirs, ZutVersion: "test", Provider: "fake", Model: "m1",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range h.Diagnostics() {
		if r.Status != host.StatusOK {
			log, _ := os.ReadFile(r.Log)
			h.Close(context.Background())
			t.Fatalf("%s: status %s (%s); log:\n%s", r.Name, r.Status, r.Error, log)
		}
	}
	t.Cleanup(func() {
		names := []string{}
		for _, r := range h.Diagnostics() {
			names = append(names, r.Name)
		}
		h.Close(context.Background())
		for _, name := range names {
			log, _ := os.ReadFile(host.LogPath(home, name))
			if !strings.Contains(string(log), "shutdown acknowledged") || strings.Contains(string(log), "no exit within") {
				t.Errorf("%s did not acknowledge shutdown and exit in time; log:\n%s", name, log)
			}
		}
	})
	return h
}

func logOf(t *testing.T, h *host.Host, name string) string {
	t.Helper()
	for _, r := range h.Diagnostics() {
		if r.Name == name {
			b, _ := os.ReadFile(r.Log)
			return string(b)
		}
	}
	t.Fatalf("no extension %s", name)
	return ""
}

// recorder records callbacks as lines.
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

// wait waits until a recorded line equals want.
func (r *recorder) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := slices.Contains(r.lines, want)
		lines := strings.Join(r.lines, "\n")
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.added:
		case <-deadline.C:
			t.Fatalf("callbacks never got %q; they got:\n%s", want, lines)
		}
	}
}

func (r *recorder) callbacks(app *fakeApp) host.Callbacks {
	return host.Callbacks{
		Notify:         func(ext, level, msg string) { r.add("notify %s %s %s", ext, level, msg) },
		ClearNotes:     func(ext string) { r.add("clear_notes %s", ext) },
		Alert:          func(ext, kind, reason string) { r.add("alert %s %s %s", ext, kind, reason) },
		Status:         func(ext, key, level, text string) { r.add("status %s %s %s %s", ext, key, level, text) },
		StatusPriority: func(ext, key string, p int) { r.add("status_priority %s %s %d", ext, key, p) },
		Widget: func(ext string, w proto.Widget) {
			r.add("widget %s %s %s %s %s %d %s", ext, w.ID, w.Position, w.Title, strings.Join(w.Lines, ","), w.Priority, w.BorderColor)
		},
		WidgetClear: func(ext, id string) { r.add("widget_clear %s %s", ext, id) },
		OpenPanel: func(ext string, p proto.Panel) {
			r.add("open_panel %s %s %s %s %s", ext, p.ID, p.Title, strings.Join(p.Lines, ","), p.Footer)
		},
		RenderPanel:  func(ext string, p proto.Panel) { r.add("render_panel %s %s %s", ext, p.ID, strings.Join(p.Lines, ",")) },
		ClosePanel:   func(ext, id string) { r.add("close_panel %s %s", ext, id) },
		Submit:       func(ext, text string) { r.add("submit %s %s", ext, text) },
		SubmitSlash:  func(ext, text string) { r.add("submit_slash %s %s", ext, text) },
		Print:        func(ext string, p proto.Print) { r.add("print %s %s %s %s", ext, p.Style, p.Renderer, p.Text) },
		Header:       func(ext string, p proto.Header) { r.add("header %s %s %v", ext, p.Text, p.Markdown) },
		Footer:       func(ext string, p proto.Footer) { r.add("footer %s %s", ext, p.Text) },
		UIVisibility: func(ext string, v proto.UIVisibility) { r.add("ui_visibility %s %+v", ext, v) },
		HostRequest:  app.serve,
		UIRequest: func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
			r.add("dialog %s %s %s", ext, req.Kind, req.Message)
			switch {
			case req.Message == "nobody answers":
			case req.Kind == proto.UISelect:
				go answer(proto.SelectAnswer(req.Options[1], 1))
			case req.Kind == proto.UIConfirm:
				answer(proto.ConfirmAnswer(req.DefaultBool()))
			case req.Kind == proto.UIInput:
				answer(proto.InputAnswer(req.Placeholder + "!"))
			case req.Kind == proto.UIOverlay:
				answer(proto.OverlayAnswer(req.Actions[1], 1))
			}
		},
	}
}

// fakeApp answers host requests as zut's app would, and records them.
type fakeApp struct {
	mu      sync.Mutex
	calls   []string
	options map[string]string
	entries []proto.Entry
}

func (a *fakeApp) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

func (a *fakeApp) serve(ctx context.Context, r *host.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, r.Extension+" "+r.Method+" "+string(r.Params))
	switch r.Method {
	case proto.MethodSessionInfo:
		r.Respond(proto.SessionInfo{ID: "s1", CWD: "/p", Branch: &proto.Session{ID: "b1"}}, nil)
	case proto.MethodSessionMessages:
		r.Respond(proto.MessagesResult{Messages: []proto.Message{{Role: "user", Content: []proto.MessageBlock{{Type: "text", Text: "hi"}}}}}, nil)
	case proto.MethodSessionContextStats:
		r.Respond(proto.ContextStats{EstimatedTokens: 1200, ContextLimit: 200000}, nil)
	case proto.MethodSessionAppendEntry:
		var p proto.AppendEntryParams
		r.Decode(&p)
		id := fmt.Sprintf("e%d", len(a.entries)+1)
		a.entries = append(a.entries, proto.Entry{ID: id, EntryType: p.EntryType, Data: p.Data, Time: time.Unix(0, 0).UTC()})
		r.Respond(proto.IDResult{ID: id}, nil)
	case proto.MethodSessionEntries:
		r.Respond(proto.EntriesResult{Entries: a.entries}, nil)
	case proto.MethodModelGet, proto.MethodModelSet:
		r.Respond(proto.ModelInfo{Model: "fake/m1", Provider: "fake", ID: "m1"}, nil)
	case proto.MethodModelList:
		r.Respond(proto.ModelsResult{Models: []proto.ModelInfo{{Model: "fake/m1"}, {Model: "fake/m2"}}}, nil)
	case proto.MethodToolsList:
		r.Respond(proto.ToolsResult{Tools: []proto.ToolInfo{{Name: "read", Source: proto.ToolBuiltin, Enabled: true}}}, nil)
	case proto.MethodLLMComplete:
		r.Stream("Hel")
		r.Stream("lo")
		r.Respond(proto.CompleteResult{Text: "Hello", Model: "fake/m1"}, nil)
	case proto.MethodOptionsGet, proto.MethodOptionsSet:
		var p proto.OptionParams
		r.Decode(&p)
		if a.options == nil {
			a.options = map[string]string{"color": "blue"}
		}
		if r.Method == proto.MethodOptionsSet {
			a.options[p.Name] = p.Value
		}
		r.Respond(proto.OptionResult{Name: p.Name, Value: a.options[p.Name], Source: "set"}, nil)
	case proto.MethodTUISuspend:
		r.Respond(proto.SuspendResult{Suspended: true}, nil)
	case proto.MethodAppSend, proto.MethodEditorSetText, proto.MethodToolsSetActive, proto.MethodAppExit,
		proto.MethodAppReloadExtensions, proto.MethodTUIResume:
		r.Respond(nil, nil)
	default:
		r.Respond(nil, fmt.Errorf("%s: not in this test", r.Method))
	}
}

// command invokes /name args and returns the response without its id.
func command(t *testing.T, h *host.Host, name, args string) proto.CommandResponse {
	t.Helper()
	r, err := h.InvokeCommand(context.Background(), name, args)
	if err != nil {
		t.Fatalf("InvokeCommand(%q, %q): %v", name, args, err)
	}
	r.ID = ""
	return r
}

func display(t *testing.T, h *host.Host, name, args string) string {
	t.Helper()
	r := command(t, h, name, args)
	if r.Error != "" {
		t.Fatalf("/%s %s: error %q", name, args, r.Error)
	}
	return r.Display
}

func toolText(r host.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Type+":"+c.Text+c.MIMEType+c.Data)
	}
	return strings.Join(parts, " ")
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
