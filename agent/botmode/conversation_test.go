package botmode

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// newConversation is a chat's zut against a scripted model, in a fresh
// home and project.
func newConversation(t *testing.T, replies ...providertest.Reply) (*Conversation, *providertest.Server) {
	t.Helper()
	srv := providertest.NewServer(replies...)
	t.Cleanup(srv.Close)
	base := t.TempDir()
	t.Chdir(base)
	vars := map[string]string{"ZUT_HOME": filepath.Join(base, "zuthome"), "HOME": base, "ANTHROPIC_API_KEY": "test-key"}
	env := &app.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }}
	opts, err := app.ParseOptions([]string{"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", srv.URL, "--no-extensions"}, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(context.Background(), env, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, srv
}

// events collects what a subscriber sees.
type events struct {
	mu  sync.Mutex
	got []agent.Event
}

func (e *events) add(ev agent.Event) { e.mu.Lock(); e.got = append(e.got, ev); e.mu.Unlock() }

func (e *events) notices() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.got {
		if n, ok := ev.(agent.Notice); ok {
			out = append(out, n.Message)
		}
	}
	return out
}

func TestConversation(t *testing.T) {
	tests := []struct {
		name    string
		replies []providertest.Reply
		run     func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server)
	}{
		{
			name:    "prompt",
			replies: []providertest.Reply{{Text: "Hi."}},
			run: func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server) {
				if err := c.Prompt(context.Background(), agent.Input{Text: "hello"}); err != nil {
					t.Fatalf("Prompt = %v", err)
				}
				st := c.Status()
				if st.Model != "anthropic/claude-sonnet-4-5" || st.Messages != 2 || st.Session == "" {
					t.Errorf("Status() = %+v, want the model, 2 messages and a session", st)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			},
		},
		{
			name: "commands",
			run: func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server) {
				var names []string
				for _, cmd := range c.Commands() {
					names = append(names, cmd.Name)
				}
				for _, want := range []string{"goal", "plan", "schedule", "subagents"} {
					if !slices.Contains(names, want) {
						t.Errorf("Commands() = %v, want /%s", names, want)
					}
				}
				if slices.Contains(names, "model") || slices.Contains(names, "help") {
					t.Errorf("Commands() = %v: the bot's own built-ins are not the app's", names)
				}
			},
		},
		{
			name:    "work command",
			replies: []providertest.Reply{{Text: "Working on it."}},
			run: func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server) {
				if err := c.RunCommand(context.Background(), "plan", ""); err != nil {
					t.Fatalf("RunCommand(plan) = %v", err)
				}
				if got := ev.notices(); len(got) == 0 || !strings.Contains(got[0], "no plan") {
					t.Errorf("notices = %q, want the plan's text", got)
				}
				if err := c.RunCommand(context.Background(), "nosuch", ""); err == nil || !strings.Contains(err.Error(), "/help") {
					t.Errorf("RunCommand(nosuch) = %v, want an error pointing to /help", err)
				}
			},
		},
		{
			name: "connect",
			replies: []providertest.Reply{
				{Tools: []providertest.ToolCall{{ID: "b1", Name: "bash", Args: `{"command":"touch made","timeout":5}`}}},
				{Text: "Refused, fine."},
			},
			run: func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server) {
				cf := &denier{}
				disconnect := c.Connect(cf, []tools.Tool{lent{}})
				if err := c.Prompt(context.Background(), agent.Input{Text: "make a file"}); err != nil {
					t.Fatalf("Prompt = %v", err)
				}
				if len(cf.asked) != 1 || cf.asked[0] != "bash" {
					t.Errorf("the confirmer was asked %v, want bash once", cf.asked)
				}
				if _, err := os.Stat("made"); err == nil {
					t.Error("the denied command ran")
				}
				if req := srv.Requests()[0]; !strings.Contains(string(req.Raw), `"lent_tool"`) {
					t.Error("the lent tool was not offered while connected")
				}
				disconnect()
				if slices.ContainsFunc(c.app.Agent().Tools(), func(t tools.Tool) bool { return t.Definition().Name == "lent_tool" }) {
					t.Error("the lent tool stayed after disconnect")
				}
			},
		},
		{
			name:    "sessions and resume",
			replies: []providertest.Reply{{Text: "One."}},
			run: func(t *testing.T, c *Conversation, ev *events, srv *providertest.Server) {
				c.Prompt(context.Background(), agent.Input{Text: "first"})
				first := c.Status().Session
				if err := c.NewSession(context.Background()); err != nil {
					t.Fatalf("NewSession = %v", err)
				}
				list, err := c.Sessions(context.Background())
				if err != nil || len(list) == 0 || list[0].ID != first {
					t.Fatalf("Sessions() = %+v, %v; want the first session listed", list, err)
				}
				if err := c.Resume(context.Background(), first[:8]); err != nil {
					t.Fatalf("Resume = %v", err)
				}
				if got := c.Status().Session; got != first {
					t.Errorf("session after Resume = %s, want %s", got, first)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := newConversation(t, tc.replies...)
			ev := &events{}
			defer c.Subscribe(ev.add)()
			tc.run(t, c, ev, srv)
		})
	}
}

// denier refuses every call and records the tools asked about.
type denier struct{ asked []string }

func (d *denier) Confirm(_ context.Context, req agent.ConfirmRequest) (agent.ConfirmAnswer, error) {
	d.asked = append(d.asked, req.Name)
	return agent.ConfirmAnswer{Reason: "not now"}, nil
}

// lent is a tool a frontend lends while connected.
type lent struct{}

func (lent) Definition() provider.Tool {
	return provider.Tool{Name: "lent_tool", Description: "a lent tool", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (lent) Run(context.Context, json.RawMessage, func(string)) tools.Result {
	return tools.Result{Content: []provider.Block{provider.TextBlock("lent")}}
}
