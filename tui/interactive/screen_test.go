package interactive

import (
	"context"
	"encoding/json"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// codeAnswer is a streamed answer with a heading, a list and Go code.
const codeAnswer = "## Reading a file\n\nUse `os.ReadFile`:\n\n- it reads everything\n- it returns an error\n\n```go\nfunc load(path string) ([]byte, error) {\n\treturn os.ReadFile(path) // whole file\n}\n```\n\nThat is all."

func TestUIStartup(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	uiGolden(t, "startup", h.screen(true))
}

func TestUIStreamedAnswerWithCode(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: codeAnswer, Chunks: 40, Usage: replyUsage(1200, 80)}}})
	h.idle()
	h.submit("how do I read a file?", "That is all.")
	uiGolden(t, "stream_code", h.screen(true))
}

func TestUIStreamedAnswerStyles(t *testing.T) {
	h := startUI(t, uiOptions{profile: ansi.ProfileANSI256, replies: []providertest.Reply{{Text: codeAnswer, Chunks: 7}}})
	h.idle()
	h.submit("styles", "That is all.")
	uiGolden(t, "stream_code_styles", h.styled())
}

func replyUsage(in, out int) provider.Usage { return provider.Usage{Input: in, Output: out} }

// TestUIToolCallWithDiff runs an edit that needs confirmation: the dialog,
// then the diff.
func TestUIToolCallWithDiff(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"path": "main.go", "edits": []map[string]string{{"oldText": "println(\"hi\")", "newText": "println(\"hello, world\")"}}})
	h := startUI(t, uiOptions{
		replies: []providertest.Reply{
			{Text: "I will change the greeting.", Tools: []providertest.ToolCall{{ID: "call_1", Name: "edit", Args: string(args)}}},
			{Text: "Changed it."},
		},
		setup: func(h *uiHarness) {
			src := "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
			if err := os.WriteFile(filepath.Join(h.home, "proj", "main.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	})
	h.idle()
	h.enter("greet the world")
	h.waitText("Allow edit?")
	h.sync()
	uiGolden(t, "confirm", h.screen(false))
	h.send("y")
	h.waitText("Changed it.")
	h.idle()
	uiGolden(t, "tool_diff", h.screen(true))
	got, _ := os.ReadFile(filepath.Join(h.home, "proj", "main.go"))
	if !strings.Contains(string(got), "hello, world") {
		t.Errorf("main.go after the edit = %q, want the new greeting", got)
	}
}

// TestUIConfirmDeny denies a call with a reason, which reaches the model.
func TestUIConfirmDeny(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"command": "rm -rf build", "timeout": 10})
	h := startUI(t, uiOptions{replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "call_1", Name: "bash", Args: string(args)}}},
		{Text: "Understood, I kept it."},
	}})
	h.idle()
	h.enter("clean up")
	h.waitText("Allow bash?")
	h.send("n")
	h.waitText("Reason")
	h.submit("keep the build", "Understood, I kept it.")
	reqs := h.srv.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1].Body)
	if len(reqs) != 2 || !strings.Contains(string(body), "keep the build") {
		t.Fatalf("the second request does not carry the reason; requests: %d", len(reqs))
	}
	if !strings.Contains(h.screen(true), "✗ bash") {
		t.Errorf("the denied call is not shown as failed:\n%s", h.screen(true))
	}
}

func TestUIPanel(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	h.do(func(u *ui) {
		u.bridge().OpenPanel("todo", proto.Panel{ID: "todo-main", Title: "Todos",
			Lines:  []string{"› □ ship the panel api", "  ✓ persist state", "  □ write the docs"},
			Footer: "↑/↓ move · x toggle · esc close"})
	})
	uiGolden(t, "panel", h.screen(false))
	h.send("\x1b[27u") // Esc (kitty encoding: no wait for a lone ESC)
	h.waitFor("the panel to close", func(s string) bool { return !strings.Contains(s, "Todos") })
}

func TestUIWidgetsAndStatus(t *testing.T) {
	h := startUI(t, uiOptions{})
	h.idle()
	h.do(func(u *ui) {
		b := u.bridge()
		b.Widget("indexer", proto.Widget{ID: "progress", Position: "above_input", Title: "Progress", Lines: []string{"Indexing files", "12/20 complete"}})
		b.Status("indexer", "state", "success", "2/4 tasks checked")
		b.Status("git", "branch", "info", "main ↑1")
		b.Notify("weather", "warn", "the API key expires in 3 days")
		b.Display("todo", "added: write the docs")
	})
	uiGolden(t, "widgets_status", h.screen(false))
	// Notes go with the next prompt; status and widgets stay.
	h.do(func(u *ui) { u.bridge().ClearNotes("weather") })
	if s := h.screen(false); strings.Contains(s, "expires") || !strings.Contains(s, "added: write the docs") {
		t.Errorf("clear_notes removed the wrong notes:\n%s", s)
	}
	h.do(func(u *ui) { u.bridge().ClearChrome("indexer") })
	if s := h.screen(false); strings.Contains(s, "Progress") || strings.Contains(s, "2/4") || !strings.Contains(s, "main ↑1") {
		t.Errorf("the chrome of the stopped extension stays:\n%s", s)
	}
}

