package provider

import (
	"slices"
	"strings"
)

// ProviderInfo describes one model provider: where it is, which wire it
// speaks and where its key comes from.
type ProviderInfo struct {
	Name    string `json:"name"`
	Wire    Wire   `json:"wire"`
	BaseURL string `json:"base_url"`
	// KeyEnv lists the environment variables that may hold the key, in
	// order of preference.
	KeyEnv []string `json:"api_key_env,omitempty"`
	// BaseURLEnv lists the environment variables that may override BaseURL.
	BaseURLEnv   []string `json:"base_url_env,omitempty"`
	DefaultModel string   `json:"default_model,omitempty"`
	// Local marks a server on this machine: no key needed, and its models
	// are listed by asking it.
	Local  bool       `json:"local,omitempty"`
	Quirks ChatQuirks `json:"quirks,omitempty"`
}

// keyHint says how the user supplies this provider's key.
func (p *ProviderInfo) keyHint() string {
	if len(p.KeyEnv) == 0 {
		return "pass the key with --api-key"
	}
	return "set " + p.KeyEnv[0] + " or run zut with --api-key"
}

// The catalog below was gathered from the providers' model and pricing
// pages as published in 2026 (the Mistral, xAI and Gemini rows and
// claude-opus-4-7 rest on older or second-hand figures; Moonshot publishes no
// USD price zut could confirm, so kimi-k2.6 has none). Prices are USD per
// million tokens at standard, not batch, rates. Providers change them:
// $ZUT_HOME/models.json overrides any entry.

var builtinProviders = []ProviderInfo{
	{Name: "anthropic", Wire: WireAnthropic, BaseURL: "https://api.anthropic.com",
		KeyEnv: []string{"ANTHROPIC_API_KEY"}, BaseURLEnv: []string{"ANTHROPIC_BASE_URL"}, DefaultModel: "claude-sonnet-4-6"},
	{Name: "openai", Wire: WireChat, BaseURL: "https://api.openai.com/v1",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURLEnv: []string{"OPENAI_BASE_URL"}, DefaultModel: "gpt-5.4"},
	{Name: "openai-responses", Wire: WireResponses, BaseURL: "https://api.openai.com/v1",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURLEnv: []string{"OPENAI_BASE_URL"}, DefaultModel: "gpt-5.4"},
	{Name: "openrouter", Wire: WireChat, BaseURL: "https://openrouter.ai/api/v1",
		KeyEnv: []string{"OPENROUTER_API_KEY"}, BaseURLEnv: []string{"OPENROUTER_BASE_URL"}, DefaultModel: "anthropic/claude-sonnet-4.6",
		Quirks: ChatQuirks{MaxTokensField: "max_tokens"}},
	{Name: "deepseek", Wire: WireChat, BaseURL: "https://api.deepseek.com",
		KeyEnv: []string{"DEEPSEEK_API_KEY"}, BaseURLEnv: []string{"DEEPSEEK_BASE_URL"}, DefaultModel: "deepseek-v4-flash",
		Quirks: ChatQuirks{MaxTokensField: "max_tokens", ReasoningEcho: true, ThinkingParam: true}},
	{Name: "groq", Wire: WireChat, BaseURL: "https://api.groq.com/openai/v1",
		KeyEnv: []string{"GROQ_API_KEY"}, BaseURLEnv: []string{"GROQ_BASE_URL"}, DefaultModel: "openai/gpt-oss-120b"},
	{Name: "mistral", Wire: WireChat, BaseURL: "https://api.mistral.ai/v1",
		KeyEnv: []string{"MISTRAL_API_KEY"}, BaseURLEnv: []string{"MISTRAL_BASE_URL"}, DefaultModel: "mistral-large-latest",
		Quirks: ChatQuirks{MaxTokensField: "max_tokens", ShortToolIDs: true, NoStreamUsage: true}},
	{Name: "moonshot", Wire: WireChat, BaseURL: "https://api.moonshot.ai/v1",
		KeyEnv: []string{"MOONSHOT_API_KEY", "KIMI_API_KEY"}, BaseURLEnv: []string{"MOONSHOT_BASE_URL"}, DefaultModel: "kimi-k2.6",
		Quirks: ChatQuirks{MaxTokensField: "max_tokens"}},
	{Name: "xai", Wire: WireChat, BaseURL: "https://api.x.ai/v1",
		KeyEnv: []string{"XAI_API_KEY"}, BaseURLEnv: []string{"XAI_BASE_URL"}, DefaultModel: "grok-4.3"},
	{Name: "gemini", Wire: WireChat, BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
		KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURLEnv: []string{"GEMINI_BASE_URL"}, DefaultModel: "gemini-2.5-pro",
		Quirks: ChatQuirks{MaxTokensField: "max_tokens"}},
	{Name: "openai-codex", Wire: WireCodex, BaseURL: "https://chatgpt.com/backend-api/codex", DefaultModel: "gpt-5.3-codex"},
	{Name: "ollama", Wire: WireChat, BaseURL: "http://127.0.0.1:11434/v1",
		KeyEnv: []string{"OLLAMA_API_KEY"}, BaseURLEnv: []string{"OLLAMA_BASE_URL", "OLLAMA_HOST"}, Local: true,
		Quirks: ChatQuirks{MaxTokensField: "max_tokens"}},
	{Name: "llamacpp", Wire: WireChat, BaseURL: "http://127.0.0.1:8080/v1",
		KeyEnv: []string{"LLAMACPP_API_KEY"}, BaseURLEnv: []string{"LLAMACPP_BASE_URL"}, Local: true,
		Quirks: ChatQuirks{MaxTokensField: "max_tokens"}},
}

