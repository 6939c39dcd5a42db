package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
	"github.com/zut-go/zut/provider/providertest"
)

const botToken = "123456789:AAtest-token_abcdefghijklmnopqrstuvwx"

var botOwner = telegramtest.User{ID: 42, FirstName: "Ada", Username: "ada"}

// botRun is one zut telegram run process of the real binary.
type botRun struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

// startBot runs zut telegram run in dir with env.
func startBot(t *testing.T, dir string, env []string) *botRun {
	t.Helper()
	r := &botRun{stderr: &syncBuffer{}, done: make(chan error, 1)}
	r.cmd = exec.Command(zutBinary, "telegram", "run")
	r.cmd.Dir, r.cmd.Env, r.cmd.Stderr = dir, env, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.stop(t)
		if t.Failed() {
			t.Logf("zut telegram run's log:\n%s", r.stderr.String())
		}
	})
	return r
}

// stop ends the bot as zut telegram stop does (SIGTERM) and waits.
func (r *botRun) stop(t *testing.T) {
	if r.cmd.ProcessState != nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
		t.Errorf("zut telegram run did not stop on SIGTERM; its log:\n%s", r.stderr.String())
	}
}

// TestTelegramBot runs the real binary as a standalone bot against the
// fake Bot API server and a scripted model: pairing, a turn, a tool call
// confirmed with a button, a file sent back, /stop during a long command,
// and a restart that handles no update twice.
func TestTelegramBot(t *testing.T) {
	tg := telegramtest.New(t, botToken)
	work := t.TempDir()
	proj := filepath.Join(work, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("the notes\n"), 0o644)
	model := providertest.NewServer(
		providertest.Reply{Text: "Hello, *Ada*. Code: `a_b*c`."},
		providertest.Reply{Tools: []providertest.ToolCall{{ID: "b1", Name: "bash", Args: `{"command":"touch made.txt","timeout":10}`}}},
		providertest.Reply{Text: "Made it."},
		providertest.Reply{Tools: []providertest.ToolCall{{ID: "f1", Name: "telegram_send_file", Args: `{"path":"notes.txt","caption":"your notes"}`}}},
		providertest.Reply{Text: "Sent."},
		providertest.Reply{Tools: []providertest.ToolCall{{ID: "s1", Name: "bash", Args: `{"command":"sleep 120","timeout":300}`}}},
		providertest.Reply{Text: "after the stop"},
	)
	t.Cleanup(model.Close)
	env := []string{
		"HOME=" + filepath.Join(work, "home"), "ZUT_HOME=" + filepath.Join(work, "zuthome"), "PATH=" + os.Getenv("PATH"),
		"ZUT_TELEGRAM_API_URL=" + tg.URL, "ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + model.URL,
		"TERM=dumb",
	}
	os.MkdirAll(filepath.Join(work, "zuthome"), 0o700)
	os.WriteFile(filepath.Join(work, "zuthome", "config.json"), []byte(`{"model": "anthropic/claude-sonnet-4-5"}`), 0o600)

	setup := exec.Command(zutBinary, "telegram", "setup")
	setup.Dir, setup.Env = proj, append(env, "ZUT_TELEGRAM_TOKEN="+botToken)
	var out, errOut bytes.Buffer
	setup.Stdout, setup.Stderr = &out, &errOut
	if err := setup.Run(); err != nil {
		t.Fatalf("zut telegram setup: %v\n%s%s", err, out.String(), errOut.String())
	}
	code := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if c, ok := strings.CutPrefix(l, "Pairing code: "); ok {
			code = c
		}
	}
	if code == "" || strings.Contains(out.String()+errOut.String(), botToken) {
		t.Fatalf("setup printed no pairing code, or the token:\n%s", out.String())
	}

	bot := startBot(t, proj, env)
	tg.SendText(botOwner, code)
	tg.WaitSent(t, botOwner.ID, "the pairing reply", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Paired") })

	// A turn; the markdown arrives formatted (the server parses it).
	first := tg.SendText(botOwner, "hello")
	tg.WaitSent(t, botOwner.ID, "the answer", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Hello, Ada. Code: a_b*c.") })

	// A mutating call asks with buttons; "Allow once" runs it.
	tg.SendText(botOwner, "make a file")
	ask := tg.WaitSent(t, botOwner.ID, "the confirmation", func(m telegramtest.Sent) bool { return len(m.Buttons) > 0 && strings.Contains(m.Text, "Allow bash?") })
	id := tg.PressButton(botOwner, ask.ID, ask.Buttons[0][0].Data)
	tg.WaitSent(t, botOwner.ID, "the answer after the tool", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Made it.") })
	if _, err := os.Stat(filepath.Join(proj, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	tg.Wait(t, "the button's answer", func() bool { return tg.CallbackAnswered(id) })

	// telegram_send_file sends the file as a document.
	tg.SendText(botOwner, "send me the notes")
	doc := tg.WaitSent(t, botOwner.ID, "the document", func(m telegramtest.Sent) bool { return m.Method == "sendDocument" })
	if doc.File == nil || string(doc.File.Data) != "the notes\n" || doc.Text != "your notes" {
		t.Errorf("document sent = %+v, want notes.txt with its caption", doc)
	}
	tg.WaitSent(t, botOwner.ID, "the answer after the file", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Sent.") })

	// /stop while a command runs: the command is killed and the bot says so.
	tg.SendText(botOwner, "wait a long time")
	ask = tg.WaitSent(t, botOwner.ID, "the second confirmation", func(m telegramtest.Sent) bool {
		return len(m.Buttons) > 0 && strings.Contains(m.Text, "sleep 120")
	})
	tg.PressButton(botOwner, ask.ID, ask.Buttons[0][0].Data)
	tg.WaitSent(t, botOwner.ID, "the running command", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "sleep 120") && len(m.Buttons) == 0 })
	tg.SendText(botOwner, "/stop")
	tg.WaitSent(t, botOwner.ID, "the stop", func(m telegramtest.Sent) bool { return strings.Contains(strings.ToLower(m.Text), "stopped") })

	// A restart resumes at the stored offset: no update twice.
	bot.stop(t)
	bot = startBot(t, proj, env)
	tg.SendText(botOwner, "/status")
	t.Cleanup(func() {
		if t.Failed() {
			for _, m := range tg.Sent(botOwner.ID) {
				t.Logf("sent %s: %q", m.Method, m.Text)
			}
		}
	})
	tg.WaitSent(t, botOwner.ID, "the status", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "anthropic/claude-sonnet-4-5") })
	if n := tg.Deliveries(first); n != 1 {
		t.Errorf("the first message was delivered %d times, want once", n)
	}
	bot.stop(t)
	if log := bot.stderr.String(); strings.Contains(log, botToken) {
		t.Errorf("the bot's log shows the token:\n%s", log)
	}

	// The daemon of the real binary: start, a message, status, stop.
	zut := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(zutBinary, append([]string{"telegram"}, args...)...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("zut telegram %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if strings.Contains(string(out), botToken) {
			t.Errorf("zut telegram %s showed the token", strings.Join(args, " "))
		}
		return string(out)
	}
	if out := zut("status"); !strings.Contains(out, "stopped") {
		t.Errorf("status of a stopped bot = %q", out)
	}
	if out := zut("start"); !strings.Contains(out, "Started @") {
		t.Fatalf("start = %q", out)
	}
	t.Cleanup(func() {
		// Never leave the daemon behind (a no-op once stopped).
		stop := exec.Command(zutBinary, "telegram", "stop")
		stop.Dir, stop.Env = proj, env
		stop.Run()
	})
	tg.SendText(botOwner, "/status")
	tg.WaitSent(t, botOwner.ID, "the daemon's status", func(m telegramtest.Sent) bool {
		return strings.Contains(m.Text, "anthropic/claude-sonnet-4-5") && strings.Count(strings.Join(sentTexts(tg), "\n"), "Model: anthropic/claude-sonnet-4-5") >= 2
	})
	if out := zut("status"); !strings.Contains(out, "running") {
		t.Errorf("status of the daemon = %q", out)
	}
	if out := zut("stop"); !strings.Contains(out, "stopped") {
		t.Errorf("stop = %q", out)
	}
}

// sentTexts are the texts of everything the bot sent its owner.
func sentTexts(tg *telegramtest.Server) []string {
	var out []string
	for _, m := range tg.Sent(botOwner.ID) {
		out = append(out, m.Text)
	}
	return out
}

// syncBuffer is an io.Writer the test reads while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
