package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui"
)

// emit receives the agent's events on the goroutine running the prompt
// and hands them to the UI loop.
func (u *ui) emit(ev agent.Event) {
	u.inbox.post(func(u *ui) { u.onEvent(ev) })
}

// onEvent shows one agent event.
func (u *ui) onEvent(ev agent.Event) {
	u.dirty = true
	now := u.now()
	switch ev := ev.(type) {
	case agent.UserMessage:
		text := blocksText(ev.Content)
		if u.takeSteer(text) {
			return
		}
		if shown, ok := u.shown[strings.TrimSpace(text)]; ok {
			delete(u.shown, strings.TrimSpace(text))
			text = shown
		}
		u.chat.AddUser(text)
	case agent.AssistantStart:
		u.chat.BeginMessage()
		u.turn.retryAt = time.Time{}
	case agent.RequestStarted:
		u.turn.retryAt = time.Time{}
	case agent.RetryScheduled:
		u.turn.retryAt = now.Add(time.Duration(ev.DelayMS) * time.Millisecond)
		u.turn.retry = fmt.Sprintf("attempt %d of %d", ev.Attempt+1, ev.MaxAttempts)
		if ev.Error != "" {
			u.turn.retry += ": " + firstLine(ev.Error)
		}
		if ev.Scope == "compact" || ev.Scope == "btw" {
			u.turn.retry = ev.Scope + " " + u.turn.retry
		}
	case agent.TextDelta:
		u.turn.streamed += len(ev.Delta)
		u.chat.AppendText(ev.Delta)
	case agent.ThinkingDelta:
		u.turn.streamed += len(ev.Delta)
		u.chat.AppendThinking(ev.Delta)
	case agent.ToolUseStart:
		u.chat.StartTool(ev.ID, ev.Name)
		u.toolLook(ev.ID, ev.Name, nil, false)
	case agent.ToolUseArgs:
		u.turn.streamed += len(ev.Delta)
		u.chat.ToolArgs(ev.ID, ev.Delta)
	case agent.ToolCall:
		u.chat.SetToolArgs(ev.ID, ev.Name, string(ev.Args))
		if u.toolArgs == nil {
			u.toolArgs = map[string]json.RawMessage{}
		}
		u.toolArgs[ev.ID] = ev.Args
	case agent.ToolExecutionStarted:
		u.chat.ToolRunning(ev.ID, now)
	case agent.ToolProgress:
		u.chat.ToolProgress(ev.ID, ev.Text)
	case agent.ToolResult:
		text := blocksText(ev.Content)
		u.chat.ToolDone(ev.ID, ev.Name, text, ev.IsError, toolDiff(ev), now)
		u.toolLook(ev.ID, ev.Name, &text, ev.IsError)
		delete(u.toolArgs, ev.ID)
	case agent.AssistantMessage:
		text := blocksText(ev.Content)
		if !ev.Blocked && text != "" {
			u.answer = text
		}
		u.chat.EndMessage(text)
	case agent.Usage:
		u.turn.input += ev.Input
		u.turn.output += ev.Output
		u.turn.haveUsage = true
		u.turn.cost = ev.Cumulative.CostUSD
		u.turn.ctxTokens = ev.Input + ev.CacheRead + ev.CacheWrite
	case agent.TurnEnd:
		switch ev.Stop {
		case "aborted":
			u.chat.EndTurn("not run: interrupted")
		case "error":
			u.chat.EndTurn("not run: the request failed")
		}
	case agent.Error:
		u.chat.EndTurn("not run: the request failed")
		u.chat.AddNotice("error", "", ev.Message)
	case agent.Notice:
		u.chat.AddNotice(ev.Level, ev.Source, ev.Message)
	case agent.ModelChange:
		if ev.Source == "extension" {
			u.chat.AddNotice("info", "", "an extension switched the model to "+ev.Model)
		}
	case agent.CompactDone:
		u.chat.AddNotice("success", "", "conversation compacted")
	case agent.Done:
		u.chat.EndTurn("not run")
	}
}

