package app

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/provider"
)

// reqExtension is a plain Python extension that sends the host requests
// the tests ask for: "/req <method> <params>" answers with "result <json>"
// or "error <text>" (streamed chunks first, as "stream a|b"). It also
// cancels forks of user messages and switches for "clear".
const reqExtension = `#!/usr/bin/env python3
import json, sys, threading
lock = threading.Lock()
def emit(o):
    with lock:
        sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type":"hello","protocol_version":2,"name":"req","capabilities":["commands","host_requests","intercepts2"]})
waiting, streams, seq = {}, {}, [0]
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello_ack":
        emit({"type":"register_command","name":"req"})
        emit({"type":"register_option","name":"plan","default":"off"})
        emit({"type":"subscribe","intercept":["before_fork","before_session_switch"]})
        emit({"type":"ready"})
    elif t == "command_invoked":
        method, _, params = m["args"].partition(" ")
        seq[0] += 1
        rid = "r%d" % seq[0]
        waiting[rid] = m["id"]
        emit({"type":"host_request","id":rid,"method":method,"params":json.loads(params or "{}")})
    elif t == "host_stream":
        streams.setdefault(m["id"], []).append(m["text"])
    elif t == "host_response":
        cid = waiting.pop(m["id"], None)
        text = ("error " + m["error"]) if m.get("error") else ("result " + json.dumps(m.get("result"), separators=(",", ":"), sort_keys=True))
        if m["id"] in streams:
            text = "stream " + "|".join(streams.pop(m["id"])) + " " + text
        emit({"type":"command_response","id":cid,"action":"display","display":text})
    elif t == "event_intercept":
        r = {"type":"event_intercept_response","id":m["id"]}
        if m["event"] == "before_fork" and m.get("is_user_message"):
            r.update(cancel=True, reason="keep " + m.get("user_text", ""))
        if m["event"] == "before_session_switch" and m.get("reason") == "clear":
            r.update(cancel=True, reason="unsaved notes")
        emit(r)
    elif t == "shutdown":
        emit({"type":"shutdown_ack"}); break
`

// fakeClient is a provider.Client answering every request with text, in
// two deltas.
type fakeClient struct {
	mu   sync.Mutex
	reqs []*provider.Request
	text string
}

func (c *fakeClient) Stream(ctx context.Context, req *provider.Request) (provider.Stream, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	half := len(c.text) / 2
	return &fakeStream{events: []provider.Event{
		{Type: provider.EventStart},
		{Type: provider.EventTextDelta, Text: c.text[:half]},
		{Type: provider.EventTextDelta, Text: c.text[half:]},
		{Type: provider.EventUsage, Usage: provider.Usage{Input: 7, Output: 3}},
		{Type: provider.EventStop, Stop: provider.StopEndTurn},
	}, msg: provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(c.text)}}}, nil
}

type fakeStream struct {
	events []provider.Event
	i      int
	msg    provider.Message
}

func (s *fakeStream) Next() bool                { s.i++; return s.i <= len(s.events) }
func (s *fakeStream) Event() provider.Event     { return s.events[s.i-1] }
func (s *fakeStream) Err() error                { return nil }
func (s *fakeStream) Message() provider.Message { return s.msg }
func (s *fakeStream) Close() error              { return nil }

// recordingUI records what the host API asks of the mode's UI.
type recordingUI struct {
	NopUI
	queue bool // the mode has a prompt queue (QueuePrompt records a submit)
	mu    sync.Mutex
	lines []string
}

func (u *recordingUI) add(s string) {
	u.mu.Lock()
	u.lines = append(u.lines, s)
	u.mu.Unlock()
}
func (u *recordingUI) Submit(ext, text string) { u.add("submit " + ext + " " + text) }
func (u *recordingUI) QueuePrompt(ext, text string) error {
	if !u.queue {
		return ErrNoPromptQueue
	}
	u.Submit(ext, text)
	return nil
}
func (u *recordingUI) SetEditorText(ext, text string) bool {
	u.add("editor " + ext + " " + text)
	return true
}
func (u *recordingUI) Exit(ext string) { u.add("exit " + ext) }
func (u *recordingUI) got() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return strings.Join(u.lines, "\n")
}

