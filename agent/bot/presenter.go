package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent"
)

// presenter owns what one chat shows: it turns agent events into a live
// progress message (edited at most once per interval), final answers,
// notices, questions and files. Everything reaches it through its queue
// and its goroutine alone talks to the transport for the chat, so output
// keeps the order of the events.
type presenter struct {
	t        Transport
	chat     ChatID
	log      Logger
	interval time.Duration
	q        *queue[item]
	done     chan struct{}
	// echo shows user messages that did not come from this chat (the
	// mirror of a terminal conversation); fromChat lists the texts that
	// did, oldest first.
	echo     bool
	fromChat []string

	// The fields below belong to the loop goroutine.
	live       MessageID // the progress message, "" when none
	liveShown  string    // its text as last sent
	answer     strings.Builder
	thinking   bool
	tools      []toolLine
	retry      string
	dirty      bool
	nextEdit   time.Time
	busy       bool
	nextTyping time.Time
	lastSaid   string
}

type toolLine struct {
	id, label string
	done, err bool
}

// item is one thing for the presenter to do.
type item struct {
	ev     agent.Event
	say    *Message
	ask    *question
	answer *answered
	file   *fileJob
	echo   string // a text the chat sent (mirror), not to be echoed
}

type fileJob struct {
	f    File
	done chan error
}

type answered struct {
	q        *question
	choice   string
	callback string
}

const (
	typingEvery  = 4 * time.Second
	previewChars = 3000 // runes of the answer's tail a preview shows
	previewTools = 8    // tool lines a preview shows
)

func newPresenter(t Transport, chat ChatID, lg Logger, interval time.Duration) *presenter {
	return &presenter{t: t, chat: chat, log: lg, interval: interval, q: newQueue[item](), done: make(chan struct{})}
}

// event queues an agent event; it never blocks.
func (p *presenter) event(ev agent.Event) { p.q.push(item{ev: ev}) }

// say queues a message.
func (p *presenter) say(m Message) { p.q.push(item{say: &m}) }

// sayf queues a plain message.
func (p *presenter) sayf(format string, v ...any) { p.say(Message{Plain: fmt.Sprintf(format, v...)}) }

// run is the loop; it returns when the queue is closed and drained. ctx
// bounds every transport call.
func (p *presenter) run(ctx context.Context) {
	defer close(p.done)
	for {
		var wake <-chan time.Time
		var timer *time.Timer
		if d, ok := p.nextWake(); ok {
			timer = time.NewTimer(d)
			wake = timer.C
		}
		select {
		case <-p.q.ready:
			items, ok := p.q.take()
			for _, it := range items {
				p.do(ctx, it)
			}
			if !ok {
				p.seal(ctx)
				return
			}
		case <-wake:
		case <-ctx.Done():
			// Nothing can be sent any more; answer waiters and drain.
			p.q.close()
			items, _ := p.q.take()
			for _, it := range items {
				p.cancel(it, ctx.Err())
			}
			return
		}
		if timer != nil {
			timer.Stop()
		}
		p.tick(ctx)
	}
}

// nextWake says when the loop must act without a new item.
func (p *presenter) nextWake() (time.Duration, bool) {
	var at time.Time
	if p.dirty {
		at = p.nextEdit
	}
	if p.busy && (at.IsZero() || p.nextTyping.Before(at)) {
		at = p.nextTyping
	}
	if at.IsZero() {
		return 0, false
	}
	return max(time.Until(at), time.Millisecond), true
}

func (p *presenter) tick(ctx context.Context) {
	now := time.Now()
	if p.dirty && !now.Before(p.nextEdit) {
		p.flushPreview(ctx)
	}
	if p.busy && !now.Before(p.nextTyping) {
		p.nextTyping = now.Add(typingEvery)
		if err := p.t.Typing(ctx, p.chat); err != nil {
			if d, ok := RetryAfter(err); ok {
				p.nextTyping = now.Add(d)
			} else {
				p.log.Printf("chat %s: typing: %v", p.chat, err)
			}
		}
	}
}

func (p *presenter) cancel(it item, err error) {
	switch {
	case it.file != nil:
		it.file.done <- fmt.Errorf("the chat is closed: %w", err)
	case it.ask != nil:
		it.ask.sent(fmt.Errorf("the chat is closed: %w", err))
	}
}

