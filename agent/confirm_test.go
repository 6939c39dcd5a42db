package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// extSchema is the argument schema of the extension tool "deploy" the
// tests below call.
const extSchema = `{"type":"object","properties":{"target":{"type":"string","enum":["staging","prod"]},"replicas":{"type":"integer","minimum":1},"dry":{"type":"boolean"}},"required":["target"],"additionalProperties":false}`

// confirmWorld is a conversation of one tool call with the built-in tools
// in a temporary directory and the extension tool deploy. It records
// who was asked and what ran.
type confirmWorld struct {
	dir      string
	asked    []ConfirmRequest
	extRan   int
	results  []string // the text of every tool result, in order
	requests int      // model requests made
}

func (w *confirmWorld) run(t *testing.T, name, args string, answer ConfirmAnswer) error {
	t.Helper()
	w.dir = t.TempDir()
	os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	c := &scriptedClient{replies: []reply{{tools: []provider.Block{toolUse("t1", name, args), toolUse("t2", "read", `{"path":"a.txt"}`)}}, {text: "ok"}}}
	x := &fakeExtensions{
		tools: []ExtensionTool{{Extension: "ops", Def: provider.Tool{Name: "deploy", Schema: json.RawMessage(extSchema)}}},
		onTool: func(ToolInvocation) (ToolOutcome, error) {
			w.extRan++
			return ToolOutcome{Result: tools.Result{Content: []provider.Block{provider.TextBlock("deployed")}}}, nil
		},
	}
	rec := &recorder{}
	cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{}, Extensions: x,
		Tools: tools.Builtins(tools.Config{CWD: w.dir, Home: w.dir}), Emit: rec.emit, Now: func() time.Time { return testTime },
		Confirm: confirmFunc(func(r ConfirmRequest) ConfirmAnswer { w.asked = append(w.asked, r); return answer })}
	err := New(cfg).Prompt(context.Background(), Input{Text: "go"})
	for _, ev := range rec.events {
		if r, ok := ev.(ToolResult); ok {
			var s string
			for _, b := range r.Content {
				s += b.Text
			}
			w.results = append(w.results, s)
		}
	}
	c.mu.Lock()
	w.requests = len(c.requests)
	c.mu.Unlock()
	return err
}

// TestValidateBeforeAsking: a call whose arguments its tool (or, for an
// extension tool, its schema) rejects gets that error as its result, and
// nobody is asked about it; a valid call is asked about.
func TestValidateBeforeAsking(t *testing.T) {
	tests := []struct {
		name, tool, args string
		wantAsked        bool
		wantResult       string // in the first result
	}{
		{"bash without timeout", "bash", `{"command":"rm -rf x"}`, false, "bash: timeout is required"},
		{"bash with a string timeout", "bash", `{"command":"ls","timeout":"5"}`, false, "bash: timeout must be a positive integer"},
		{"bash with an unknown argument", "bash", `{"command":"ls","timeout":5,"cwd":"/"}`, false, `bash: unknown argument "cwd"`},
		{"edit without edits", "edit", `{"path":"a.txt"}`, false, "edit: edits is required"},
		{"edit of text not in the file", "edit", `{"path":"a.txt","edits":[{"oldText":"three","newText":"3"}]}`, false, "the call was not run"},
		{"edit of a missing file", "edit", `{"path":"gone.txt","edits":[{"oldText":"a","newText":"b"}]}`, false, "gone.txt"},
		{"write without content", "write", `{"path":"b.txt"}`, false, "write: content is required"},
		{"extension tool without a required argument", "deploy", `{"replicas":2}`, false, "deploy: target is required"},
		{"extension tool with a wrong type", "deploy", `{"target":"prod","replicas":"two"}`, false, "deploy: replicas must be an integer, got a string"},
		{"extension tool with a fraction", "deploy", `{"target":"prod","replicas":1.5}`, false, "replicas must be an integer, got a number with a fraction"},
		{"extension tool under the minimum", "deploy", `{"target":"prod","replicas":0}`, false, "replicas must be at least 1, got 0"},
		{"extension tool outside the enum", "deploy", `{"target":"moon"}`, false, `target must be one of "staging", "prod", got "moon"`},
		{"extension tool with an unknown argument", "deploy", `{"target":"prod","force":true}`, false, `deploy: unknown argument "force" (allowed: dry, replicas, target)`},
		{"extension tool with null for an optional argument", "deploy", `{"target":"prod","dry":null}`, true, "denied"},
		{"valid bash", "bash", `{"command":"ls","timeout":5}`, true, "denied"},
		{"valid edit", "edit", `{"path":"a.txt","edits":[{"oldText":"two","newText":"2"}]}`, true, "denied"},
		{"valid extension call", "deploy", `{"target":"staging","replicas":3}`, true, "denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w confirmWorld
			if err := w.run(t, tc.tool, tc.args, ConfirmAnswer{Reason: "no"}); err != nil {
				t.Fatal(err)
			}
			if got := len(w.asked) > 0; got != tc.wantAsked {
				t.Errorf("%s %s: asked = %v, want %v", tc.tool, tc.args, got, tc.wantAsked)
			}
			if len(w.results) == 0 || !strings.Contains(w.results[0], tc.wantResult) {
				t.Errorf("%s %s: results = %q, want the first to say %q", tc.tool, tc.args, w.results, tc.wantResult)
			}
			if w.extRan > 0 {
				t.Errorf("the extension tool ran %d times, want never", w.extRan)
			}
			if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "one\ntwo\n" {
				t.Errorf("a.txt = %q, want it unchanged", b)
			}
		})
	}
}

