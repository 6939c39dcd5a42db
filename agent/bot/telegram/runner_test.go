package telegram_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
)

func TestTurn(t *testing.T) {
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		return a.Stream(ctx, "Hello **"+in.Text+"**, here is `code` & <tags>.", 5, time.Millisecond)
	}})
	h.start()
	h.srv.SendText(owner, "Ada")
	m := h.waitText("Hello Ada, here is code & <tags>.")
	if len(m.Entities) != 2 || m.Entities[0].Type != "bold" || m.Entities[1].Type != "code" {
		t.Errorf("answer entities = %+v, want bold and code", m.Entities)
	}
	if m.ParseMode != "HTML" {
		t.Errorf("answer parse_mode = %q, want HTML", m.ParseMode)
	}
	if got := h.agent.Prompts()[0]; got.Text != "Ada" || got.Source != "telegram" {
		t.Errorf("prompt = %+v, want text Ada from telegram", got)
	}
	if len(h.srv.Calls("sendChatAction")) == 0 {
		t.Error("no sendChatAction while the turn ran")
	}
	if c := h.srv.Calls("setMyCommands"); len(c) != 1 || !strings.Contains(c[0].String("commands"), `"stop"`) {
		t.Errorf("setMyCommands calls = %+v, want one listing /stop", c)
	}
	// The answer took the place of the progress message: one message.
	if n := len(h.srv.Sent(owner.ID)); n != 1 {
		t.Errorf("the chat has %d messages, want 1 (the progress message edited into the answer)", n)
	}
}

func TestLongAnswerSplit(t *testing.T) {
	var para []string
	for i := range 60 {
		para = append(para, strings.Repeat("word ", 30)+"**end "+string(rune('a'+i%26))+"**.")
	}
	answer := strings.Join(para, "\n\n") + "\n\n```go\n" + strings.Repeat("x := a < b && c > d // `tick`\n", 200) + "```"
	for _, mode := range []string{"HTML", "MarkdownV2"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, options{parseMode: mode, script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
				return a.Stream(ctx, answer, 1000, 0)
			}})
			h.start()
			h.srv.SendText(owner, "long please")
			h.agent.Wait(t, "the prompt to end", func() bool { return len(h.agent.Prompts()) == 1 && !h.agent.Busy() })
			want := telegram.Markdown(answer)
			var got strings.Builder
			h.srv.Wait(t, "the whole answer", func() bool {
				got.Reset()
				for _, m := range h.srv.Sent(owner.ID) {
					got.WriteString(m.Text)
				}
				return noSpace(got.String()) == noSpace(want.Text)
			})
			msgs := h.srv.Sent(owner.ID)
			if least := (telegram.UTF16Len(want.Text) + telegram.MaxMessage - 1) / telegram.MaxMessage; len(msgs) < least || least < 3 {
				t.Errorf("the answer came in %d messages, want at least %d (and the test at least 3)", len(msgs), least)
			}
			for i, m := range msgs {
				if n := telegram.UTF16Len(m.Text); n > telegram.MaxMessage {
					t.Errorf("message %d has %d UTF-16 units", i+1, n)
				}
				if m.ParseMode != mode {
					t.Errorf("message %d parse_mode = %q, want %q", i+1, m.ParseMode, mode)
				}
			}
			last := msgs[len(msgs)-1]
			if len(last.Entities) != 1 || last.Entities[0].Type != "pre" || last.Entities[0].Language != "go" {
				t.Errorf("the last message's entities = %+v, want the reopened go block", last.Entities)
			}
		})
	}
}

