package extensions_test

// The examples on the Python and Node SDKs beyond what the other tests
// cover: the panels of ask and context-notes, ask's state, and both on a
// zut without the additions (simulated by a filter that removes
// capabilities from hello_ack).

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// editorApp answers editor.set_text and records what it set.
type editorApp struct {
	mu   sync.Mutex
	text []string
}

func (a *editorApp) serve(ctx context.Context, r *host.Request) {
	if r.Method != proto.MethodEditorSetText {
		r.Respond(nil, fmt.Errorf("%s: not in this test", r.Method))
		return
	}
	var p proto.TextParams
	r.Decode(&p)
	a.mu.Lock()
	a.text = append(a.text, p.Text)
	a.mu.Unlock()
	r.Respond(nil, nil)
}

func (a *editorApp) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.text) == 0 {
		return ""
	}
	return a.text[len(a.text)-1]
}

// startSDKExample starts a host on dir with a recorder, the editor app and
// a UI that picks the last option and types "fix login".
func startSDKExample(t *testing.T, dir string) (*host.Host, *recorder, *editorApp, string) {
	t.Helper()
	rec, app := newRecorder(), &editorApp{}
	cb := rec.callbacks()
	cb.HostRequest = app.serve
	cb.UIRequest = func(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
		switch req.Kind {
		case proto.UISelect:
			answer(proto.SelectAnswer(req.Options[len(req.Options)-1], len(req.Options)-1))
		case proto.UIInput:
			answer(proto.InputAnswer("fix login"))
		default:
			answer(proto.CancelledAnswer())
		}
	}
	cwd := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{
		Home: t.TempDir(), CWD: cwd, ExtDirs: []string{dir}, ZutVersion: "test", Provider: "test", Model: "test-model",
		Session: &proto.Session{ID: "b1"}, Callbacks: cb,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	if r := h.Diagnostics(); r[0].Status != host.StatusOK {
		log, _ := os.ReadFile(r[0].Log)
		t.Fatalf("%s: status %s: %s\n%s", r[0].Name, r[0].Status, r[0].Error, log)
	}
	return h, rec, app, cwd
}

func needTool(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not on PATH; this example needs it", tool)
	}
}

func TestAskPanelAndState(t *testing.T) {
	needTool(t, "python3")
	h, rec, app, _ := startSDKExample(t, buildExample(t, "ask"))
	ctx := context.Background()
	r, err := h.CallTool(ctx, "ask_user", json.RawMessage(`{"question":"Which db?","choices":["sqlite","postgres"]}`))
	if err != nil || !r.StateSet || string(r.State) != `{"version":1,"history":[{"q":"Which db?","a":"postgres"}]}` {
		t.Fatalf("ask_user = %+v (state %s), %v", r, r.State, err)
	}
	if _, err := h.CallTool(ctx, "ask_user", json.RawMessage(`{"question":"Name?"}`)); err != nil {
		t.Fatal(err)
	}
	if resp, err := h.InvokeCommand(ctx, "asked", ""); err != nil || resp.Action != proto.ActionOpenPanel {
		t.Fatalf("/asked = %+v, %v", resp, err)
	}
	rec.wait(t, "open_panel ask   Which db? → postgres | › Name? → fix login")
	h.PanelKey("ask-history", "up", "")
	rec.wait(t, "render_panel ask › Which db? → postgres |   Name? → fix login")
	h.PanelKey("ask-history", "enter", "")
	rec.wait(t, "close_panel ask ask-history")
	eventually(t, func() string {
		if got := app.last(); got != "postgres" {
			return fmt.Sprintf("editor text = %q, want the selected answer", got)
		}
		return ""
	})

	// Each branch has its own history, restored by the session events.
	h.SetSession(&proto.Session{ID: "b2"}, map[string]json.RawMessage{"ask": json.RawMessage(`{"version":1,"history":[{"q":"old","a":"yes"}]}`)})
	h.Emit(proto.Event{Name: proto.EventSessionSwitched})
	h.InvokeCommand(ctx, "asked", "")
	rec.wait(t, "open_panel ask › old → yes")
	h.SetSession(&proto.Session{ID: "b3"}, nil)
	h.Emit(proto.Event{Name: proto.EventSessionOpened})
	if resp, _ := h.InvokeCommand(ctx, "asked", ""); resp.Display != "no questions asked yet on this branch" {
		t.Errorf("/asked on a new branch = %+v", resp)
	}
}