func (p *presenter) do(ctx context.Context, it item) {
	switch {
	case it.ev != nil:
		p.handle(ctx, it.ev)
	case it.say != nil:
		p.send(ctx, *it.say)
	case it.ask != nil:
		p.seal(ctx)
		ids, err := p.t.Send(ctx, p.chat, it.ask.message())
		if err == nil && len(ids) > 0 {
			it.ask.msg = ids[len(ids)-1]
		}
		it.ask.sent(err)
	case it.answer != nil:
		p.resolve(ctx, it.answer)
	case it.file != nil:
		p.seal(ctx)
		it.file.done <- p.t.SendFile(ctx, p.chat, it.file.f)
	case it.echo != "":
		p.fromChat = append(p.fromChat, it.echo)
		if len(p.fromChat) > 32 {
			p.fromChat = p.fromChat[1:] // never matched: the host dropped them
		}
	}
}

// send sends a message, logging failures; the same error twice in a row
// is shown once.
func (p *presenter) send(ctx context.Context, m Message) {
	text := m.Markdown + m.Plain
	if text == p.lastSaid && strings.HasPrefix(text, "⚠") {
		return
	}
	p.lastSaid = text
	if _, err := p.t.Send(ctx, p.chat, m); err != nil {
		p.log.Printf("chat %s: send: %v", p.chat, err)
	}
}

func (p *presenter) handle(ctx context.Context, ev agent.Event) {
	switch ev := ev.(type) {
	case agent.TurnStart:
		if !p.busy {
			p.busy = true
			p.nextTyping = time.Time{}
		}
	case agent.AssistantStart:
		// A new answer goes below the tools of the step before.
		if len(p.tools) > 0 {
			p.seal(ctx)
		}
		p.answer.Reset()
		p.thinking = false
	case agent.TextDelta:
		p.answer.WriteString(ev.Delta)
		p.dirty = true
	case agent.ThinkingDelta:
		if !p.thinking && p.answer.Len() == 0 {
			p.thinking, p.dirty = true, true
		}
	case agent.ToolCall:
		p.tools = append(p.tools, toolLine{id: ev.ID, label: toolLabel(ev.Name, ev.Args)})
		p.dirty = true
	case agent.ToolResult:
		for i := range p.tools {
			if p.tools[i].id == ev.ID {
				p.tools[i].done, p.tools[i].err = true, ev.IsError
			}
		}
		p.dirty = true
	case agent.RequestStarted:
		if p.retry != "" {
			p.retry, p.dirty = "", true
		}
	case agent.RetryScheduled:
		d := (time.Duration(ev.DelayMS) * time.Millisecond).Round(100 * time.Millisecond)
		p.retry = fmt.Sprintf("↻ the model did not answer; retrying in %s (%d/%d)", d, ev.Attempt+1, ev.MaxAttempts)
		p.dirty = true
	case agent.AssistantMessage:
		if text := visibleText(ev.Content); text != "" && !ev.Blocked {
			p.final(ctx, text)
		}
	case agent.TurnEnd:
		switch ev.Stop {
		case "aborted":
			if p.answer.Len() > 0 {
				p.final(ctx, p.answer.String()+"\n\n⏹ stopped")
			} else {
				p.seal(ctx)
				p.send(ctx, Message{Plain: "⏹ Stopped."})
			}
		case "error":
			if p.answer.Len() > 0 {
				p.final(ctx, p.answer.String())
			}
		}
	case agent.Done:
		p.seal(ctx)
		p.busy = false
	case agent.Error:
		p.seal(ctx)
		p.send(ctx, Message{Plain: "⚠ " + ev.Message})
	case agent.Notice:
		mark := "ℹ"
		if ev.Level == "warn" || ev.Level == "error" {
			mark = "⚠"
		}
		src := ""
		if ev.Source != "" {
			src = "[" + ev.Source + "] "
		}
		p.send(ctx, Message{Plain: mark + " " + src + ev.Message})
	case agent.CompactDone:
		p.send(ctx, Message{Plain: "🗜 The conversation was compacted."})
	case agent.ModelChange:
		p.send(ctx, Message{Plain: "Model: " + ev.Model})
	case agent.UserMessage:
		if !p.echo {
			return
		}
		text := visibleText(ev.Content)
		if len(p.fromChat) > 0 && strings.Contains(text, p.fromChat[0]) {
			p.fromChat = p.fromChat[1:]
			return
		}
		if text != "" {
			p.seal(ctx)
			p.send(ctx, Message{Plain: "🖥 " + text})
		}
	}
}

