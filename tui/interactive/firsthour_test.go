package interactive

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"

	"github.com/zut-go/zut/provider/providertest"
	"github.com/zut-go/zut/tui/ansi"
)

// TestUINarrowingKeepsPrompts: after the terminal narrows and rewraps
// its scrollback, a prompt stays one line followed by one blank line: its
// background is not padded to the old width.
func TestUINarrowingKeepsPrompts(t *testing.T) {
	h := startUI(t, uiOptions{width: 100, height: 20, reflow: true, replies: []providertest.Reply{{Text: "An answer."}}})
	h.idle()
	h.submit("hi there", "An answer.")
	h.resize(50, 20)
	h.idle()
	if s := plainRows(h.screen(true)); !strings.Contains(s, "› hi there\n\nAn answer.") {
		t.Errorf("after narrowing, the prompt is not one line and a blank one:\n%s", h.screen(true))
	}
}

// plainRows is the text of a framed screen dump, one row a line, with
// trailing blanks trimmed.
func plainRows(dump string) string {
	var out []string
	for _, l := range strings.Split(dump, "\n") {
		_, row, ok := strings.Cut(l, " |")
		if !ok {
			continue
		}
		out = append(out, strings.TrimRight(strings.TrimSuffix(row, "|"), " "))
	}
	return strings.Join(out, "\n")
}

// TestUISessionPath: /session prints the file's path on a line of its
// own, unindented and unbroken when it fits.
func TestUISessionPath(t *testing.T) {
	h := startUI(t, uiOptions{width: 200, height: 24, replies: []providertest.Reply{{Text: "ok"}}})
	h.idle()
	h.submit("hi", "ok")
	h.submit("/session", "messages:")
	var path string
	h.do(func(u *ui) { path = u.app.Session().Path() })
	rows := strings.Split(plainRows(h.screen(true)), "\n")
	found := false
	for _, r := range rows {
		if r == path {
			found = true
		}
	}
	if !found {
		t.Errorf("no row of /session is the path %s alone:\n%s", path, h.screen(true))
	}
}

func TestHyperlinks(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, false},
		{map[string]string{"TERM": "xterm-kitty"}, true},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, true},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, true},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "4800"}, false},
		{map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-1/default,1,0", "TERM_PROGRAM": "tmux"}, false},
		{map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1/default,1,0"}, false},
		{map[string]string{"TERM": "screen-256color"}, false},
		{map[string]string{"TERM": "linux"}, false},
	}
	for _, tc := range tests {
		if got := hyperlinks(func(k string) string { return tc.env[k] }, ansi.ProfileANSI256); got != tc.want {
			t.Errorf("hyperlinks(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestUILinkURLShown: where OSC 8 is not known to work (tmux, here), a
// markdown link shows its URL after the text.
func TestUILinkURLShown(t *testing.T) {
	h := startUI(t, uiOptions{profile: ansi.ProfileANSI256, vars: map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "TERM": "tmux-256color"},
		replies: []providertest.Reply{{Text: "See [the docs](https://example.com/docs) for more."}}})
	h.idle()
	h.enter("where?")
	h.waitText("for more.")
	if s := h.screen(true); !strings.Contains(s, "See the docs (https://example.com/docs) for more.") {
		t.Errorf("the link lost its URL:\n%s", s)
	}
}

// TestUIResumeKeepsUsage: after /resume the footer shows the resumed
// conversation's context use and cost, saved with its answers.
func TestUIResumeKeepsUsage(t *testing.T) {
	var id string
	h := startUI(t, uiOptions{setup: func(h *uiHarness) {
		s, err := session.Create(filepath.Join(h.zut, "sessions"), filepath.Join(h.home, "proj"))
		if err != nil {
			t.Fatal(err)
		}
		id = s.ID()
		s.AppendMessage(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("an older question")}}, session.Meta{})
		s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("an older answer")}},
			session.Meta{Usage: &provider.Usage{Input: 40000, CacheRead: 10000, Output: 300, CostUSD: 0.12}})
		s.Close()
	}})
	h.idle()
	h.submit("/resume "+id[:6], "resumed:")
	footer := h.screen(false)
	if !strings.Contains(footer, "ctx 25%") || !strings.Contains(footer, "$0.12") {
		t.Errorf("the footer after /resume lacks the context use and cost:\n%s", footer)
	}
}