func TestUINarrowTerminal(t *testing.T) {
	h := startUI(t, uiOptions{width: 20, height: 5, replies: []providertest.Reply{{Text: "A short answer that wraps over lines."}}})
	h.idle()
	h.submit("hi there", "lines.")
	uiGolden(t, "narrow20", h.screen(true))
}

func TestUIWideCharacters(t *testing.T) {
	h := startUI(t, uiOptions{width: 40, height: 14, replies: []providertest.Reply{{Text: "日本語のテキストは二つのセルを使います。絵文字も 👍🏽 と 👨‍👩‍👧 と 🇫🇷 です。", Chunks: 9}}})
	h.idle()
	h.submit("漢字と emoji 🎉", "です。")
	uiGolden(t, "cjk_emoji", h.screen(true))
}

// TestUIResizeMidStream narrows and widens the terminal while an answer
// streams: committed lines keep their width, the rest follows the new
// one, and nothing is drawn twice.
func TestUIResizeMidStream(t *testing.T) {
	h := startUI(t, uiOptions{width: 60, height: 16, reflow: true})
	h.idle()
	parts := []string{
		"# Plan\n\nFirst we read the configuration file and check every field against the schema, ",
		"reporting each problem with its line.\n\nThen we write the output:\n\n```sh\nzut -p 'hello' > out.txt\n",
		"cat out.txt\n```\n\n",
		"Finally we clean up the temporary files and print a summary line for the user.",
	}
	h.do(func(u *ui) {
		u.onEvent(agent.UserMessage{Content: []agent.Block{{Type: "text", Text: "make a plan"}}})
		u.onEvent(agent.AssistantStart{})
		u.onEvent(agent.TextDelta{Delta: parts[0]})
	})
	h.resize(40, 16)
	h.do(func(u *ui) { u.onEvent(agent.TextDelta{Delta: parts[1]}) })
	h.resize(70, 16)
	h.do(func(u *ui) { u.onEvent(agent.TextDelta{Delta: parts[2]}) })
	h.do(func(u *ui) {
		u.onEvent(agent.TextDelta{Delta: parts[3]})
		u.onEvent(agent.AssistantMessage{Content: []agent.Block{{Type: "text", Text: strings.Join(parts, "")}}})
		u.onEvent(agent.Done{})
	})
	uiGolden(t, "resize_stream", h.screen(true))
}

func TestUIHelp(t *testing.T) {
	h := startUI(t, uiOptions{width: 100, height: 30})
	h.idle()
	h.submit("/help", "Commands")
	uiGolden(t, "help", h.screen(true))
}

// plainOutput is a bytes.Buffer safe for one writer and one reader.
type plainOutput struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *plainOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *plainOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUIPlainTerminal runs the UI with TERM=dumb on pipes: the transcript
// comes out as plain lines, without a single escape sequence, and lines
// typed are prompts.
func TestUIPlainTerminal(t *testing.T) {
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
	go func() { done <- runUI(context.Background(), e, opts, uiConfig{in: inR, out: &out}) }()
	io.WriteString(inW, "hello there\n")
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "A plain answer.") {
		if time.Now().After(deadline) {
			t.Fatalf("no answer; output:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("runUI = %v", err)
	}
	got := out.String()
	if strings.Contains(got, "\x1b") {
		t.Errorf("a dumb terminal got escape sequences:\n%q", got)
	}
	for _, want := range []string{"zut " + app.Version, "› hello there", "A plain answer."} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestUINoColor draws with NO_COLOR's profile: attributes, never a colour.
func TestUINoColor(t *testing.T) {
	h := startUI(t, uiOptions{profile: ansi.ProfileMono, replies: []providertest.Reply{{Text: codeAnswer}}})
	h.idle()
	h.typeText("/he")
	h.flushInput()
	h.sync()
	menu := h.styled()
	h.send("\x15") // ctrl+u
	h.submit("answer", "That is all.")
	s := h.styled() + menu
	if strings.Contains(s, "fg=") || strings.Contains(s, "bg=") {
		t.Errorf("NO_COLOR output has colours:\n%s", s)
	}
	if !strings.Contains(s, "bold") {
		t.Errorf("NO_COLOR output lost its attributes:\n%s", s)
	}
}
