package provider_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// TestResolveAgainstServer resolves each provider kind against the
// scripted server and streams one turn, as main does for zut -p.
func TestResolveAgainstServer(t *testing.T) {
	srv := providertest.NewServerFunc(func(r providertest.Recorded) providertest.Reply {
		return providertest.Reply{Text: "hello from " + string(r.Wire), Usage: provider.Usage{Input: 1000000, Output: 100000}}
	})
	defer srv.Close()
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		provider, model, base string
		wire                  provider.Wire
		wantCost              float64
	}{
		{"anthropic", "claude-sonnet-4-6", srv.URL, provider.WireAnthropic, 3 + 1.5},
		{"openai", "gpt-5.4", srv.URL + "/v1", provider.WireChat, 2.5 + 1.5},
		{"openai-responses", "gpt-5.4", srv.URL + "/v1", provider.WireResponses, 2.5 + 1.5},
		{"ollama", "test-model", srv.URL, provider.WireChat, 0},
		{"llamacpp", "", srv.URL + "/v1", provider.WireChat, 0},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			r, err := provider.Resolve(context.Background(), provider.Options{
				Provider: tc.provider, Model: tc.model, BaseURL: tc.base, Getenv: getenv,
			})
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Client.Stream(context.Background(), &provider.Request{
				Reasoning: r.Reasoning,
				Messages:  []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			var stop provider.Event
			for s.Next() {
				if e := s.Event(); e.Type == provider.EventStop {
					stop = e
				}
			}
			s.Close()
			if err := s.Err(); err != nil {
				t.Fatalf("Err() = %v", err)
			}
			if got := s.Message().Text(); got != "hello from "+string(tc.wire) {
				t.Errorf("Text() = %q", got)
			}
			if d := stop.Usage.CostUSD - tc.wantCost; d > 1e-9 || d < -1e-9 {
				t.Errorf("cost = %v, want %v", stop.Usage.CostUSD, tc.wantCost)
			}
			if !strings.HasPrefix(r.Display, tc.provider+"/") {
				t.Errorf("Display = %q", r.Display)
			}
		})
	}
}