// providerAlias maps the other names users type for a provider to its
// name (a switch, not a map: a map literal is built at every start).
func providerAlias(name string) (string, bool) {
	switch name {
	case "claude":
		return "anthropic", true
	case "kimi":
		return "moonshot", true
	case "grok":
		return "xai", true
	case "google":
		return "gemini", true
	case "llama.cpp", "llama-cpp":
		return "llamacpp", true
	case "responses":
		return "openai-responses", true
	case "chatgpt", "codex":
		return "openai-codex", true
	}
	return "", false
}

const (
	kTok = 1000
	mTok = 1000 * 1000
)

// builtinModelTable is the catalog as static data: the linker writes it
// into the binary, so no code builds it (at start or on first use).
// Anthropic's cache prices are a tenth of the input price to read and
// 1.25 times it to write.
var builtinModelTable = [...]Model{
	{Provider: "anthropic", ID: "claude-opus-4-8", Wire: WireAnthropic, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, Reasoning: ReasoningAdaptiveOnly, Images: true},
	{Provider: "anthropic", ID: "claude-opus-4-7", Wire: WireAnthropic, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, Reasoning: ReasoningAdaptiveOnly, Images: true},
	{Provider: "anthropic", ID: "claude-opus-4-6", Wire: WireAnthropic, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, Reasoning: ReasoningAdaptive, Images: true},
	{Provider: "anthropic", ID: "claude-sonnet-4-6", Wire: WireAnthropic, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, Reasoning: ReasoningAdaptive, Images: true},
	{Provider: "anthropic", ID: "claude-opus-4-5", Wire: WireAnthropic, ContextWindow: 200 * kTok, MaxOutput: 64 * kTok, Prices: Prices{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, Reasoning: ReasoningBudget, Images: true},
	{Provider: "anthropic", ID: "claude-sonnet-4-5", Wire: WireAnthropic, ContextWindow: 200 * kTok, MaxOutput: 64 * kTok, Prices: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, Reasoning: ReasoningBudget, Images: true},
	{Provider: "anthropic", ID: "claude-haiku-4-5", Wire: WireAnthropic, ContextWindow: 200 * kTok, MaxOutput: 64 * kTok, Prices: Prices{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}, Reasoning: ReasoningBudget, Images: true},
	{Provider: "anthropic", ID: "claude-opus-4-1", Wire: WireAnthropic, ContextWindow: 200 * kTok, MaxOutput: 32 * kTok, Prices: Prices{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}, Reasoning: ReasoningBudget, Images: true},
	{Provider: "anthropic", ID: "claude-sonnet-4-0", Wire: WireAnthropic, ContextWindow: 200 * kTok, MaxOutput: 64 * kTok, Prices: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, Reasoning: ReasoningBudget, Images: true},

	{Provider: "openai", ID: "gpt-5.5", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 5, Output: 30, CacheRead: 0.5}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5.4", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 2.5, Output: 15, CacheRead: 0.25}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5.4-mini", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 0.75, Output: 4.5, CacheRead: 0.075}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5.4-nano", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 0.2, Output: 1.25, CacheRead: 0.02}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5.2", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 1.75, Output: 14, CacheRead: 0.175}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5.1", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 1.25, Output: 10, CacheRead: 0.125}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 1.25, Output: 10, CacheRead: 0.125}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-5-mini", Wire: WireChat, ContextWindow: 400 * kTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 0.25, Output: 2, CacheRead: 0.025}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "o3", Wire: WireChat, ContextWindow: 200 * kTok, MaxOutput: 100 * kTok, Prices: Prices{Input: 2, Output: 8, CacheRead: 0.5}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "o4-mini", Wire: WireChat, ContextWindow: 200 * kTok, MaxOutput: 100 * kTok, Prices: Prices{Input: 1.1, Output: 4.4, CacheRead: 0.275}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai", ID: "gpt-4.1", Wire: WireChat, ContextWindow: 1047576, MaxOutput: 32768, Prices: Prices{Input: 2, Output: 8, CacheRead: 0.5}, Images: true},
	{Provider: "openai", ID: "gpt-4.1-mini", Wire: WireChat, ContextWindow: 1047576, MaxOutput: 32768, Prices: Prices{Input: 0.4, Output: 1.6, CacheRead: 0.1}, Images: true},

	{Provider: "openrouter", ID: "anthropic/claude-sonnet-4.6", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 3, Output: 15}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openrouter", ID: "openai/gpt-5.4", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 2.5, Output: 15}, Reasoning: ReasoningEffort, Images: true},

	{Provider: "deepseek", ID: "deepseek-v4-flash", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 384 * kTok, Prices: Prices{Input: 0.14, Output: 0.28, CacheRead: 0.0028}, Reasoning: ReasoningToggle},
	{Provider: "deepseek", ID: "deepseek-v4-pro", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 384 * kTok, Prices: Prices{Input: 0.435, Output: 0.87, CacheRead: 0.003625}, Reasoning: ReasoningToggle},

	{Provider: "groq", ID: "openai/gpt-oss-120b", Wire: WireChat, ContextWindow: 131072, MaxOutput: 65536, Prices: Prices{Input: 0.15, Output: 0.6}, Reasoning: ReasoningEffort},
	{Provider: "groq", ID: "llama-3.3-70b-versatile", Wire: WireChat, ContextWindow: 131072, MaxOutput: 32768, Prices: Prices{Input: 0.59, Output: 0.79}},

	{Provider: "mistral", ID: "mistral-large-latest", Wire: WireChat, ContextWindow: 256 * kTok, MaxOutput: 32 * kTok, Prices: Prices{Input: 0.5, Output: 1.5}, Images: true},
	{Provider: "mistral", ID: "codestral-latest", Wire: WireChat, ContextWindow: 256 * kTok, MaxOutput: 32 * kTok, Prices: Prices{Input: 0.3, Output: 0.9}},

	{Provider: "moonshot", ID: "kimi-k2.6", Wire: WireChat, ContextWindow: 262144, MaxOutput: 32768, Images: true},

	{Provider: "xai", ID: "grok-4.3", Wire: WireChat, ContextWindow: 1 * mTok, MaxOutput: 128 * kTok, Prices: Prices{Input: 1.25, Output: 2.5}, Images: true},

	{Provider: "gemini", ID: "gemini-2.5-pro", Wire: WireChat, ContextWindow: 1048576, MaxOutput: 65536, Prices: Prices{Input: 1.25, Output: 10}, Reasoning: ReasoningEffort, Images: true},
	{Provider: "gemini", ID: "gemini-2.5-flash", Wire: WireChat, ContextWindow: 1048576, MaxOutput: 65536, Prices: Prices{Input: 0.3, Output: 2.5}, Reasoning: ReasoningEffort, Images: true},

	// The models of a ChatGPT sign-in, as published for Codex in
	// 2026; the subscription pays for them, so they have no prices.
	{Provider: "openai-codex", ID: "gpt-5.3-codex", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai-codex", ID: "gpt-5.4", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai-codex", ID: "gpt-5.2-codex", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai-codex", ID: "gpt-5.2", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai-codex", ID: "gpt-5.1-codex-max", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
	{Provider: "openai-codex", ID: "gpt-5.1-codex-mini", Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok, Reasoning: ReasoningEffort, Images: true},
}