// final shows an answer: in place of the progress message when there is
// one, else as new messages.
func (p *presenter) final(ctx context.Context, text string) {
	m := Message{Markdown: text}
	var err error
	if p.live != "" {
		p.waitEdit(ctx)
		_, err = p.t.Replace(ctx, p.chat, p.live, m)
	} else {
		_, err = p.t.Send(ctx, p.chat, m)
	}
	if err != nil {
		p.log.Printf("chat %s: send the answer: %v", p.chat, err)
	}
	p.live, p.liveShown = "", ""
	p.answer.Reset()
	p.thinking, p.dirty, p.tools, p.retry = false, false, nil, ""
	p.nextEdit = time.Now().Add(p.interval)
}

// seal brings the progress message up to date and leaves it: what comes
// next goes below it.
func (p *presenter) seal(ctx context.Context) {
	if p.dirty && (p.live != "" || len(p.tools) > 0) {
		p.waitEdit(ctx)
		p.flushPreview(ctx)
	}
	p.live, p.liveShown = "", ""
	p.tools, p.retry, p.thinking, p.dirty = nil, "", false, false
	p.answer.Reset()
}

// waitEdit waits until the chat may see the next edit.
func (p *presenter) waitEdit(ctx context.Context) {
	if wait := time.Until(p.nextEdit); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

func (p *presenter) flushPreview(ctx context.Context) {
	text := p.previewText()
	p.dirty = false
	if text == p.liveShown {
		return
	}
	id, err := p.t.Preview(ctx, p.chat, p.live, text)
	now := time.Now()
	if err != nil {
		p.dirty = true
		if d, ok := RetryAfter(err); ok {
			p.nextEdit = now.Add(d)
			p.log.Printf("chat %s: progress: throttled for %s", p.chat, d)
			return
		}
		p.nextEdit = now.Add(2 * p.interval)
		p.log.Printf("chat %s: progress: %v", p.chat, err)
		return
	}
	p.live, p.liveShown = id, text
	p.nextEdit = now.Add(p.interval)
}

func (p *presenter) previewText() string {
	var parts []string
	switch a := p.answer.String(); {
	case a != "":
		parts = append(parts, tail(a, previewChars))
	case p.thinking:
		parts = append(parts, "💭 thinking…")
	}
	if len(p.tools) > 0 {
		var lines []string
		shown := p.tools
		if len(shown) > previewTools {
			lines = append(lines, fmt.Sprintf("… %d earlier tool calls", len(shown)-previewTools))
			shown = shown[len(shown)-previewTools:]
		}
		for _, t := range shown {
			mark := "…"
			switch {
			case t.err:
				mark = "✗"
			case t.done:
				mark = "✓"
			}
			lines = append(lines, t.label+" "+mark)
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if p.retry != "" {
		parts = append(parts, p.retry)
	}
	if len(parts) == 0 {
		return "…"
	}
	return strings.Join(parts, "\n\n")
}

func (p *presenter) resolve(ctx context.Context, a *answered) {
	if a.callback != "" {
		if err := p.t.AnswerCallback(ctx, a.callback, choiceText()[a.choice]); err != nil {
			p.log.Printf("chat %s: answer the button: %v", p.chat, err)
		}
	}
	if a.q.msg == "" {
		return
	}
	text := choiceMark()[a.choice] + " " + choiceText()[a.choice] + ": " + a.q.req.Name
	if a.q.req.Preview != "" {
		text += "\n" + a.q.req.Preview
	}
	if _, err := p.t.Replace(ctx, p.chat, a.q.msg, Message{Plain: text}); err != nil {
		p.log.Printf("chat %s: close the question: %v", p.chat, err)
	}
}

// tail keeps the last n runes of s, marking the cut.
func tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n:])
}

// toolLabel is the line a tool call gets in the progress message.
func toolLabel(name string, args json.RawMessage) string {
	var m map[string]any
	json.Unmarshal(args, &m)
	for _, k := range []string{"command", "path", "file_path", "pattern", "query", "url", "name"} {
		if s, ok := m[k].(string); ok && s != "" {
			return "⚙ " + name + ": " + clip(firstLine(s), 80)
		}
	}
	return "⚙ " + name
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// visibleText joins the text blocks of a message.
func visibleText(blocks []agent.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
