package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Compactor is implemented by stores that can replace the older part of a
// branch with a summary. The older entries stay on disk; only what is sent
// to the model changes.
type Compactor interface {
	// PlanCompaction picks what to summarise so that about keepTokens of the
	// most recent context stay verbatim. ok is false when there is nothing
	// worth compacting.
	PlanCompaction(keepTokens int) (plan CompactionPlan, ok bool)
	// ApplyCompaction records the summary for plan.
	ApplyCompaction(plan CompactionPlan, summary string) error
}

// CompactionPlan is what PlanCompaction chose.
type CompactionPlan struct {
	Summarise    []provider.Message // the messages the summary replaces
	FirstKeptID  string             // the first entry kept verbatim
	TokensBefore int                // estimated context size before
}

// ErrNothingToCompact is returned by Compact when the conversation is too
// short to compact.
var ErrNothingToCompact = errors.New("nothing to compact yet: the conversation has no earlier messages to summarise")

const summaryInstructions = `You write the hand-over notes of a coding session so that work can continue
from them alone. The earlier conversation below will be replaced by your notes.

Write plain markdown with these sections, leaving out any that would be empty:
- Goal: what the user wants, in their terms, with constraints they gave.
- Done so far: decisions taken and why, files created or changed (paths), commands run and
  what they showed.
- Current state: what works, what fails, open errors with their exact messages.
- Next steps: what remains, in order.
- Facts to keep: names, paths, versions, identifiers and user preferences needed later.

Be specific and brief. Do not invent anything that is not in the conversation.`

// Compact summarises the older part of the conversation with the model and
// records the summary. It emits CompactDone on success.
func (a *Agent) Compact(ctx context.Context, instructions string) (string, error) {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return "", ErrBusy
	}
	a.running = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
	return a.compact(ctx, instructions, "")
}

// compact summarises the conversation. announce, for a compaction the
// agent started itself, is the notice that says why; it is emitted only
// when there is something to compact. A compaction the user asked for
// of a conversation shorter than what is kept verbatim summarises all
// but the latest messages. An extension may cancel either
// (*CancelledError).
func (a *Agent) compact(ctx context.Context, instructions, announce string) (string, error) {
	c, ok := a.cfg.Store.(Compactor)
	if !ok {
		return "", errors.New("compact: this session store cannot compact")
	}
	automatic := announce != ""
	plan, ok := c.PlanCompaction(a.keepTokens())
	if !ok && !automatic {
		plan, ok = c.PlanCompaction(0)
	}
	if !ok || len(plan.Summarise) == 0 {
		return "", ErrNothingToCompact
	}
	if automatic {
		a.cfg.Emit(Notice{Level: "info", Message: announce})
	}
	if err := a.beforeCompact(ctx, automatic); err != nil {
		return "", err
	}
	prompt := "Write the hand-over notes for the conversation above."
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		prompt += "\n\nAlso follow these instructions from the user: " + instructions
	}
	msgs := append(append([]provider.Message{}, plan.Summarise...),
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(prompt)}})
	msgs = closeDanglingToolUses(msgs)
	req := &provider.Request{
		Model:    a.Model().ID,
		System:   summaryInstructions,
		Messages: msgs,
	}
	msg, _, err := a.stream(ctx, req, "compact")
	if err != nil {
		return "", fmt.Errorf("compact: %w", err)
	}
	summary := strings.TrimSpace(msg.Text())
	if summary == "" {
		return "", errors.New("compact: the model returned an empty summary; try again or use another model")
	}
	if err := c.ApplyCompaction(plan, summary); err != nil {
		return "", fmt.Errorf("compact: save summary: %w", err)
	}
	a.cfg.Emit(CompactDone{Summary: summary, Automatic: automatic})
	a.notify(LifecycleEvent{Name: "session_compacted", Session: ptrIdentity(a.cfg.Store.Identity()), States: a.cfg.Store.States()})
	return summary, nil
}

// keepTokens is how much recent context compaction keeps verbatim: a
// quarter of the window, at most 20k tokens.
func (a *Agent) keepTokens() int {
	w := a.Model().ContextWindow
	if w <= 0 {
		w = 128000
	}
	k := w / 4
	if k > 20000 {
		k = 20000
	}
	return k
}

// maybeCompact compacts before a request when the last request used more
// than the AutoCompact fraction of the context window.
func (a *Agent) maybeCompact(ctx context.Context) error {
	a.mu.Lock()
	threshold := a.cfg.AutoCompact
	a.mu.Unlock()
	if threshold < 0 {
		return nil
	}
	w := a.Model().ContextWindow
	if w <= 0 {
		return nil
	}
	a.mu.Lock()
	u := a.lastUsage
	a.mu.Unlock()
	used := u.Input + u.CacheRead + u.CacheWrite + u.Output
	if float64(used) < threshold*float64(w) {
		return nil
	}
	_, err := a.compact(ctx, "", fmt.Sprintf("context at %d%% of the window: compacting", used*100/w))
	var cancelled *CancelledError
	if errors.As(err, &cancelled) {
		a.cfg.Emit(Notice{Level: "info", Source: cancelled.By, Message: "automatic compaction cancelled: " + cancelled.Reason})
		return nil
	}
	if errors.Is(err, ErrNothingToCompact) {
		return nil
	}
	if err == nil {
		a.mu.Lock()
		a.lastUsage = provider.Usage{}
		a.mu.Unlock()
	}
	return err
}

// closeDanglingToolUses appends error results for tool calls without
// results so that the summarising request is valid for every API.
func closeDanglingToolUses(msgs []provider.Message) []provider.Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == provider.BlockToolResult {
				answered[b.ToolUseID] = true
			}
		}
	}
	out := make([]provider.Message, 0, len(msgs)+1)
	for i, m := range msgs {
		out = append(out, m)
		if m.Role != provider.RoleAssistant {
			continue
		}
		var missing []provider.Block
		for _, b := range m.ToolUses() {
			if !answered[b.ID] {
				missing = append(missing, provider.Block{Type: provider.BlockToolResult, ToolUseID: b.ID, IsError: true,
					Content: []provider.Block{provider.TextBlock("(result not kept)")}})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if i+1 < len(msgs) && msgs[i+1].Role == provider.RoleUser {
			// Merge into the next user message, results first.
			next := msgs[i+1]
			msgs[i+1] = provider.Message{Role: provider.RoleUser, Content: append(missing, next.Content...)}
			continue
		}
		out = append(out, provider.Message{Role: provider.RoleUser, Content: missing})
	}
	return out
}

func ptrIdentity(id SessionIdentity) *SessionIdentity { return &id }