// hostAPIApp assembles an app (for an interactive frontend when
// interactive) with the Python extension, a memory
// session and the fake model, and the host API attached.
func hostAPIApp(t *testing.T, interactive bool, getenv map[string]string) (*App, *fakeClient, *recordingUI) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	home, cwd := t.TempDir(), t.TempDir()
	dir := filepath.Join(t.TempDir(), "req")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "req.py"), []byte(reqExtension), 0o755)
	os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name":"req","exec":"./req.py","language":"python"}`), 0o644)
	e := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return getenv[k] }}
	ui := &recordingUI{queue: interactive}
	a := &App{env: e, opts: Options{Exts: []string{dir}, NoSkills: true}, front: Frontend{Interactive: interactive}, home: home, cwd: cwd, ui: &uiSwitch{}}
	a.ui.set(ui)
	a.sess = session.NewMemory(cwd)
	h, err := host.Start(context.Background(), a.hostConfig())
	if err != nil {
		t.Fatal(err)
	}
	a.host, a.bridge = h, &extBridge{h: h}
	t.Cleanup(a.Close)
	client := &fakeClient{text: "Hello there"}
	a.agent = agent.New(agent.Config{Client: client, Model: agent.Model{ID: "m1", Provider: "fake", ContextWindow: 1000},
		Store: agent.SessionStore{S: a.sess}, Extensions: a.bridge, Policy: agent.Policy{Yolo: true}})
	a.enableHostAPI()
	if r := h.Diagnostics(); len(r) != 1 || r[0].Status != host.StatusOK {
		t.Fatalf("extension did not load: %+v", r)
	}
	return a, client, ui
}

// req runs "/req method params" and returns the extension's display.
func req(t *testing.T, a *App, method, params string) string {
	t.Helper()
	r, err := a.host.InvokeCommand(context.Background(), "req", method+" "+params)
	if err != nil {
		t.Fatalf("req %s %s: %v", method, params, err)
	}
	return r.Display
}

func TestHostAPI(t *testing.T) {
	a, client, ui := hostAPIApp(t, false, map[string]string{"ZUT_OPT_FROM_ENV": "env-value", "ANTHROPIC_API_KEY": "sk-test"})
	if err := a.agent.Prompt(context.Background(), agent.Input{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a.home, "config.json"), []byte(`{"options":{"from-config":true,"from-env":"config loses"}}`), 0o644)
	tests := []struct {
		method, params, want string
	}{
		{"session.messages", `{}`, `result {"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"},{"content":[{"text":"Hello there","type":"text"}],"role":"assistant"}]}`},
		{"session.context_stats", `{}`, `result {"context_limit":1000,"estimated_tokens":`},
		{"session.append_entry", `{"entry_type":"note","data":{"n":1}}`, `result {"id":"`},
		{"session.append_entry", `{"data":1}`, `error session.append_entry: entry_type is empty`},
		{"model.get", `{}`, `result {"context_window":1000,"id":"m1","model":"fake/m1","provider":"fake"}`},
		{"tools.set_active", `{"names":["nothing"]}`, `result {}`},
		{"tools.list", `{}`, `result {"tools":[]}`},
		{"llm.complete", `{"prompt":"say hi","system":"be brief","stream":true}`, `stream Hello| there result {"input_tokens":7,"model":"fake/m1","output_tokens":3,"text":"Hello there"}`},
		{"llm.complete", `{}`, `error llm.complete: prompt is empty`},
		{"options.get", `{"name":"plan"}`, `result {"name":"plan","source":"default","value":"off"}`},
		{"options.get", `{"name":"from-env"}`, `result {"name":"from-env","source":"env","value":"env-value"}`},
		{"options.get", `{"name":"from-config"}`, `result {"name":"from-config","source":"config","value":"true"}`},
		{"options.set", `{"name":"plan","value":"on"}`, `result {"name":"plan","source":"set","value":"on"}`},
		{"options.get", `{"name":"plan"}`, `result {"name":"plan","source":"set","value":"on"}`},
		{"app.send", `{"text":"next"}`, `error app.send: this mode answers one prompt and cannot start another`},
		{"app.send", `{"text":"x","mode":"sideways"}`, `error app.send: mode "sideways" is not queue, steer or interrupt`},
		{"app.exit", `{}`, `result {}`},
		{"editor.set_text", `{"text":"draft"}`, `result {"applied":true}`},
		{"tui.suspend", `{}`, `result {"suspended":false}`},
		{"tui.resume", `{}`, `result {}`},
		{"ui.confirm", `{"message":"deploy?","default":true}`, `result {"cancelled":true,"value":true}`},
		{"model.set", `{"model":""}`, `error model.set: model is empty`},
		{"model.set", `{"model":"anthropic/claude-sonnet-4-5"}`, `result {"context_window":`},
		{"model.get", `{}`, `"model":"anthropic/claude-sonnet-4-5"`},
		{"teleport", `{}`, `error unknown method "teleport"`},
	}
	for _, tc := range tests {
		if got := req(t, a, tc.method, tc.params); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s = %s, want %s", tc.method, tc.params, got, tc.want)
		}
	}
	if got := req(t, a, "session.entries", `{"entry_type":"note"}`); !strings.Contains(got, `"data":{"n":1},"entry_type":"note"`) {
		t.Errorf("session.entries = %s", got)
	}
	if got := req(t, a, "session.info", `{}`); !strings.Contains(got, `"fork_point":0,"id":"`+a.sess.ID()) || !strings.Contains(got, `"cwd":"`+a.cwd) {
		t.Errorf("session.info = %s", got)
	}
	if r := client.reqs[1]; r.System != "be brief" || len(r.Tools) != 0 || r.Messages[0].Text() != "say hi" {
		t.Errorf("llm.complete request = %+v", r)
	}
	if names, restricted := a.agent.ActiveTools(); !restricted || strings.Join(names, ",") != "nothing" {
		t.Errorf("ActiveTools() = %v, %v", names, restricted)
	}
	if got := ui.got(); got != "exit req\neditor req draft" {
		t.Errorf("UI calls = %q", got)
	}
	var changes int
	for _, e := range a.sess.Branch() {
		if e.Type == session.TypeModelChange {
			changes++
		}
	}
	if changes != 1 {
		t.Errorf("%d model_change entries in the session, want 1", changes)
	}
}

