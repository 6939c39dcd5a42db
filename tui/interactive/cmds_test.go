package interactive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"

	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider/providertest"
	"github.com/zut-go/zut/tui"
)

// readConfig reads the settings file of a harness.
func (h *uiHarness) readConfig() map[string]any {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.zut, app.SettingsFile))
	if err != nil {
		h.t.Fatalf("read config.json: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		h.t.Fatalf("config.json: %v", err)
	}
	return m
}

// TestUISettings changes settings in /settings: they apply at once and
// are saved, keeping what else the file holds.
func TestUISettings(t *testing.T) {
	h := startUI(t, uiOptions{width: 80, height: 24, setup: func(h *uiHarness) {
		os.MkdirAll(h.zut, 0o755)
		os.WriteFile(filepath.Join(h.zut, app.SettingsFile), []byte(`{"options": {"plan_mode": "on"}, "theme": "auto"}`), 0o644)
	}})
	h.idle()
	h.enter("/settings")
	h.waitText("Terminal alerts")
	h.send("\x1b[C") // right: next theme
	h.flushInput()
	h.sync()
	cfg := h.readConfig()
	if cfg["theme"] != "dark" {
		t.Errorf("theme after Right = %v, want dark", cfg["theme"])
	}
	if _, ok := cfg["options"]; !ok {
		t.Errorf("saving the settings dropped the options member: %v", cfg)
	}
	var themeName string
	h.do(func(u *ui) { themeName = u.chat.Options().Theme.Name })
	if themeName != "dark" {
		t.Errorf("the UI draws with theme %q, want dark", themeName)
	}
	h.send("\x1b[B\r") // down to terminal alerts, toggle
	h.flushInput()
	h.sync()
	if cfg := h.readConfig(); cfg["terminal_alerts"] != false {
		t.Errorf("terminal_alerts after toggling = %v, want false", cfg["terminal_alerts"])
	}
	h.send("\x1b[27u")
	h.waitFor("the settings to close", func(s string) bool { return !strings.Contains(s, "Terminal alerts") })
}

// TestUIUserTheme switches to a theme from $ZUT_HOME/themes with /theme.
func TestUIUserTheme(t *testing.T) {
	h := startUI(t, uiOptions{setup: func(h *uiHarness) {
		dir := filepath.Join(h.zut, "themes")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "ocean.json"), []byte(`{"name": "ocean", "extends": "dark", "colors": {"accent": "#00aaff"}}`), 0o644)
	}})
	h.idle()
	h.enter("/theme ocean")
	h.waitText("theme: ocean")
	var name string
	h.do(func(u *ui) { name = u.chat.Options().Theme.Name })
	if name != "ocean" {
		t.Errorf("theme = %q, want ocean", name)
	}
	if cfg := h.readConfig(); cfg["theme"] != "ocean" {
		t.Errorf("saved theme = %v, want ocean", cfg["theme"])
	}
}

// TestUIThemeOnlyExtension offers the theme of a theme-only extension.
func TestUIThemeOnlyExtension(t *testing.T) {
	h := startUI(t, uiOptions{extensions: true, setup: func(h *uiHarness) {
		dir := filepath.Join(h.home, "proj", ".zut", "extensions", "sunset")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name": "sunset", "version": "1.0.0"}`), 0o644)
		os.WriteFile(filepath.Join(dir, "theme.json"), []byte(`{"extends": "light", "colors": {"accent": "#ff7700"}}`), 0o644)
	}})
	h.idle()
	h.enter("/theme sunset")
	h.waitText("theme: sunset")
}

func TestUIAlertSetting(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint(on), func(t *testing.T) {
			h := startUI(t, uiOptions{setup: func(h *uiHarness) {
				os.MkdirAll(h.zut, 0o755)
				os.WriteFile(filepath.Join(h.zut, app.SettingsFile), []byte(fmt.Sprintf(`{"terminal_alerts": %v}`, on)), 0o644)
			}})
			h.idle()
			h.do(func(u *ui) { u.bridge().Alert("ping", "bell", "question_ready") })
			h.term.mu.Lock()
			bells := h.term.t.Bells
			h.term.mu.Unlock()
			want := 0
			if on {
				want = 1
			}
			if bells != want {
				t.Errorf("bells with terminal_alerts %v = %d, want %d", on, bells, want)
			}
		})
	}
}

// TestUISubmitAndInsert runs an extension's submit and insert.
func TestUISubmitAndInsert(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "Summary done."}}})
	h.idle()
	h.do(func(u *ui) { u.bridge().Submit("planner", "summarise the workspace") })
	h.waitText("Summary done.")
	h.idle()
	if !strings.Contains(h.screen(true), "› summarise the workspace") {
		t.Errorf("the submitted prompt is not in the transcript:\n%s", h.screen(true))
	}
	h.do(func(u *ui) {
		u.commandResult("snippet", app.CommandResult{Extension: "snip", Action: "insert", Insert: "inserted text"}, nil)
	})
	var text string
	h.do(func(u *ui) { text = u.ed.Text() })
	if text != "inserted text" {
		t.Errorf("editor after insert = %q, want %q", text, "inserted text")
	}
}

