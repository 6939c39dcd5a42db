package provider

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strings"
	"sync/atomic"
)

// Chat is a client of the OpenAI Chat Completions API and the many servers
// that copy it (Ollama, llama.cpp, vLLM, OpenRouter, DeepSeek, Groq,
// Mistral, Moonshot, xAI, Gemini's compatible endpoint). Quirks adapts the
// request to servers that differ. It is safe for concurrent use.
type Chat struct {
	Config
	Quirks ChatQuirks
	// swapped is set once a server rejected the output limit field and the
	// other one worked.
	swapped atomic.Bool
}

// ChatQuirks are the request differences of OpenAI-compatible servers.
type ChatQuirks struct {
	// MaxTokensField is "max_completion_tokens" (the default) or
	// "max_tokens". After a 400 that names the field the client tries the
	// other one by itself.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// ReasoningEcho sends reasoning text back as reasoning_content on
	// assistant messages (DeepSeek requires it on tool-call turns).
	ReasoningEcho bool `json:"reasoning_echo,omitempty"`
	// ShortToolIDs rewrites tool call IDs to 9 letters and digits (Mistral
	// rejects other IDs in history).
	ShortToolIDs bool `json:"short_tool_ids,omitempty"`
	// NoStreamUsage omits stream_options for servers that reject it.
	NoStreamUsage bool `json:"no_stream_usage,omitempty"`
	// ThinkingParam switches thinking with {"thinking":{"type":...}}
	// (DeepSeek).
	ThinkingParam bool `json:"thinking_param,omitempty"`
	// RawThinkTags leaves <think>...</think> at the start of the text as
	// it is, instead of showing it as reasoning.
	RawThinkTags bool `json:"raw_think_tags,omitempty"`
}

// Stream sends req and returns its response stream.
func (c *Chat) Stream(ctx context.Context, req *Request) (Stream, error) {
	model, err := c.modelID(req)
	if err != nil {
		return nil, err
	}
	q := c.Quirks
	if c.swapped.Load() {
		q.MaxTokensField = otherMaxField(q.maxField())
	}
	cr := chatBody(req, model, c.Model, q, c.Provider)
	body, err := marshalWithTools(cr, &cr.Tools)
	if err != nil {
		return nil, err
	}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	asm := &assembler{}
	cl := &call{
		cfg:    &c.Config,
		url:    openAIBase(c.BaseURL) + "/chat/completions",
		header: h,
		body:   body,
		model:  model,
		frames: sseFrames,
		dec:    &chatDecoder{asm: asm, origin: c.Provider, rawThink: q.RawThinkTags},
		asm:    asm,
	}
	cl.adjust = func(e *APIError) ([]byte, bool) {
		switch {
		case cr.StreamOptions != nil && strings.Contains(e.Message, "stream_options"):
			cr.StreamOptions = nil // a server that knows no stream_options
		case cr.MaxTokens != nil && strings.Contains(e.Message, "max_tokens") && !strings.Contains(e.Message, "max_completion_tokens"),
			cr.MaxCompletionTokens != nil && strings.Contains(e.Message, "max_completion_tokens"):
			cr.MaxTokens, cr.MaxCompletionTokens = cr.MaxCompletionTokens, cr.MaxTokens
			c.swapped.Store(!c.swapped.Load())
		default:
			return nil, false
		}
		b, err := marshalWithTools(cr, &cr.Tools)
		return b, err == nil
	}
	return newStream(ctx, cl), nil
}

func (q ChatQuirks) maxField() string {
	if q.MaxTokensField == "max_tokens" {
		return "max_tokens"
	}
	return "max_completion_tokens"
}

func otherMaxField(f string) string {
	if f == "max_tokens" {
		return "max_completion_tokens"
	}
	return "max_tokens"
}

// openAIBase normalises an OpenAI-style base URL: a URL without a path
// gets /v1 (http://localhost:11434 → http://localhost:11434/v1).
func openAIBase(base string) string {
	base = strings.TrimRight(base, "/")
	if i := strings.Index(base, "://"); i >= 0 && !strings.Contains(base[i+3:], "/") {
		base += "/v1"
	}
	return base
}