func TestCodeBlockEscaping(t *testing.T) {
	code := "if a < b && c > d { s := `raw\\n` + \"_*[]()~>#+-=|{}.!\" }"
	answer := "Try this:\n\n```go\n" + code + "\n```\n\nThat's it (really)."
	for _, mode := range []string{"HTML", "MarkdownV2"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, options{parseMode: mode, script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
				return a.Stream(ctx, answer, 7, 0)
			}})
			h.start()
			h.srv.SendText(owner, "code")
			m := h.waitText("That's it (really).")
			if want := "Try this:\n\n" + code + "\n\nThat's it (really)."; m.Text != want {
				t.Errorf("text = %q, want %q", m.Text, want)
			}
			if len(m.Entities) != 1 || m.Entities[0].Type != "pre" || m.Entities[0].Language != "go" || m.Entities[0].Length != telegram.UTF16Len(code) {
				t.Errorf("entities = %+v, want one go pre over the code", m.Entities)
			}
		})
	}
}

func TestStopMidTurn(t *testing.T) {
	started := make(chan struct{})
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		a.Emit(agent.AssistantStart{})
		a.Emit(agent.TextDelta{Delta: "Working on it"})
		close(started)
		<-ctx.Done() // a model that never finishes
		return ctx.Err()
	}})
	h.start()
	h.srv.SendText(owner, "do a long thing")
	<-started
	h.srv.SendText(owner, "queued behind it")
	h.waitText("Queued")
	h.srv.SendText(owner, "/stop")
	m := h.waitText("⏹ stopped")
	if !strings.Contains(m.Text, "Working on it") {
		t.Errorf("the stopped answer = %q, want the partial text", m.Text)
	}
	h.waitText("1 queued messages were dropped")
	h.agent.Wait(t, "the turn to end", func() bool { return !h.agent.Busy() })
	if n := len(h.agent.Prompts()); n != 1 {
		t.Errorf("the agent ran %d prompts, want 1 (the queued one was dropped)", n)
	}
}

func TestConfirmByButton(t *testing.T) {
	result := make(chan error, 1)
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		_, err := a.Tool(ctx, "call-1", "bash", map[string]string{"command": "rm -rf build"}, true)
		result <- err
		return a.Stream(ctx, "Done.", 10, 0)
	}})
	h.start()
	h.srv.SendText(owner, "clean up")
	q := h.srv.WaitSent(t, owner.ID, "the question", func(m telegramtest.Sent) bool { return len(m.Buttons) > 0 })
	if !strings.Contains(q.Text, "Allow bash?") || !strings.Contains(q.Text, "rm -rf build") {
		t.Errorf("question = %q", q.Text)
	}
	if len(q.Buttons[0]) != 4 || q.Buttons[0][1].Text != "Always" || q.Buttons[0][3].Text != "Deny & stop" {
		t.Fatalf("buttons = %+v, want allow once / always / deny / deny & stop", q.Buttons)
	}
	cb := h.srv.PressButton(owner, q.ID, q.Buttons[0][1].Data)
	if err := <-result; err != nil {
		t.Fatalf("the tool call = %v, want allowed", err)
	}
	if got := h.agent.Status().Title; got != "always:bash" {
		t.Errorf("the agent was told %q, want always for bash", got)
	}
	h.srv.Wait(t, "the button's answer", func() bool { return h.srv.CallbackAnswered(cb) })
	closed := h.srv.WaitSent(t, owner.ID, "the closed question", func(m telegramtest.Sent) bool { return m.ID == q.ID && len(m.Buttons) == 0 })
	if !strings.Contains(closed.Text, "Allowed for this session") {
		t.Errorf("closed question = %q", closed.Text)
	}
	h.waitText("Done.")
	// A press on the closed question is answered and changes nothing.
	cb2 := h.srv.PressButton(owner, q.ID, q.Buttons[0][0].Data)
	h.srv.Wait(t, "the stale button's answer", func() bool { return h.srv.CallbackAnswered(cb2) })
}