func TestContextNotesPanel(t *testing.T) {
	needTool(t, "node")
	h, rec, app, cwd := startSDKExample(t, buildExample(t, "context-notes"))
	ctx := context.Background()
	for _, n := range []string{"a", "b"} {
		if r, err := h.InvokeCommand(ctx, "note", n); err != nil || !strings.HasPrefix(r.Display, "noted (") {
			t.Fatalf("/note %s = %+v, %v", n, r, err)
		}
	}
	h.InvokeCommand(ctx, "notes", "")
	rec.wait(t, "open_panel context-notes › - a |   - b")
	h.PanelKey("notes", "down", "")
	rec.wait(t, "render_panel context-notes   - a | › - b")
	h.PanelKey("notes", "rune", "d")
	rec.wait(t, "render_panel context-notes › - a")
	if b, _ := os.ReadFile(filepath.Join(cwd, ".zut", "notes.md")); string(b) != "- a\n" {
		t.Errorf("notes.md after deleting b = %q", b)
	}
	h.PanelKey("notes", "enter", "")
	rec.wait(t, "close_panel context-notes notes")
	eventually(t, func() string {
		if got := app.last(); got != "/note a" {
			return fmt.Sprintf("editor text = %q, want /note a", got)
		}
		return ""
	})
}

// oldHostCopy copies the example into a temporary directory and runs it
// behind a filter that removes capabilities from hello_ack, as a zut
// without the additions sends it.
func oldHostCopy(t *testing.T, name string) string {
	t.Helper()
	src, _ := filepath.Abs(name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, _ := os.ReadFile(filepath.Join(dst, "extension.json"))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nrm -f in.fifo && mkfifo in.fifo || exit 1\nexec 3<&0\n" +
		`sed -u 's/,"capabilities":\[[^]]*\]//' <&3 >in.fifo &` + "\nexec 3<&-\nexec " + m["exec"].(string) + " <in.fifo\n"
	if err := os.WriteFile(filepath.Join(dst, "old-host.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m["exec"] = "./old-host.sh"
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dst, "extension.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestSDKExamplesOnOldHost(t *testing.T) {
	needTool(t, "sed")
	t.Run("ask", func(t *testing.T) {
		needTool(t, "python3")
		h, _, _, _ := startSDKExample(t, oldHostCopy(t, "ask"))
		ctx := context.Background()
		const msg = `this zut does not offer dialogs (capability host_requests, docs/protocol.md "Additions beyond v2"); update zut to use /deploy and ask_user`
		if r, err := h.InvokeCommand(ctx, "deploy", ""); err != nil || r.Error != "deploy: "+msg {
			t.Errorf("/deploy = %+v, %v", r, err)
		}
		r, err := h.CallTool(ctx, "ask_user", json.RawMessage(`{"question":"?"}`))
		if err != nil || !r.IsError || r.Content[0].Text != "could not ask the user: "+msg {
			t.Errorf("ask_user = %+v, %v", r, err)
		}
	})
	t.Run("context-notes", func(t *testing.T) {
		needTool(t, "node")
		h, _, _, _ := startSDKExample(t, oldHostCopy(t, "context-notes"))
		r, err := h.InvokeCommand(context.Background(), "note", "x")
		want := `noted (1 in .zut/notes.md); this zut cannot send notes to the model (no context_prepare): update zut ` +
			`(the other extensions were not told: app.notify_custom: the host does not offer the capability "host_requests"; use a zut that does)`
		if err != nil || r.Display != want {
			t.Errorf("/note = %q, %v\nwant %q", r.Display, err, want)
		}
	})
}