// TestUIExtensionStopped shows one note naming the extension and its log,
// and drops its chrome.
func TestUIExtensionStopped(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	h.do(func(u *ui) {
		b := u.bridge()
		b.Status("weather", "temp", "info", "16°C fog")
		b.ClearChrome("weather")
		b.Exited("weather", errors.New("exit status 2"), "/home/me/.zut/logs/ext-weather.log")
	})
	s := h.screen(true)
	if !strings.Contains(s, `extension "weather" stopped: exit status 2`) || !strings.Contains(s, "log: /home/me/.zut/logs/ext-weather.log") {
		t.Errorf("no note about the stopped extension:\n%s", s)
	}
	if strings.Contains(s, "16°C") {
		t.Errorf("the stopped extension's status stays:\n%s", s)
	}
}

// TestUINotesClearedByPrompt: notes go when the next prompt is sent.
func TestUINotesClearedByPrompt(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "ok"}}})
	h.idle()
	h.do(func(u *ui) { u.bridge().Notify("lint", "warn", "3 files need formatting") })
	h.waitText("3 files need formatting")
	h.submit("go on", "ok")
	if strings.Contains(h.screen(true), "need formatting") {
		t.Errorf("the note stays after the next prompt:\n%s", h.screen(true))
	}
}

// TestUIThinkingAndExpand shows reasoning collapsed to one line; Ctrl+O
// shows it in full.
func TestUIThinkingAndExpand(t *testing.T) {
	thinking := "First I check the config.\nThen the schema.\nThen the output."
	h := startUI(t, uiOptions{width: 60, height: 20, replies: []providertest.Reply{{Thinking: thinking, Text: "Checked."}}})
	h.idle()
	h.submit("check it", "Checked.")
	s := h.screen(true)
	if !strings.Contains(s, "✻ First I check the config.  +2 lines") || strings.Contains(s, "Then the schema.") {
		t.Errorf("reasoning is not collapsed to one line:\n%s", s)
	}
	h.send("\x0f") // ctrl+o
	h.waitText("▸ expanded")
	h.idle()
	uiGolden(t, "thinking_expand", h.screen(true))
}

// TestUIToolOutputExpand collapses long tool output; Ctrl+O shows it.
func TestUIToolOutputExpand(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"command": "seq 1 12", "timeout": 10})
	h := startUI(t, uiOptions{width: 60, height: 20, args: []string{"--yolo"}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "call_1", Name: "bash", Args: string(args)}}},
		{Text: "Twelve lines."},
	}})
	h.idle()
	h.submit("count", "Twelve lines.")
	s := h.screen(true)
	if !strings.Contains(s, "… +8 lines (ctrl+o to expand)") || strings.Contains(s, "|  12 ") {
		t.Errorf("long output is not collapsed:\n%s", s)
	}
	h.send("\x0f")
	h.waitFor("the expanded output", func(s string) bool { return strings.Contains(s, "▸ expanded") && strings.Contains(s, "|  12 ") })
}

// TestUIReloadStatus reloads extensions with a broken one: the status
// line lists the failure, which also stays in the chat.
func TestUIReloadStatus(t *testing.T) {
	h := startUI(t, uiOptions{width: 90, height: 24, extensions: true, profile: ansi.ProfileANSI256, setup: func(h *uiHarness) {
		dir := filepath.Join(h.zut, "extensions", "broken")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name": "broken", "exec": "./missing"}`), 0o644)
	}})
	h.idle()
	if !strings.Contains(h.screen(true), "broken") {
		t.Errorf("the startup header does not report the broken extension:\n%s", h.screen(true))
	}
	h.submit("/reload-ext", "extensions reloaded: 0 loaded, 1 failed")
	var armed bool
	h.do(func(u *ui) { armed = u.flashTimer != nil })
	if !armed {
		t.Error("the reload status has no timer to dismiss it")
	}
	// The status line's failure is drawn in the error colour.
	h.do(func(u *ui) {})
	styled := h.styled()
	lines := strings.Split(styled, "\n")
	red := false
	for i, l := range lines {
		if strings.Contains(l, "reloaded: 0 loaded") {
			for _, m := range lines[i+1:] {
				if strings.HasPrefix(strings.TrimSpace(m), "~") && strings.Contains(m, "fg=") {
					red = true
					break
				}
			}
		}
	}
	if !red {
		t.Errorf("the reload status has no coloured failure:\n%s", styled)
	}
}