func TestConfirmDenyAndStop(t *testing.T) {
	results := make(chan error, 2)
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		_, err := a.Tool(ctx, "c", "write", map[string]string{"path": "x"}, true)
		results <- err
		return nil
	}})
	h.start()
	h.srv.SendText(owner, "first")
	q := h.srv.WaitSent(t, owner.ID, "the question", func(m telegramtest.Sent) bool { return len(m.Buttons) > 0 })
	h.srv.PressButton(owner, q.ID, q.Buttons[0][2].Data)
	if err := <-results; err == nil || !strings.Contains(err.Error(), "declined") {
		t.Errorf("denied call = %v, want declined", err)
	}
	h.agent.Wait(t, "idle", func() bool { return !h.agent.Busy() })
	h.srv.SendText(owner, "second")
	q2 := h.srv.WaitSent(t, owner.ID, "the second question", func(m telegramtest.Sent) bool { return len(m.Buttons) > 0 && m.ID != q.ID })
	h.srv.SendText(owner, "/stop")
	if err := <-results; err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("call during /stop = %v, want stopped", err)
	}
	h.srv.WaitSent(t, owner.ID, "the cancelled question", func(m telegramtest.Sent) bool {
		return m.ID == q2.ID && len(m.Buttons) == 0 && strings.Contains(m.Text, "Not answered")
	})
}

func TestFileSentBack(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.txt"), []byte("the report\n"), 0o644)
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var pngData bytes.Buffer
	png.Encode(&pngData, img)
	os.WriteFile(filepath.Join(dir, "plot.png"), pngData.Bytes(), 0o644)
	errs := make(chan error, 3)
	h := newHarness(t, options{cwd: dir, script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		_, err := a.Tool(ctx, "f1", "telegram_send_file", map[string]string{"path": "report.txt", "caption": "Here it is"}, false)
		errs <- err
		_, err = a.Tool(ctx, "f2", "telegram_send_image", map[string]string{"path": "plot.png"}, false)
		errs <- err
		_, err = a.Tool(ctx, "f3", "telegram_send_image", map[string]string{"path": "report.txt"}, false)
		errs <- err
		return a.Stream(ctx, "Sent.", 10, 0)
	}})
	h.start()
	h.srv.SendText(owner, "send me the files")
	for i, wantErr := range []string{"", "", "not a JPEG, PNG, GIF or WebP image"} {
		err := <-errs
		if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("call %d = %v, want %q", i+1, err, wantErr)
		}
	}
	doc := h.srv.WaitSent(t, owner.ID, "the document", func(m telegramtest.Sent) bool { return m.Method == "sendDocument" })
	if doc.File.FileName != "report.txt" || string(doc.File.Data) != "the report\n" || doc.Text != "Here it is" {
		t.Errorf("document = %+v", doc)
	}
	photo := h.srv.WaitSent(t, owner.ID, "the photo", func(m telegramtest.Sent) bool { return m.Method == "sendPhoto" })
	if !bytes.Equal(photo.File.Data, pngData.Bytes()) {
		t.Errorf("photo = %d bytes, want the %d of plot.png", len(photo.File.Data), pngData.Len())
	}
	h.waitText("Sent.")
}

func TestRestartKeepsOffset(t *testing.T) {
	h := newHarness(t, options{})
	h.start()
	first := h.srv.SendText(owner, "one")
	h.waitText("You said: one")
	if err := h.stop(); err != nil {
		t.Fatalf("Run = %v, want nil after cancel", err)
	}
	// As if the confirmation of "one" never reached Telegram (the process
	// died right after handling it): only the stored offset prevents a
	// second handling.
	h.srv.Redeliver()
	h.srv.SendText(owner, "two")
	if n := h.srv.Pending(); n != 2 {
		t.Fatalf("%d updates pending after the redelivery, want 2 (one and two)", n)
	}
	h.start()
	h.waitText("You said: two")
	h.agent.Wait(t, "idle", func() bool { return !h.agent.Busy() })
	var texts []string
	for _, p := range h.agent.Prompts() {
		texts = append(texts, p.Text)
	}
	if strings.Join(texts, ",") != "one,two" {
		t.Errorf("prompts = %q, want one then two, each once", texts)
	}
	off, err := h.store.Offset()
	if err != nil || off <= first {
		t.Errorf("stored offset = %d, %v; want more than %d", off, err, first)
	}
}