// builtinModels is the catalog: the table, then the OpenAI models again
// for the Responses provider, which serves the same ones; made on first
// use.
func builtinModels() []Model {
	return builtinModelsLazy.get(buildBuiltinModels)
}

// buildBuiltinModels makes what builtinModels returns.
func buildBuiltinModels() []Model {
	ms := append([]Model(nil), builtinModelTable[:]...)
	for _, x := range builtinModelTable {
		if x.Provider == "openai" {
			x.Provider, x.Wire = "openai-responses", WireResponses
			ms = append(ms, x)
		}
	}
	return ms
}

var builtinModelsLazy lazy[[]Model]

// BuiltinProviders returns the providers zut knows without configuration.
func BuiltinProviders() []ProviderInfo {
	out := make([]ProviderInfo, len(builtinProviders))
	copy(out, builtinProviders)
	return out
}

// BuiltinModels returns the built-in model catalog.
func BuiltinModels() []Model {
	out := make([]Model, len(builtinModels()))
	copy(out, builtinModels())
	return out
}

// FamilyModel is the newest model of a family ("haiku", "sonnet",
// "opus") that provider serves, by the catalog (models.json included,
// home may be ""): the first whose id names the family. ok is false when
// the provider has none.
func FamilyModel(home, provider, family string) (id string, ok bool) {
	cat, err := loadCatalog(home)
	if err != nil {
		cat = &catalog{models: BuiltinModels()}
	}
	family = strings.ToLower(family)
	for _, m := range cat.models {
		if m.Provider == provider && slices.Contains(strings.FieldsFunc(strings.ToLower(m.ID), func(r rune) bool { return r == '-' || r == '/' || r == '.' }), family) {
			return m.ID, true
		}
	}
	return "", false
}