// TestHostAPIInteractive checks app.send in the interactive mode and the
// before_fork and before_session_switch helpers.
func TestHostAPIInteractive(t *testing.T) {
	a, _, ui := hostAPIApp(t, true, nil)
	for _, mode := range []string{"queue", "steer", "interrupt"} {
		if got := req(t, a, "app.send", `{"text":"`+mode+`","mode":"`+mode+`"}`); got != "result {}" {
			t.Errorf("app.send %s = %s", mode, got)
		}
	}
	if got := ui.got(); got != "submit req queue\nsubmit req steer\nsubmit req interrupt" {
		t.Errorf("UI calls = %q, want every idle send submitted", got)
	}
	if err := a.agent.Prompt(context.Background(), agent.Input{Text: "first"}); err != nil {
		t.Fatal(err)
	}
	user := a.sess.Branch()[0].ID
	var ce *agent.CancelledError
	if err := a.AllowFork(context.Background(), user); !errors.As(err, &ce) || ce.By != "req" || ce.Reason != "keep first" {
		t.Errorf("allowFork(user message) = %v, want cancelled by req", err)
	}
	if err := a.AllowFork(context.Background(), a.sess.Branch()[1].ID); err != nil {
		t.Errorf("allowFork(assistant message) = %v", err)
	}
	// Context sent with a prompt (shell output, inject_text) is not the
	// user's words: before_fork's user_text leaves it out.
	if err := a.agent.Prompt(context.Background(), agent.Input{Text: "second", Context: []string{"$ ls\nmain.go"}}); err != nil {
		t.Fatal(err)
	}
	second := a.sess.Branch()[2].ID
	if err := a.AllowFork(context.Background(), second); !errors.As(err, &ce) || ce.Reason != "keep second" {
		t.Errorf("allowFork(message with context) = %v, want the reason %q", err, "keep second")
	}
	if err := a.AllowSessionSwitch(context.Background(), "clear"); !errors.As(err, &ce) || ce.Reason != "unsaved notes" {
		t.Errorf("allowSessionSwitch(clear) = %v", err)
	}
	if err := a.AllowSessionSwitch(context.Background(), "new"); err != nil {
		t.Errorf("allowSessionSwitch(new) = %v", err)
	}
}

// TestHostAPIReload checks that app.reload_extensions answers, then
// restarts the extensions.
func TestHostAPIReload(t *testing.T) {
	a, _, _ := hostAPIApp(t, false, nil)
	if got := req(t, a, "app.reload_extensions", `{}`); got != "result {}" {
		t.Fatalf("app.reload_extensions = %s", got)
	}
	log := host.LogPath(a.home, "req")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		r := a.host.Diagnostics()
		if strings.Count(string(b), "zut: started pid") == 2 && len(r) == 1 && r[0].Status == host.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the extension was not started again; reports %+v, log:\n%s", r, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := req(t, a, "options.get", `{"name":"plan"}`); !strings.Contains(got, `"value":"off"`) {
		t.Errorf("after reload: options.get = %s", got)
	}
}

func TestOptionEnv(t *testing.T) {
	tests := []struct{ name, want string }{
		{"plan", "ZUT_OPT_PLAN"}, {"my-setting", "ZUT_OPT_MY_SETTING"}, {"a.b c", "ZUT_OPT_A_B_C"},
	}
	for _, tc := range tests {
		if got := optionEnv(tc.name); got != tc.want {
			t.Errorf("optionEnv(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