// maskDates hides the times of session entries ("Dec 1 02:41"), keeping
// their width.
func maskDates(s string) string {
	return dateRE.ReplaceAllStringFunc(s, func(m string) string { return strings.Repeat("#", len(m)) })
}

var dateRE = regexp.MustCompile(`[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d`)

// maskIDs hides random entry ids.
func maskIDs(s string) string { return entryIDRE.ReplaceAllString(s, "<id>    ") }

var entryIDRE = regexp.MustCompile(`\b[0-9a-f]{8}\b`)

// TestUIForkAndTree forks before an earlier message and lists the tree.
func TestUIForkAndTree(t *testing.T) {
	h := startUI(t, uiOptions{width: 70, height: 24, replies: []providertest.Reply{{Text: "first answer"}, {Text: "## second answer\n\nwith **markdown**"}, {Text: "`third` answer"}}})
	h.idle()
	h.submit("first question", "first answer")
	h.submit("second question", "second answer")
	h.enter("/fork")
	h.waitText("Fork from before")
	h.send("\r") // the newest message is selected
	h.waitText("new branch")
	h.idle()
	var text string
	var msgs int
	h.do(func(u *ui) { text, msgs = u.ed.Text(), len(u.app.Session().Messages()) })
	if text != "second question" || msgs != 2 {
		t.Errorf("after /fork: editor %q with %d messages, want %q with 2", text, msgs, "second question")
	}
	h.send("\x15") // ctrl+u
	h.submit("another question", "third answer")
	h.enter("/tree")
	h.waitText("Session tree")
	h.idle()
	// The branches are drawn as a tree under the entry they fork from,
	// with the user's words, plain first lines and entry ids. The golden
	// holds the dialog and what is below it: how far the conversation
	// above had scrolled depends on which frames fell between the keys.
	screen := h.screen(false)
	if i := strings.Index(screen, "╭─ Session tree"); i >= 0 {
		screen = screen[strings.LastIndexByte(screen[:i], '\n')+1:]
	}
	uiGolden(t, "tree", maskIDs(maskDates(screen)))
	h.send("\x1b[27u")
}

// TestUIResumePicker: zut -r without an id opens the session picker
// before any conversation is shown; the one chosen is printed once; Esc
// starts a new conversation instead of staying in the latest unseen.
func TestUIResumePicker(t *testing.T) {
	var base string
	for _, q := range []string{"older question", "latest question"} {
		h := startUI(t, uiOptions{base: base, replies: []providertest.Reply{{Text: "answer to " + q}}})
		h.idle()
		h.submit(q, "answer to "+q)
		h.stop()
		base = h.home
	}
	tests := []struct {
		name   string
		keys   string
		want   string // shown once
		absent string
	}{
		{"latest", "\r", "answer to latest question", "answer to older question"},
		{"older", "\x1b[B\r", "answer to older question", "answer to latest question"},
		{"esc", "\x1b", "new conversation", "answer to"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startUI(t, uiOptions{args: []string{"-r"}, base: base})
			h.waitText("Resume a session")
			h.waitText("latest question")
			if s := h.screen(true); strings.Contains(s, "answer to") {
				t.Fatalf("a conversation is shown before one is chosen:\n%s", s)
			}
			h.send(tc.keys)
			h.waitText(tc.want)
			h.idle()
			s := h.screen(true)
			if strings.Count(s, tc.want) != 1 || strings.Contains(s, tc.absent) {
				t.Errorf("want %q once and no %q:\n%s", tc.want, tc.absent, s)
			}
			h.stop()
		})
	}
}

// TestUIModelRemembered: the model chosen with /model is the model of
// the next start (it was forgotten unless set in /settings).
func TestUIModelRemembered(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	h.submit("/model anthropic/claude-haiku-4-5", "model: anthropic/claude-haiku-4-5 (the default from now on")
	h.stop()
	// config.json's model is what a start without --model uses
	// (app.New; the harness always passes --model).
	st, err := app.LoadSettings(h.zut)
	if err != nil || st.Model != "anthropic/claude-haiku-4-5" {
		t.Errorf("config.json's model = %q, %v; want anthropic/claude-haiku-4-5", st.Model, err)
	}
}

// TestUIProbe answers zut's capability queries: a light background makes
// the auto theme light, and the features the terminal confirms are used.
func TestUIProbe(t *testing.T) {
	h := startUI(t, uiOptions{profile: ansi.ProfileTrueColor, background: "rgb:ffff/fafa/f0f0"})
	h.idle()
	var name string
	var caps tui.Caps
	h.do(func(u *ui) { name, caps = u.chat.Options().Theme.Name, u.caps })
	if name != "light" {
		t.Errorf("auto theme on a light background = %q, want light", name)
	}
	if !caps.SyncOutput || !caps.KittyKeyboard {
		t.Errorf("caps = %+v, want synchronized output and the kitty keyboard", caps)
	}
	h.term.mu.Lock()
	frames, flags := h.term.t.SyncFrames, h.term.t.KittyFlags
	h.term.mu.Unlock()
	if frames == 0 || len(flags) == 0 || flags[len(flags)-1] != 1 {
		t.Errorf("sync frames %d, kitty flags %v; want frames and flags [1]", frames, flags)
	}
}

