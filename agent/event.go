package agent

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// Event is something the agent reports while it works. The concrete types
// below marshal (with MarshalEvent) to exactly the event shapes of RPC mode,
// so JSON mode, RPC mode and the terminal UI share one vocabulary.
type Event interface {
	EventType() string
}

// MarshalEvent encodes e as one JSON object with its "type" first.
func MarshalEvent(e Event) ([]byte, error) {
	// The deltas, many to an answer, skip the struct's reflection: the
	// same bytes (TestMarshalDelta).
	switch d := e.(type) {
	case TextDelta:
		return marshalDelta(`{"type":"text_delta","delta":`, d.Delta)
	case ThinkingDelta:
		return marshalDelta(`{"type":"thinking_delta","delta":`, d.Delta)
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	head := `{"type":` + quote(e.EventType())
	if string(body) == "{}" {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), body[1:]...), nil
}

// marshalDelta is head, delta as a JSON string, and the closing brace.
func marshalDelta(head, delta string) ([]byte, error) {
	b := make([]byte, 0, len(head)+len(delta)+3)
	return append(appendJSONString(append(b, head...), delta), '}'), nil
}

// appendJSONString appends s as encoding/json writes a string: the HTML
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD
// (TestMarshalDelta and FuzzMarshalDelta hold it to encoding/json).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TurnStart: a model step begins (steps count from 1 within one prompt).
type TurnStart struct {
	Step int `json:"step"`
}

// RequestStarted: an HTTP attempt for a model request starts.
type RequestStarted struct {
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	Scope       string `json:"scope"` // "turn", "compact", "btw"
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
}

// RetryScheduled: the attempt failed and another starts after DelayMS.
type RetryScheduled struct {
	Scope       string `json:"scope"`
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms"`
	Error       string `json:"error,omitempty"`
}

// UserMessage: a user message was added to the conversation.
type UserMessage struct {
	Content []Block   `json:"content"`
	Time    time.Time `json:"time"`
}

// AssistantStart: the model began answering.
type AssistantStart struct{}

// TextDelta: visible assistant text arrived. When an extension intercepts
// assistant_message, no deltas are sent; the AssistantMessage carries the
// text the user may see.
type TextDelta struct {
	Delta string `json:"delta"`
}

// ThinkingDelta: reasoning text arrived (an addition to the RPC event set).
type ThinkingDelta struct {
	Delta string `json:"delta"`
}

// ToolUseStart: the model started a tool call.
type ToolUseStart struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ToolUseArgs: a fragment of a tool call's JSON arguments arrived.
type ToolUseArgs struct {
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

// ToolUseEnd: a tool call's arguments are complete.
type ToolUseEnd struct {
	ID string `json:"id"`
}

// ToolCall: a tool call is about to be checked and run.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolExecutionStarted: the tool runs now (after interception and
// confirmation).
type ToolExecutionStarted struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ToolProgress: a running tool's progress. Progress is all of it now (a
// status line, or the last lines of a command's output): each event's
// Progress replaces the previous one. Text is what is new since the
// previous event.
type ToolProgress struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Progress string `json:"progress"`
}

// ToolResult: a tool call finished.
type ToolResult struct {
	ID      string          `json:"id"`
	Name    string          `json:"name,omitempty"`
	IsError bool            `json:"is_error"`
	Content []Block         `json:"content"`
	Details json.RawMessage `json:"details,omitempty"`
}

