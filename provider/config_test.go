package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeProbe answers for the local providers named in up.
func fakeProbe(up map[string][]string) func(context.Context, ProviderInfo, string) ([]string, error) {
	return func(_ context.Context, p ProviderInfo, base string) ([]string, error) {
		if ids, ok := up[p.Name]; ok {
			return ids, nil
		}
		return nil, fmt.Errorf("dial %s: connection refused", base)
	}
}

func envMap(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		wantDisp string
		wantWire Wire
		wantBase string
		wantKey  string // key source
		wantNote string // substring
		wantErr  string // substring
	}{
		{
			name:     "anthropic key picks anthropic and its default",
			opts:     Options{Getenv: envMap("ANTHROPIC_API_KEY", "sk-ant")},
			wantDisp: "anthropic/claude-sonnet-4-6", wantWire: WireAnthropic, wantBase: "https://api.anthropic.com", wantKey: "ANTHROPIC_API_KEY",
		},
		{
			name:     "first provider with a key wins",
			opts:     Options{Getenv: envMap("DEEPSEEK_API_KEY", "sk-ds", "GROQ_API_KEY", "gsk")},
			wantDisp: "deepseek/deepseek-v4-flash", wantWire: WireChat, wantKey: "DEEPSEEK_API_KEY",
		},
		{
			name:     "provider/model",
			opts:     Options{Model: "openai/gpt-5.4-mini", Getenv: envMap("OPENAI_API_KEY", "sk", "ANTHROPIC_API_KEY", "sk-ant")},
			wantDisp: "openai/gpt-5.4-mini", wantWire: WireChat, wantBase: "https://api.openai.com/v1",
		},
		{
			name:     "catalog id finds its provider",
			opts:     Options{Model: "claude-haiku-4-5", Getenv: envMap("ANTHROPIC_API_KEY", "sk-ant")},
			wantDisp: "anthropic/claude-haiku-4-5",
		},
		{
			name:     "openrouter model ids keep their slash",
			opts:     Options{Provider: "openrouter", Model: "anthropic/claude-sonnet-4.6", Getenv: envMap("OPENROUTER_API_KEY", "sk-or")},
			wantDisp: "openrouter/anthropic/claude-sonnet-4.6",
		},
		{
			name:     "provider prefix on an openrouter id",
			opts:     Options{Model: "openrouter/openai/gpt-5.4", Getenv: envMap("OPENROUTER_API_KEY", "sk-or")},
			wantDisp: "openrouter/openai/gpt-5.4",
		},
		{
			name:     "responses provider",
			opts:     Options{Provider: "openai-responses", Getenv: envMap("OPENAI_API_KEY", "sk")},
			wantDisp: "openai-responses/gpt-5.4", wantWire: WireResponses,
		},
		{
			name:     "flag key beats env key",
			opts:     Options{Provider: "anthropic", APIKey: "sk-flag", Getenv: envMap("ANTHROPIC_API_KEY", "sk-env")},
			wantDisp: "anthropic/claude-sonnet-4-6", wantKey: "--api-key",
		},
		{
			name:     "base URL from env",
			opts:     Options{Getenv: envMap("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", "https://proxy.example/anthropic")},
			wantBase: "https://proxy.example/anthropic",
		},
		{
			name:     "base URL flag beats env",
			opts:     Options{BaseURL: "http://flag", Getenv: envMap("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", "http://env")},
			wantBase: "http://flag",
		},
		{
			name:     "unknown model of a known provider",
			opts:     Options{Model: "anthropic/claude-next", Getenv: envMap("ANTHROPIC_API_KEY", "k")},
			wantDisp: "anthropic/claude-next", wantWire: WireAnthropic,
		},
		{
			name:     "no key: local ollama answers",
			opts:     Options{Probe: fakeProbe(map[string][]string{"ollama": {"qwen3:8b", "llama3.2"}})},
			wantDisp: "ollama/qwen3:8b", wantBase: "http://127.0.0.1:11434/v1", wantNote: "no API key is set; using the local ollama server",
		},
		{
			name:     "no key: llama.cpp when ollama is down",
			opts:     Options{Probe: fakeProbe(map[string][]string{"llamacpp": {"gemma"}})},
			wantDisp: "llamacpp/gemma", wantBase: "http://127.0.0.1:8080/v1",
		},
		{
			name:     "--provider ollama with OLLAMA_HOST",
			opts:     Options{Provider: "ollama", Model: "qwen3:14b", Getenv: envMap("OLLAMA_HOST", "0.0.0.0:11500")},
			wantDisp: "ollama/qwen3:14b", wantBase: "http://127.0.0.1:11500/v1",
		},
		{
			name:     "alias",
			opts:     Options{Provider: "kimi", Getenv: envMap("KIMI_API_KEY", "k")},
			wantDisp: "moonshot/kimi-k2.6", wantKey: "KIMI_API_KEY",
		},
		{
			name:     "base URL alone speaks chat",
			opts:     Options{BaseURL: "http://localhost:9000/v1", Model: "my-model"},
			wantDisp: "openai/my-model", wantWire: WireChat, wantNote: "OpenAI Chat Completions",
		},
		{
			name:    "nothing configured",
			opts:    Options{Probe: fakeProbe(nil)},
			wantErr: "no model provider is configured: save a key with zut auth login PROVIDER (/login inside zut), or sign in with a subscription: zut auth login anthropic --subscription (Claude Pro/Max) or zut auth login openai-codex (ChatGPT); or set ANTHROPIC_API_KEY",
		},
		{
			name:    "provider without key",
			opts:    Options{Provider: "groq"},
			wantErr: "groq: no API key — set GROQ_API_KEY or run zut with --api-key",
		},
		{
			name:    "unknown provider",
			opts:    Options{Provider: "nope"},
			wantErr: `unknown provider "nope"`,
		},
		{
			name:    "bad reasoning",
			opts:    Options{Reasoning: "hard", Getenv: envMap("ANTHROPIC_API_KEY", "k")},
			wantErr: `unknown --reasoning "hard"`,
		},
		{
			name:    "local server without models",
			opts:    Options{Provider: "ollama", Probe: fakeProbe(map[string][]string{"ollama": nil})},
			wantErr: "has no models",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Probe == nil {
				tc.opts.Probe = fakeProbe(nil)
			}
			r, err := Resolve(context.Background(), tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve() error = %v", err)
			}
			if tc.wantDisp != "" && r.Display != tc.wantDisp {
				t.Errorf("Display = %q, want %q", r.Display, tc.wantDisp)
			}
			if tc.wantWire != "" && r.Model.Wire != tc.wantWire {
				t.Errorf("wire = %q, want %q", r.Model.Wire, tc.wantWire)
			}
			if tc.wantBase != "" && r.BaseURL != tc.wantBase {
				t.Errorf("BaseURL = %q, want %q", r.BaseURL, tc.wantBase)
			}
			if tc.wantKey != "" && r.KeySource != tc.wantKey {
				t.Errorf("KeySource = %q, want %q", r.KeySource, tc.wantKey)
			}
			if !strings.Contains(r.Note, tc.wantNote) {
				t.Errorf("Note = %q, want it to contain %q", r.Note, tc.wantNote)
			}
			if r.Client == nil {
				t.Error("Client is nil")
			}
		})
	}
}

func TestAuthFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "zut")
	if err := SaveAPIKey(home, "anthropic", "sk-ant-saved"); err != nil {
		t.Fatal(err)
	}
	if err := SaveAPIKey(home, "openai", "sk-oai-saved"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(AuthPath(home))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode = %04o, want 0600", fi.Mode().Perm())
	}
	r, err := Resolve(context.Background(), Options{Home: home, Probe: fakeProbe(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r.KeySource != "auth.json" || r.Provider.Name != "anthropic" {
		t.Errorf("Resolve() = %s from %q, want anthropic from auth.json", r.Display, r.KeySource)
	}
	// The environment beats the file.
	r, _ = Resolve(context.Background(), Options{Home: home, Getenv: envMap("ANTHROPIC_API_KEY", "sk-env"), Probe: fakeProbe(nil)})
	if r.KeySource != "ANTHROPIC_API_KEY" {
		t.Errorf("KeySource = %q, want the environment variable", r.KeySource)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Chmod(AuthPath(home), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(context.Background(), Options{Home: home, Probe: fakeProbe(nil)})
	want := "chmod 600 " + AuthPath(home)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Resolve() with a world-readable auth.json: error = %v, want it to say %q", err, want)
	}
	if strings.Contains(err.Error(), "sk-ant-saved") {
		t.Errorf("error %q shows the key", err)
	}
	if err := SaveAPIKey(home, "x", "y"); err == nil {
		t.Error("SaveAPIKey over a world-readable file succeeded, want the permission error")
	}
}

func TestModelsFile(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		opts    Options
		check   func(t *testing.T, r *Resolved)
		wantErr string
	}{
		{
			name: "custom provider and model",
			file: `{"providers": {"lab": {"base_url": "http://gpu:8000/v1", "wire": "chat", "api_key_env": "LAB_KEY", "default_model": "qwen3-coder", "quirks": {"max_tokens_field": "max_tokens"}}},
			        "models": [{"provider": "lab", "id": "qwen3-coder", "context_window": 262144, "max_output": 32768, "prices": {"input": 0.2, "output": 0.8}, "reasoning": "effort"}]}`,
			opts: Options{Provider: "lab", Getenv: envMap("LAB_KEY", "k")},
			check: func(t *testing.T, r *Resolved) {
				if !r.Known || r.Model.ContextWindow != 262144 || r.Model.Prices.Output != 0.8 || r.BaseURL != "http://gpu:8000/v1" {
					t.Errorf("Resolve() = %+v", r)
				}
				if c, ok := r.Client.(*Chat); !ok || c.Quirks.MaxTokensField != "max_tokens" {
					t.Errorf("client = %#v, want Chat with the quirks", r.Client)
				}
			},
		},
		{
			name: "override a built-in price",
			file: `{"models": [{"provider": "anthropic", "id": "claude-sonnet-4-6", "context_window": 1000000, "max_output": 64000, "prices": {"input": 2, "output": 10}, "reasoning": "adaptive"}]}`,
			opts: Options{Getenv: envMap("ANTHROPIC_API_KEY", "k")},
			check: func(t *testing.T, r *Resolved) {
				if r.Model.Prices.Input != 2 || r.Model.Wire != WireAnthropic {
					t.Errorf("Model = %+v, want the override", r.Model)
				}
			},
		},
		{
			name:    "typo in a field",
			file:    `{"providers": {"lab": {"baseurl": "x"}}}`,
			wantErr: `unknown field "baseurl"`,
		},
		{
			name:    "model of an unknown provider",
			file:    `{"models": [{"provider": "nope", "id": "m"}]}`,
			wantErr: `unknown provider "nope"`,
		},
		{
			name:    "bad wire",
			file:    `{"providers": {"lab": {"base_url": "http://x", "wire": "grpc"}}}`,
			wantErr: `unknown wire "grpc"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "models.json"), []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.opts.Home = home
			tc.opts.Probe = fakeProbe(nil)
			r, err := Resolve(context.Background(), tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

func TestParseReasoning(t *testing.T) {
	tests := []struct {
		in   string
		want Reasoning
		err  bool
	}{
		{"", Reasoning{}, false},
		{"high", Reasoning{Effort: "high"}, false},
		{" Low ", Reasoning{Effort: "low"}, false},
		{"none", Reasoning{Effort: "off"}, false},
		{"16000", Reasoning{BudgetTokens: 16000}, false},
		{"100", Reasoning{}, true},
		{"extreme", Reasoning{}, true},
	}
	for _, tc := range tests {
		got, err := ParseReasoning(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseReasoning(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestListModels(t *testing.T) {
	opts := Options{
		Getenv: envMap("ANTHROPIC_API_KEY", "k"),
		Probe:  fakeProbe(map[string][]string{"ollama": {"qwen3:8b"}}),
	}
	var table, js bytes.Buffer
	if err := ListModels(context.Background(), opts, &table, false); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/list-models.txt", table.Bytes())
	opts.Provider = "ollama"
	if err := ListModels(context.Background(), opts, &js, true); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/list-models-ollama.json", js.Bytes())
	opts.Provider = "llamacpp"
	err := ListModels(context.Background(), opts, &js, true)
	if err == nil || !strings.Contains(err.Error(), "start the server or pass --base-url") {
		t.Errorf("ListModels(llamacpp down) error = %v", err)
	}
}

func TestCost(t *testing.T) {
	md, _ := (&catalog{models: BuiltinModels()}).model("anthropic", "claude-sonnet-4-6")
	u := Usage{Input: 1000000, Output: 100000, CacheRead: 1000000, CacheWrite: 100000}
	// 3 + 1.5 + 0.3 + 0.375
	if got := md.Cost(u); fmt.Sprintf("%.4f", got) != "5.1750" {
		t.Errorf("Cost(%+v) = %v, want 5.175", u, got)
	}
	var unknown *Model
	if got := unknown.Cost(u); got != 0 {
		t.Errorf("nil Model Cost = %v, want 0", got)
	}
	if got := (Prices{Input: 2, Output: 8}).Cost(Usage{CacheRead: 1000000}); got != 2 {
		t.Errorf("cache reads without a cache price cost %v, want the input price 2", got)
	}
}
