package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Anthropic is a client of the Anthropic Messages API (also served by
// compatible gateways). It is safe for concurrent use.
type Anthropic struct {
	Config
}

// anthropicVersion is the API version header every request carries.
const anthropicVersion = "2023-06-01"

// Stream sends req and returns its response stream. Errors in req are
// returned here; everything the network or the API does is reported by the
// stream.
func (c *Anthropic) Stream(ctx context.Context, req *Request) (Stream, error) {
	model, err := c.modelID(req)
	if err != nil {
		return nil, err
	}
	ab := anthropicBody(req, model, c.Model, c.Provider)
	if c.Bearer != nil {
		// A subscription sign-in is accepted for requests that open with
		// the system prompt of Anthropic's own CLI.
		ab.System = append([]anthropicBlock{{Type: "text", Text: ptr(SubscriptionSystemPrefix)}}, ab.System...)
	}
	body, err := marshalWithTools(ab, &ab.Tools)
	if err != nil {
		return nil, err
	}
	h := http.Header{
		"Content-Type":      {"application/json"},
		"Accept":            {"text/event-stream"},
		"Anthropic-Version": {anthropicVersion},
	}
	if c.APIKey != "" {
		h.Set("X-Api-Key", c.APIKey)
	}
	base := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	asm := &assembler{}
	return newStream(ctx, &call{
		cfg:    &c.Config,
		url:    base + "/v1/messages",
		header: h,
		body:   body,
		model:  model,
		frames: sseFrames,
		dec:    &anthropicDecoder{asm: asm, origin: c.Provider},
		asm:    asm,
		signed: anthropicSigned,
	}), nil
}

// SubscriptionSystemPrefix is the system block that opens every request
// made with a Claude Pro/Max sign-in: the subscription serves requests
// that identify as Anthropic's CLI.
const SubscriptionSystemPrefix = "You are Claude Code, Anthropic's official CLI for Claude."

// oauthBeta is the anthropic-beta value that lets a request carry an
// OAuth token instead of an API key.
const oauthBeta = "oauth-2025-04-20"

// anthropicSigned adds oauthBeta to the request's anthropic-beta list.
func anthropicSigned(h http.Header, _ Bearer) {
	v := h.Get("Anthropic-Beta")
	for _, f := range strings.Split(v, ",") {
		if strings.TrimSpace(f) == oauthBeta {
			return
		}
	}
	if v != "" {
		v += ","
	}
	h.Set("Anthropic-Beta", v+oauthBeta)
}

type anthropicRequest struct {
	Model        string              `json:"model"`
	MaxTokens    int                 `json:"max_tokens"`
	System       []anthropicBlock    `json:"system,omitempty"`
	Messages     []anthropicMessage  `json:"messages"`
	Tools        []anthropicTool     `json:"tools,omitempty"`
	ToolChoice   *anthropicChoice    `json:"tool_choice,omitempty"`
	Thinking     *anthropicThinking  `json:"thinking,omitempty"`
	OutputConfig *anthropicOutputCfg `json:"output_config,omitempty"`
	Temperature  *float64            `json:"temperature,omitempty"`
	Stream       bool                `json:"stream"`
}

type anthropicMessage struct {
	Role    Role             `json:"role"`
	Content []anthropicBlock `json:"content"`
}

// anthropicBlock is the union of the content blocks zut sends.
type anthropicBlock struct {
	Type         string           `json:"type"`
	Text         *string          `json:"text,omitempty"`
	Source       *anthropicSource `json:"source,omitempty"`
	ID           string           `json:"id,omitempty"`
	Name         string           `json:"name,omitempty"`
	Input        json.RawMessage  `json:"input,omitempty"`
	ToolUseID    string           `json:"tool_use_id,omitempty"`
	Content      []anthropicBlock `json:"content,omitempty"`
	IsError      bool             `json:"is_error,omitempty"`
	Thinking     *string          `json:"thinking,omitempty"`
	Signature    string           `json:"signature,omitempty"`
	Data         string           `json:"data,omitempty"`
	CacheControl *cacheControl    `json:"cache_control,omitempty"`
}

type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type anthropicChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type anthropicOutputCfg struct {
	Effort string `json:"effort,omitempty"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// anthropicBody builds the request body. origin is the provider whose
// thinking signatures may be echoed back.
func anthropicBody(req *Request, model string, m *Model, origin string) *anthropicRequest {
	out := &anthropicRequest{Model: model, Stream: true, Temperature: req.Temperature}
	if req.System != "" {
		out.System = []anthropicBlock{{Type: "text", Text: ptr(req.System)}}
		if req.Cache {
			out.System[0].CacheControl = ephemeral
		}
	}
	for _, msg := range req.Messages {
		am := anthropicMessage{Role: msg.Role}
		for _, b := range msg.Content {
			if ab, ok := anthropicContent(b, origin); ok {
				am.Content = append(am.Content, ab)
			}
		}
		if msg.Role == RoleUser {
			// Tool results must open the user turn that answers tool calls.
			slices.SortStableFunc(am.Content, func(x, y anthropicBlock) int {
				return boolInt(y.Type == "tool_result") - boolInt(x.Type == "tool_result")
			})
		}
		if len(am.Content) > 0 {
			out.Messages = append(out.Messages, am)
		}
	}
	if req.Cache && len(out.Messages) > 0 {
		last := out.Messages[len(out.Messages)-1].Content
		for i := len(last) - 1; i >= 0; i-- {
			if t := last[i].Type; t != "thinking" && t != "redacted_thinking" {
				last[i].CacheControl = ephemeral
				break
			}
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schemaOrEmpty(t.Schema)})
	}
	if req.Cache && len(out.Tools) > 0 {
		out.Tools[len(out.Tools)-1].CacheControl = ephemeral
	}
	// Ephemeral blocks go after the breakpoint so that the cached prefix
	// stays reusable by the next request, which will not carry them.
	if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == RoleUser {
		for _, b := range req.Ephemeral {
			if ab, ok := anthropicContent(b, origin); ok {
				out.Messages[n-1].Content = append(out.Messages[n-1].Content, ab)
			}
		}
	}
	if len(req.Tools) > 0 {
		switch req.ToolsMode.Mode {
		case "any":
			out.ToolChoice = &anthropicChoice{Type: "any"}
		case "none":
			out.ToolChoice = &anthropicChoice{Type: "none"}
		case "tool":
			out.ToolChoice = &anthropicChoice{Type: "tool", Name: req.ToolsMode.Name}
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = m.defaultMaxTokens()
	}
	out.Thinking, out.OutputConfig, maxTokens = anthropicReasoning(req.Reasoning, m, maxTokens)
	if out.Thinking != nil {
		out.Temperature = nil // thinking requires the default temperature
		if out.ToolChoice != nil && (out.ToolChoice.Type == "any" || out.ToolChoice.Type == "tool") {
			out.ToolChoice = nil // forced tool use is not allowed with thinking
		}
	}
	out.MaxTokens = maxTokens
	return out
}

// anthropicContent converts one block; ok is false for blocks this API
// cannot take (empty text, thinking from another provider).
func anthropicContent(b Block, origin string) (anthropicBlock, bool) {
	switch b.Type {
	case BlockText:
		if b.Text == "" {
			return anthropicBlock{}, false
		}
		return anthropicBlock{Type: "text", Text: ptr(b.Text)}, true
	case BlockImage:
		return anthropicBlock{Type: "image", Source: &anthropicSource{Type: "base64", MediaType: b.MIMEType, Data: b.Data}}, true
	case BlockToolUse:
		return anthropicBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: objectInput(b.Input)}, true
	case BlockToolResult:
		tr := anthropicBlock{Type: "tool_result", ToolUseID: b.ToolUseID, IsError: b.IsError}
		for _, c := range b.Content {
			if cb, ok := anthropicContent(c, origin); ok && (cb.Type == "text" || cb.Type == "image") {
				tr.Content = append(tr.Content, cb)
			}
		}
		return tr, true
	case BlockThinking:
		if b.Origin != origin || b.Signature == "" {
			return anthropicBlock{}, false
		}
		return anthropicBlock{Type: "thinking", Thinking: ptr(b.Text), Signature: b.Signature}, true
	case BlockRedactedThinking:
		if b.Origin != origin || b.Data == "" {
			return anthropicBlock{}, false
		}
		return anthropicBlock{Type: "redacted_thinking", Data: b.Data}, true
	}
	return anthropicBlock{}, false
}

// anthropicReasoning maps the requested reasoning onto the model's style and
// returns the output limit, raised when a thinking budget needs room.
func anthropicReasoning(r Reasoning, m *Model, maxTokens int) (*anthropicThinking, *anthropicOutputCfg, int) {
	effort := r.Effort
	if effort == "" && r.BudgetTokens > 0 {
		effort = "budget"
	}
	if effort == "" || effort == "off" || effort == "none" {
		return nil, nil, maxTokens
	}
	style := m.reasoning()
	switch style {
	case "":
		if m != nil {
			return nil, nil, maxTokens // the catalog says this model does not think
		}
		style = ReasoningBudget
	case ReasoningEffort, ReasoningToggle, ReasoningAlways:
		style = ReasoningBudget
	}
	if style == ReasoningAdaptiveOnly || (style == ReasoningAdaptive && r.BudgetTokens <= 0) {
		var cfg *anthropicOutputCfg
		switch effort {
		case "minimal", "low":
			cfg = &anthropicOutputCfg{Effort: "low"}
		case "medium", "high", "max":
			cfg = &anthropicOutputCfg{Effort: effort}
		}
		return &anthropicThinking{Type: "adaptive"}, cfg, maxTokens
	}
	budget := r.BudgetTokens
	if budget <= 0 {
		switch effort {
		case "minimal":
			budget = 1024
		case "low":
			budget = 4000
		case "high", "max":
			budget = 32000
		default:
			budget = 10000
		}
	}
	limit := 0
	if m != nil {
		limit = m.MaxOutput
	}
	if maxTokens <= budget {
		maxTokens = budget + 8192
	}
	if limit > 0 && maxTokens > limit {
		maxTokens = limit
		budget = min(budget, limit-1024)
	}
	budget = max(budget, 1024)
	return &anthropicThinking{Type: "enabled", BudgetTokens: budget}, nil, maxTokens
}

func ptr[T any](v T) *T { return &v }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// schemaOrEmpty returns the schema, or an empty object schema.
func schemaOrEmpty(s json.RawMessage) json.RawMessage {
	if len(trimSpace(s)) == 0 || string(trimSpace(s)) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

// objectInput returns tool arguments as a JSON object: arguments kept as a
// string (malformed, see ToolInputError) become {}.
func objectInput(in json.RawMessage) json.RawMessage {
	t := trimSpace(in)
	if len(t) == 0 || t[0] != '{' {
		return json.RawMessage("{}")
	}
	return in
}