// TestUIExtensionDialogs answers an extension's select, confirm, input
// and overlay dialogs with keys.
func TestUIExtensionDialogs(t *testing.T) {
	tests := []struct {
		name string
		req  proto.UIRequest
		keys string
		want string // the answer, as JSON
	}{
		{"select", proto.UIRequest{Kind: proto.UISelect, Title: "Deploy to", Options: []string{"staging", "production"}}, "\x1b[B\r", `{"value":"production","index":1}`},
		{"select cancelled", proto.UIRequest{Kind: proto.UISelect, Options: []string{"a", "b"}}, "\x1b[27u", `{"cancelled":true}`},
		{"confirm yes", proto.UIRequest{Kind: proto.UIConfirm, Message: "Deploy now?"}, "y", `{"value":true}`},
		{"confirm default no", proto.UIRequest{Kind: proto.UIConfirm, Message: "Delete?", Default: json.RawMessage("false")}, "\r", `{"value":false}`},
		{"input", proto.UIRequest{Kind: proto.UIInput, Message: "Branch name?", Placeholder: "feature/..."}, "fix-parser\r", `{"value":"fix-parser"}`},
		{"overlay action", proto.UIRequest{Kind: proto.UIOverlay, Title: "Plan", Text: "1. read\n2. write", Actions: []string{"Approve", "Reject"}}, "\x1b[B\r", `{"index":1,"action":"Reject"}`},
		{"overlay dismissed", proto.UIRequest{Kind: proto.UIOverlay, Title: "Note", Text: "Just so you know."}, "\r", `{"index":-1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startUI(t, uiOptions{})
			h.idle()
			answers := make(chan proto.UIResponse, 1)
			tc.req.ID = "d1"
			h.do(func(u *ui) {
				u.bridge().UIRequest("deployer", tc.req, func(r proto.UIResponse) { answers <- r })
			})
			h.send(tc.keys)
			select {
			case got := <-answers:
				b, _ := json.Marshal(got)
				if string(b) != tc.want {
					t.Errorf("answer = %s, want %s", b, tc.want)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no answer; screen:\n%s", h.screen(false))
			}
			h.sync()
			if s := h.screen(false); strings.Contains(s, "╭") {
				t.Errorf("the dialog stays open:\n%s", s)
			}
		})
	}
}

// TestUIPrintNotes shows an extension's print notes in the transcript.
func TestUIPrintNotes(t *testing.T) {
	h := startUI(t, uiOptions{width: 50, height: 20})
	h.idle()
	h.do(func(u *ui) {
		b := u.bridge()
		b.Print("plan", proto.Print{Text: "Step 1 done", Style: "info"})
		b.Print("plan", proto.Print{Text: "**Plan**\n\n- read\n- write", Style: "block", Markdown: true, Subtitle: "The plan"})
		b.Header("plan", proto.Header{Text: "PLAN MODE"})
	})
	uiGolden(t, "print_notes", h.screen(true))
}

// TestUISkills lists the skills and sends one with /skill:name.
func TestUISkills(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "Greeted."}}, setup: func(h *uiHarness) {
		dir := filepath.Join(h.home, "proj", ".zut", "skills", "greet")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: greet\ndescription: greet people warmly\n---\nAlways greet with a wave emoji.\n"), 0o644)
	}})
	h.idle()
	h.enter("/skills")
	h.waitText("greet people warmly")
	h.submit("/skill:greet say hi to Ana", "Greeted.")
	body, _ := json.Marshal(h.srv.Requests()[0].Body)
	if !strings.Contains(string(body), "Always greet with a wave emoji.") || !strings.Contains(string(body), "say hi to Ana") {
		t.Errorf("the request lacks the skill or the request text: %s", body)
	}
}

// TestUISessionCommands runs /compact (too early), /name, /session, /new
// and /clear.
func TestUISessionCommands(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "first"}}})
	h.idle()
	steps := []struct{ cmd, want string }{
		{"/compact", "nothing to compact yet"},
		{"/name parser work", "session named: parser work"},
		{"/session", "title: parser work"},
		{"/bogus", "unknown command /bogus"},
		{"/new", "new conversation"},
	}
	for _, st := range steps {
		h.submit(st.cmd, st.want)
	}
	h.submit("hello", "first")
	h.enter("/clear")
	h.waitFor("the screen to clear", func(s string) bool { return !strings.Contains(s, "first") && strings.Contains(s, "ask anything") })
}

// TestUICompactShort: /compact of a short conversation summarises it
// (it refused with "nothing to compact yet") and says so once.
func TestUICompactShort(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "first"}, {Text: "Goal: greet.\nDone: said hello."}}})
	h.idle()
	h.submit("hello", "first")
	h.submit("/compact", "compacted: the conversation continues from a 2-line summary")
	h.idle()
	if s := h.screen(true); strings.Count(s, "compacted") != 1 {
		t.Errorf("the screen says compacted %d times, want once:\n%s", strings.Count(s, "compacted"), s)
	}
}

// TestUIOverlaySize draws an extension's ui.overlay at the width and
// height it asks for: centred by default, left-aligned when anchored; and
// dialogs in their border_color.
func TestUIOverlaySize(t *testing.T) {
	text := "Step one reads the files.\n\nStep two writes the plan.\n\nStep three runs the tests and reports back.\n\nStep four asks you again."
	tests := []struct {
		name string
		req  proto.UIRequest
	}{
		{"overlay_sized_center", proto.UIRequest{Kind: proto.UIOverlay, Title: "Plan", Text: text, Actions: []string{"Approve", "Reject"}, Width: 32, MaxHeight: 9}},
		{"overlay_sized_bottom", proto.UIRequest{Kind: proto.UIOverlay, Title: "Plan", Text: text, Actions: []string{"Approve"}, Width: 32, Anchor: proto.AnchorBottom, BorderColor: "#ff8800"}},
		{"overlay_sized_wider_than_screen", proto.UIRequest{Kind: proto.UIOverlay, Title: "Plan", Text: "Short.", Width: 500, MaxHeight: 500}},
		{"select_border_color", proto.UIRequest{Kind: proto.UISelect, Title: "Plan", Options: []string{"a", "b"}, BorderColor: "#ff8800"}},
		{"input_border_color", proto.UIRequest{Kind: proto.UIInput, Title: "Plan", Message: "Name?", BorderColor: "#ff8800"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startUI(t, uiOptions{width: 60, height: 20, profile: ansi.ProfileTrueColor})
			h.idle()
			tc.req.ID = "d1"
			h.do(func(u *ui) { u.bridge().UIRequest("planner", tc.req, func(proto.UIResponse) {}) })
			h.waitText("Plan")
			h.sync()
			uiGolden(t, tc.name, h.screen(false))
			if tc.name == "overlay_sized_center" {
				h.send("\x1b[6~") // page down: the cut body scrolls
				h.waitText("Step two writes")
			}
			if tc.req.BorderColor != "" {
				if s := h.styled(); !strings.Contains(s, "fg=#ff8800") {
					t.Errorf("border_color %s not drawn:\n%s", tc.req.BorderColor, s)
				}
			}
		})
	}
}

// forkGuard is a raw Python extension that records every before_fork it
// is asked about in $FORK_LOG and cancels the fork.
var forkGuard = rawPy("forkguard", []string{"intercepts2"}, `emit({"type": "subscribe", "intercept": ["before_fork"]})
`, `elif m["type"] == "event_intercept":
    with open(os.environ["FORK_LOG"], "a") as f:
        f.write(json.dumps({k: m.get(k) for k in ("target_id", "is_user_message", "user_text")}) + "\n")
    emit({"type": "event_intercept_response", "id": m["id"], "cancel": True, "reason": "keep this branch"})
`)

// TestUIForkAsksAboutTheChosenMessage: /fork sends before_fork the user
// message the user picked (not its parent), with its text, and shows the
// extension's refusal at once, without waiting for another key.
func TestUIForkAsksAboutTheChosenMessage(t *testing.T) {
	needPython(t, "the fork guard is a Python extension")
	base := t.TempDir()
	dir, log := filepath.Join(base, "forkguard"), filepath.Join(base, "fork.log")
	writeRawExt(t, dir, "forkguard", "guard.py", forkGuard)
	t.Setenv("FORK_LOG", log) // extensions get the process's environment
	h := startUI(t, uiOptions{width: 70, height: 24, extensions: true, base: base, args: []string{"-e", dir},
		replies: []providertest.Reply{{Text: "first answer"}, {Text: "second answer"}}})
	h.idle()
	for _, q := range []string{"first question", "second question"} {
		h.submit(q, strings.Replace(q, "question", "answer", 1))
	}
	h.enter("/fork")
	h.waitText("Fork from before")
	h.send("\r") // the newest message is selected
	// No other key: the refusal must show by itself.
	h.waitText("fork cancelled by extension")
	var want string
	h.do(func(u *ui) {
		for _, e := range u.app.Session().Branch() {
			if e.Message != nil && e.Message.Role == "user" {
				want = e.ID
			}
		}
	})
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TargetID      string `json:"target_id"`
		IsUserMessage bool   `json:"is_user_message"`
		UserText      string `json:"user_text"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("fork log %q: %v", b, err)
	}
	if got.TargetID != want || !got.IsUserMessage || got.UserText != "second question" {
		t.Errorf("before_fork = %+v, want target %s (the chosen user message), is_user_message, user_text %q", got, want, "second question")
	}
}

// reloader is a raw Python extension whose /rl command asks zut to reload
// the extensions (app.reload_extensions) and answers once zut has agreed.
var reloader = rawPy("reloader", []string{"commands", "host_requests"}, `cmd = None
emit({"type": "register_command", "name": "rl", "description": "reload"})
`, `elif m["type"] == "command_invoked":
    cmd = m["id"]
    emit({"type": "host_request", "id": "h1", "method": "app.reload_extensions"})
elif m["type"] == "host_response" and cmd:
    emit({"type": "command_response", "id": cmd, "action": "display", "display": "reload asked for"})
    cmd = None
`)

// TestUIExtensionCommandReloads: a command that asks for a reload gets
// its answer shown first, then the extensions reload.
func TestUIExtensionCommandReloads(t *testing.T) {
	needPython(t, "the reloader is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "reloader")
	writeRawExt(t, dir, "reloader", "rl.py", reloader)
	h := startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base, args: []string{"-e", dir}})
	h.idle()
	h.enter("/rl")
	h.waitText("reload asked for")
	h.waitText("extensions reloaded: 1 loaded")
	if s := h.screen(true); strings.Contains(s, "stopped") {
		t.Errorf("the extension was reported stopped:\n%s", s)
	}
}