func TestPairing(t *testing.T) {
	const code = "ABCD-EFGH-JKMN"
	h := newHarness(t, options{unpaired: true, code: code})
	h.start()
	h.srv.SendText(stranger, "let me in")
	h.srv.WaitSent(t, stranger.ID, "the refusal", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "not paired yet") })
	h.waitLog("the message is not the pairing code")
	h.srv.SendText(owner, "/start "+telegram.LinkCode(code))
	h.waitText("Paired")
	p, err := h.store.Pairing()
	if err != nil || p.UserID != owner.ID || p.CodeHash != "" {
		t.Errorf("stored pairing = %+v, %v; want the owner and no code", p, err)
	}
	// The code is spent: the stranger sending it now is ignored.
	h.srv.SendText(stranger, code)
	h.waitLog("paired with user 42 only")
	h.srv.SendText(owner, "hello")
	h.waitText("You said: hello")
	for _, pr := range h.agent.Prompts() {
		if strings.Contains(pr.Text, "ABCD") || strings.Contains(pr.Text, "let me in") {
			t.Errorf("the agent saw %q", pr.Text)
		}
	}
	if n := len(h.srv.Sent(stranger.ID)); n != 1 {
		t.Errorf("the stranger got %d messages, want only the refusal before pairing", n)
	}
}

func TestStrangerAndGroupIgnored(t *testing.T) {
	h := newHarness(t, options{})
	h.start()
	h.srv.SendText(stranger, "hi bot")
	h.srv.SendGroupText(owner, -100, "hi from a group")
	h.srv.SendText(owner, "ping")
	h.waitText("You said: ping")
	h.waitLog("ignored a message from Mallory (@mallory) (user 666)")
	h.waitLog("ignored a message from the paired user in group chat -100")
	if n := len(h.agent.Prompts()); n != 1 {
		t.Errorf("prompts = %d, want 1", n)
	}
	if n := len(h.srv.Sent(stranger.ID)) + len(h.srv.Sent(-100)); n != 0 {
		t.Errorf("the bot answered a stranger or a group %d times", n)
	}
}

func TestDocumentsAndPhotos(t *testing.T) {
	h := newHarness(t, options{})
	h.start()
	h.srv.SendDocument(owner, "notes.md", "text/markdown", []byte("# Notes\nremember the milk\n"), "summarise")
	p := h.waitPrompts(1)[0]
	if !strings.Contains(p.Text, "summarise") || !strings.Contains(p.Text, "remember the milk") || !strings.Contains(p.Text, "[File notes.md]") {
		t.Errorf("prompt = %q, want the caption and the file's text", p.Text)
	}
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2)))
	h.srv.SendPhoto(owner, img.Bytes(), "what is this?")
	p = h.waitPrompts(2)[1]
	if len(p.Images) != 1 || p.Images[0].MIMEType != "image/png" || p.Text != "what is this?" {
		t.Errorf("prompt = text %q, %d images; want the caption and one PNG", p.Text, len(p.Images))
	}
	h.srv.SendDocument(owner, "app.bin", "application/octet-stream", []byte{0, 1, 2, 3, 0xff}, "")
	p = h.waitPrompts(3)[2]
	if !strings.Contains(p.Text, "cannot read") {
		t.Errorf("prompt = %q, want a description of the binary file", p.Text)
	}
	h.waitText("The model cannot read app.bin")
	h.srv.SendSticker(owner)
	h.waitText("this message has a sticker")
}

func TestCommands(t *testing.T) {
	h := newHarness(t, options{})
	h.agent.SetCommands([]bot.Command{{Name: "todo", Description: "Show the todo list"}})
	h.start()
	steps := []struct{ send, want string }{
		{"/help", "/todo — Show the todo list"},
		{"/status", "Model: fake/model-1"},
		{"/model", "fake/model-2"},
		{"/model fake/model-2", "Model: fake/model-2"},
		{"/model nope", "unknown model"},
		{"/sessions", "1. first"},
		{"/resume 2", "Resumed resumed"},
		{"/new", "New conversation"},
		{"/compact keep the plan", "compacted"},
		{"/todo now", "[ext] ran todo"},
		{"/nonsense", "Unknown command /nonsense"},
		{"/stop", "Nothing is running"},
	}
	for _, s := range steps {
		h.srv.SendText(owner, s.send)
		h.waitText(s.want)
	}
	if got := h.agent.Ran(); len(got) != 1 || got[0] != "todo now" {
		t.Errorf("extension commands run = %q", got)
	}
	if st := h.agent.Status(); st.Session != "s-2" || st.Model != "fake/model-2" {
		t.Errorf("status after the commands = %+v", st)
	}
}

