package interactive

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// escKey is Esc in the kitty encoding: no wait for a lone ESC byte.
const escKey = "\x1b[27u"

// overlayCase opens one dialog or picker; the test then closes it with a
// key and checks that the editor is back.
type overlayCase struct {
	name string
	// open opens the dialog: a slash command typed, or a function run on
	// the UI goroutine.
	command string
	open    func(h *uiHarness)
	// wait is text the open dialog shows.
	wait string
	// enterKeeps says Enter leaves a dialog open: /settings changes the
	// setting, /login opens the key prompt. Esc still closes it.
	enterKeeps bool
}

// savedSession writes a session of the project directory with one
// exchange, for /sessions.
func savedSession(h *uiHarness) {
	h.t.Helper()
	s, err := session.Create(filepath.Join(h.zut, "sessions"), filepath.Join(h.home, "proj"))
	if err != nil {
		h.t.Fatal(err)
	}
	s.AppendMessage(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("an older question")}}, session.Meta{})
	s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("an older answer")}}, session.Meta{})
	if err := s.Close(); err != nil {
		h.t.Fatal(err)
	}
}

func overlayCases() []overlayCase {
	dialog := func(req proto.UIRequest) func(h *uiHarness) {
		return func(h *uiHarness) {
			h.do(func(u *ui) { u.openDialog("ext", req, func(proto.UIResponse) {}) })
		}
	}
	return []overlayCase{
		{name: "theme", command: "/theme", wait: "Theme"},
		{name: "reasoning", command: "/reasoning", wait: "Reasoning"},
		{name: "model", command: "/model", wait: "Model"},
		{name: "settings", command: "/settings", wait: "Settings", enterKeeps: true},
		{name: "sessions", command: "/sessions", wait: "Sessions"},
		{name: "fork", command: "/fork", wait: "Fork from"},
		{name: "tree", command: "/tree", wait: "Session tree"},
		{name: "permissions", command: "/permissions", wait: "Permissions"},
		{name: "login", command: "/login", wait: "Sign in, or save an API key", enterKeeps: true},
		{name: "login-key", command: "/login anthropic", wait: "API key for anthropic"},
		{name: "confirm", open: func(h *uiHarness) {
			reply := make(chan agent.ConfirmAnswer, 1)
			args, _ := json.Marshal(map[string]any{"command": "ls", "timeout": 5})
			h.do(func(u *ui) {
				u.openConfirm(agent.ConfirmRequest{ToolID: "c1", Name: "bash", Args: args, Preview: "$ ls"}, reply)
			})
		}, wait: "Allow bash?"},
		{name: "ext-select", open: dialog(proto.UIRequest{ID: "d1", Kind: proto.UISelect, Title: "Pick one", Options: []string{"a", "b"}}), wait: "Pick one"},
		{name: "ext-confirm", open: dialog(proto.UIRequest{ID: "d2", Kind: proto.UIConfirm, Title: "Sure?", Message: "really"}), wait: "Sure?"},
		{name: "ext-input", open: dialog(proto.UIRequest{ID: "d3", Kind: proto.UIInput, Title: "Your name"}), wait: "Your name"},
		{name: "ext-overlay", open: dialog(proto.UIRequest{ID: "d4", Kind: proto.UIOverlay, Title: "Notes", Text: "some text"}), wait: "Notes"},
	}
}

// TestUIOverlaysClose opens every dialog and picker and closes it with
// Enter and with Esc: each time the editor comes back and takes keys.
func TestUIOverlaysClose(t *testing.T) {
	for _, tc := range overlayCases() {
		for _, key := range []string{"enter", "esc"} {
			t.Run(tc.name+"/"+key, func(t *testing.T) {
				h := startUI(t, uiOptions{width: 80, height: 30,
					replies: []providertest.Reply{{Text: "first answer"}},
					setup:   savedSession})
				h.idle()
				// One exchange, for /fork and /tree.
				h.submit("first question", "first answer")
				if tc.open != nil {
					tc.open(h)
				} else {
					h.enter(tc.command)
				}
				h.waitFor(tc.wait, func(string) bool { return strings.Contains(h.screen(false), tc.wait) })
				h.idle()
				if key == "enter" {
					h.send("\r")
				} else {
					h.send(escKey)
				}
				h.flushInput()
				h.idle()
				if key == "enter" && tc.enterKeeps {
					if !h.overlayOpen() {
						t.Fatalf("Enter closed %s, which should stay open", tc.name)
					}
					h.send(escKey)
					h.flushInput()
					h.idle()
				}
				if h.overlayOpen() {
					t.Fatalf("%s is still open after %s; screen:\n%s", tc.name, key, h.screen(false))
				}
				// The editor takes keys again.
				h.send("\x15")
				h.typeText("back in the editor")
				h.waitFor("the editor", func(string) bool { return strings.Contains(h.screen(false), "› back in the editor") })
			})
		}
	}
}

// overlayOpen reports whether a dialog is open.
func (h *uiHarness) overlayOpen() bool {
	h.t.Helper()
	open := false
	h.do(func(u *ui) { open = u.ov != nil || len(u.ovs) > 0 })
	return open
}
