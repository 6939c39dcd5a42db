package telegramcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
)

// The test binary is also the daemon: start re-executes it with
// "telegram run ..." and ZUT_TELEGRAMCMD_CHILD=1 makes it run Main with an
// echoing scripted agent instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("ZUT_TELEGRAMCMD_CHILD") == "1" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

func child() int {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "telegram" {
		args = args[1:]
	}
	exe, _ := os.Executable()
	env := Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, ZutHome: os.Getenv("ZUT_HOME"), Executable: exe}
	err := Main(context.Background(), env, args, func(context.Context) (bot.Agent, error) { return telegramtest.NewAgent(nil), nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

const token = "123456789:AAtest-token_abcdefghijklmnopqrstuvwx"

var owner = telegramtest.User{ID: 42, FirstName: "Ada", Username: "ada"}

// syncBuffer is an io.Writer that tests read while the command writes.
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

type fixture struct {
	t    *testing.T
	srv  *telegramtest.Server
	home string
	vars map[string]string
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, srv: telegramtest.New(t, token), home: t.TempDir()}
	f.vars = map[string]string{"ZUT_TELEGRAM_API_URL": f.srv.URL, "ZUT_TELEGRAM_TOKEN": token}
	t.Cleanup(func() {
		// Never leave a daemon behind.
		for _, n := range bots(f.env(nil)) {
			stopBot(context.Background(), dirOf(f.env(nil), n))
		}
	})
	return f
}

func (f *fixture) env(stdin *strings.Reader) Env {
	exe, _ := os.Executable()
	e := Env{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(k string) string { return f.vars[k] }, ZutHome: f.home, Executable: exe}
	if stdin != nil {
		e.Stdin = stdin
	}
	return e
}

// cmd runs zut telegram args and returns stdout, stderr and the error.
func (f *fixture) cmd(args ...string) (string, string, error) {
	f.t.Helper()
	e := f.env(strings.NewReader(""))
	err := Main(context.Background(), e, args, nil)
	out, errOut := e.Stdout.(*syncBuffer).String(), e.Stderr.(*syncBuffer).String()
	for _, s := range []string{out, errOut} {
		if strings.Contains(s, token) || strings.Contains(s, "AAtest") {
			f.t.Errorf("zut telegram %s showed the token:\n%s", strings.Join(args, " "), s)
		}
	}
	if err != nil && strings.Contains(err.Error(), "AAtest") {
		f.t.Errorf("zut telegram %s: the error shows the token: %v", strings.Join(args, " "), err)
	}
	return out, errOut, err
}

// setup runs setup and returns the pairing code it printed.
func (f *fixture) setup() string {
	f.t.Helper()
	out, _, err := f.cmd("setup")
	if err != nil {
		f.t.Fatalf("setup: %v", err)
	}
	for _, line := range strings.Split(out, "\n") {
		if code, ok := strings.CutPrefix(line, "Pairing code: "); ok {
			return code
		}
	}
	f.t.Fatalf("setup printed no pairing code:\n%s", out)
	return ""
}

func (f *fixture) dir() string { return dirOf(f.env(nil), f.srv.BotUsername()) }

func TestSetup(t *testing.T) {
	f := newFixture(t)
	code := f.setup()
	if len(code) != 14 {
		t.Errorf("pairing code %q, want XXXX-XXXX-XXXX", code)
	}
	fi, err := os.Stat(filepath.Join(f.dir(), "token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600", err, fi.Mode())
	}
	if di, _ := os.Stat(f.dir()); di.Mode().Perm() != 0o700 {
		t.Errorf("bot directory mode %v, want 0700", di.Mode().Perm())
	}
	p, _ := telegram.Store{Dir: f.dir()}.Pairing()
	if !p.Matches(code) || p.Paired() {
		t.Errorf("stored pairing %+v does not match the printed code", p)
	}
	b, _ := os.ReadFile(filepath.Join(f.dir(), "pairing.json"))
	if strings.Contains(string(b), strings.ReplaceAll(code, "-", "")) {
		t.Error("pairing.json holds the code itself, not its hash")
	}
	// The token appears in no file but its own.
	filepath.Walk(f.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(path) != "token" {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(token)) {
				t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
}

func TestSetupErrors(t *testing.T) {
	tests := []struct {
		name, token, stdin, want string
	}{
		{"wrong token", "987654321:BBwrong-token_abcdefghijklmnopqrstuv", "", "Telegram refused the token (401 Unauthorized)"},
		{"not a token", "hello", "", "that is not a bot token"},
		{"token on stdin", "", token + "\n", "Pairing code"},
		{"no token", "", "", "no token on standard input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.vars["ZUT_TELEGRAM_TOKEN"] = tc.token
			e := f.env(strings.NewReader(tc.stdin))
			err := Main(context.Background(), e, []string{"setup"}, nil)
			got := e.Stdout.(*syncBuffer).String()
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, "AAtest") || strings.Contains(got, "BBwrong") {
				t.Errorf("setup = %q, want %q without the token", got, tc.want)
			}
		})
	}
}

func TestSetupUnreachable(t *testing.T) {
	f := newFixture(t)
	f.vars["ZUT_TELEGRAM_API_URL"] = "http://127.0.0.1:1"
	_, _, err := f.cmd("setup")
	if err == nil || !strings.Contains(err.Error(), "could not check the token with http://127.0.0.1:1") {
		t.Errorf("setup against a closed port = %v", err)
	}
}

func TestUsage(t *testing.T) {
	f := newFixture(t)
	for _, args := range [][]string{{}, {"frobnicate"}, {"logs", "-x"}, {"status", "extra"}} {
		_, _, err := f.cmd(args...)
		var u *UsageError
		if !errors.As(err, &u) {
			t.Errorf("zut telegram %q = %v, want a usage error", args, err)
		}
	}
	if _, _, err := f.cmd("run"); err == nil || !strings.Contains(err.Error(), "no Telegram bot is set up") {
		t.Errorf("run before setup = %v", err)
	}
}

func TestRunForeground(t *testing.T) {
	f := newFixture(t)
	code := f.setup()
	e := f.env(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Main(ctx, e, []string{"run"}, func(context.Context) (bot.Agent, error) { return telegramtest.NewAgent(nil), nil })
	}()
	f.srv.SendText(owner, code)
	f.srv.WaitSent(t, owner.ID, "the pairing reply", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Paired") })
	f.srv.SendText(owner, "hello")
	f.srv.WaitSent(t, owner.ID, "the answer", func(m telegramtest.Sent) bool { return m.Text == "You said: hello" })
	// status.json follows the pairing (it said "waiting for the pairing
	// code" until the bot was restarted).
	if st, _ := readState(f.dir()); st.State != "running" || st.Detail != "polling for messages" {
		t.Errorf("state after pairing = %+v, want running, polling for messages", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v", err)
	}
	st, _ := readState(f.dir())
	if st.State != "stopped" || !strings.Contains(st.Reason, "asked to end") {
		t.Errorf("state after run = %+v", st)
	}
	if log := e.Stderr.(*syncBuffer).String(); !strings.Contains(log, "paired with Ada (@ada)") {
		t.Errorf("the log lacks the pairing:\n%s", log)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDaemon(t *testing.T) {
	if !canDaemonize {
		t.Skip("no daemon on this system")
	}
	f := newFixture(t)
	t.Setenv("ZUT_TELEGRAMCMD_CHILD", "1") // for the re-executed test binary only
	code := f.setup()
	out, _, err := f.cmd("start")
	if err != nil || !strings.Contains(out, "Started @zut_test_bot") {
		t.Fatalf("start = %q, %v", out, err)
	}
	if out, _, _ := f.cmd("start"); !strings.Contains(out, "already running") {
		t.Errorf("second start = %q", out)
	}
	out, _, _ = f.cmd("status")
	if !strings.Contains(out, "@zut_test_bot: running (pid") || !strings.Contains(out, "not paired yet") {
		t.Errorf("status = %q", out)
	}
	if _, _, err := f.cmd("run"); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("run beside the daemon = %v", err)
	}
	if _, err := Open(context.Background(), f.env(nil), ""); err == nil || !strings.Contains(err.Error(), "running in the background") {
		t.Errorf("Open beside the daemon = %v", err)
	}
	f.srv.SendText(owner, code)
	f.srv.SendText(owner, "ping")
	f.srv.WaitSent(t, owner.ID, "the daemon's answer", func(m telegramtest.Sent) bool { return m.Text == "You said: ping" })

	// logs -f prints the log as it grows, until cancelled.
	e := f.env(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Main(ctx, e, []string{"logs", "-f"}, nil) }()
	waitFor(t, "the pairing in logs -f", func() bool { return strings.Contains(e.Stdout.(*syncBuffer).String(), "paired with Ada") })
	f.srv.SendText(owner, "/status")
	f.srv.WaitSent(t, owner.ID, "the status", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Model: fake/model-1") })
	cancel()
	<-done

	out, _, err = f.cmd("stop")
	if err != nil || !strings.Contains(out, "stopped (pid") {
		t.Fatalf("stop = %q, %v", out, err)
	}
	out, _, _ = f.cmd("status")
	if !strings.Contains(out, "stopped since") || !strings.Contains(out, "stopped by a signal") || !strings.Contains(out, "Paired with Ada") {
		t.Errorf("status after stop = %q", out)
	}
	if out, _, _ := f.cmd("stop"); !strings.Contains(out, "not running") {
		t.Errorf("second stop = %q", out)
	}

	// A daemon that dies without a word: status says so.
	if _, _, err := f.cmd("start"); err != nil {
		t.Fatal(err)
	}
	pid, ok := holder(f.dir())
	if !ok {
		t.Fatal("no daemon after the second start")
	}
	kill(pid)
	waitFor(t, "the killed daemon to go", func() bool { reap(pid); _, ok := holder(f.dir()); return !ok })
	out, _, _ = f.cmd("status")
	if !strings.Contains(out, "ended without saying why") {
		t.Errorf("status after kill -9 = %q", out)
	}
}

func TestDaemonRevokedToken(t *testing.T) {
	if !canDaemonize {
		t.Skip("no daemon on this system")
	}
	f := newFixture(t)
	t.Setenv("ZUT_TELEGRAMCMD_CHILD", "1")
	f.setup()
	f.srv.Fail("getUpdates", telegramtest.Fault{Code: 401, Description: "Unauthorized"})
	// start says why when the daemon stops before it can report that it
	// runs; otherwise status does.
	if _, _, err := f.cmd("start"); err != nil && !strings.Contains(err.Error(), "Telegram refused the bot token") {
		t.Fatalf("start: %v", err)
	}
	waitFor(t, "the daemon to stop", func() bool { _, ok := holder(f.dir()); return !ok })
	out, _, _ := f.cmd("status")
	if !strings.Contains(out, "Telegram refused the bot token") || !strings.Contains(out, "zut telegram setup") {
		t.Errorf("status = %q, want why it stopped", out)
	}
	logs, _, _ := f.cmd("logs", "-n", "3")
	if !strings.Contains(logs, "refused the bot token") {
		t.Errorf("logs = %q", logs)
	}
}

func TestStartFailsAtOnce(t *testing.T) {
	if !canDaemonize {
		t.Skip("no daemon on this system")
	}
	f := newFixture(t)
	t.Setenv("ZUT_TELEGRAMCMD_CHILD", "1")
	f.setup()
	os.Chmod(filepath.Join(f.dir(), "token"), 0o644)
	_, _, err := f.cmd("start")
	if err == nil || !strings.Contains(err.Error(), "can be read by other users") {
		t.Errorf("start with a readable token = %v", err)
	}
}

func TestResetAndOpen(t *testing.T) {
	f := newFixture(t)
	f.setup()
	if _, err := Open(context.Background(), f.env(nil), ""); err == nil || !strings.Contains(err.Error(), "not paired yet") {
		t.Errorf("Open before pairing = %v", err)
	}
	telegram.Store{Dir: f.dir()}.SavePairing(telegram.Pairing{UserID: owner.ID, UserName: "Ada"})
	l, err := Open(context.Background(), f.env(nil), "@zut_test_bot")
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	if home, ok := l.Bot.Home(); !ok || home != "42" {
		t.Errorf("Home = %q, %v", home, ok)
	}
	if _, _, err := f.cmd("setup"); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Errorf("setup while open = %v", err)
	}
	l.Close()
	out, _, err := f.cmd("reset")
	if err != nil || !strings.Contains(out, "Forgot @zut_test_bot") {
		t.Fatalf("reset = %q, %v", out, err)
	}
	if _, err := os.Stat(f.dir()); !os.IsNotExist(err) {
		t.Errorf("the bot's directory is still there: %v", err)
	}
	if out, _, _ := f.cmd("status"); !strings.Contains(out, "No Telegram bot is set up") {
		t.Errorf("status after reset = %q", out)
	}
}