// blocksText joins the text of content blocks; images show as a marker.
func blocksText(bs []agent.Block) string {
	var parts []string
	for _, b := range bs {
		switch b.Type {
		case "text":
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		case "image":
			parts = append(parts, "[image "+b.MIMEType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// toolDiff returns the file change of an edit or write result.
func toolDiff(ev agent.ToolResult) *tui.ToolDiff {
	if ev.IsError || len(ev.Details) == 0 || (ev.Name != "edit" && ev.Name != "write" && ev.Name != "") {
		return nil
	}
	var fc tools.FileChange
	if err := json.Unmarshal(ev.Details, &fc); err != nil || fc.Path == "" || fc.Truncated {
		return nil
	}
	return &tui.ToolDiff{Old: fc.Old, New: fc.New}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// takeSteer reports whether text is steering the UI already showed.
func (u *ui) takeSteer(text string) bool {
	for i, s := range u.steers {
		if strings.TrimSpace(s) == strings.TrimSpace(text) || strings.Contains(text, s) {
			u.steers = append(u.steers[:i], u.steers[i+1:]...)
			return true
		}
	}
	return false
}

// startPrompt runs text as a prompt on its own goroutine. source tells
// extensions where it came from: interactive, extension or queue.
func (u *ui) startPrompt(text, source string) {
	if u.app == nil {
		return
	}
	if len(u.shellCtx) > 0 {
		// The transcript shows the prompt as typed; the model also gets
		// the shell output, and the session is named after the prompt.
		typed := text
		if u.app.sess.Title() == "" {
			u.app.sess.SetTitle(titleFrom(typed))
		}
		n := len(u.shellCtx)
		text = strings.Join(u.shellCtx, "\n\n") + "\n\n" + text
		u.shellCtx = nil
		if u.shown == nil {
			u.shown = map[string]string{}
		}
		u.shown[strings.TrimSpace(text)] = fmt.Sprintf("%s\n(with the output of %d shell command%s)", typed, n, plural(n))
	}
	u.chat.ClearNotes("", true)
	u.busy = true
	u.turn = turnStats{start: u.now(), ctxTokens: u.turn.ctxTokens, cost: u.turn.cost}
	u.setPlaceholder()
	u.dirty = true
	in := agent.Input{Text: text, Source: source}
	u.goJob(func() {
		err := u.app.prompt(u.ctx, in)
		u.inbox.post(func(u *ui) { u.promptDone(err) })
	})
}

// promptDone runs when a prompt returned: the next queued prompt starts.
func (u *ui) promptDone(err error) {
	u.busy = false
	u.steers = nil
	u.setPlaceholder()
	u.dirty = true
	switch {
	case err == nil, errors.Is(err, agent.ErrAborted):
		if errors.Is(err, agent.ErrAborted) && u.ctx.Err() == nil {
			u.chat.AddNotice("warn", "", "interrupted")
		}
	case errors.Is(err, agent.ErrBusy):
		u.chat.AddNotice("warn", "", "another operation is running; try again when it ends")
	}
	u.alert("done")
	if u.quit || u.ctx.Err() != nil {
		return
	}
	if len(u.queue) > 0 {
		next := u.queue[0]
		u.queue = u.queue[1:]
		u.syncQueue()
		u.startPrompt(next.text, "queue")
	}
}

// enqueue keeps text to run after the current prompt.
func (u *ui) enqueue(text, source string) {
	u.queue = append(u.queue, queued{text, source})
	u.syncQueue()
}

// queued is a prompt waiting for the running one.
type queued struct{ text, source string }

// unqueue takes the newest queued prompt back into the editor. It
// reports false when nothing is queued.
func (u *ui) unqueue() bool {
	if len(u.queue) == 0 {
		return false
	}
	last := u.queue[len(u.queue)-1].text
	u.queue = u.queue[:len(u.queue)-1]
	u.syncQueue()
	if !u.ed.Empty() {
		last = last + "\n" + u.ed.Value()
	}
	u.ed.SetText(last)
	return true
}

func (u *ui) syncQueue() {
	q := make([]tui.Queued, 0, len(u.queue))
	for _, t := range u.queue {
		q = append(q, tui.Queued{Text: t.text})
	}
	u.chat.SetQueue(q)
	u.dirty = true
}

// steer sends text into the running prompt.
func (u *ui) steer(text string) {
	if !u.app.agent.Steer(text) {
		u.submit(text)
		return
	}
	u.steers = append(u.steers, text)
	u.chat.AddUser("(steering) " + text)
	u.dirty = true
}

// abort interrupts the running prompt and background job.
func (u *ui) abort() {
	if u.app != nil && u.busy {
		u.app.agent.Abort()
	}
	if u.job != nil && u.job.cancel != nil {
		u.job.cancel()
	}
	u.dirty = true
}

// updateActivity sets the activity line from the state.
func (u *ui) updateActivity() {
	switch {
	case u.app == nil:
		return
	case u.busy:
		a := &tui.Activity{Label: "Working", Since: u.turn.start, Hint: "esc to interrupt",
			RetryAt: u.turn.retryAt, Retry: u.turn.retry}
		switch {
		case u.turn.haveUsage && u.turn.input+u.turn.output > 0:
			a.Detail = fmt.Sprintf("↑ %s ↓ %s tokens", compactCount(u.turn.input), compactCount(u.turn.output))
		case u.turn.streamed > 0:
			a.Detail = fmt.Sprintf("↓ ~%s tokens", compactCount(u.turn.streamed/4))
		}
		u.chat.SetActivity(a)
	case u.job != nil:
		u.chat.SetActivity(&tui.Activity{Label: u.job.label, Since: u.job.start, Hint: "esc to cancel",
			RetryAt: u.turn.retryAt, Retry: u.turn.retry})
	default:
		u.chat.SetActivity(nil)
	}
}

// compactCount writes 1234 as 1.2k.
func compactCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1000000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// updateFooter sets the bottom line: model, directory, context use.
func (u *ui) updateFooter() {
	if u.app == nil {
		return
	}
	a := u.app
	model := "no model"
	if m := a.agent.Model(); m.ID != "" {
		// The agent's model: extensions may change it (model.set).
		model = m.ID
		if m.Provider != "" {
			model = m.Provider + "/" + m.ID
		}
		if r := a.agent.Reasoning(); r.Effort != "" && r.Effort != "off" {
			model += " · " + r.Effort
		} else if r.BudgetTokens > 0 {
			model += fmt.Sprintf(" · think %d", r.BudgetTokens)
		}
	}
	left := model + " · " + shortPath(a.cwd, u.env.getenv("HOME"))
	if t := a.sess.Title(); t != "" {
		left += " · " + t
	}
	var right []string
	if m := a.agent.Model(); m.ContextWindow > 0 && u.turn.ctxTokens > 0 {
		right = append(right, fmt.Sprintf("ctx %d%%", u.turn.ctxTokens*100/m.ContextWindow))
	}
	if u.turn.cost > 0 {
		right = append(right, fmt.Sprintf("$%.2f", u.turn.cost))
	}
	if u.chat.Expanded() {
		right = append(right, "expanded")
	}
	u.chat.SetFooter(tui.Footer{Left: left, Right: strings.Join(right, " · ")})
}

// shortPath writes a path under home with "~".
func shortPath(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

// confirmer is the agent's confirmation hook: it asks the UI, and waits
// for the answer or for the prompt to be cancelled.
type confirmer struct{ u *ui }

func (c confirmer) Confirm(ctx context.Context, req agent.ConfirmRequest) (agent.ConfirmAnswer, error) {
	reply := make(chan agent.ConfirmAnswer, 1)
	c.u.inbox.post(func(u *ui) { u.openConfirm(req, reply) })
	select {
	case ans := <-reply:
		return ans, nil
	case <-ctx.Done():
		c.u.inbox.post(func(u *ui) { u.closeConfirm(req.ToolID) })
		return agent.ConfirmAnswer{}, errors.New("the user interrupted the turn")
	}
}

// useInteractiveAgent rebuilds the app's agent with what newApp cannot
// give it in this mode: the confirmation dialog and the auto-compaction
// setting. It repeats newApp's configuration of the agent.
func (u *ui) useInteractiveAgent() {
	a := u.app
	system, err := a.systemPrompt()
	if err != nil {
		return
	}
	cfg := agent.Config{
		System:      system,
		Tools:       a.tools,
		Store:       agent.SessionStore{S: a.sess},
		Confirm:     confirmer{u},
		Policy:      agent.Policy{Yolo: a.opts.yolo, Interactive: true},
		MaxSteps:    a.opts.maxSteps,
		Emit:        u.emit,
		AutoCompact: u.st.AutoCompact,
	}
	if cfg.AutoCompact == 0 {
		cfg.AutoCompact = -1
	}
	if a.bridge != nil {
		cfg.Extensions = a.bridge
	}
	if a.resolved != nil {
		cfg.Client = a.resolved.Client
		cfg.Model = agentModel(a.resolved)
		cfg.Reasoning = a.resolved.Reasoning
	}
	a.agent = agent.New(cfg)
}

// btwState is a /btw side question in flight or answered.
type btwState struct {
	side   tui.SideAnswer
	cancel context.CancelFunc
	done   bool
}

// askBTW asks a side question; it runs even while a prompt runs.
func (u *ui) askBTW(question string) {
	if strings.TrimSpace(question) == "" {
		u.chat.AddNotice("warn", "", "/btw needs a question: /btw what does this function return?")
		return
	}
	if u.btw != nil && u.btw.cancel != nil {
		u.btw.cancel()
	}
	ctx, cancel := context.WithCancel(u.ctx)
	st := &btwState{side: tui.SideAnswer{Question: question}, cancel: cancel}
	u.btw = st
	u.chat.SetSide(&st.side)
	u.dirty = true
	u.goJob(func() {
		defer cancel()
		text, err := u.app.agent.Ask(ctx, question, func(delta string) {
			u.inbox.post(func(u *ui) {
				if u.btw == st {
					st.side.Answer += delta
					u.dirty = true
				}
			})
		})
		stopped := ctx.Err() != nil
		u.inbox.post(func(u *ui) {
			if u.btw != st {
				return
			}
			st.done = true
			st.side.Done = true
			switch {
			case err != nil && stopped:
				st.side.Err = "cancelled"
			case err != nil:
				st.side.Err = err.Error()
			default:
				st.side.Answer = text
			}
			u.dirty = true
		})
	})
}

// closeBTW cancels or dismisses the side question.
func (u *ui) closeBTW() {
	if u.btw == nil {
		return
	}
	if u.btw.cancel != nil {
		u.btw.cancel()
	}
	u.btw = nil
	u.chat.SetSide(nil)
	u.dirty = true
}

// replay shows the messages of the current branch, as when a session is
// resumed.
func (u *ui) replay() {
	msgs := u.app.sess.Messages()
	if len(msgs) == 0 {
		return
	}
	const keep = 60
	if len(msgs) > keep {
		u.chat.AddNotice("info", "", fmt.Sprintf("… %d earlier messages", len(msgs)-keep))
		msgs = msgs[len(msgs)-keep:]
	}
	for _, m := range msgs {
		u.replayMessage(m)
	}
	u.chat.EndTurn("not run")
	u.dirty = true
}

func (u *ui) replayMessage(m provider.Message) {
	for _, b := range m.Content {
		switch b.Type {
		case provider.BlockText:
			if m.Role == provider.RoleUser {
				u.chat.AddUser(b.Text)
			} else {
				u.chat.AddMarkdown(b.Text, tui.RoleAssistantText)
				u.answer = b.Text
			}
		case provider.BlockToolUse:
			u.chat.SetToolArgs(b.ID, b.Name, string(b.Input))
		case provider.BlockToolResult:
			var parts []string
			for _, c := range b.Content {
				if c.Type == provider.BlockText {
					parts = append(parts, c.Text)
				}
			}
			u.chat.ToolDone(b.ToolUseID, "", strings.Join(parts, "\n"), b.IsError, nil, time.Time{})
		case provider.BlockImage:
			if m.Role == provider.RoleUser {
				u.chat.AddUser("[image " + b.MIMEType + "]")
			}
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
