package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// scriptedClient is a provider.Client that answers each request with the
// next scripted reply and records the requests.
type scriptedClient struct {
	mu       sync.Mutex
	replies  []reply
	requests []*provider.Request
}

// reply is one scripted model answer.
type reply struct {
	text     string
	thinking string
	tools    []provider.Block // tool_use blocks
	stop     provider.StopReason
	usage    provider.Usage
	err      error // returned from Err after the events
	block    chan struct{}
}

func (c *scriptedClient) Stream(ctx context.Context, req *provider.Request) (provider.Stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Keep a deep-enough copy: the agent may reuse slices.
	cp := *req
	cp.Messages = append([]provider.Message{}, req.Messages...)
	c.requests = append(c.requests, &cp)
	if len(c.replies) == 0 {
		return nil, errors.New("scripted client: no reply left")
	}
	r := c.replies[0]
	c.replies = c.replies[1:]
	return newScriptedStream(ctx, r), nil
}

func (c *scriptedClient) Requests() []*provider.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*provider.Request{}, c.requests...)
}

type scriptedStream struct {
	ctx    context.Context
	events []provider.Event
	i      int
	cur    provider.Event
	msg    provider.Message
	err    error
	final  error
	block  chan struct{}
}

func newScriptedStream(ctx context.Context, r reply) *scriptedStream {
	s := &scriptedStream{ctx: ctx, final: r.err, block: r.block}
	s.events = append(s.events, provider.Event{Type: provider.EventRequest, Attempt: 1, MaxAttempts: 3},
		provider.Event{Type: provider.EventStart, Model: "test-model"})
	msg := provider.Message{Role: provider.RoleAssistant}
	idx := 0
	if r.thinking != "" {
		s.events = append(s.events, provider.Event{Type: provider.EventThinkingDelta, Index: idx, Text: r.thinking})
		msg.Content = append(msg.Content, provider.Block{Type: provider.BlockThinking, Text: r.thinking, Signature: "sig"})
		idx++
	}
	if r.text != "" {
		for _, part := range splitN(r.text, 3) {
			s.events = append(s.events, provider.Event{Type: provider.EventTextDelta, Index: idx, Text: part})
		}
		msg.Content = append(msg.Content, provider.TextBlock(r.text))
		idx++
	}
	for _, t := range r.tools {
		s.events = append(s.events,
			provider.Event{Type: provider.EventToolStart, Index: idx, ToolID: t.ID, ToolName: t.Name},
			provider.Event{Type: provider.EventToolDelta, Index: idx, Text: string(t.Input)},
			provider.Event{Type: provider.EventToolEnd, Index: idx, ToolID: t.ID, Input: t.Input})
		msg.Content = append(msg.Content, t)
		idx++
	}
	stop := r.stop
	if stop == "" {
		stop = provider.StopEndTurn
		if len(r.tools) > 0 {
			stop = provider.StopToolUse
		}
	}
	s.events = append(s.events, provider.Event{Type: provider.EventUsage, Usage: r.usage},
		provider.Event{Type: provider.EventStop, Stop: stop})
	s.msg = msg
	return s
}

func splitN(s string, n int) []string {
	if len(s) < n {
		return []string{s}
	}
	var out []string
	step := len(s) / n
	for i := 0; i < n-1; i++ {
		out = append(out, s[i*step:(i+1)*step])
	}
	return append(out, s[(n-1)*step:])
}

func (s *scriptedStream) Next() bool {
	if s.err != nil {
		return false
	}
	if s.block != nil && s.i == 2 {
		select {
		case <-s.block:
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
			return false
		}
		s.block = nil
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	if s.i >= len(s.events) {
		s.err = s.final
		return false
	}
	s.cur = s.events[s.i]
	s.i++
	return true
}

func (s *scriptedStream) Event() provider.Event     { return s.cur }
func (s *scriptedStream) Err() error                { return s.err }
func (s *scriptedStream) Message() provider.Message { return s.msg }
func (s *scriptedStream) Close() error              { return nil }

// memStore is a Store kept in memory.
type memStore struct {
	mu       sync.Mutex
	messages []provider.Message
	states   map[string]json.RawMessage
	summary  string
}

func (m *memStore) Messages() []provider.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]provider.Message{}, m.messages...)
}

func (m *memStore) AppendMessage(msg provider.Message, _ MessageMeta) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.messages = append(m.messages, msg)
	return nil
}

func (m *memStore) AppendState(ext string, state json.RawMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil {
		m.states = map[string]json.RawMessage{}
	}
	m.states[ext] = state
	return nil
}

func (m *memStore) Identity() SessionIdentity { return SessionIdentity{ID: "mem"} }

func (m *memStore) States() map[string]json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]json.RawMessage{}
	for k, v := range m.states {
		out[k] = v
	}
	return out
}

func (m *memStore) PlanCompaction(keep int) (CompactionPlan, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.messages) < 3 {
		return CompactionPlan{}, false
	}
	return CompactionPlan{Summarise: append([]provider.Message{}, m.messages[:len(m.messages)-1]...)}, true
}

func (m *memStore) ApplyCompaction(p CompactionPlan, summary string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := m.messages[len(m.messages)-1]
	m.messages = []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("Summary: " + summary)}}, last}
	m.summary = summary
	return nil
}

// echoTool is a built-in-like tool that echoes its "text" argument. It
// mutates when "mutate" is true.
type echoTool struct {
	name  string
	calls []string
	block chan struct{} // when set, Run waits for it or ctx
}

