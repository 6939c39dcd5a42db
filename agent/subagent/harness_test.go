package subagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// The tests run real child agents against the scripted model server:
// requests of children carry the subagent preamble in their system
// prompt and a task marker [name] in their first message, by which the
// server picks each child's own script.

var markerRE = regexp.MustCompile(`\[(t[0-9a-z-]+)\]`)

// models scripts the parent and the children.
type models struct {
	mu       sync.Mutex
	parent   []providertest.Reply
	children map[string][]providertest.Reply
	count    map[string]int
	gate     chan struct{} // when set, children's first replies wait for it
	// first, when set, runs as each child's first request arrives; an
	// error becomes that child's reply ("first: ..."), for the test to see.
	first    func(key string) error
	inFlight int
	maxSeen  int
}

func (s *models) decide(r providertest.Recorded) providertest.Reply {
	body := string(r.Raw)
	s.mu.Lock()
	if !strings.Contains(body, "You are a subagent") {
		n := s.count["parent"]
		s.count["parent"]++
		s.mu.Unlock()
		if n < len(s.parent) {
			return s.parent[n]
		}
		return providertest.Reply{Text: "parent done"}
	}
	m := markerRE.FindStringSubmatch(body)
	key := "?"
	if m != nil {
		key = m[1]
	}
	n := s.count[key]
	s.count[key]++
	script := s.children[key]
	gate := s.gate
	s.inFlight++
	s.maxSeen = max(s.maxSeen, s.inFlight)
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
	if gate != nil && n == 0 {
		<-gate
	}
	if s.first != nil && n == 0 {
		if err := s.first(key); err != nil {
			return providertest.Reply{Text: "first: " + err.Error()}
		}
	}
	if n < len(script) {
		return script[n]
	}
	return providertest.Reply{Text: "child " + key + " done"}
}

// parentRig is a parent agent with a session file and a Manager.
type parentRig struct {
	t       testing.TB
	dir     string
	srv     *providertest.Server
	models  *models
	sess    *session.Session
	parent  *agent.Agent
	m       *Manager
	mu      sync.Mutex
	events  []agent.Event
	results chan Result
}

type rigOptions struct {
	parent   []providertest.Reply
	children map[string][]providertest.Reply
	gate     chan struct{}
	first    func(key string) error
	cfg      func(*Config)
	ext      agent.Extensions
	tools    []tools.Tool
	dir      string
	sessPath string
}

func newRig(t testing.TB, o rigOptions) *parentRig {
	t.Helper()
	r := &parentRig{t: t, dir: o.dir, results: make(chan Result, 16)}
	if r.dir == "" {
		r.dir = t.TempDir()
	}
	r.models = &models{parent: o.parent, children: o.children, count: map[string]int{}, gate: o.gate, first: o.first}
	if r.models.children == nil {
		r.models.children = map[string][]providertest.Reply{}
	}
	r.srv = providertest.NewServerFunc(r.models.decide)
	t.Cleanup(r.srv.Close)
	var err error
	if o.sessPath != "" {
		r.sess, _, err = session.Open(o.sessPath)
	} else {
		r.sess, err = session.Create(filepath.Join(r.dir, "sessions"), r.dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.sess.Close() })
	cfg := Config{
		Parent:  func() *agent.Agent { return r.parent },
		Session: func() *session.Session { return r.sess },
		Emit:    r.emit,
		Deliver: func(res Result) { r.results <- res },
		CWD:     r.dir,
		ToolsFor: func(dir string) []tools.Tool {
			return tools.Builtins(tools.Config{CWD: dir, TempDir: t.TempDir()})
		},
		ProfileDirs: []string{filepath.Join(r.dir, ".zut", "agents")},
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	r.m = New(cfg)
	ts := o.tools
	if ts == nil {
		ts = tools.Builtins(tools.Config{CWD: r.dir, TempDir: t.TempDir()})
	}
	ts = append(ts, r.m.Tools()...)
	r.parent = agent.New(agent.Config{
		Client: r.srv.Client(provider.WireAnthropic, nil),
		Model:  agent.Model{ID: "claude-test", Provider: "anthropic", Cost: func(u provider.Usage) float64 { return float64(u.Input+u.Output) / 1e6 }},
		System: "You are the parent.", Tools: ts, Extensions: o.ext,
		Store: agent.SessionStore{S: r.sess}, Policy: agent.Policy{Yolo: true}, Emit: r.emit,
	})
	t.Cleanup(r.m.Close)
	return r
}

func (r *parentRig) emit(ev agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *parentRig) eventsOf(typ string) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, ev := range r.events {
		if ev.EventType() == typ {
			out = append(out, ev)
		}
	}
	return out
}

// result waits for a delivered result.
func (r *parentRig) result() Result {
	r.t.Helper()
	select {
	case res := <-r.results:
		return res
	case <-time.After(60 * time.Second):
		r.t.Fatal("no subagent result was delivered within 60s")
	}
	return Result{}
}

// childRequests returns the request bodies of child key.
func (r *parentRig) childRequests(key string) []string {
	var out []string
	for _, rec := range r.srv.Requests() {
		body := string(rec.Raw)
		if strings.Contains(body, "You are a subagent") && strings.Contains(body, "["+key+"]") {
			out = append(out, body)
		}
	}
	return out
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func toolCall(id, name, args string) providertest.ToolCall {
	return providertest.ToolCall{ID: id, Name: name, Args: args}
}

// waitGoroutines waits (a bounded time) for the goroutine count to come
// back to at most n, and fails with the stacks otherwise.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func argsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func run(t testing.TB, tl tools.Tool, args string) tools.Result {
	t.Helper()
	return tl.Run(context.Background(), json.RawMessage(args), nil)
}

func toolNamed(m *Manager, name string) tools.Tool {
	for _, tl := range m.Tools() {
		if tl.Definition().Name == name {
			return tl
		}
	}
	return nil
}