// TestConfirmBody: the confirmation carries the whole call: every line of
// a bash command, an extension tool's arguments as indented JSON, and
// nothing beside the change of an edit.
func TestConfirmBody(t *testing.T) {
	command := strings.Repeat("echo step\n", 8) + "rm -rf important_dir"
	cmdArgs, _ := json.Marshal(map[string]any{"command": command, "timeout": 5})
	tests := []struct {
		name, tool, args string
		want             string
	}{
		{"bash", "bash", string(cmdArgs), command},
		{"extension", "deploy", `{"target":"prod","replicas":2}`, "{\n  \"target\": \"prod\",\n  \"replicas\": 2\n}"},
		{"edit", "edit", `{"path":"a.txt","edits":[{"oldText":"two","newText":"2"}]}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w confirmWorld
			if err := w.run(t, tc.tool, tc.args, ConfirmAnswer{}); err != nil {
				t.Fatal(err)
			}
			if len(w.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(w.asked))
			}
			if got := w.asked[0].Body; got != tc.want {
				t.Errorf("ConfirmRequest.Body = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConfirmStop: Stop denies the call and ends the turn: no further
// model request, the later call of the same reply does not run, and
// every call has its tool result, so the next prompt is valid.
func TestConfirmStop(t *testing.T) {
	var w confirmWorld
	err := w.run(t, "bash", `{"command":"touch made","timeout":5}`, ConfirmAnswer{Stop: true})
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("Prompt() = %v, want ErrAborted", err)
	}
	if w.requests != 1 {
		t.Errorf("the model was asked %d times, want once (no request after the stop)", w.requests)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made")); err == nil {
		t.Errorf("the denied command ran")
	}
	want := []string{`tool "bash" was denied: the user stopped the turn`, `tool call "read" not run: the user stopped the turn`}
	if len(w.results) != len(want) {
		t.Fatalf("results = %q, want %d", w.results, len(want))
	}
	for i := range want {
		if !strings.Contains(w.results[i], want[i]) {
			t.Errorf("result %d = %q, want it to say %q", i, w.results[i], want[i])
		}
	}
}

// TestConfirmStopKeepsSession: after a stop the stored conversation holds
// a tool result for every call, and the next prompt sends it as it is.
func TestConfirmStopKeepsSession(t *testing.T) {
	c := &scriptedClient{replies: []reply{
		{tools: []provider.Block{toolUse("t1", "bash", `{"command":"ls","timeout":5}`), toolUse("t2", "bash", `{"command":"pwd","timeout":5}`)}},
		{text: "fine"},
	}}
	store := &memStore{}
	cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: store, Tools: tools.Builtins(tools.Config{CWD: t.TempDir()}),
		Emit: (&recorder{}).emit, Now: func() time.Time { return testTime },
		Confirm: confirmFunc(func(ConfirmRequest) ConfirmAnswer { return ConfirmAnswer{Stop: true} })}
	a := New(cfg)
	if err := a.Prompt(context.Background(), Input{Text: "go"}); !errors.Is(err, ErrAborted) {
		t.Fatalf("first Prompt() = %v, want ErrAborted", err)
	}
	if err := a.Prompt(context.Background(), Input{Text: "next"}); err != nil {
		t.Fatalf("second Prompt() = %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.requests) != 2 {
		t.Fatalf("%d model requests, want 2 (one per prompt)", len(c.requests))
	}
	msgs := c.requests[1].Messages
	var results []string
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == provider.BlockToolResult {
				results = append(results, b.ToolUseID)
			}
		}
	}
	if strings.Join(results, ",") != "t1,t2" {
		t.Errorf("tool results in the next request = %v, want t1,t2", results)
	}
	if last := msgs[len(msgs)-1]; last.Role != provider.RoleUser || last.Content[len(last.Content)-1].Text != "next" {
		t.Errorf("the next request ends with %+v, want the new prompt", last)
	}
}