// greeter is a minimal raw Python extension with one command.
var greeter = rawPy("greeter", []string{"commands"}, `emit({"type": "register_command", "name": "greet", "description": "greet"})
`, `elif m["type"] == "command_invoked":
    emit({"type": "command_response", "id": m["id"], "action": "display", "display": "hello from the project"})
`)

// TestUITrustProject: a project extension does not run until the user
// trusts the folder; the answer is remembered.
func TestUITrustProject(t *testing.T) {
	needPython(t, "the project extension is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "proj", ".zut", "extensions", "greeter")
	writeRawExt(t, dir, "greeter", "greet.py", greeter)
	h := startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base})
	h.waitText("Trust this folder?")
	if s := h.screen(false); !strings.Contains(s, "greeter (./greet.py)") {
		t.Errorf("the question does not name the extension:\n%s", s)
	}
	h.send("\r") // Trust this folder
	h.waitText("extensions reloaded: 1 loaded")
	h.idle()
	h.enter("/greet")
	h.waitText("hello from the project")
	b, err := os.ReadFile(filepath.Join(base, "zuthome", "trust.json"))
	if err != nil || !strings.Contains(string(b), filepath.Join(base, "proj")) {
		t.Errorf("trust.json = %s, %v; want the project root", b, err)
	}
	h.stop()

	// The next start remembers the answer: no question, the extension runs.
	h = startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base})
	h.idle()
	h.enter("/greet")
	h.waitText("hello from the project")
	if s := h.screen(true); strings.Contains(s, "Trust this folder?") {
		t.Errorf("asked again:\n%s", s)
	}
}