func TestFaultsKeepRunning(t *testing.T) {
	h := newHarness(t, options{})
	h.srv.Fail("getUpdates", telegramtest.Fault{Disconnect: true})
	h.srv.Fail("getUpdates", telegramtest.Fault{Code: 502, Description: "Bad Gateway"})
	h.srv.Fail("getUpdates", telegramtest.Fault{Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
	h.srv.Fail("getUpdates", telegramtest.Fault{Code: 429, RetryAfter: 1})
	h.srv.Fail("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 1})
	h.start()
	h.srv.SendText(owner, "still there?")
	h.waitText("You said: still there?")
	for _, line := range []string{"telegram getUpdates: ", "502 Bad Gateway; retrying", "another process is getting this bot's updates", "throttled (429)", "telegram sendMessage: 429"} {
		h.waitLog(line)
	}
}

func TestCantParseFallsBackToPlain(t *testing.T) {
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		a.Emit(agent.AssistantMessage{Content: []agent.Block{{Type: "text", Text: "a **b** c"}}})
		return nil
	}})
	h.srv.Fail("sendMessage", telegramtest.Fault{Code: 400, Description: "Bad Request: can't parse entities: Unsupported start tag \"b\" at byte offset 2"})
	h.start()
	h.srv.SendText(owner, "x")
	m := h.waitText("a b c")
	if m.ParseMode != "" || len(m.Entities) != 0 {
		t.Errorf("fallback message = %+v, want plain text", m)
	}
	h.waitLog("could not parse the formatting")
}

