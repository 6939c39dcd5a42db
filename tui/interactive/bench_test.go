package interactive

import (
	"context"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/provider/providertest"
	"github.com/zut-go/zut/tui"
)

// byteCounter counts what the screen writes.
type byteCounter struct{ n int64 }

func (w *byteCounter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// benchUI is a UI without an app or a terminal, drawing into out: the
// parts the benchmarks measure (event handling, layout, rendering,
// diffing) are the real ones.
func benchUI(tb testing.TB, out *byteCounter, width, height int) *ui {
	e := &app.Env{Getenv: func(string) string { return "" }}
	cfg := uiConfig{out: out, now: time.Now}
	st := app.DefaultSettings()
	u := newUI(context.Background(), e, app.Options{}, cfg, tb.TempDir(), st, ansi.ProfileANSI256, tui.Caps{SyncOutput: true}, false, width, height)
	u.chat.SetFooter(tui.Footer{Left: "anthropic/claude-sonnet-4-5 · ~/proj", Right: "ctx 12%"})
	return u
}

// fillTranscript puts n messages (user and assistant in turn) into the
// scrollback.
func fillTranscript(u *ui, n int) {
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			u.chat.AddUser(fmt.Sprintf("question %d: how does the parser handle nested blocks?", i))
		} else {
			u.chat.AddMarkdown(fmt.Sprintf("Answer %d. The parser keeps a **stack** of open blocks and closes them in order.\n\n```go\nfor len(stack) > 0 {\n\tstack = stack[:len(stack)-1]\n}\n```", i), ansi.RoleAssistantText)
		}
		if i%100 == 99 {
			u.dirty = true
			u.render(true)
		}
	}
	u.dirty = true
	u.render(true)
}

// BenchmarkKeystroke10kTranscript measures one keystroke, from the key
// event to the frame written, with 10,000 messages in the transcript.
func BenchmarkKeystroke10kTranscript(b *testing.B) {
	var out byteCounter
	u := benchUI(b, &out, 100, 30)
	fillTranscript(u, 10000)
	keys := []tui.Key{{Code: tui.KeyRune, Rune: 'a'}, {Code: tui.KeyBackspace}}
	out.n = 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u.input(keys[i%2])
		u.render(false)
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "bytes/key")
}

// streamWords is the text a benchmark streams, about five bytes a token.
var streamWords = strings.Fields("the parser keeps a stack of open blocks and closes each one when a later line cannot continue it so that every line is final once the next block starts which lets the screen commit it to the scrollback without drawing it again")

// BenchmarkStream2000TokensPerSecond streams one second of a fast model
// (2,000 tokens) the way the UI loop does: events as they come, a frame
// every 16 ms. ns/op is the CPU time of that second; %cpu is the share
// of one core; bytes/token is what the screen writes per token once the
// answer scrolls, against token-bytes, the tokens' own size.
func BenchmarkStream2000TokensPerSecond(b *testing.B) {
	var out byteCounter
	u := benchUI(b, &out, 100, 30)
	fillTranscript(u, 20)
	u.onEvent(agent.UserMessage{Content: []agent.Block{{Type: "text", Text: "explain the parser"}}})
	u.onEvent(agent.AssistantStart{})
	u.busy = true
	u.turn.start = time.Now()
	// Scroll first: a screenful of answer.
	for i := 0; i < 600; i++ {
		u.onEvent(agent.TextDelta{Delta: streamToken(i)})
	}
	u.render(true)
	const tokens, perFrame = 2000, 33
	var tokenBytes, written int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := out.n
		for j := 0; j < tokens; j++ {
			t := streamToken(j)
			tokenBytes += int64(len(t))
			u.onEvent(agent.TextDelta{Delta: t})
			if j%perFrame == perFrame-1 {
				u.dirty = true
				u.render(false)
			}
		}
		written += out.n - before
	}
	b.StopTimer()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/1e7, "%cpu")
	b.ReportMetric(float64(written)/float64(b.N*tokens), "bytes/token")
	b.ReportMetric(float64(tokenBytes)/float64(b.N*tokens), "token-bytes")
}

// token returns the j-th streamed token: words, with a line end every 14
// words and a blank line every 60.
func streamToken(j int) string {
	w := streamWords[j%len(streamWords)]
	switch {
	case j%60 == 59:
		return w + ".\n\n"
	case j%14 == 13:
		return w + "\n"
	}
	return w + " "
}

// TestStreamBytesPerToken checks the streaming budget as a test: once
// scrolled, the screen writes at most three times the bytes of the text.
func TestStreamBytesPerToken(t *testing.T) {
	var out byteCounter
	u := benchUI(t, &out, 100, 30)
	u.onEvent(agent.AssistantStart{})
	for i := 0; i < 600; i++ {
		u.onEvent(agent.TextDelta{Delta: streamToken(i)})
	}
	u.render(true)
	out.n = 0
	var text int64
	for j := 0; j < 4000; j++ {
		tk := streamToken(j)
		text += int64(len(tk))
		u.onEvent(agent.TextDelta{Delta: tk})
		if j%33 == 32 {
			u.dirty = true
			u.render(false)
		}
	}
	if ratio := float64(out.n) / float64(text); ratio > 3 {
		t.Errorf("streaming wrote %d bytes for %d bytes of text: %.2fx, want at most 3x", out.n, text, ratio)
	}
}

// TestUIIdle checks that an idle UI writes nothing and arms no timer:
// after the last frame, the loop only waits for input.
func TestUIIdle(t *testing.T) {
	h := startUI(t, uiOptions{replies: []providertest.Reply{{Text: "An answer."}}})
	h.idle()
	h.submit("hello", "An answer.")
	var timers []string
	h.do(func(u *ui) {
		if u.ticker != nil {
			timers = append(timers, "spinner ticker")
		}
		if u.frameArmed {
			timers = append(timers, "frame timer")
		}
		if u.flashTimer != nil {
			timers = append(timers, "status timer")
		}
	})
	if len(timers) > 0 {
		t.Errorf("idle UI keeps timers armed: %v", timers)
	}
	before := h.term.bytes()
	time.Sleep(300 * time.Millisecond)
	h.sync() // a frame with nothing new writes nothing
	if after := h.term.bytes(); after != before {
		t.Errorf("idle UI wrote %d bytes", after-before)
	}
}

// BenchmarkKeystrokeLoop measures a keystroke through the whole UI: the
// byte on the terminal's input, the decoder, the UI loop, the frame on the
// terminal, with 10,000 messages in the transcript.
func BenchmarkKeystrokeLoop(b *testing.B) {
	h := startUI(b, uiOptions{width: 100, height: 30})
	h.idle()
	h.do(func(u *ui) { fillTranscript(u, 10000) })
	keys := []string{"a", "\x7f"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Drain a frame signal left over, then wait for this key's frame.
		select {
		case <-h.frames:
		default:
		}
		h.send(keys[i%2])
		<-h.frames
	}
}