// TestUITrustProjectNotNow: "Not now" keeps the project extension off.
func TestUITrustProjectNotNow(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "proj", ".zut", "extensions", "greeter")
	writeRawExt(t, dir, "greeter", "greet.py", greeter)
	h := startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base})
	h.waitText("Trust this folder?")
	h.send("\x1b[B\r") // down, Not now
	h.waitText("stay off")
	h.idle()
	h.enter("/greet")
	h.waitText("unknown command /greet")
}

// TestUITrustMCP: the trust question lists a project's MCP servers with
// their commands, and trusting says what starts (it said "extensions
// reloaded: 0 loaded" for a folder without extensions).
func TestUITrustMCP(t *testing.T) {
	needPython(t, "the MCP server is a Python script")
	server, err := filepath.Abs("../../testdata/mcp/notes_server.py")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, "proj"), 0o755)
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"command": "python3", "args": []string{server}}}})
	os.WriteFile(filepath.Join(base, "proj", ".mcp.json"), data, 0o644)
	h := startUI(t, uiOptions{width: 120, height: 30, extensions: true, base: base})
	h.waitText("Trust this folder?")
	if s := h.screen(false); !strings.Contains(s, "MCP server notes (python3 "+server+"), from .mcp.json") {
		t.Errorf("the question does not name the server and its command:\n%s", s)
	}
	h.send("\r")
	h.waitText("1 MCP server starting")
	h.idle()
	if s := h.screen(true); strings.Contains(s, "extensions reloaded") {
		t.Errorf("trusting a folder without extensions reports a reload:\n%s", s)
	}
}

