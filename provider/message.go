// Package provider is zut's model vocabulary (messages, blocks, tools,
// usage, stream events) and the HTTP clients that speak it to model APIs:
// Anthropic Messages, OpenAI Chat Completions (and every compatible server)
// and OpenAI Responses. It is built on net/http and encoding/json alone and
// imports nothing else from zut.
package provider

import (
	"encoding/json"
	"strings"
)

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType discriminates the content blocks of a message.
type BlockType string

const (
	BlockText             BlockType = "text"
	BlockImage            BlockType = "image"
	BlockToolUse          BlockType = "tool_use"
	BlockToolResult       BlockType = "tool_result"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
)

// Block is one piece of message content. Which fields are set depends on
// Type:
//
//	text               Text
//	image              MIMEType, Data (base64)
//	tool_use           ID, Name, Input (a JSON object)
//	tool_result        ToolUseID, Content (text and image blocks), IsError
//	thinking           Text, Signature (opaque, echoed back to the same API)
//	redacted_thinking  Data (opaque, echoed back)
//
// Origin records which provider produced a thinking block (for example
// "anthropic"); signatures are only sent back to the provider that made
// them. A thinking block from the OpenAI Responses API keeps its reasoning
// item ID in ID and its encrypted content in Signature.
//
// A tool_use Input is a JSON object. When the model sent arguments that are
// not an object (cut off by the output limit, or malformed), Input holds the
// raw text as a JSON string, so nothing is lost and the message still
// marshals; a tool runner that unmarshals it into its argument struct gets
// an error to report back to the model.
type Block struct {
	Type      BlockType       `json:"type"`
	Text      string          `json:"text,omitempty"`
	MIMEType  string          `json:"mime_type,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   []Block         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Origin    string          `json:"origin,omitempty"`
	// Context marks a text block of a user message that is not the user's
	// words but context added with them (an extension's inject_text, the
	// output of a shell command run with !cmd). The model sees it like any
	// text; what shows or reuses what the user typed leaves it out
	// (UserText).
	Context bool `json:"context,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Text returns the concatenated text blocks of m.
func (m Message) Text() string {
	var s string
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// UserText returns what the user wrote in m: its text blocks other than
// context blocks, joined with a blank line.
func (m Message) UserText() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == BlockText && !b.Context && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// ContextBlock is a text block of context (see Block.Context).
func ContextBlock(text string) Block { return Block{Type: BlockText, Text: text, Context: true} }

// ToolUses returns the tool_use blocks of m in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: BlockText, Text: s} }

// Tool is a tool definition offered to the model. Schema is a JSON Schema
// object describing the arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Usage counts tokens of one request (or, summed, of a session).
// Input excludes cached tokens; CacheRead and CacheWrite count them.
type Usage struct {
	Input      int     `json:"input"`
	Output     int     `json:"output"`
	Reasoning  int     `json:"reasoning"`
	CacheRead  int     `json:"cache_read"`
	CacheWrite int     `json:"cache_write"`
	CostUSD    float64 `json:"cost_usd"`
	// ReasoningKnown says the server counted the reasoning tokens (a 0 in
	// Reasoning is then a real 0, not "not reported").
	ReasoningKnown bool `json:"reasoning_known,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Input:          u.Input + v.Input,
		Output:         u.Output + v.Output,
		Reasoning:      u.Reasoning + v.Reasoning,
		CacheRead:      u.CacheRead + v.CacheRead,
		CacheWrite:     u.CacheWrite + v.CacheWrite,
		CostUSD:        u.CostUSD + v.CostUSD,
		ReasoningKnown: u.ReasoningKnown || v.ReasoningKnown,
	}
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopRefusal   StopReason = "refusal"
	StopPauseTurn StopReason = "pause_turn"
	StopAborted   StopReason = "aborted"
	StopError     StopReason = "error"
)
