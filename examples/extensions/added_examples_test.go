package extensions_test

// The examples of the protocol additions beyond v2 (plan-mode, ask,
// context-notes), loaded through the real host. The host requests that
// need the rest of zut are answered by a small fake of the app.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// fakeApp answers host requests as zut's app would, and records them.
type fakeApp struct {
	mu      sync.Mutex
	options map[string]string
	active  []string // the last tools.set_active (nil: all)
	calls   []string
}

func (a *fakeApp) serve(ctx context.Context, r *host.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, r.Extension+" "+r.Method)
	switch r.Method {
	case proto.MethodOptionsGet:
		var p proto.OptionParams
		r.Decode(&p)
		r.Respond(proto.OptionResult{Name: p.Name, Value: a.options[p.Name], Source: "env"}, nil)
	case proto.MethodToolsSetActive:
		var p proto.SetActiveToolsParams
		r.Decode(&p)
		a.active = p.Names
		r.Respond(nil, nil)
	default:
		r.Respond(nil, fmt.Errorf("%s: not in this test", r.Method))
	}
}

func (a *fakeApp) activeTools() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active == nil {
		return "<all>"
	}
	return strings.Join(a.active, ",")
}

// startAdded starts a host on dirs with the recorder, the fake app and,
// when ui is set, a scripted UI for dialogs.
func startAdded(t *testing.T, app *fakeApp, ui func(proto.UIRequest, func(proto.UIResponse)), dirs ...string) (*host.Host, *recorder, string) {
	t.Helper()
	rec := newRecorder()
	cb := rec.callbacks()
	cb.HostRequest = app.serve
	cb.Print = func(ext string, p proto.Print) { rec.add("print %s %s %s", ext, p.Style, p.Text) }
	cb.StatusPriority = func(ext, key string, p int) { rec.add("status_priority %s %s %d", ext, key, p) }
	if ui != nil {
		cb.UIRequest = func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
			rec.add("dialog %s %s %s", ext, req.Kind, req.Message)
			ui(req, answer)
		}
	}
	cwd := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{
		Home: t.TempDir(), CWD: cwd, ExtDirs: dirs, ZutVersion: "test", Provider: "test", Model: "test-model",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, r := range h.Diagnostics() {
		if r.Status != host.StatusOK {
			log, _ := os.ReadFile(r.Log)
			t.Fatalf("%s: status %s: %s\n%s", r.Name, r.Status, r.Error, log)
		}
	}
	return h, rec, cwd
}

