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

func anthropicModel(id string, ctx, out int, in, outPrice float64, reasoning string) Model {
	return Model{Provider: "anthropic", ID: id, Wire: WireAnthropic, ContextWindow: ctx, MaxOutput: out,
		Prices: Prices{Input: in, Output: outPrice, CacheRead: in / 10, CacheWrite: in * 1.25}, Reasoning: reasoning, Images: true}
}

func openAIModel(id string, ctx, out int, in, cached, outPrice float64, reasoning string) Model {
	return Model{Provider: "openai", ID: id, Wire: WireChat, ContextWindow: ctx, MaxOutput: out,
		Prices: Prices{Input: in, Output: outPrice, CacheRead: cached}, Reasoning: reasoning, Images: true}
}

func chatModel(provider, id string, ctx, out int, p Prices, reasoning string, images bool) Model {
	return Model{Provider: provider, ID: id, Wire: WireChat, ContextWindow: ctx, MaxOutput: out, Prices: p, Reasoning: reasoning, Images: images}
}

func codexModel(id string) Model {
	return Model{Provider: "openai-codex", ID: id, Wire: WireCodex, ContextWindow: 272 * kTok, MaxOutput: 128 * kTok,
		Reasoning: ReasoningEffort, Images: true}
}

const (
	kTok = 1000
	mTok = 1000 * 1000
)

// builtinModels is the catalog, made on first use (not at every start).
func builtinModels() []Model {
	return builtinModelsLazy.get(func() []Model {
		ms := []Model{
			anthropicModel("claude-opus-4-8", 1*mTok, 128*kTok, 5, 25, ReasoningAdaptiveOnly),
			anthropicModel("claude-opus-4-7", 1*mTok, 128*kTok, 5, 25, ReasoningAdaptiveOnly),
			anthropicModel("claude-opus-4-6", 1*mTok, 128*kTok, 5, 25, ReasoningAdaptive),
			anthropicModel("claude-sonnet-4-6", 1*mTok, 128*kTok, 3, 15, ReasoningAdaptive),
			anthropicModel("claude-opus-4-5", 200*kTok, 64*kTok, 5, 25, ReasoningBudget),
			anthropicModel("claude-sonnet-4-5", 200*kTok, 64*kTok, 3, 15, ReasoningBudget),
			anthropicModel("claude-haiku-4-5", 200*kTok, 64*kTok, 1, 5, ReasoningBudget),
			anthropicModel("claude-opus-4-1", 200*kTok, 32*kTok, 15, 75, ReasoningBudget),
			anthropicModel("claude-sonnet-4-0", 200*kTok, 64*kTok, 3, 15, ReasoningBudget),

			openAIModel("gpt-5.5", 1*mTok, 128*kTok, 5, 0.5, 30, ReasoningEffort),
			openAIModel("gpt-5.4", 1*mTok, 128*kTok, 2.5, 0.25, 15, ReasoningEffort),
			openAIModel("gpt-5.4-mini", 400*kTok, 128*kTok, 0.75, 0.075, 4.5, ReasoningEffort),
			openAIModel("gpt-5.4-nano", 400*kTok, 128*kTok, 0.2, 0.02, 1.25, ReasoningEffort),
			openAIModel("gpt-5.2", 400*kTok, 128*kTok, 1.75, 0.175, 14, ReasoningEffort),
			openAIModel("gpt-5.1", 400*kTok, 128*kTok, 1.25, 0.125, 10, ReasoningEffort),
			openAIModel("gpt-5", 400*kTok, 128*kTok, 1.25, 0.125, 10, ReasoningEffort),
			openAIModel("gpt-5-mini", 400*kTok, 128*kTok, 0.25, 0.025, 2, ReasoningEffort),
			openAIModel("o3", 200*kTok, 100*kTok, 2, 0.5, 8, ReasoningEffort),
			openAIModel("o4-mini", 200*kTok, 100*kTok, 1.1, 0.275, 4.4, ReasoningEffort),
			openAIModel("gpt-4.1", 1047576, 32768, 2, 0.5, 8, ""),
			openAIModel("gpt-4.1-mini", 1047576, 32768, 0.4, 0.1, 1.6, ""),

			chatModel("openrouter", "anthropic/claude-sonnet-4.6", 1*mTok, 128*kTok, Prices{Input: 3, Output: 15}, ReasoningEffort, true),
			chatModel("openrouter", "openai/gpt-5.4", 1*mTok, 128*kTok, Prices{Input: 2.5, Output: 15}, ReasoningEffort, true),

			chatModel("deepseek", "deepseek-v4-flash", 1*mTok, 384*kTok, Prices{Input: 0.14, Output: 0.28, CacheRead: 0.0028}, ReasoningToggle, false),
			chatModel("deepseek", "deepseek-v4-pro", 1*mTok, 384*kTok, Prices{Input: 0.435, Output: 0.87, CacheRead: 0.003625}, ReasoningToggle, false),

			chatModel("groq", "openai/gpt-oss-120b", 131072, 65536, Prices{Input: 0.15, Output: 0.6}, ReasoningEffort, false),
			chatModel("groq", "llama-3.3-70b-versatile", 131072, 32768, Prices{Input: 0.59, Output: 0.79}, "", false),

			chatModel("mistral", "mistral-large-latest", 256*kTok, 32*kTok, Prices{Input: 0.5, Output: 1.5}, "", true),
			chatModel("mistral", "codestral-latest", 256*kTok, 32*kTok, Prices{Input: 0.3, Output: 0.9}, "", false),

			chatModel("moonshot", "kimi-k2.6", 262144, 32768, Prices{}, "", true),

			chatModel("xai", "grok-4.3", 1*mTok, 128*kTok, Prices{Input: 1.25, Output: 2.5}, "", true),

			chatModel("gemini", "gemini-2.5-pro", 1048576, 65536, Prices{Input: 1.25, Output: 10}, ReasoningEffort, true),
			chatModel("gemini", "gemini-2.5-flash", 1048576, 65536, Prices{Input: 0.3, Output: 2.5}, ReasoningEffort, true),

			// The models of a ChatGPT sign-in, as published for Codex in
			// 2026; the subscription pays for them, so they have no prices.
			codexModel("gpt-5.3-codex"),
			codexModel("gpt-5.4"),
			codexModel("gpt-5.2-codex"),
			codexModel("gpt-5.2"),
			codexModel("gpt-5.1-codex-max"),
			codexModel("gpt-5.1-codex-mini"),
		}
		// The Responses provider serves the same OpenAI models.
		for _, x := range ms {
			if x.Provider == "openai" {
				x.Provider, x.Wire = "openai-responses", WireResponses
				ms = append(ms, x)
			}
		}
		return ms
	})
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
