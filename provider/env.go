package provider

import (
	"slices"
	"strings"
)

// PassKeysEnv names the variable that lets credentials through to child
// processes: ZUT_PASS_KEYS=1 (or true, yes, on).
const PassKeysEnv = "ZUT_PASS_KEYS"

// secretNames are credentials withheld whatever their form.
var secretNames = []string{
	"ANTHROPIC_AUTH_TOKEN", // bearer token for Anthropic-compatible gateways
	rpcTokenEnv,
	"AZURE_OPENAI_AD_TOKEN",
}

// rpcTokenEnv is the token RPC clients must present. It is zut's own
// secret, no provider's key: no child process ever gets it, whatever
// PassKeysEnv says.
const rpcTokenEnv = "ZUTCORE_RPC_TOKEN"

// tokenPrefixes are the providers whose *_TOKEN variables are keys (a
// bare *_TOKEN such as GITHUB_TOKEN is the user's business and passes).
var tokenPrefixes = []string{
	"ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "OPENROUTER_", "DEEPSEEK_", "GROQ_", "MISTRAL_",
	"MOONSHOT_", "KIMI_", "XAI_", "GEMINI_", "GOOGLE_", "OLLAMA_", "LLAMACPP_", "ZUT_", "ZUTCORE_",
}

// SecretEnv reports whether the environment variable name holds a model
// credential that zut keeps from the processes it starts (the bash tool,
// the python tool, extensions): every name ending in _API_KEY, the
// *_TOKEN and *_AUTH_TOKEN variables of the known providers
// (ANTHROPIC_AUTH_TOKEN, OPENAI_..._TOKEN, ...), ZUTCORE_RPC_TOKEN, and
// the key variables of every built-in provider. Names compare without
// regard to case.
func SecretEnv(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasSuffix(n, "_API_KEY") || strings.HasSuffix(n, "_APIKEY") || slices.Contains(secretNames, n) {
		return true
	}
	if strings.HasSuffix(n, "_TOKEN") {
		for _, p := range tokenPrefixes {
			if strings.HasPrefix(n, p) {
				return true
			}
		}
	}
	for _, p := range builtinProviders {
		if slices.Contains(p.KeyEnv, n) {
			return true
		}
	}
	return false
}

// ChildEnv returns the environment for a process zut starts: env (in
// the form of os.Environ) without the variables SecretEnv names nor the
// extra names (for example the api_key_env of a models.json provider),
// unless env sets PassKeysEnv to a true value, in which case env is
// returned as PassEnv leaves it. withheld lists the names removed, for a
// note.
func ChildEnv(env []string, extra ...string) (out, withheld []string) {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, PassKeysEnv) && truthy(v) {
			return PassEnv(env), nil
		}
	}
	out = make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if SecretEnv(k) || slices.ContainsFunc(extra, func(e string) bool { return strings.EqualFold(e, k) }) {
			withheld = append(withheld, k)
			continue
		}
		out = append(out, kv)
	}
	return out, withheld
}

// PassEnv returns env for a child process of a run that passes provider
// keys: env without ZUTCORE_RPC_TOKEN, the one variable no child gets.
func PassEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.EqualFold(k, rpcTokenEnv)
	})
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
