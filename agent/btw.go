package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/zut-go/zut/provider"
)

// btwInstructions frame a side question asked with /btw.
const btwInstructions = "\n\nThe user asks a side question about the conversation. Answer it briefly from what you already know; you cannot use tools for it. The question and your answer will not be kept in the conversation."

// Ask answers a side question with the conversation as context, without
// tools and without recording anything. It may run while a prompt runs;
// text deltas are passed to onText as they arrive.
func (a *Agent) Ask(ctx context.Context, question string, onText func(string)) (string, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return "", errors.New("btw: ask a question after /btw")
	}
	a.mu.Lock()
	system := a.cfg.System
	store := a.cfg.Store
	a.mu.Unlock()
	msgs := closeDanglingToolUses(store.Messages())
	msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(question)}})
	req := &provider.Request{Model: a.Model().ID, System: system + btwInstructions, Messages: msgs, Reasoning: a.Reasoning()}
	msg, _, err := a.streamText(ctx, req, "btw", onText)
	if err != nil {
		return "", err
	}
	return msg.Text(), nil
}
