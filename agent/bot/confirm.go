package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent"
)

// question is a confirmation waiting for a button.
type question struct {
	nonce string
	req   agent.ConfirmRequest
	msg   MessageID   // set by the presenter before sentc
	sentc chan error  // the question was sent (or could not be)
	pick  chan string // the user's choice
}

func (q *question) sent(err error) { q.sentc <- err }

// The choices, as callback data "zut:<nonce>:<choice>" (well under
// Telegram's 64 bytes).
const (
	choiceOnce   = "o"
	choiceAlways = "a"
	choiceDeny   = "d" // deny; the model goes on
	choiceStop   = "s" // deny and end the turn
	choiceGone   = "x" // the turn ended before an answer
	choiceStale  = ""  // a button of a question nobody waits for
)

func choiceText() map[string]string {
	return choiceTextLazy.get(func() map[string]string {
		return map[string]string{
			choiceOnce:   "Allowed once",
			choiceAlways: "Allowed for this session",
			choiceDeny:   "Denied",
			choiceStop:   "Denied; the turn was stopped",
			choiceGone:   "Not answered: the turn was stopped",
			choiceStale:  "This question is no longer open",
		}
	})
}

var choiceTextLazy lazy[map[string]string]

func choiceMark() map[string]string {
	return choiceMarkLazy.get(func() map[string]string {
		return map[string]string{
			choiceOnce: "✅", choiceAlways: "✅", choiceDeny: "🚫", choiceStop: "⏹", choiceGone: "⏹", choiceStale: "⏹",
		}
	})
}

var choiceMarkLazy lazy[map[string]string]

// message is the question: the preview, then the whole call (the
// transport splits a long one over several messages, the buttons under
// the last), with its line count.
func (q *question) message() Message {
	text := "🔐 Allow " + q.req.Name + "?"
	if p := strings.TrimSpace(q.req.Preview); p != "" && p != q.req.Name {
		text += "\n" + clip(p, 1000)
	}
	if body := strings.TrimRight(q.req.Body, "\n"); body != "" {
		text += "\n\n" + body
		if n := strings.Count(body, "\n") + 1; n > 1 {
			text += fmt.Sprintf("\n\n(%d lines)", n)
		}
	}
	data := func(c string) string { return "zut:" + q.nonce + ":" + c }
	return Message{Plain: text, Buttons: [][]Button{{
		{Text: "Allow once", Data: data(choiceOnce)},
		{Text: "Always", Data: data(choiceAlways)},
		{Text: "Deny", Data: data(choiceDeny)},
		{Text: "Deny & stop", Data: data(choiceStop)},
	}}}
}

// answerOf is the answer a button gives: Deny lets the model go on, Deny
// & stop ends the turn.
func answerOf(choice string) agent.ConfirmAnswer {
	switch choice {
	case choiceOnce:
		return agent.ConfirmAnswer{Allow: true}
	case choiceAlways:
		return agent.ConfirmAnswer{Allow: true, Always: true}
	case choiceStop:
		return agent.ConfirmAnswer{Stop: true}
	}
	return agent.ConfirmAnswer{Reason: "the user declined it in the chat"}
}

func newNonce() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// asker asks the chat whether tool calls may run; it implements
// agent.Confirmer. Safe for concurrent use.
type asker struct {
	out *presenter
	c   *conversation
}

// Confirm sends the question with its buttons and waits for a press or
// for ctx (the turn) to end.
func (a asker) Confirm(ctx context.Context, req agent.ConfirmRequest) (agent.ConfirmAnswer, error) {
	q := &question{nonce: newNonce(), req: req, sentc: make(chan error, 1), pick: make(chan string, 1)}
	a.c.mu.Lock()
	a.c.questions[q.nonce] = q
	a.c.mu.Unlock()
	defer func() {
		a.c.mu.Lock()
		delete(a.c.questions, q.nonce)
		a.c.mu.Unlock()
	}()
	if !a.out.q.push(item{ask: q}) {
		return agent.ConfirmAnswer{}, errors.New("the chat is closed")
	}
	select {
	case err := <-q.sentc:
		if err != nil {
			return agent.ConfirmAnswer{}, fmt.Errorf("could not ask in the chat: %v", err)
		}
	case <-ctx.Done():
		// The presenter handles items in order: the question is closed
		// after it was sent.
		a.out.q.push(item{answer: &answered{q: q, choice: choiceGone}})
		return agent.ConfirmAnswer{}, errors.New("the turn was stopped before the user answered")
	}
	select {
	case c := <-q.pick:
		return answerOf(c), nil
	case <-ctx.Done():
		a.out.q.push(item{answer: &answered{q: q, choice: choiceGone}})
		return agent.ConfirmAnswer{}, errors.New("the turn was stopped before the user answered")
	}
}

// press handles a button press: it hands the choice to the waiting
// question, or says the question is closed.
func (c *conversation) press(cb *Callback) {
	rest, ok := strings.CutPrefix(cb.Data, "zut:")
	nonce, choice, _ := strings.Cut(rest, ":")
	c.mu.Lock()
	q := c.questions[nonce]
	if q != nil {
		delete(c.questions, nonce)
	}
	c.mu.Unlock()
	if !ok || q == nil || (choice != choiceOnce && choice != choiceAlways && choice != choiceDeny && choice != choiceStop) {
		c.out.q.push(item{answer: &answered{q: &question{}, choice: choiceStale, callback: cb.ID}})
		return
	}
	q.pick <- choice
	c.out.q.push(item{answer: &answered{q: q, choice: choice, callback: cb.ID}})
}
