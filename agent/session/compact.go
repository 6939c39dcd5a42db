package session

import (
	"errors"
	"fmt"

	"github.com/zut-go/zut/provider"
)

// Token estimates. Real counts come from the provider's usage figures; the
// estimate only has to be good enough to choose what to keep.
const (
	BytesPerToken   = 4    // text, tool input and output
	ImageTokens     = 1200 // one image, whatever its size
	messageOverhead = 4    // role and framing of one message
	// minSummarised is the least a compaction must replace to be worth a
	// model call when the recent messages alone exceed keepTokens.
	minSummarised = 1000
)

// EstimateTokens estimates how many tokens m takes in a request.
func EstimateTokens(m provider.Message) int {
	n := messageOverhead
	for _, b := range m.Content {
		n += blockTokens(b)
	}
	return n
}

func blockTokens(b provider.Block) int {
	switch b.Type {
	case provider.BlockImage:
		return ImageTokens
	case provider.BlockToolResult:
		n := 0
		for _, c := range b.Content {
			n += blockTokens(c)
		}
		return n + (len(b.ToolUseID)+BytesPerToken-1)/BytesPerToken
	}
	size := len(b.Text) + len(b.Name) + len(b.Input) + len(b.ID) + len(b.Data)
	return (size + BytesPerToken - 1) / BytesPerToken
}

// CutPoint chooses where to cut msgs so that about keepTokens of the most
// recent context stay verbatim: it returns the index of the first message
// to keep. The cut never separates a tool_result from the tool_use it
// answers, because the first kept message never holds a tool_result. It
// keeps at least keepTokens when it can, and less when no valid cut exists
// further back or when the oldest messages alone hold more than the rest
// (a long prompt followed by many tool calls). ok is false when no valid
// cut leaves at least minSummarised tokens to summarise.
func CutPoint(msgs []provider.Message, keepTokens int) (cut int, ok bool) {
	return cutPoint(msgs, keepTokens, 1)
}

// cutPoint is CutPoint where the cut must be at least first.
func cutPoint(msgs []provider.Message, keepTokens, first int) (int, bool) {
	at, acc := -1, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		acc += EstimateTokens(msgs[i])
		if acc >= keepTokens {
			at = i
			break
		}
	}
	if at < first {
		// Even the newest messages alone exceed keepTokens once the oldest
		// are counted: keep everything after the oldest, so that a long
		// single prompt (one user message, many tool calls) still
		// compacts. Summarising must free something worth a request.
		at = first
		freed := 0
		for _, m := range msgs[:min(first, len(msgs))] {
			freed += EstimateTokens(m)
		}
		if first >= len(msgs) || freed < minSummarised {
			return 0, false
		}
	}
	for j := at; j >= first; j-- {
		if startsCleanly(msgs[j]) {
			return j, true
		}
	}
	for j := max(at+1, first); j < len(msgs); j++ {
		if startsCleanly(msgs[j]) {
			return j, true
		}
	}
	return 0, false
}

// startsCleanly reports whether m can be the first kept message: it answers
// no tool call.
func startsCleanly(m provider.Message) bool {
	for _, b := range m.Content {
		if b.Type == provider.BlockToolResult {
			return false
		}
	}
	return true
}

// Plan is a compaction chosen by PlanCompaction.
type Plan struct {
	Summarise    []provider.Message // what the summary replaces, oldest first
	FirstKeptID  string             // the entry from which messages stay verbatim
	TokensBefore int                // estimated context before compaction
	TokensKept   int                // estimated size of the kept messages
}

// PlanCompaction chooses what to summarise on the current branch so that
// about keepTokens of recent context stay verbatim (see CutPoint). The
// messages to summarise start with the previous summary, if any. ok is
// false when there is nothing worth compacting.
func (s *Session) PlanCompaction(keepTokens int) (p Plan, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	view := s.viewLocked()
	msgs := make([]provider.Message, len(view))
	for k, v := range view {
		msgs[k] = v.msg
	}
	first := 1
	if len(view) > 0 && view[0].id == "" {
		first = 2 // summarising only the previous summary gains nothing
	}
	cut, ok := cutPoint(msgs, keepTokens, first)
	if !ok {
		return Plan{}, false
	}
	for k, m := range msgs {
		t := EstimateTokens(m)
		p.TokensBefore += t
		if k >= cut {
			p.TokensKept += t
		}
	}
	p.Summarise = messagesOf(view[:cut])
	p.FirstKeptID = view[cut].id
	return p, true
}

// ApplyCompaction records summary as the compaction of p on the current
// branch. Only p.FirstKeptID and p.TokensBefore are used, so a caller may
// rebuild p from those two. Earlier entries stay in the file; from now on
// Messages shows the summary followed by the messages from the first kept
// entry on.
func (s *Session) ApplyCompaction(p Plan, summary string) error {
	if summary == "" {
		return errors.New("compact session: the summary is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, found := 0, false
	for _, v := range s.viewLocked() {
		found = found || (v.id != "" && v.id == p.FirstKeptID)
		if found {
			kept += EstimateTokens(v.msg)
		}
	}
	if !found {
		return fmt.Errorf("compact session: entry %q is no longer in the current context; plan the compaction again", p.FirstKeptID)
	}
	after := EstimateTokens(SummaryMessage(summary)) + kept
	_, err := s.appendLocked(Entry{Type: TypeCompaction, Summary: summary, FirstKeptID: p.FirstKeptID,
		TokensBefore: p.TokensBefore, TokensAfter: after}, s.leaf)
	return err
}