type chatRequest struct {
	Model               string             `json:"model"`
	Messages            []chatMessage      `json:"messages"`
	Tools               []chatTool         `json:"tools,omitempty"`
	ToolChoice          any                `json:"tool_choice,omitempty"`
	MaxCompletionTokens *int               `json:"max_completion_tokens,omitempty"`
	MaxTokens           *int               `json:"max_tokens,omitempty"`
	ReasoningEffort     string             `json:"reasoning_effort,omitempty"`
	Thinking            *chatThinking      `json:"thinking,omitempty"`
	Temperature         *float64           `json:"temperature,omitempty"`
	Stream              bool               `json:"stream"`
	StreamOptions       *chatStreamOptions `json:"stream_options,omitempty"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatThinking struct {
	Type string `json:"type"`
}

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function chatToolDef `json:"function"`
}

type chatToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chatBody builds a Chat Completions request body.
func chatBody(req *Request, model string, m *Model, q ChatQuirks, origin string) *chatRequest {
	out := &chatRequest{Model: model, Stream: true, Temperature: req.Temperature}
	if !q.NoStreamUsage {
		out.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	if req.System != "" {
		out.Messages = append(out.Messages, chatMessage{Role: "system", Content: jsonString(req.System)})
	}
	id := func(s string) string {
		if q.ShortToolIDs {
			return shortToolID(s)
		}
		return s
	}
	for _, msg := range req.sendMessages() {
		switch msg.Role {
		case RoleAssistant:
			out.Messages = append(out.Messages, chatAssistant(msg, q, id))
		default:
			out.Messages = append(out.Messages, chatUser(msg, id)...)
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, chatTool{Type: "function", Function: chatToolDef{Name: t.Name, Description: t.Description, Parameters: schemaOrEmpty(t.Schema)}})
	}
	if len(req.Tools) > 0 {
		switch req.ToolsMode.Mode {
		case "any":
			out.ToolChoice = "required"
		case "none":
			out.ToolChoice = "none"
		case "tool":
			out.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": req.ToolsMode.Name}}
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 && m != nil && m.MaxOutput > 0 {
		maxTokens = m.defaultMaxTokens()
	}
	if maxTokens > 0 {
		if q.maxField() == "max_tokens" {
			out.MaxTokens = &maxTokens
		} else {
			out.MaxCompletionTokens = &maxTokens
		}
	}
	chatReasoning(out, req.Reasoning, m, q)
	return out
}

// chatReasoning sets the reasoning parameters for the model's style.
func chatReasoning(out *chatRequest, r Reasoning, m *Model, q ChatQuirks) {
	effort := r.Effort
	if effort == "" && r.BudgetTokens > 0 {
		effort = "medium"
	}
	style := m.reasoning()
	if m == nil && effort != "" {
		style = ReasoningEffort // unknown model: pass the user's choice on
	}
	off := effort == "off" || effort == "none"
	if q.ThinkingParam || style == ReasoningToggle {
		switch {
		case effort == "":
		case off:
			out.Thinking = &chatThinking{Type: "disabled"}
		default:
			out.Thinking = &chatThinking{Type: "enabled"}
			switch effort {
			case "minimal", "low":
				out.ReasoningEffort = "low"
			case "medium", "high":
				out.ReasoningEffort = "high"
			case "max":
				out.ReasoningEffort = "max"
			}
		}
		return
	}
	if style != ReasoningEffort || effort == "" || off {
		return
	}
	switch effort {
	case "minimal", "low", "medium", "high":
		out.ReasoningEffort = effort
	case "max":
		out.ReasoningEffort = "high"
	}
}

// chatAssistant converts an assistant message.
func chatAssistant(msg Message, q ChatQuirks, id func(string) string) chatMessage {
	cm := chatMessage{Role: "assistant"}
	var text, reasoning strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case BlockText:
			text.WriteString(b.Text)
		case BlockThinking:
			if reasoning.Len() > 0 && b.Text != "" {
				reasoning.WriteString("\n\n")
			}
			reasoning.WriteString(b.Text)
		case BlockToolUse:
			cm.ToolCalls = append(cm.ToolCalls, chatToolCall{ID: id(b.ID), Type: "function", Function: chatFunction{Name: b.Name, Arguments: argumentsText(b.Input)}})
		}
	}
	if text.Len() > 0 || len(cm.ToolCalls) == 0 {
		cm.Content = jsonString(text.String())
	}
	if q.ReasoningEcho && (reasoning.Len() > 0 || len(cm.ToolCalls) > 0) {
		cm.ReasoningContent = ptr(reasoning.String())
	}
	return cm
}

// chatUser converts a user message: tool results become tool messages
// (first, so they follow the assistant's calls), the rest one user message.
// Images returned by tools follow in a user message of their own, since
// tool messages carry text only.
func chatUser(msg Message, id func(string) string) []chatMessage {
	var out []chatMessage
	var parts, toolImages []chatPart
	for _, b := range msg.Content {
		switch b.Type {
		case BlockText:
			if b.Text != "" {
				parts = append(parts, chatPart{Type: "text", Text: b.Text})
			}
		case BlockImage:
			parts = append(parts, imagePart(b))
		case BlockToolResult:
			var texts []string
			for _, c := range b.Content {
				switch c.Type {
				case BlockText:
					texts = append(texts, c.Text)
				case BlockImage:
					toolImages = append(toolImages, imagePart(c))
				}
			}
			text := strings.Join(texts, "\n")
			if b.IsError {
				text = "Error: " + text
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: id(b.ToolUseID), Content: jsonString(text)})
		}
	}
	if len(toolImages) > 0 {
		lead := chatPart{Type: "text", Text: "Images returned by the tool calls above:"}
		out = append(out, chatMessage{Role: "user", Content: mustJSON(append([]chatPart{lead}, toolImages...))})
	}
	switch {
	case len(parts) == 1 && parts[0].Type == "text":
		out = append(out, chatMessage{Role: "user", Content: jsonString(parts[0].Text)})
	case len(parts) > 0:
		out = append(out, chatMessage{Role: "user", Content: mustJSON(parts)})
	}
	return out
}

func imagePart(b Block) chatPart {
	return chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: "data:" + b.MIMEType + ";base64," + b.Data}}
}

// argumentsText renders tool arguments as the JSON text Chat expects; input
// kept as a JSON string (malformed arguments) is sent back as it came.
func argumentsText(in json.RawMessage) string {
	t := trimSpace(in)
	if len(t) == 0 {
		return "{}"
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(t)
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// shortID reports whether s is 9 letters and digits.
func shortID(s string) bool {
	if len(s) != 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shortToolID maps any tool call ID to 9 letters and digits, the same way
// every time.
func shortToolID(s string) string {
	if shortID(s) {
		return s
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	h := fnv.New64a()
	h.Write([]byte(s))
	v := h.Sum64()
	var b [9]byte
	for i := range b {
		b[i] = alphabet[v%62]
		v /= 62
	}
	return string(b[:])
}