func TestRevokedTokenStops(t *testing.T) {
	h := newHarness(t, options{})
	h.srv.Fail("getUpdates", telegramtest.Fault{Code: 401, Description: "Unauthorized"})
	h.start()
	select {
	case err := <-h.done:
		h.cancel = nil
		if !errors.Is(err, telegram.ErrToken) || strings.Contains(err.Error(), token) {
			t.Errorf("Run = %v, want ErrToken without the token", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not stop on a revoked token")
	}
	if !h.agent.Closed() {
		t.Error("the agent was not closed")
	}
}

func TestHugeAnswer(t *testing.T) {
	answer := strings.Repeat("Ünïcödé 😀 text, ", 6000) // about 100,000 characters
	h := newHarness(t, options{script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		return a.Stream(ctx, answer, 4096, 0)
	}})
	h.start()
	h.srv.SendText(owner, strings.Repeat("x", 4096))
	h.agent.Wait(t, "the turn", func() bool { return len(h.agent.Prompts()) == 1 && !h.agent.Busy() })
	h.srv.Wait(t, "the whole answer", func() bool {
		var b strings.Builder
		for _, m := range h.srv.Sent(owner.ID) {
			b.WriteString(m.Text)
		}
		return noSpace(b.String()) == noSpace(answer)
	})
	if n, least := len(h.srv.Sent(owner.ID)), telegram.UTF16Len(answer)/telegram.MaxMessage; n < least || least < 24 {
		t.Errorf("%d messages, want at least %d for %d UTF-16 units", n, least, telegram.UTF16Len(answer))
	}
}

func TestProgressEditRate(t *testing.T) {
	const interval = 250 * time.Millisecond
	h := newHarness(t, options{interval: interval, script: func(ctx context.Context, a *telegramtest.Agent, in agent.Input) error {
		return a.Stream(ctx, strings.Repeat("tick ", 40), 5, 20*time.Millisecond)
	}})
	h.start()
	h.srv.SendText(owner, "stream")
	h.waitText(strings.TrimSpace(strings.Repeat("tick ", 40)))
	edits := h.srv.CallTimes("editMessageText")
	if len(edits) < 2 {
		t.Fatalf("%d edits, want the progress message edited while streaming", len(edits))
	}
	for i := 1; i < len(edits); i++ {
		if gap := edits[i].Sub(edits[i-1]); gap < interval-20*time.Millisecond {
			t.Errorf("edits %d and %d came %s apart, less than the %s interval", i, i+1, gap, interval)
		}
	}
}

func TestUnsupportedUpdate(t *testing.T) {
	h := newHarness(t, options{})
	h.start()
	h.srv.AddUpdate("edited_message", map[string]any{"message_id": 5, "date": 1, "chat": map[string]any{"id": owner.ID, "type": "private"}, "text": "edited"})
	h.srv.SendText(owner, "after")
	h.waitText("You said: after")
	h.waitLog(`ignored an update of type "edited_message"`)
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestUnpairedLimits: before pairing, a stranger sending 20 wrong codes
// gets one reply a minute, not 20; after 5 wrong codes in 10 minutes even
// the right one is not checked, and the limit is logged once; a minute
// later the chat may be answered again, ten minutes later codes are
// checked again; the pairing is reported (OnPaired) for status.json.
func TestUnpairedLimits(t *testing.T) {
	const code = "ABCD-EFGH-JKMN"
	clock := &fakeClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	paired := make(chan telegram.Pairing, 1)
	h := newHarness(t, options{unpaired: true, code: code, now: clock.Now, onPaired: func(p telegram.Pairing) { paired <- p }})
	h.start()
	for i := range 20 {
		h.srv.SendText(stranger, fmt.Sprintf("WRONG-CODE-%02d", i))
	}
	h.srv.SendText(stranger, code) // the right code, but over the limit
	// The owner's message is handled after the stranger's: its refusal
	// says they all were.
	h.srv.SendText(owner, "is this thing on")
	h.srv.WaitSent(t, owner.ID, "the owner's refusal", func(m telegramtest.Sent) bool { return strings.Contains(m.Text, "not paired yet") })
	if n := len(h.srv.Sent(stranger.ID)); n != 1 {
		t.Errorf("the stranger got %d replies to 21 messages in a minute, want 1", n)
	}
	if p, _ := h.store.Pairing(); p.Paired() {
		t.Fatalf("the right code was checked past the rate limit: paired with %+v", p)
	}
	logs := h.logs.String()
	if n := strings.Count(logs, "are rate-limited"); n != 1 {
		t.Errorf("the rate limit was logged %d times, want once:\n%s", n, logs)
	}
	if !strings.Contains(logs, "pairing attempt 5 of 5 from Mallory") || strings.Contains(logs, "pairing attempt 6") {
		t.Errorf("the log does not count the stranger's 5 attempts:\n%s", logs)
	}

	// A minute later the stranger's chat may get one reply again.
	clock.add(time.Minute)
	h.srv.SendText(stranger, "hello?")
	h.srv.SendText(owner, "still there")
	h.waitLog("pairing attempt 2 of 5 from Ada")
	if n := len(h.srv.Sent(stranger.ID)); n != 1 {
		t.Errorf("a rate-limited stranger got %d replies, want still 1 (its attempts are not even read)", n)
	}
	clock.add(10 * time.Minute)
	h.srv.SendText(stranger, "hello again?")
	for deadline := time.Now().Add(60 * time.Second); len(h.srv.Sent(stranger.ID)) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the window the stranger got %d replies within 60 s, want 2", len(h.srv.Sent(stranger.ID)))
		}
	}
	h.srv.SendText(owner, code)
	h.waitText("Paired")
	select {
	case p := <-paired:
		if p.UserID != owner.ID {
			t.Errorf("OnPaired(%+v), want the owner", p)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("OnPaired was not called")
	}
}
