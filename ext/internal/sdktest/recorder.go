package sdktest

// The host's side of the tests: a recording of the callbacks and a fake
// of zut's app answering host requests.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

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
