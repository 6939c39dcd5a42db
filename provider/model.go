package provider

import "fmt"

// Wire names an API dialect a client speaks.
type Wire string

const (
	WireAnthropic Wire = "anthropic" // Anthropic Messages, POST /v1/messages
	WireChat      Wire = "chat"      // OpenAI Chat Completions, POST /chat/completions
	WireResponses Wire = "responses" // OpenAI Responses, POST /responses
	WireOllama    Wire = "ollama"    // Ollama's native API, POST /api/chat
	WireDemo      Wire = "demo"      // the built-in demo model, in-process (Demo)
	// WireCodex is the Responses API as ChatGPT's Codex backend serves it
	// to a ChatGPT sign-in, POST /responses under
	// https://chatgpt.com/backend-api/codex.
	WireCodex Wire = "codex"
)

// ParseWire accepts a wire name as written in models.json or on the command
// line, including common aliases ("openai" means Chat Completions).
func ParseWire(s string) (Wire, error) {
	switch s {
	case "anthropic", "anthropic-messages", "messages":
		return WireAnthropic, nil
	case "chat", "openai", "openai-chat", "openai-completions", "chat-completions":
		return WireChat, nil
	case "responses", "openai-responses":
		return WireResponses, nil
	case "ollama", "ollama-native":
		return WireOllama, nil
	case "codex", "openai-codex":
		return WireCodex, nil
	}
	return "", fmt.Errorf("unknown wire %q: use anthropic, chat, responses, codex or ollama", s)
}

// Reasoning styles of a model: how thinking is switched on.
const (
	// ReasoningBudget: Anthropic thinking enabled with budget_tokens.
	ReasoningBudget = "budget"
	// ReasoningAdaptive: Anthropic adaptive thinking with an effort; an
	// explicit budget still works.
	ReasoningAdaptive = "adaptive"
	// ReasoningAdaptiveOnly: Anthropic adaptive thinking only.
	ReasoningAdaptiveOnly = "adaptive-only"
	// ReasoningEffort: OpenAI reasoning_effort (Chat) or reasoning.effort
	// (Responses).
	ReasoningEffort = "effort"
	// ReasoningToggle: thinking switched on and off by a flag (DeepSeek's
	// thinking type, Ollama's think), with an effort where supported.
	ReasoningToggle = "toggle"
	// ReasoningAlways: the model always reasons; nothing to send.
	ReasoningAlways = "always"
)

// Model is a catalog entry: what zut knows about one model of one provider.
type Model struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	Name          string `json:"name,omitempty"`
	Wire          Wire   `json:"wire"`
	ContextWindow int    `json:"context_window,omitempty"` // tokens
	MaxOutput     int    `json:"max_output,omitempty"`     // tokens
	Prices        Prices `json:"prices"`
	// Reasoning is the reasoning style ("" when the model does not reason;
	// see the Reasoning* constants).
	Reasoning string `json:"reasoning,omitempty"`
	Images    bool   `json:"images,omitempty"` // accepts image input
}

// Cost is the price in USD of the given usage, 0 when prices are unknown.
func (m *Model) Cost(u Usage) float64 {
	if m == nil {
		return 0
	}
	return m.Prices.Cost(u)
}

// defaultMaxTokens is the output limit sent when a request sets none.
func (m *Model) defaultMaxTokens() int {
	if m == nil || m.MaxOutput <= 0 {
		return 8192
	}
	return min(m.MaxOutput, 32000)
}

func (m *Model) reasoning() string {
	if m == nil {
		return ""
	}
	return m.Reasoning
}

// Prices are USD per million tokens. Zero cache prices fall back to the
// input price.
type Prices struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Known reports whether any price is set.
func (p Prices) Known() bool { return p.Input > 0 || p.Output > 0 }

// Cost is the price in USD of u.
func (p Prices) Cost(u Usage) float64 {
	cr, cw := p.CacheRead, p.CacheWrite
	if cr == 0 {
		cr = p.Input
	}
	if cw == 0 {
		cw = p.Input
	}
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*cr + float64(u.CacheWrite)*cw) / 1e6
}