// headerRenderer is a raw Python extension that renders the header of
// bash calls (render_header), from the arguments alone.
var headerRenderer = rawPy("looks", []string{"ui2"}, `emit({"type": "register_tool_renderer", "tool_name": "bash", "render_header": True})
`, `elif m["type"] == "render_tool":
    emit({"type": "render_tool_response", "id": m["id"], "header": "RUN " + m["args"].get("command", "")})
`)

// TestUIRendererHeaderBeforeResult: a renderer's header shows as soon as
// the arguments are complete, in the confirmation dialog too, not only
// once the call has finished.
func TestUIRendererHeaderBeforeResult(t *testing.T) {
	needPython(t, "the renderer is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "looks")
	writeRawExt(t, dir, "looks", "looks.py", headerRenderer)
	h := startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base, args: []string{"-e", dir},
		replies: []providertest.Reply{
			{Tools: []providertest.ToolCall{{ID: "call_1", Name: "bash", Args: `{"command":"echo hi","timeout":5}`}}},
			{Text: "done"},
		}})
	h.idle()
	h.enter("run it")
	h.waitFor("the confirmation with the rendered header", func(s string) bool {
		return strings.Contains(s, "RUN echo hi") && strings.Contains(s, "Allow")
	})
}

// TestUIToolSummaries: the built-in tools beyond the first six show a
// compact view of their result: ast an outline.
func TestUIToolSummaries(t *testing.T) {
	h := startUI(t, uiOptions{width: 80, height: 24, args: []string{"--yolo"}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "call_1", Name: "ast", Args: `{"action":"outline","path":"main.go"}`}}},
		{Text: "It has two functions."},
	}, setup: func(h *uiHarness) {
		os.WriteFile(filepath.Join(h.home, "proj", "main.go"), []byte("package main\n\nfunc main() {}\n\nfunc helper(n int) int { return n }\n"), 0o644)
	}})
	h.idle()
	h.enter("outline main.go")
	h.waitText("two functions")
	s := h.screen(true)
	for _, want := range []string{"✓ ast outline in main.go", "func main  main.go:3", "func helper  main.go:5"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// shellGuard is a raw Python extension that intercepts tool calls,
// records their source in $GUARD_LOG, and refuses rm -rf.
var shellGuard = rawPy("guard", []string{"tools"}, `emit({"type": "subscribe", "intercept": ["tool_call"]})
`, `elif m["type"] == "event_intercept":
    cmd = m.get("tool_args", {}).get("command", "")
    with open(os.environ["GUARD_LOG"], "a") as f:
        f.write("%s %s\n" % (m.get("source", "-"), cmd))
    r = {"type": "event_intercept_response", "id": m["id"]}
    if "rm -rf" in cmd:
        r.update(block=True, reason="rm -rf is not allowed here")
    elif cmd == "echo one":
        r["modified_args"] = {"command": "echo ONE"}
    emit(r)
`)

// TestUIShellThroughGuard: the user's !cmd goes through the extensions'
// tool_call interception with source "user": a guard can refuse it (the
// user sees why) or rewrite it.
func TestUIShellThroughGuard(t *testing.T) {
	needPython(t, "the guard is a Python extension")
	base := t.TempDir()
	dir, log := filepath.Join(base, "guard"), filepath.Join(base, "guard.log")
	writeRawExt(t, dir, "guard", "guard.py", shellGuard)
	victim := filepath.Join(base, "victim")
	os.MkdirAll(victim, 0o755)
	t.Setenv("GUARD_LOG", log)
	h := startUI(t, uiOptions{width: 100, height: 24, extensions: true, base: base, args: []string{"-e", dir}})
	h.idle()
	h.submit("!rm -rf "+victim, "rm -rf is not allowed here")
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the guarded command ran: %v", err)
	}
	h.enter("!echo one")
	h.waitText("ONE")
	b, _ := os.ReadFile(log)
	if got := string(b); !strings.Contains(got, "user rm -rf "+victim) || !strings.Contains(got, "user echo one") {
		t.Errorf("the guard saw:\n%s\nwant both commands with source user", got)
	}
}

// switchGuard is a raw Python extension that cancels every session switch
// (before_session_switch) and logs each reason it was asked about.
var switchGuard = rawPy("switchguard", []string{"intercepts2"}, `emit({"type": "subscribe", "intercept": ["before_session_switch"]})
`, `elif m["type"] == "event_intercept":
    with open(os.environ["SWITCH_LOG"], "a") as f:
        f.write(m.get("reason", "") + "\n")
    emit({"type": "event_intercept_response", "id": m["id"], "cancel": True, "reason": "stay in " + m.get("reason", "")})
`)

