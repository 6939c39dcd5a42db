package provider

import (
	"slices"
	"testing"
)

func TestSecretEnv(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"ANTHROPIC_API_KEY", true},
		{"OPENAI_API_KEY", true},
		{"CORP_LLM_API_KEY", true},
		{"anthropic_api_key", true},
		{"ANTHROPIC_AUTH_TOKEN", true},
		{"ZUTCORE_RPC_TOKEN", true},
		{"OPENROUTER_TOKEN", true},
		{"KIMI_API_KEY", true},
		{"GOOGLE_API_KEY", true},
		{"GITHUB_TOKEN", false},
		{"PATH", false},
		{"HOME", false},
		{"ANTHROPIC_BASE_URL", false},
		{"ZUT_HOME", false},
	}
	for _, tc := range tests {
		if got := SecretEnv(tc.name); got != tc.want {
			t.Errorf("SecretEnv(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant", "CORP_LLM_TOKEN=corp", "GITHUB_TOKEN=gh", "ZUTCORE_RPC_TOKEN=rpc"}
	out, withheld := ChildEnv(env, "CORP_LLM_TOKEN")
	if want := []string{"PATH=/bin", "GITHUB_TOKEN=gh"}; !slices.Equal(out, want) {
		t.Errorf("ChildEnv(env) = %q, want %q", out, want)
	}
	if want := []string{"ANTHROPIC_API_KEY", "CORP_LLM_TOKEN", "ZUTCORE_RPC_TOKEN"}; !slices.Equal(withheld, want) {
		t.Errorf("ChildEnv(env) withheld %q, want %q", withheld, want)
	}
	pass := append(slices.Clone(env), PassKeysEnv+"=1")
	want := slices.DeleteFunc(slices.Clone(pass), func(kv string) bool { return kv == "ZUTCORE_RPC_TOKEN=rpc" })
	if out, withheld := ChildEnv(pass); !slices.Equal(out, want) || withheld != nil {
		t.Errorf("ChildEnv with %s=1 = %q, %q; want %q (all but the RPC token)", PassKeysEnv, out, withheld, want)
	}
}
