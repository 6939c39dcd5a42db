package telegram_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
	"github.com/zut-go/zut/agent/tools"
)

func TestMirror(t *testing.T) {
	h := newHarness(t, options{})
	h.srv.OpenChat(owner)
	var mu sync.Mutex
	var inputs []agent.Input
	stops := 0
	changed := make(chan struct{}, 16)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "out.txt"), []byte("data"), 0o644)
	m, err := bot.NewMirror(bot.MirrorConfig{
		Transport: h.newBot(),
		Input: func(in agent.Input) {
			mu.Lock()
			inputs = append(inputs, in)
			mu.Unlock()
			changed <- struct{}{}
		},
		Stop:         func() { mu.Lock(); stops++; mu.Unlock(); changed <- struct{}{} },
		Log:          h.logs,
		EditInterval: 10 * time.Millisecond,
		Files:        tools.Config{CWD: dir},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Mirror.Run = %v, want nil after cancel", err)
		}
	}()

	// A turn typed in the terminal: the user message is echoed, the
	// answer shown.
	m.Event(agent.UserMessage{Content: []agent.Block{{Type: "text", Text: "typed in the terminal"}}})
	m.Event(agent.TurnStart{Step: 1})
	m.Event(agent.AssistantStart{})
	m.Event(agent.TextDelta{Delta: "An *answer*"})
	m.Event(agent.AssistantMessage{Content: []agent.Block{{Type: "text", Text: "An *answer*"}}})
	m.Event(agent.TurnEnd{Stop: "end_turn"})
	m.Event(agent.Done{})
	h.waitText("🖥 typed in the terminal")
	ans := h.waitText("An answer")
	if len(ans.Entities) != 1 || ans.Entities[0].Type != "italic" {
		t.Errorf("answer entities = %+v", ans.Entities)
	}

	// Text from the chat goes to the host and is not echoed back.
	h.srv.SendText(owner, "from the phone")
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	wait("the input", func() bool { return len(inputs) == 1 })
	if inputs[0].Text != "from the phone" || inputs[0].Source != "telegram" {
		t.Errorf("input = %+v", inputs[0])
	}
	m.Event(agent.UserMessage{Content: []agent.Block{{Type: "text", Text: "from the phone"}}})
	h.srv.SendText(owner, "/model fake/x")
	wait("the command line", func() bool { return len(inputs) == 2 })
	if inputs[1].Text != "/model fake/x" {
		t.Errorf("command input = %q", inputs[1].Text)
	}
	h.srv.SendText(owner, "/stop")
	wait("stop", func() bool { return stops == 1 })

	// The file tools send to the mirrored chat.
	ts := m.Tools()
	if len(ts) != 2 || ts[0].Definition().Name != "telegram_send_file" {
		t.Fatalf("tools = %d, want telegram_send_file and telegram_send_image", len(ts))
	}
	r := ts[0].Run(ctx, []byte(`{"path":"out.txt"}`), nil)
	if r.IsError {
		t.Fatalf("send_file = %s", r.Text())
	}
	h.srv.WaitSent(t, owner.ID, "the file", func(s telegramtest.Sent) bool { return s.File != nil && string(s.File.Data) == "data" })
	for _, s := range h.srv.Sent(owner.ID) {
		if strings.Contains(s.Text, "🖥 from the phone") {
			t.Errorf("the chat's own message was echoed back: %q", s.Text)
		}
	}
}

func TestMirrorNeedsPairing(t *testing.T) {
	h := newHarness(t, options{unpaired: true})
	_, err := bot.NewMirror(bot.MirrorConfig{Transport: h.newBot(), Input: func(agent.Input) {}})
	if !errors.Is(err, bot.ErrNotPaired) {
		t.Errorf("NewMirror on an unpaired bot = %v, want ErrNotPaired", err)
	}
}
