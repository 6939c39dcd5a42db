package interactive

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/bot/telegram/telegramcmd"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
	"github.com/zut-go/zut/provider/providertest"
)

// TestUITelegramMirror: /telegram connect mirrors the conversation to the
// paired chat: the terminal's answer goes there, a message written there
// runs here as a prompt, the model gets telegram_send_file while
// connected, and /telegram disconnect ends it.
func TestUITelegramMirror(t *testing.T) {
	const token = "123456789:AAtest-token_abcdefghijklmnopqrstuvwx"
	owner := telegramtest.User{ID: 42, FirstName: "Ada", Username: "ada"}
	tg := telegramtest.New(t, token)
	base := t.TempDir()
	zutHome := filepath.Join(base, "zuthome")
	// A bot set up and paired, as zut telegram setup and a first run leave it.
	vars := map[string]string{"ZUT_TELEGRAM_API_URL": tg.URL, "ZUT_TELEGRAM_TOKEN": token}
	env := telegramcmd.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }, ZutHome: zutHome}
	if err := telegramcmd.Main(context.Background(), env, []string{"setup"}, nil); err != nil {
		t.Fatalf("zut telegram setup: %v", err)
	}
	tg.OpenChat(owner) // the paired user has written to the bot before
	store := telegram.Store{Dir: filepath.Join(zutHome, "telegram", tg.BotUsername())}
	if err := store.SavePairing(telegram.Pairing{UserID: owner.ID, UserName: "Ada", PairedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}

	h := startUI(t, uiOptions{base: base, width: 100, height: 30, vars: map[string]string{"ZUT_TELEGRAM_API_URL": tg.URL}, replies: []providertest.Reply{
		{Text: "Hello from the terminal."},
		{Text: "Answer to the phone."},
	}})
	h.idle()
	t.Cleanup(func() {
		if t.Failed() {
			for _, m := range tg.Sent(owner.ID) {
				t.Logf("sent %s: %q", m.Method, m.Text)
			}
			t.Logf("screen:\n%s", h.screen(true))
			log, _ := os.ReadFile(filepath.Join(store.Dir, "bot.log"))
			t.Logf("bot.log:\n%s", log)
		}
	})
	h.enter("/telegram connect")
	h.waitText("mirrored to Telegram @" + tg.BotUsername())

	h.enter("hi")
	h.waitText("Hello from the terminal.")
	tg.WaitSent(t, owner.ID, "the mirrored answer", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Hello from the terminal.") })

	tg.SendText(owner, "written on the phone")
	h.waitText("written on the phone")
	h.waitText("Answer to the phone.")
	tg.WaitSent(t, owner.ID, "the second answer", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "Answer to the phone.") })
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), `"telegram_send_file"`) {
		t.Errorf("the model was not offered telegram_send_file while connected (%d requests)", len(reqs))
	}

	h.enter("/telegram disconnect")
	h.waitText("the mirror to Telegram @" + tg.BotUsername() + " stopped")
}
