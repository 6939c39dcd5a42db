package interactive

import (
	"encoding/json"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"strings"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/tui"
)

// emit receives the agent's events on the goroutine running the prompt
// and hands them to the UI loop.
func (u *ui) emit(ev agent.Event) {
	if m := u.mirror.Load(); m != nil {
		m.Event(ev)
	}
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
		if n, ok := u.withShell[strings.TrimSpace(text)]; ok {
			delete(u.withShell, strings.TrimSpace(text))
			text += fmt.Sprintf("\n(with the output of %d shell command%s)", n, plural(n))
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
		// The arguments are complete: the header can show them as the
		// tool or its extension's renderer describes a call.
		u.toolHeader(ev.ID, ev.Name, ev.Args)
	case agent.ToolExecutionStarted:
		u.chat.ToolRunning(ev.ID, now)
	case agent.ToolProgress:
		u.chat.ToolProgress(ev.ID, ev.Progress)
	case agent.ToolResult:
		text := blocksText(ev.Content)
		u.chat.ToolDone(ev.ID, ev.Name, text, ev.IsError, toolDiff(ev), now)
		if body := app.ToolSummary(ev.Name, ev.Details); body != "" && !ev.IsError {
			u.chat.SetToolLook(ev.ID, tui.ToolLook{Header: u.headers[ev.ID], Body: body})
		}
		u.toolLook(ev.ID, ev.Name, &text, ev.IsError)
		delete(u.headers, ev.ID)
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
		u.turn.cost = u.costBase + ev.Cumulative.CostUSD
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
		// /compact says so itself when it returns.
		if ev.Automatic {
			u.chat.AddNotice("success", "", fmt.Sprintf("conversation compacted: it continues from a %d-line summary", strings.Count(ev.Summary, "\n")+1))
		}
	case agent.Done:
		u.chat.EndTurn("not run")
	default:
		u.workEvent(ev)
	}
}

// blocksText joins the text of content blocks; images show as a marker.
// Context blocks (an extension's inject_text, shell output) are not the
// user's words and are left out.
func blocksText(bs []agent.Block) string {
	var parts []string
	for _, b := range bs {
		switch b.Type {
		case "text":
			if b.Text != "" && !b.Context {
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