// TestUIStartupWarningsBelowHeader: problems with the settings and the
// theme files show under the startup header, not above it.
func TestUIStartupWarningsBelowHeader(t *testing.T) {
	h := startUI(t, uiOptions{setup: func(h *uiHarness) {
		os.MkdirAll(filepath.Join(h.zut, "themes"), 0o755)
		os.WriteFile(filepath.Join(h.zut, "themes", "broken.json"), []byte("{"), 0o644)
		os.WriteFile(filepath.Join(h.zut, "config.json"), []byte(`{"thinking": "loud"}`), 0o644)
	}})
	h.idle()
	s := plainRows(h.screen(true))
	header := strings.Index(s, "ctrl+c twice to exit")
	theme := strings.Index(s, "broken.json")
	settings := strings.Index(s, "thinking")
	if header < 0 || theme < header || settings < header {
		t.Errorf("warnings are not below the header (header at %d, theme at %d, settings at %d):\n%s", header, theme, settings, s)
	}
}

// TestUIDumbTerminalPrompt: on a dumb terminal (cooked, echoing), zut
// shows "› " when it waits for a line, and its next output starts on a
// line of its own.
func TestUIDumbTerminalPrompt(t *testing.T) {
	srv := providertest.NewServer(providertest.Reply{Text: "A plain answer."})
	defer srv.Close()
	base := t.TempDir()
	t.Chdir(base)
	inR, inW := io.Pipe()
	var out plainOutput
	vars := map[string]string{"ZUT_HOME": filepath.Join(base, "zut"), "HOME": base, "TERM": "dumb", "ANTHROPIC_API_KEY": "k"}
	e := &app.Env{Stdin: inR, Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }}
	opts, err := app.ParseOptions([]string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", srv.URL, "--no-extensions"}, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- runUI(context.Background(), e, opts, uiConfig{in: inR, out: &out, plainEcho: true}) }()
	waitOut := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond(out.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; output:\n%q", what, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitOut("the first prompt", func(s string) bool { return strings.HasSuffix(s, "ctrl+c twice to exit\n› ") })
	io.WriteString(inW, "hello there\n")
	waitOut("the prompt after the answer", func(s string) bool { return strings.HasSuffix(s, "A plain answer.\n› ") })
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("runUI = %v", err)
	}
	if got := out.String(); strings.Contains(got, "\x1b") || strings.Contains(got, "› › ") || !strings.Contains(got, "A plain answer.\n› \nzut -r ") {
		t.Errorf("output has escapes, a doubled prompt, or no line end before the exit message:\n%q", got)
	}
}

// TestUISettingsColumn: /settings shows its values in one column.
func TestUISettingsColumn(t *testing.T) {
	h := startUI(t, uiOptions{width: 90, height: 24})
	h.idle()
	h.enter("/settings")
	h.waitText("Terminal alerts")
	h.sync()
	col := -1
	for _, row := range strings.Split(plainRows(h.screen(false)), "\n") {
		for _, v := range []string{"auto", "on", "85% of the context", "collapsed", "automatic", "10 lines"} {
			if i := strings.Index(row, "  "+v); i >= 0 && strings.Contains(row, "│") {
				c := len([]rune(row[:i]))
				if col >= 0 && c != col {
					t.Fatalf("the value %q starts at column %d, others at %d:\n%s", v, c, col, h.screen(false))
				}
				col = c
			}
		}
	}
	if col < 0 {
		t.Fatalf("no values found:\n%s", h.screen(false))
	}
}

// TestUISettingsAreUISettings: /settings changes exactly app.UISettings,
// which the docs test checks docs/tui.md against.
func TestUISettingsAreUISettings(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	var got []string
	h.do(func(u *ui) {
		for _, it := range u.settingsItems() {
			got = append(got, it.Value)
		}
	})
	if strings.Join(got, ",") != strings.Join(app.UISettings, ",") {
		t.Errorf("/settings items = %v, want app.UISettings %v", got, app.UISettings)
	}
}