// TestUISessionSwitchCancelled: when an extension cancels /new, /clear or
// /resume, its reason shows at once, without another key, and the
// conversation stays.
func TestUISessionSwitchCancelled(t *testing.T) {
	needPython(t, "the switch guard is a Python extension")
	tests := []struct{ command, reason string }{
		{"/new", "new"},
		{"/clear", "clear"},
		{"/resume 0123abcd", "resume"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			base := t.TempDir()
			dir, log := filepath.Join(base, "switchguard"), filepath.Join(base, "switch.log")
			writeRawExt(t, dir, "switchguard", "guard.py", switchGuard)
			t.Setenv("SWITCH_LOG", log)
			h := startUI(t, uiOptions{width: 70, height: 24, extensions: true, base: base, args: []string{"-e", dir},
				replies: []providertest.Reply{{Text: "first answer"}}})
			h.idle()
			h.submit("first question", "first answer")
			var before string
			h.do(func(u *ui) { before = u.app.Session().ID() })
			h.enter(tc.command)
			// No other key: the refusal must show by itself.
			h.waitText("stay in " + tc.reason)
			var after string
			var messages int
			h.do(func(u *ui) { after, messages = u.app.Session().ID(), len(u.app.Session().Messages()) })
			if after != before || messages != 2 {
				t.Errorf("after a cancelled %s: session %s with %d messages, want %s with 2", tc.command, after, messages, before)
			}
			b, err := os.ReadFile(log)
			if err != nil || strings.TrimSpace(string(b)) != tc.reason {
				t.Errorf("before_session_switch reasons = %q (%v), want %q", b, err, tc.reason)
			}
		})
	}
}

// injector is a raw Python extension that adds context to every prompt
// through before_agent_start's inject_text.
var injector = rawPy("injector", []string{"intercepts2"}, `emit({"type": "subscribe", "intercept": ["before_agent_start"]})
`, `elif m["type"] == "event_intercept":
    emit({"type": "event_intercept_response", "id": m["id"], "inject_text": "INJECTED"})
`)

// TestUIForkKeepsInjectedTextOut: text an extension injects into a prompt
// is context, not the user's words: /fork puts back only what the user
// typed, and the session's title is made of it too.
func TestUIForkKeepsInjectedTextOut(t *testing.T) {
	needPython(t, "the injector is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "injector")
	writeRawExt(t, dir, "injector", "inject.py", injector)
	h := startUI(t, uiOptions{width: 70, height: 24, extensions: true, base: base, args: []string{"-e", dir},
		replies: []providertest.Reply{{Text: "first answer"}}})
	h.idle()
	h.submit("first prompt", "first answer")
	if reqs := h.srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Raw), "INJECTED") {
		t.Fatalf("the injected text did not reach the model: %d requests", len(reqs))
	}
	h.enter("/fork")
	h.waitText("Fork from before")
	h.send("\r")
	h.waitText("new branch: the conversation continues")
	var text, title string
	h.do(func(u *ui) { text, title = u.ed.Text(), u.app.Session().Title() })
	if text != "first prompt" {
		t.Errorf("after /fork the editor holds %q, want the user's words %q", text, "first prompt")
	}
	if strings.Contains(title, "INJECTED") {
		t.Errorf("the session title %q holds the injected text", title)
	}
}

// TestUIPromptTemplate: a Claude Code custom command shows in /help and
// in the / completion, and runs as /fix-issue 42 with its argument
// filled in; /config names it.
func TestUIPromptTemplate(t *testing.T) {
	h := startUI(t, uiOptions{width: 100, height: 30, replies: []providertest.Reply{{Text: "Fixed it."}}, setup: func(h *uiHarness) {
		dir := filepath.Join(h.home, "proj", ".claude", "commands")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "fix-issue.md"), []byte("---\ndescription: fix a numbered issue\nargument-hint: NUMBER\n---\nFix issue #$1 and run the tests.\n"), 0o644)
	}})
	h.idle()
	h.typeText("/fix-i")
	h.waitText("fix a numbered issue (NUMBER)") // the completion menu
	h.send("\x15")                              // Ctrl+U: clear the line
	h.enter("/help")
	h.waitText("/fix-issue")
	h.submit("/fix-issue 42", "Fixed it.")
	body, _ := json.Marshal(h.srv.Requests()[0].Body)
	if !strings.Contains(string(body), "Fix issue #42 and run the tests.") || strings.Contains(string(body), "/fix-issue") {
		t.Errorf("the request lacks the template's prompt, or holds the command: %s", body)
	}
	h.enter("/config")
	h.waitText("/fix-issue  ~/proj/.claude/commands/fix-issue.md")
}