func TestPlanModeAndContextNotes(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	app := &fakeApp{options: map[string]string{"plan": "true"}}
	h, rec, cwd := startAdded(t, app, nil, buildExample(t, "plan-mode"), buildExample(t, "context-notes"))
	ctx := context.Background()
	if got := strings.Join(h.Capabilities("plan-mode"), ","); got != "host_requests,intercepts2,ui2" {
		t.Errorf("plan-mode capabilities = %s", got)
	}
	if s := h.Shortcuts(); len(s) != 1 || s[0].Key != "ctrl+alt+p" {
		t.Errorf("Shortcuts() = %+v", s)
	}
	if o := h.Options(); len(o) != 1 || o[0].Name != "plan" || o[0].Default != "false" {
		t.Errorf("Options() = %+v", o)
	}

	// The option starts plan mode at session start.
	h.Emit(proto.Event{Name: proto.EventSessionStart})
	rec.wait(t, "print plan-mode info Plan mode ON: the model can only read and search.")
	rec.wait(t, "status_priority plan-mode plan-mode 10")
	rec.wait(t, "status plan-mode plan-mode warn PLAN MODE (read-only)")
	if got := app.activeTools(); got != "read,grep,skill" {
		t.Errorf("active tools = %s, want the read-only ones", got)
	}
	d := h.InterceptBeforeAgentStart(ctx, "add a flag")
	if !strings.Contains(d.SystemPrompt, "PLAN MODE") {
		t.Errorf("before_agent_start system prompt = %q", d.SystemPrompt)
	}

	// context-notes heard the custom event and adds a reminder; /note
	// writes the notes file.
	r, err := h.InvokeCommand(ctx, "note", "use tabs, not spaces")
	if err != nil || r.Display != "noted (1 in .zut/notes.md)" {
		t.Fatalf("/note = %+v, %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, ".zut", "notes.md")); string(b) != "- use tabs, not spaces\n" {
		t.Errorf("notes.md = %q", b)
	}
	eventually(t, func() string {
		msgs, ok := h.InterceptContextPrepare(ctx, []proto.ContextMessage{{Index: 0, Role: "user", Content: "hi"}})
		if !ok || len(msgs) != 2 || msgs[0].Index != -1 || msgs[0].Role != "system" ||
			!strings.Contains(msgs[0].Content, "- use tabs, not spaces") || !strings.Contains(msgs[0].Content, "Plan mode is on") {
			return fmt.Sprintf("context_prepare = %+v, %v; want the notes and the plan reminder first", msgs, ok)
		}
		return ""
	})

	// /plan off and the shortcut toggle it.
	if r, err := h.InvokeCommand(ctx, "plan", "off"); err != nil || r.Error != "" {
		t.Fatalf("/plan off = %+v, %v", r, err)
	}
	rec.wait(t, "print plan-mode info Plan mode OFF: every tool is back.")
	rec.wait(t, "status plan-mode plan-mode info ")
	if got := app.activeTools(); got != "<all>" {
		t.Errorf("active tools after /plan off = %s", got)
	}
	if d := h.InterceptBeforeAgentStart(ctx, "x"); d.SystemPrompt != "" {
		t.Errorf("system prompt with plan mode off = %q", d.SystemPrompt)
	}
	eventually(t, func() string {
		msgs, _ := h.InterceptContextPrepare(ctx, []proto.ContextMessage{{Index: 0, Role: "user", Content: "hi"}})
		if len(msgs) != 2 || strings.Contains(msgs[0].Content, "Plan mode") {
			return fmt.Sprintf("context_prepare after plan off = %+v", msgs)
		}
		return ""
	})
	if r, _ := h.InvokeCommand(ctx, "plan", "sideways"); r.Error == "" {
		t.Errorf("/plan sideways = %+v, want an error", r)
	}
	h.PressShortcut("ctrl+alt+p")
	eventually(t, func() string {
		if got := app.activeTools(); got != "read,grep,skill" {
			return "active tools after the shortcut = " + got
		}
		return ""
	})
}

func TestAsk(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	ui := func(req proto.UIRequest, answer func(proto.UIResponse)) {
		switch req.Kind {
		case proto.UISelect:
			i := len(req.Options) - 1
			go answer(proto.SelectAnswer(req.Options[i], i))
		case proto.UIConfirm:
			answer(proto.ConfirmAnswer(true))
		case proto.UIInput:
			time.AfterFunc(50*time.Millisecond, func() { answer(proto.InputAnswer("fix login")) })
		}
	}
	h, rec, _ := startAdded(t, &fakeApp{}, ui, buildExample(t, "ask"))
	ctx := context.Background()
	r, err := h.InvokeCommand(ctx, "deploy", "")
	if err != nil || r.Action != proto.ActionPrompt || r.Prompt != "Write the commands to deploy to production. Release note: fix login" {
		t.Fatalf("/deploy = %+v, %v", r, err)
	}
	rec.wait(t, "dialog ask select Where to?")
	rec.wait(t, "dialog ask confirm Deploy to production now?")
	tools := h.Tools()
	if len(tools) != 1 || !tools[0].Interactive {
		t.Fatalf("Tools() = %+v, want the interactive ask_user", tools)
	}
	res, err := h.CallTool(ctx, "ask_user", json.RawMessage(`{"question":"Which database?","choices":["sqlite","postgres"]}`))
	if err != nil || res.IsError || res.Content[0].Text != "the user answered: postgres" {
		t.Errorf("ask_user = %+v, %v", res, err)
	}
}

// TestAskWithoutUI checks the dialogs where nobody can see them: the host
// answers cancelled at once.
func TestAskWithoutUI(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	h, _, _ := startAdded(t, &fakeApp{}, nil, buildExample(t, "ask"))
	r, err := h.InvokeCommand(context.Background(), "deploy", "")
	if err != nil || r.Display != "deploy cancelled" {
		t.Errorf("/deploy without a UI = %+v, %v; want the choice cancelled", r, err)
	}
	res, err := h.CallTool(context.Background(), "ask_user", json.RawMessage(`{"question":"Name?"}`))
	if err != nil || !res.IsError || res.Content[0].Text != "the user did not answer" {
		t.Errorf("ask_user without a UI = %+v, %v", res, err)
	}
}