// AssistantMessage: the assistant message as the user may see it (after
// assistant_message interception).
type AssistantMessage struct {
	Content []Block   `json:"content"`
	Time    time.Time `json:"time"`
	// Blocked is set when an extension suppressed the message; Reason is
	// shown to the user.
	Blocked bool   `json:"blocked,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Usage: token counts and cost of one model request, and the cumulative
// totals of the session.
type Usage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
	// Reasoning is nil (JSON null) when the server does not count
	// reasoning tokens apart.
	Reasoning  *int    `json:"reasoning"`
	CacheRead  int     `json:"cache_read"`
	CacheWrite int     `json:"cache_write"`
	CostUSD    float64 `json:"cost_usd"`
	// CacheMeasuredPrompt is the request's prompt as the cache sees it
	// (input, cache reads and cache writes); CacheMeasuredRead the part
	// read from the cache. Their ratio is the request's cache hit rate.
	CacheMeasuredPrompt int        `json:"cache_measured_prompt"`
	CacheMeasuredRead   int        `json:"cache_measured_read"`
	Cumulative          UsageTotal `json:"cumulative"`
}

// UsageTotal is the session's running usage.
type UsageTotal struct {
	Input      int     `json:"input"`
	Output     int     `json:"output"`
	Reasoning  *int    `json:"reasoning"` // nil while no request counted it
	CacheRead  int     `json:"cache_read"`
	CacheWrite int     `json:"cache_write"`
	CostUSD    float64 `json:"cost_usd"`
}

// TurnEnd: a model step ended. Stop is end_turn, tool_use, max_tokens,
// aborted or error (C16).
type TurnEnd struct {
	Stop  string `json:"stop"`
	Error string `json:"error,omitempty"`
}

// Done: the prompt finished; the agent is idle.
type Done struct{}

// Error: something failed; Message is one line for the user.
type Error struct {
	Message string `json:"message"`
}

// CompactDone: the conversation was compacted into Summary.
type CompactDone struct {
	Summary string `json:"summary"`
	// Automatic marks a compaction zut started itself (the context was
	// near full), not one the user asked for.
	Automatic bool `json:"automatic,omitempty"`
}

// Notice: a line for the user that is not part of the conversation (a
// blocked turn, a state warning, max steps reached). An addition to the RPC
// event set.
type Notice struct {
	Level   string `json:"level"` // info, warn, error
	Source  string `json:"source,omitempty"`
	Message string `json:"message"`
}

func (TurnStart) EventType() string            { return "turn_start" }
func (RequestStarted) EventType() string       { return "request_started" }
func (RetryScheduled) EventType() string       { return "retry_scheduled" }
func (UserMessage) EventType() string          { return "user_message" }
func (AssistantStart) EventType() string       { return "assistant_start" }
func (TextDelta) EventType() string            { return "text_delta" }
func (ThinkingDelta) EventType() string        { return "thinking_delta" }
func (ToolUseStart) EventType() string         { return "tool_use_start" }
func (ToolUseArgs) EventType() string          { return "tool_use_args" }
func (ToolUseEnd) EventType() string           { return "tool_use_end" }
func (ToolCall) EventType() string             { return "tool_call" }
func (ToolExecutionStarted) EventType() string { return "tool_execution_started" }
func (ToolProgress) EventType() string         { return "tool_progress" }
func (ToolResult) EventType() string           { return "tool_result" }
func (AssistantMessage) EventType() string     { return "assistant_message" }
func (Usage) EventType() string                { return "usage" }
func (TurnEnd) EventType() string              { return "turn_end" }
func (Done) EventType() string                 { return "done" }
func (Error) EventType() string                { return "error" }
func (CompactDone) EventType() string          { return "compact_done" }
func (Notice) EventType() string               { return "notice" }

// Block is a message content block in the RPC shape:
//
//	{"type":"text","text"}
//	{"type":"image","mime_type","data"}
//	{"type":"thinking","text"}
//	{"type":"tool_call","id","name","args"}
//	{"type":"tool_result","call_id","is_error","content":[...]}
type Block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	MIMEType string          `json:"mime_type,omitempty"`
	Data     string          `json:"data,omitempty"`
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	CallID   string          `json:"call_id,omitempty"`
	IsError  *bool           `json:"is_error,omitempty"`
	Content  []Block         `json:"content,omitempty"`
	// Context marks text that came with the user's words but is not
	// theirs (provider.Block.Context).
	Context bool `json:"context,omitempty"`
}

// Blocks converts provider blocks to the RPC shape. Signatures and redacted
// reasoning are left out: they are opaque to clients.
func Blocks(in []provider.Block) []Block {
	out := make([]Block, 0, len(in))
	for _, b := range in {
		switch b.Type {
		case provider.BlockText:
			out = append(out, Block{Type: "text", Text: b.Text, Context: b.Context})
		case provider.BlockImage:
			out = append(out, Block{Type: "image", MIMEType: b.MIMEType, Data: b.Data})
		case provider.BlockThinking:
			out = append(out, Block{Type: "thinking", Text: b.Text})
		case provider.BlockToolUse:
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, Block{Type: "tool_call", ID: b.ID, Name: b.Name, Args: args})
		case provider.BlockToolResult:
			isErr := b.IsError
			out = append(out, Block{Type: "tool_result", CallID: b.ToolUseID, IsError: &isErr, Content: Blocks(b.Content)})
		}
	}
	return out
}

// MessageJSON is a conversation message in the RPC shape (get_messages).
type MessageJSON struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
	// Time is when the message was saved (get_messages; absent where
	// zut does not know it).
	Time *time.Time `json:"time,omitempty"`
}

// TimedMessages converts the messages of a session view to the RPC shape
// of get_messages: each with its time, and a message of tool results
// with role "tool", as the original zut sends them.
func TimedMessages(in []session.TimedMessage) []MessageJSON {
	out := make([]MessageJSON, 0, len(in))
	for _, m := range in {
		role := string(m.Message.Role)
		if len(m.Message.Content) > 0 && m.Message.Content[0].Type == provider.BlockToolResult {
			role = "tool"
		}
		j := MessageJSON{Role: role, Content: Blocks(m.Message.Content)}
		if !m.Time.IsZero() {
			t := m.Time.UTC()
			j.Time = &t
		}
		out = append(out, j)
	}
	return out
}

// Messages converts provider messages to the RPC shape.
func Messages(in []provider.Message) []MessageJSON {
	out := make([]MessageJSON, 0, len(in))
	for _, m := range in {
		out = append(out, MessageJSON{Role: string(m.Role), Content: Blocks(m.Content)})
	}
	return out
}
