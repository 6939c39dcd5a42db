package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Options are the inputs of Resolve: the command-line flags and where to
// read the rest.
type Options struct {
	Provider  string // --provider ("" to choose)
	Model     string // --model, also "provider/model"
	BaseURL   string // --base-url
	APIKey    string // --api-key
	Reasoning string // --reasoning: off, minimal, low, medium, high, max, adaptive, or a token budget
	// Getenv reads the environment (os.Getenv in main, a map in tests).
	Getenv func(string) string
	// Home is $ZUT_HOME, holding auth.json and models.json; "" reads neither.
	Home string
	// HTTPClient is used by the client and the local probes; nil picks a
	// default client.
	HTTPClient *http.Client
	// Limits are the time and size bounds from the settings file; the
	// environment variables of LimitSettings override them field by
	// field, and zero fields take the defaults.
	Limits Limits
	// Probe asks a local server for its models; nil uses ServerModels.
	// Tests replace it to keep off real ports.
	Probe func(ctx context.Context, p ProviderInfo, baseURL string) ([]string, error)
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

func (o *Options) probe(ctx context.Context, p ProviderInfo, base string) ([]string, error) {
	if o.Probe != nil {
		return o.Probe(ctx, p, base)
	}
	return ServerModels(ctx, o.HTTPClient, p, base)
}

// Resolved is what Resolve chose.
type Resolved struct {
	Client   Client
	Provider ProviderInfo
	// Model is the catalog entry (limits, prices, reasoning style); for a
	// model the catalog does not know, only Provider, ID and Wire are set.
	Model Model
	// Known reports whether Model came from the catalog or models.json.
	Known     bool
	BaseURL   string
	Reasoning Reasoning // parsed --reasoning, for Request.Reasoning
	// KeySource says where the key came from: "--api-key", an environment
	// variable name, "auth.json", SubscriptionSource for a sign-in, or ""
	// when none is used.
	KeySource string
	// SignIn names the subscription the requests are made with ("Claude
	// Pro/Max", "ChatGPT"), "" with a key.
	SignIn string
	// BaseURLSource says where BaseURL came from: "--base-url", "$NAME"
	// of an environment variable, "models.json", or "the built-in
	// default" (errors name it).
	BaseURLSource string
	// Display is "provider/model", for the status line and sessions.
	Display string
	// Note explains a choice the user did not make explicitly, for example
	// that a local Ollama server was picked because no key is set.
	Note string
	// AuthErr is why $ZUT_HOME/auth.json was not used (an *AuthError when
	// other users may read it, a *FileError, or a syntax error), nil when
	// it was fine or absent. Print it whenever it is set: the keys in the
	// file were ignored even if another key or --base-url made them
	// unnecessary.
	AuthErr error
	// Keyless says why requests go out without an API key to a provider
	// that is not local (only --base-url allows that), "" otherwise.
	// Print it with AuthErr.
	Keyless string
}

// Resolve picks the provider, model, key and base URL from the flags, the
// environment, auth.json and models.json, and builds the client.
//
// Precedence: flags, then environment variables, then auth.json (keys) and
// models.json (providers and models), then the built-in catalog. Without
// --provider the provider is taken from --model ("anthropic/claude-…" or a
// catalog model id), else the first provider with a key, else a local
// Ollama or llama.cpp server that answers.
func Resolve(ctx context.Context, o Options) (*Resolved, error) {
	if o.Provider == DemoProvider || (o.Provider == "" && strings.HasPrefix(o.Model, DemoProvider+"/")) {
		return resolveDemo(o)
	}
	if o.BaseURL != "" {
		if err := CheckBaseURL(o.BaseURL, "--base-url"); err != nil {
			return nil, err
		}
	}
	envLimits, err := LimitsFromEnv(o.Getenv)
	if err != nil {
		return nil, err
	}
	cat, err := loadCatalog(o.Home)
	if err != nil {
		return nil, err
	}
	auth, authErr := readAuth(o.Home)
	reasoning, err := ParseReasoning(o.Reasoning)
	if err != nil {
		return nil, err
	}
	r := &Resolved{Reasoning: reasoning, AuthErr: authErr}

	p, modelID, err := pickProvider(ctx, cat, auth, &o, r)
	if err != nil {
		if authErr != nil {
			return nil, fmt.Errorf("%v (also: %v)", err, authErr)
		}
		return nil, err
	}
	r.Provider = *p

	// Key: flag, environment, auth.json (a key or a subscription sign-in).
	key := o.APIKey
	var signIn *SignIn
	switch {
	case key != "":
		r.KeySource = "--api-key"
	default:
		if k, env := keyFromEnv(p, &o); k != "" {
			key, r.KeySource = k, env
		} else if e, ok := auth[p.Name]; ok && e.key() != "" {
			key, r.KeySource = e.key(), "auth.json"
		} else if oa := signInOf(auth, p.Name, o.Getenv); oa != nil {
			if err := oa.Check(); err != nil {
				return nil, err
			}
			oa.HTTPClient = o.HTTPClient
			signIn = NewSignIn(o.Home, oa)
			r.KeySource, r.SignIn = SubscriptionSource, oa.Title
		}
	}
	// Base URL: flag, environment, catalog.
	r.BaseURL, r.BaseURLSource = o.BaseURL, "--base-url"
	if r.BaseURL == "" {
		for _, env := range p.BaseURLEnv {
			if v := o.getenv(env); v != "" {
				r.BaseURL, r.BaseURLSource = hostURL(v, p.BaseURL), "$"+env
				break
			}
		}
	}
	if r.BaseURL == "" {
		r.BaseURL, r.BaseURLSource = p.BaseURL, "the built-in default"
		if b, ok := builtinProvider(p.Name); !ok || b.BaseURL != p.BaseURL {
			r.BaseURLSource = filepath.Join(o.Home, "models.json")
		}
	}
	if err := CheckBaseURL(r.BaseURL, r.BaseURLSource); err != nil {
		return nil, err
	}
	if key == "" && signIn == nil && !p.Local && o.BaseURL == "" {
		if authErr != nil {
			return nil, fmt.Errorf("%s: no API key: %v", p.Name, authErr)
		}
		return nil, noKeyError(p, o.Home)
	}
	if key == "" && signIn == nil && !p.Local {
		why := "no API key is set"
		if authErr != nil {
			why = "auth.json was refused"
		}
		r.Keyless = fmt.Sprintf("%s: sending requests to %s without an API key (%s; --base-url allows that) — %s if the server wants one", p.Name, RedactURL(r.BaseURL), why, p.keyHint())
	}

	// Model: flag, provider default, or the local server's first model.
	if modelID == "" {
		modelID = p.DefaultModel
	}
	if modelID == "" && p.Local {
		ids, err := o.probe(ctx, *p, r.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("%s: %v — start the server or pass --base-url", p.Name, err)
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("%s: the server at %s has no models — pull one (ollama pull qwen3) or load one, then retry", p.Name, RedactURL(r.BaseURL))
		}
		modelID = ids[0]
		if r.Note == "" {
			r.Note = fmt.Sprintf("using %s's first model %s (pass --model to pick another of: %s)", p.Name, modelID, strings.Join(ids, ", "))
		}
	}
	if modelID == "" {
		return nil, fmt.Errorf("%s: no model given and none by default — pass --model (zut --list-models shows the choices)", p.Name)
	}
	if md, ok := cat.model(p.Name, modelID); ok {
		r.Model, r.Known = md, true
	} else {
		r.Model = Model{Provider: p.Name, ID: modelID, Wire: p.Wire}
	}
	r.Display = p.Name + "/" + modelID

	cfg := Config{
		Provider:   p.Name,
		BaseURL:    r.BaseURL,
		APIKey:     key,
		KeyHint:    rejectedKeyHint(p, r.KeySource, o.Home),
		URLSource:  r.BaseURLSource,
		HTTPClient: o.HTTPClient,
		Limits:     envLimits.merge(o.Limits),
	}
	if signIn != nil {
		cfg.Bearer = signIn
	}
	if v := o.getenv("ZUT_OPENAI_CODEX_ORIGINATOR"); v != "" && p.Wire == WireCodex {
		cfg.Header = http.Header{"Originator": {v}}
	}
	if r.Known {
		md := r.Model
		cfg.Model = &md
	} else {
		cfg.Model = nil
	}
	r.Client = NewClient(r.Model.Wire, cfg, p.Quirks)
	if cfg.Model == nil {
		// Requests without a model name need the ID even when the catalog
		// does not know it.
		r.Client = defaultModel{Client: r.Client, id: modelID}
	}
	return r, nil
}

// rejectedKeyHint is what a 401 says to do: the key was rejected, and
// where it came from.
func rejectedKeyHint(p *ProviderInfo, source, home string) string {
	login := "zut auth login " + p.Name
	switch {
	case source == SubscriptionSource:
		oa, _ := LookupOAuth(p.Name, nil)
		return "the " + oa.Title + " sign-in saved in " + AuthPath(home) + " was refused even with a renewed token; sign in again with " + oa.Login
	case source == "--api-key":
		return "the key given with --api-key was rejected; check it, or save a working one with " + login
	case source == "auth.json":
		return "the key saved in " + AuthPath(home) + " was rejected; replace it with " + login
	case source != "":
		return "the key in $" + source + " was rejected; check the variable, or unset it and run " + login
	}
	return p.keyHint()
}

// builtinProvider returns the built-in provider name.
func builtinProvider(name string) (ProviderInfo, bool) {
	for _, b := range builtinProviders {
		if b.Name == name {
			return b, true
		}
	}
	return ProviderInfo{}, false
}

// defaultModel fills Request.Model for models outside the catalog.
type defaultModel struct {
	Client
	id string
}

func (d defaultModel) Stream(ctx context.Context, req *Request) (Stream, error) {
	if req.Model == "" {
		r := *req
		r.Model = d.id
		req = &r
	}
	return d.Client.Stream(ctx, req)
}

// NewClient builds the client of a wire.
func NewClient(w Wire, cfg Config, q ChatQuirks) Client {
	switch w {
	case WireAnthropic:
		return &Anthropic{Config: cfg}
	case WireResponses:
		return &Responses{Config: cfg}
	case WireCodex:
		return &Responses{Config: cfg, Codex: true}
	case WireOllama:
		return &Ollama{Config: cfg}
	}
	return &Chat{Config: cfg, Quirks: q}
}

func keyFromEnv(p *ProviderInfo, o *Options) (key, env string) {
	for _, env := range p.KeyEnv {
		if v := strings.TrimSpace(o.getenv(env)); v != "" {
			return v, env
		}
	}
	return "", ""
}

// pickProvider chooses the provider and splits the model flag.
func pickProvider(ctx context.Context, cat *catalog, auth map[string]authEntry, o *Options, r *Resolved) (*ProviderInfo, string, error) {
	modelID := strings.TrimSpace(o.Model)
	if o.Provider != "" {
		p, ok := cat.provider(o.Provider)
		if !ok {
			return nil, "", fmt.Errorf("unknown provider %q — use one of %s, or add it to models.json", o.Provider, strings.Join(cat.names(), ", "))
		}
		modelID = strings.TrimPrefix(modelID, p.Name+"/")
		return p, modelID, nil
	}
	if prefix, rest, ok := strings.Cut(modelID, "/"); ok {
		p, isProvider := cat.provider(prefix)
		if isProvider && rest == "" {
			return p, "", nil // "anthropic/": the provider's default model
		}
		if isProvider && rest != "" {
			if _, known := cat.model(p.Name, modelID); !known {
				return p, rest, nil
			}
		}
		if !isProvider && o.BaseURL == "" && len(cat.withID(modelID)) == 0 {
			return nil, "", fmt.Errorf("unknown provider %q in --model %s — use one of %s (zut --list-models shows their models); for an id with a slash on OpenRouter or Groq, add --provider openrouter or --provider groq", prefix, modelID, strings.Join(cat.names(), ", "))
		}
	}
	hasKey := func(p *ProviderInfo) bool {
		if o.APIKey != "" {
			return true
		}
		if k, _ := keyFromEnv(p, o); k != "" {
			return true
		}
		return auth[p.Name].key() != "" || signInOf(auth, p.Name, nil) != nil
	}
	if modelID != "" {
		ms := cat.withID(modelID)
		for _, md := range ms {
			if p, _ := cat.provider(md.Provider); hasKey(p) {
				return p, modelID, nil
			}
		}
		if len(ms) > 0 {
			p, _ := cat.provider(ms[0].Provider)
			return p, modelID, nil
		}
	}
	for i := range cat.providers {
		p := &cat.providers[i]
		if !p.Local && hasKey(p) {
			if o.APIKey != "" && o.BaseURL == "" && r.Note == "" {
				// A bare --api-key says nothing about the provider; take the first.
				r.Note = fmt.Sprintf("--api-key without --provider: assuming %s", p.Name)
			}
			return p, modelID, nil
		}
	}
	if o.BaseURL != "" {
		p, _ := cat.provider("openai")
		r.Note = "--base-url without --provider: speaking the OpenAI Chat Completions wire"
		return p, modelID, nil
	}
	// No key anywhere: offer a local server that answers.
	var tried []string
	for i := range cat.providers {
		p := &cat.providers[i]
		if !p.Local {
			continue
		}
		base := p.BaseURL
		for _, env := range p.BaseURLEnv {
			if v := o.getenv(env); v != "" {
				base = hostURL(v, p.BaseURL)
				break
			}
		}
		ids, err := o.probe(ctx, *p, base)
		if err != nil {
			tried = append(tried, RedactURL(base))
			continue
		}
		r.Note = fmt.Sprintf("no API key is set; using the local %s server at %s", p.Name, RedactURL(base))
		if modelID == "" && len(ids) > 0 {
			modelID = ids[0]
			r.Note += fmt.Sprintf(" with its model %s (models: %s)", modelID, strings.Join(ids, ", "))
		}
		return p, modelID, nil
	}
	return nil, "", errors.New("no model provider is configured: " + SignInAdvice + "; or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or another provider's key, see zut --list-models), start Ollama or llama.cpp (nothing answered at " + strings.Join(tried, ", ") + "), or try the keyless demo of the README (the scripted model server)")
}

// SignInAdvice says how to give zut a credential, for the no-key
// messages of every mode.
const SignInAdvice = "save a key with zut auth login PROVIDER (/login inside zut), or sign in with a subscription: zut auth login anthropic --subscription (Claude Pro/Max) or zut auth login openai-codex (ChatGPT)"

// SubscriptionSource is Resolved.KeySource for a sign-in of auth.json.
const SubscriptionSource = "auth.json (subscription)"

// signInOf is the sign-in of provider saved in auth, nil when there is
// none (or the provider has no sign-in zut knows).
func signInOf(auth map[string]authEntry, provider string, getenv func(string) string) *OAuth {
	e, ok := auth[provider]
	if !ok || !e.oauth() || !e.usable() {
		return nil
	}
	oa, ok := LookupOAuth(provider, getenv)
	if !ok || oa.Provider != provider {
		return nil
	}
	return oa
}

// noKeyError says how to give provider p a credential.
func noKeyError(p *ProviderInfo, home string) error {
	if oa, ok := LookupOAuth(p.Name, nil); ok && len(p.KeyEnv) == 0 {
		return fmt.Errorf("%s: not signed in — run %s (or /login inside zut) to sign in with %s", p.Name, oa.Login, oa.Title)
	}
	msg := fmt.Sprintf("%s: no API key — %s, save one with zut auth login %s (/login inside zut; it goes to %s)", p.Name, p.keyHint(), p.Name, AuthPath(home))
	if oa, ok := LookupOAuth(p.Name, nil); ok {
		msg += fmt.Sprintf(", or sign in with %s: %s", oa.Title, oa.Login)
	}
	return errors.New(msg + "; without any key, the README's keyless demo runs zut against the scripted model server")
}

// ReasoningLevels are the --reasoning levels, in order; a thinking budget
// in tokens (1024 or more) may be given instead. --help, /help, the
// /reasoning picker and the docs list them all (a test checks).
var ReasoningLevels = []string{"off", "minimal", "low", "medium", "high", "max", "adaptive"}

// ParseReasoning reads the --reasoning value: "", one of ReasoningLevels
// ("none" is off), or a thinking budget in tokens.
func ParseReasoning(s string) (Reasoning, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "" || slices.Contains(ReasoningLevels, s):
		return Reasoning{Effort: s}, nil
	case s == "none":
		return Reasoning{Effort: "off"}, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1024 {
		return Reasoning{BudgetTokens: n}, nil
	}
	return Reasoning{}, fmt.Errorf("unknown --reasoning %q: use off, minimal, low, medium, high, max, adaptive, or a token budget of 1024 or more", s)
}
