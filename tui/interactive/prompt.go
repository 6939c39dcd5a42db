package interactive

import (
	"context"
	"errors"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/tui"
)

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
	u.startInput(agent.Input{Text: text, Source: source})
}

// startInput runs in as a prompt on its own goroutine; the output of the
// shell commands run since the last prompt joins its context.
func (u *ui) startInput(in agent.Input) {
	if u.app == nil {
		return
	}
	text := in.Text
	// The output of shell commands run since the last prompt goes with it
	// as context: the model sees it, the transcript shows the prompt as
	// typed with a line saying so.
	shell := u.shellCtx
	u.shellCtx = nil
	if len(shell) > 0 {
		if u.withShell == nil {
			u.withShell = map[string]int{}
		}
		u.withShell[strings.TrimSpace(text)] = len(shell)
	}
	u.chat.ClearNotes("", true)
	u.busy = true
	u.turn = turnStats{start: u.now(), ctxTokens: u.turn.ctxTokens, cost: u.turn.cost}
	u.setPlaceholder()
	u.dirty = true
	in.Context = append(shell, in.Context...)
	u.goJob(func() {
		err := u.app.Prompt(u.ctx, in)
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
		u.startInput(u.popQueued())
	}
}

// enqueue keeps text to run after the current prompt.
func (u *ui) enqueue(text, source string) {
	u.enqueueInput(agent.Input{Text: text, Source: source})
}

// enqueueInput keeps in to run after the current prompt.
func (u *ui) enqueueInput(in agent.Input) {
	u.queue = append(u.queue, queued{in})
	u.syncQueue()
}

// popQueued takes the oldest queued prompt off the queue; typed prompts
// run with source queue, others (a mirrored chat's) keep theirs.
func (u *ui) popQueued() agent.Input {
	in := u.queue[0].in
	u.queue = u.queue[1:]
	u.syncQueue()
	if in.Source == "" || in.Source == "interactive" {
		in.Source = "queue"
	}
	return in
}

// queued is a prompt waiting for the running one.
type queued struct{ in agent.Input }

// unqueue takes the newest queued prompt back into the editor. It
// reports false when nothing is queued.
func (u *ui) unqueue() bool {
	if len(u.queue) == 0 {
		return false
	}
	last := u.queue[len(u.queue)-1].in.Text
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
		q = append(q, tui.Queued{Text: t.in.Text})
	}
	u.chat.SetQueue(q)
	u.dirty = true
}

// steer sends text into the running prompt.
func (u *ui) steer(text string) {
	if !u.app.Agent().Steer(text) {
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
		u.app.Agent().Abort()
	}
	if u.job != nil && u.job.cancel != nil {
		u.job.cancel()
	}
	u.dirty = true
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

// useInteractiveAgent gives the app's agent what only the UI provides: the
// confirmation dialog and the auto-compaction setting.
func (u *ui) useInteractiveAgent() {
	u.app.Agent().SetConfirmer(confirmer{u})
	u.app.Agent().SetAutoCompact(u.st.AutoCompact)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
