package provider

import (
	"context"
	"time"
)

// Request is one model call.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	ToolsMode ToolChoice
	// MaxTokens bounds the output; 0 uses the model's catalog default.
	MaxTokens   int
	Temperature *float64
	Reasoning   Reasoning
	// Ephemeral blocks are appended to the last message, when it is the
	// user's, for this request only (hidden per-turn context). Anthropic
	// places them after the cache breakpoint so the cached prefix stays the
	// same from one request to the next.
	Ephemeral []Block
	// Cache asks for prompt-cache breakpoints where the API supports them
	// (Anthropic: system, tools and the last message).
	Cache bool
}

// ToolChoice says whether and which tool the model must call.
type ToolChoice struct {
	Mode string // "" or "auto", "any" (some tool), "none", "tool" (Name)
	Name string
}

// Reasoning configures thinking. Effort is "", "off", "minimal", "low",
// "medium", "high" or "adaptive"; BudgetTokens, when positive, sets an
// explicit thinking budget where the API takes one.
type Reasoning struct {
	Effort       string
	BudgetTokens int
}

// EventType discriminates stream events.
type EventType int

const (
	// EventRequest: an HTTP attempt starts (Attempt, MaxAttempts).
	EventRequest EventType = iota + 1
	// EventRetry: the attempt failed and another follows after Delay
	// (Attempt is the one that failed, Err says why).
	EventRetry
	// EventStart: the response began (Model, RequestID).
	EventStart
	// EventTextDelta: Text was appended to text block Index.
	EventTextDelta
	// EventThinkingDelta: Text was appended to thinking block Index.
	EventThinkingDelta
	// EventToolStart: tool_use block Index began (ToolID, ToolName).
	EventToolStart
	// EventToolDelta: Text (a fragment of JSON arguments) was appended to
	// tool_use block Index.
	EventToolDelta
	// EventToolEnd: tool_use block Index is complete; Input is its
	// arguments as a JSON object. When the arguments are not an object
	// (cut off by the output limit, or malformed) Err is a *ToolInputError
	// and Input holds the raw text as a JSON string.
	EventToolEnd
	// EventUsage: Usage holds the running usage of this response (a total,
	// not an increment).
	EventUsage
	// EventStop: the response ended normally with Stop; Usage is the final
	// usage of the response (with CostUSD when the model's prices are known)
	// and Model the model that answered.
	EventStop
)

// Event is one element of a response stream. Which fields are set depends on
// Type; see the EventType constants.
type Event struct {
	Type        EventType
	Index       int
	Text        string
	ToolID      string
	ToolName    string
	Input       []byte
	Usage       Usage
	Stop        StopReason
	Model       string
	RequestID   string
	Attempt     int
	MaxAttempts int
	Delay       time.Duration
	Err         error
}

// Stream is a pull-style response stream:
//
//	for s.Next() { e := s.Event(); ... }
//	if err := s.Err(); err != nil { ... }
//	msg := s.Message()
//
// Close releases the HTTP response and may be called at any time, also
// concurrently with Next to abort. A Stream starts no goroutine that
// outlives Close.
type Stream interface {
	Next() bool
	Event() Event
	Err() error
	// Message is the assistant message assembled so far (complete once Next
	// has returned false with a nil Err).
	Message() Message
	Close() error
}

// Client sends requests to one model API.
type Client interface {
	// Stream starts a request. Errors before the first event (after
	// retries) are returned here or from Err.
	Stream(ctx context.Context, req *Request) (Stream, error)
}

// sendMessages returns the messages with the Ephemeral blocks appended to
// the last user message (copying, never changing req.Messages).
func (r *Request) sendMessages() []Message {
	n := len(r.Messages)
	if len(r.Ephemeral) == 0 || n == 0 || r.Messages[n-1].Role != RoleUser {
		return r.Messages
	}
	out := append([]Message{}, r.Messages...)
	last := out[n-1]
	last.Content = append(append([]Block{}, last.Content...), r.Ephemeral...)
	out[n-1] = last
	return out
}
