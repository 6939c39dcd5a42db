package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// testConversation exercises every block type.
func testConversation() *Request {
	return &Request{
		System: "You are zut, a coding agent.",
		Messages: []Message{
			{Role: RoleUser, Content: []Block{
				TextBlock("What is in this picture and in a.go?"),
				{Type: BlockImage, MIMEType: "image/png", Data: tinyPNG},
			}},
			{Role: RoleAssistant, Content: []Block{
				{Type: BlockThinking, Text: "Read the file first.", Signature: "sig-anthropic-1", Origin: "anthropic"},
				{Type: BlockRedactedThinking, Data: "redacted-blob", Origin: "anthropic"},
				{Type: BlockThinking, Text: "Summary from elsewhere.", Signature: "enc-blob", ID: "rs_1", Origin: "openai-responses"},
				{Type: BlockThinking, Text: "Plain reasoning text.", Origin: "deepseek"},
				TextBlock("A red dot. Reading a.go."),
				{Type: BlockToolUse, ID: "toolu_01A", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)},
				{Type: BlockToolUse, ID: "toolu_01B", Name: "grep", Input: json.RawMessage(`"{\"pattern\": \"x"`)},
			}},
			{Role: RoleUser, Content: []Block{
				TextBlock("Also check the tests."),
				{Type: BlockToolResult, ToolUseID: "toolu_01A", Content: []Block{
					TextBlock("package a"),
					{Type: BlockImage, MIMEType: "image/png", Data: tinyPNG},
				}},
				{Type: BlockToolResult, ToolUseID: "toolu_01B", IsError: true, Content: []Block{TextBlock("arguments are not valid JSON")}},
			}},
		},
		Tools: []Tool{
			{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "grep", Description: "Search files.", Schema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			{Name: "now", Description: "Current time."},
		},
	}
}

func catalogModel(t testing.TB, provider, id string) *Model {
	t.Helper()
	md, ok := (&catalog{models: BuiltinModels()}).model(provider, id)
	if !ok {
		t.Fatalf("no catalog model %s/%s", provider, id)
	}
	return &md
}

// requestCases are the request bodies checked against golden files (and,
// for the OpenAI wires, against the OpenAPI schema in the conformance
// test).
func requestCases(t testing.TB) []struct {
	name string
	body any
} {
	temp := 0.2
	with := func(f func(r *Request)) *Request {
		r := testConversation()
		f(r)
		return r
	}
	ds, _ := builtinProvider("deepseek")
	ms, _ := builtinProvider("mistral")
	deepseek, mistral := ds.Quirks, ms.Quirks
	return []struct {
		name string
		body any
	}{
		{"anthropic-cache-budget", anthropicBody(with(func(r *Request) {
			r.Cache = true
			r.Reasoning = Reasoning{Effort: "high"}
		}), "claude-sonnet-4-5", catalogModel(t, "anthropic", "claude-sonnet-4-5"), "anthropic")},
		{"anthropic-adaptive", anthropicBody(with(func(r *Request) {
			r.Reasoning = Reasoning{Effort: "medium"}
			r.ToolsMode = ToolChoice{Mode: "any"}
			r.Temperature = &temp
		}), "claude-sonnet-4-6", catalogModel(t, "anthropic", "claude-sonnet-4-6"), "anthropic")},
		{"anthropic-tool-choice", anthropicBody(with(func(r *Request) {
			r.ToolsMode = ToolChoice{Mode: "tool", Name: "read"}
			r.Temperature = &temp
			r.MaxTokens = 1000
		}), "claude-custom", nil, "anthropic")},
		{"chat-openai", chatBody(with(func(r *Request) {
			r.Reasoning = Reasoning{Effort: "high"}
			r.ToolsMode = ToolChoice{Mode: "any"}
		}), "gpt-5.4", catalogModel(t, "openai", "gpt-5.4"), ChatQuirks{}, "openai")},
		{"chat-tool-choice", chatBody(with(func(r *Request) {
			r.ToolsMode = ToolChoice{Mode: "tool", Name: "read"}
			r.Temperature = &temp
		}), "gpt-4.1", catalogModel(t, "openai", "gpt-4.1"), ChatQuirks{}, "openai")},
		{"chat-deepseek", chatBody(with(func(r *Request) {
			r.Reasoning = Reasoning{Effort: "high"}
		}), "deepseek-v4-flash", catalogModel(t, "deepseek", "deepseek-v4-flash"), deepseek, "deepseek")},
		{"chat-mistral", chatBody(testConversation(), "mistral-large-latest", catalogModel(t, "mistral", "mistral-large-latest"), mistral, "mistral")},
		{"chat-local", chatBody(testConversation(), "qwen3:8b", nil, ChatQuirks{MaxTokensField: "max_tokens"}, "ollama")},
		{"responses-openai", responsesBody(with(func(r *Request) {
			r.Reasoning = Reasoning{Effort: "low"}
			r.ToolsMode = ToolChoice{Mode: "tool", Name: "grep"}
		}), "gpt-5.4", catalogModel(t, "openai-responses", "gpt-5.4"), "openai-responses")},
		{"responses-plain", responsesBody(with(func(r *Request) {
			r.Temperature = &temp
		}), "gpt-4.1", catalogModel(t, "openai-responses", "gpt-4.1"), "openai-responses")},
		{"ollama-native", ollamaBody(with(func(r *Request) {
			r.Reasoning = Reasoning{Effort: "high"}
			r.MaxTokens = 2048
		}), "qwen3:8b", nil)},
	}
}