func (t *echoTool) Definition() provider.Tool {
	return provider.Tool{Name: t.name, Description: "echo", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t *echoTool) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	var in struct {
		Text string `json:"text"`
	}
	json.Unmarshal(args, &in)
	t.calls = append(t.calls, in.Text)
	if t.block != nil {
		select {
		case <-t.block:
		case <-ctx.Done():
			return tools.Result{Content: []provider.Block{provider.TextBlock("interrupted")}, IsError: true}
		}
	}
	progress("working on " + in.Text)
	return tools.Result{Content: []provider.Block{provider.TextBlock("echo: " + in.Text)}}
}

func (t *echoTool) Mutates(args json.RawMessage) bool {
	return strings.Contains(string(args), `"mutate":true`)
}

// fakeExtensions is an Extensions with scripted interceptors and tools.
type fakeExtensions struct {
	mu        sync.Mutex
	tools     []ExtensionTool
	events    []LifecycleEvent
	intercept map[string]bool
	onTool    func(ToolInvocation) (ToolOutcome, error)
	toolCall  func(name string, args json.RawMessage) ToolCallDecision
	turnStart func(step int) TurnStartDecision
	assistant func(text string) AssistantMessageDecision
}

func (f *fakeExtensions) Tools() []ExtensionTool { return f.tools }

func (f *fakeExtensions) CallTool(ctx context.Context, call ToolInvocation) (ToolOutcome, error) {
	if f.onTool == nil {
		return ToolOutcome{}, fmt.Errorf("no tool %s", call.Name)
	}
	return f.onTool(call)
}

func (f *fakeExtensions) Notify(ev LifecycleEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, ev)
}

func (f *fakeExtensions) Intercepting(event string) bool { return f.intercept[event] }

func (f *fakeExtensions) InterceptToolCall(ctx context.Context, id, name string, args json.RawMessage) ToolCallDecision {
	d := f.toolCall(name, args)
	if d.Args == nil {
		d.Args = args
	}
	return d
}

func (f *fakeExtensions) InterceptTurnStart(ctx context.Context, step int) TurnStartDecision {
	return f.turnStart(step)
}

func (f *fakeExtensions) InterceptAssistantMessage(ctx context.Context, text string) AssistantMessageDecision {
	d := f.assistant(text)
	if !d.Block && d.Text == "" {
		d.Text = text
	}
	return d
}

func (f *fakeExtensions) eventNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		out = append(out, e.Name)
	}
	return out
}

// recorder collects emitted events as compact strings.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// types returns the event types in order, dropping noisy deltas.
func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		switch e.(type) {
		case TextDelta, ToolUseArgs, RequestStarted, Usage:
			continue
		}
		out = append(out, e.EventType())
	}
	return out
}

func toolUse(id, name, args string) provider.Block {
	return provider.Block{Type: provider.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(args)}
}

// fakeHooks adds the interceptions beyond v2 (Hooks) to fakeExtensions;
// a nil function allows the event unchanged.
type fakeHooks struct {
	*fakeExtensions
	input       func(text, source string) InputDecision
	beforeStart func(prompt string) BeforeAgentStartDecision
	toolResult  func(r ToolResultInfo) ToolResultDecision
	context     func(msgs []ContextMessage) ([]ContextMessage, bool)
	compact     func(c ContextStats) CancelDecision
}

var _ Hooks = fakeHooks{}

func (f fakeHooks) InterceptInput(ctx context.Context, text, source string) InputDecision {
	if f.input == nil {
		return InputDecision{Text: text}
	}
	return f.input(text, source)
}

func (f fakeHooks) InterceptBeforeAgentStart(ctx context.Context, prompt string) BeforeAgentStartDecision {
	if f.beforeStart == nil {
		return BeforeAgentStartDecision{}
	}
	return f.beforeStart(prompt)
}

func (f fakeHooks) InterceptToolResult(ctx context.Context, r ToolResultInfo) ToolResultDecision {
	if f.toolResult == nil {
		return ToolResultDecision{Content: r.Content, IsError: r.IsError}
	}
	return f.toolResult(r)
}

func (f fakeHooks) InterceptContextPrepare(ctx context.Context, msgs []ContextMessage) ([]ContextMessage, bool) {
	if f.context == nil {
		return msgs, false
	}
	return f.context(msgs)
}

func (f fakeHooks) InterceptBeforeCompact(ctx context.Context, c ContextStats) CancelDecision {
	if f.compact == nil {
		return CancelDecision{}
	}
	return f.compact(c)
}

// eventDetails renders the recorded lifecycle events one per line with
// their non-empty fields, for golden files.
func (f *fakeExtensions) eventDetails() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, e := range f.events {
		b.WriteString(e.Name)
		add := func(k, v string) {
			if v != "" {
				fmt.Fprintf(&b, " %s=%q", k, v)
			}
		}
		add("tool_id", e.ToolID)
		add("tool_name", e.ToolName)
		add("text", e.Text)
		add("source", e.Source)
		add("prompt", e.Prompt)
		add("response", e.Response)
		add("content", e.Content)
		add("chunk", e.Chunk)
		add("stop", e.Stop)
		add("error", e.Error)
		add("model", e.Model)
		add("previous_model", e.PreviousModel)
		if e.IsError {
			b.WriteString(" is_error")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