func TestRequestGolden(t *testing.T) {
	for _, tc := range requestCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.MarshalIndent(tc.body, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "testdata/requests/"+tc.name+".json", append(b, '\n'))
		})
	}
}

func TestAnthropicReasoning(t *testing.T) {
	tests := []struct {
		model     string
		reasoning Reasoning
		maxTokens int
		want      string // thinking, effort, max_tokens
	}{
		{"claude-sonnet-4-5", Reasoning{}, 0, "none - 32000"},
		{"claude-sonnet-4-5", Reasoning{Effort: "low"}, 0, "enabled/4000 - 32000"},
		{"claude-sonnet-4-5", Reasoning{Effort: "high"}, 0, "enabled/32000 - 40192"},
		{"claude-sonnet-4-5", Reasoning{BudgetTokens: 60000}, 0, "enabled/60000 - 64000"},
		{"claude-sonnet-4-5", Reasoning{Effort: "medium"}, 5000, "enabled/10000 - 18192"},
		{"claude-sonnet-4-6", Reasoning{Effort: "high"}, 0, "adaptive high 32000"},
		{"claude-sonnet-4-6", Reasoning{Effort: "adaptive"}, 0, "adaptive - 32000"},
		{"claude-sonnet-4-6", Reasoning{BudgetTokens: 8000}, 0, "enabled/8000 - 32000"},
		{"claude-opus-4-7", Reasoning{BudgetTokens: 8000}, 0, "adaptive - 32000"},
		{"claude-opus-4-7", Reasoning{Effort: "minimal"}, 0, "adaptive low 32000"},
		{"claude-opus-4-7", Reasoning{Effort: "off"}, 0, "none - 32000"},
	}
	for _, tc := range tests {
		md := catalogModel(t, "anthropic", tc.model)
		th, cfg, maxTokens := anthropicReasoning(tc.reasoning, md, max(tc.maxTokens, md.defaultMaxTokens()*boolInt(tc.maxTokens == 0)))
		got := "none"
		if th != nil {
			got = th.Type
			if th.BudgetTokens > 0 {
				got += "/" + itoa(th.BudgetTokens)
			}
		}
		effort := "-"
		if cfg != nil {
			effort = cfg.Effort
		}
		got += " " + effort + " " + itoa(maxTokens)
		if got != tc.want {
			t.Errorf("anthropicReasoning(%+v, %s) = %s, want %s", tc.reasoning, tc.model, got, tc.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestChatMaxTokensFallback: a server that rejects max_completion_tokens
// gets max_tokens on the next attempt, and the client remembers.
func TestChatMaxTokensFallback(t *testing.T) {
	var mu sync.Mutex
	var fields []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		defer mu.Unlock()
		if _, ok := body["max_completion_tokens"]; ok {
			fields = append(fields, "max_completion_tokens")
			w.WriteHeader(400)
			w.Write([]byte(`{"error":{"message":"Unrecognized request argument supplied: max_completion_tokens","type":"invalid_request_error"}}`))
			return
		}
		fields = append(fields, "max_tokens")
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(fixtureBytes("chat-text.sse"))
	}))
	defer srv.Close()
	cfg := testConfig(srv.URL)
	cfg.Provider = "vllm"
	c := &Chat{Config: cfg}
	for range 2 {
		s, _ := c.Stream(context.Background(), &Request{Model: "m", MaxTokens: 100})
		collect(s)
		s.Close()
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
	}
	if got := strings.Join(fields, " "); got != "max_completion_tokens max_tokens max_tokens" {
		t.Errorf("fields sent = %s, want one rejected max_completion_tokens, then max_tokens", got)
	}
}

func TestShortToolID(t *testing.T) {
	for _, id := range []string{"toolu_01A", "call_abc", "x", "aB3dE5gH7"} {
		got := shortToolID(id)
		if !shortID(got) || shortToolID(id) != got {
			t.Errorf("shortToolID(%q) = %q, want 9 stable letters and digits", id, got)
		}
	}
	if shortToolID("aB3dE5gH7") != "aB3dE5gH7" {
		t.Error("a valid ID was rewritten")
	}
	if shortToolID("toolu_01A") == shortToolID("toolu_01B") {
		t.Error("different IDs map to the same short ID")
	}
}

func TestChatStreamOptionsFallback(t *testing.T) {
	var sent []bool
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		_, has := body["stream_options"]
		mu.Lock()
		sent = append(sent, has)
		mu.Unlock()
		if has {
			w.WriteHeader(422)
			w.Write([]byte(`{"object":"error","message":"body.stream_options: Extra inputs are not permitted","type":"invalid_request_error"}`))
			return
		}
		w.Write(fixtureBytes("chat-text.sse"))
	}))
	defer srv.Close()
	s, _ := (&Chat{Config: testConfig(srv.URL)}).Stream(context.Background(), &Request{Model: "m"})
	collect(s)
	s.Close()
	if err := s.Err(); err != nil || len(sent) != 2 || !sent[0] || sent[1] {
		t.Fatalf("Err() = %v, stream_options sent = %v; want it dropped after the 422", err, sent)
	}
}

func TestUserText(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"plain", Message{Role: RoleUser, Content: []Block{TextBlock("fix it")}}, "fix it"},
		{"context left out", Message{Role: RoleUser, Content: []Block{ContextBlock("INJECTED"), TextBlock("first prompt")}}, "first prompt"},
		{"blocks joined", Message{Role: RoleUser, Content: []Block{TextBlock("a"), {Type: BlockImage}, TextBlock("b")}}, "a\n\nb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.UserText(); got != tc.want {
				t.Errorf("UserText() = %q, want %q", got, tc.want)
			}
		})
	}
}
