package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/provider"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testOpts gives a session a clock that ticks one second per call and IDs
// "id01", "id02", ... (the first one is the session ID).
func testOpts() []Option {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	return []Option{
		WithClock(func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			t = t.Add(time.Second)
			return t
		}),
		WithIDs(func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return fmt.Sprintf("id%02d", n)
		}),
		WithVersion("0.0.0-test"),
	}
}

func user(text string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text)}}
}

func assistant(text string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(text)}}
}

func toolUse(id, name, input string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
		{Type: provider.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}}}
}

func toolResult(id, text string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{
		{Type: provider.BlockToolResult, ToolUseID: id, Content: []provider.Block{provider.TextBlock(text)}}}}
}

func mustAppend(t testing.TB, s *Session, m provider.Message) string {
	t.Helper()
	if err := s.AppendMessage(m, Meta{}); err != nil {
		t.Fatalf("AppendMessage: %v", err)
	}
	return s.Leaf()
}

// texts renders messages compactly for comparisons: "u:hello", "a:hi".
func texts(msgs []provider.Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, string(m.Role)[:1]+":"+messagePreview(&m)[len(m.Role)+2:])
	}
	return out
}

func newFile(t *testing.T, opts ...Option) *Session {
	t.Helper()
	s, err := Create(t.TempDir(), "/work/project", opts...)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func reopen(t *testing.T, s *Session) (*Session, []Warning) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	r, warns, err := Open(s.Path(), testOpts()[0]) // the clock; IDs random, the counter would repeat old ones
	if err != nil {
		t.Fatalf("Open(%q): %v", s.Path(), err)
	}
	t.Cleanup(func() { r.Close() })
	return r, warns
}

// TestGolden writes one small session with every entry type and compares
// the file byte for byte with testdata/small.jsonl.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	s, err := CreateFile(filepath.Join(dir, "small.jsonl"), "/work/project", append(testOpts(), WithTitle("first try"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	usage := &provider.Usage{Input: 120, Output: 30}
	steps := []func() error{
		func() error { return s.AppendModelChange("anthropic", "claude-sonnet-4-5") },
		func() error { return s.AppendMessage(user("list the <files> & fix"), Meta{}) },
		func() error {
			return s.AppendMessage(toolUse("tu1", "bash", `{"command": "ls",  "timeout": 10}`),
				Meta{Provider: "anthropic", Model: "claude-sonnet-4-5", Usage: usage, Stop: provider.StopToolUse})
		},
		func() error { return s.AppendMessage(toolResult("tu1", "go.mod\nmain.go\n"), Meta{}) },
		func() error { return s.AppendState("todos", json.RawMessage(`{ "items": ["a", "b"] }`)) },
		func() error {
			return s.AppendMessage(assistant("Two files."), Meta{Provider: "anthropic", Model: "claude-sonnet-4-5", Stop: provider.StopEndTurn})
		},
		func() error { return s.SetTitle("listing files") },
		func() error { return s.AppendCustom("todos", "checkpoint", json.RawMessage(`{"n":1}`)) },
		func() error { return s.Fork("id07") },
		func() error { return s.AppendState("todos", nil) },
		func() error { return s.AppendMessage(user("again, shorter"), Meta{}) },
		func() error {
			p, ok := s.PlanCompaction(1)
			if !ok {
				return errors.New("PlanCompaction found nothing")
			}
			return s.ApplyCompaction(p, "The user listed files.")
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("session file differs from %s (run go test -update and review the diff):\n%s", golden, got)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("line %d is not valid JSON: %s", i+1, line)
		}
	}
}

// script is a sequence of operations run against both kinds of session.
func script(t *testing.T, s *Session) {
	t.Helper()
	mustAppend(t, s, user("one"))
	a1 := mustAppend(t, s, assistant("two"))
	if err := s.AppendState("ext", json.RawMessage(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("three"))
	if err := s.Fork(a1); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("three bis"))
	if err := s.AppendState("ext", json.RawMessage(`{"v":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTitle("t"); err != nil {
		t.Fatal(err)
	}
}

type snapshot struct {
	Branch    []Entry
	Messages  []provider.Message
	ID        string
	Parent    string
	ForkPoint int
	States    map[string]json.RawMessage
	Title     string
	Len       int
}

func snap(s *Session) snapshot {
	id, parent, fp := s.Identity()
	return snapshot{s.Branch(), s.Messages(), id, parent, fp, s.States(), s.Title(), s.Len()}
}

// TestMemoryMatchesFile runs the same script on a memory session, a file
// session, and the file session reopened: all three must agree.
func TestMemoryMatchesFile(t *testing.T) {
	mem := NewMemory("/work/project", testOpts()...)
	script(t, mem)
	file := newFile(t, testOpts()...)
	script(t, file)
	reopened, warns := reopen(t, file)
	if len(warns) != 0 {
		t.Errorf("Open warnings = %v, want none", warns)
	}
	want := snap(mem)
	for name, s := range map[string]*Session{"file": file, "reopened": reopened} {
		if got := snap(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%s session = %+v\nwant %+v", name, got, want)
		}
	}
	if mem.Path() != "" {
		t.Errorf("memory Path() = %q, want empty", mem.Path())
	}
	if err := mem.Close(); err != nil {
		t.Errorf("memory Close() = %v", err)
	}
}

// countingWriter counts Write calls on the session file.
type countingWriter struct {
	w     interface{ Write([]byte) (int, error) }
	calls int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls++
	return c.w.Write(p)
}

func TestAppendIsOneWrite(t *testing.T) {
	s := newFile(t, testOpts()...)
	cw := &countingWriter{w: s.file}
	s.file = cw
	s.torn = true // as after loading a torn file: the newline goes in the same write
	big := strings.Repeat("x", 1<<20)
	for i, m := range []provider.Message{user("a"), assistant(big), toolResult("t", big)} {
		before := cw.calls
		mustAppend(t, s, m)
		if got := cw.calls - before; got != 1 {
			t.Errorf("append %d made %d writes, want 1", i, got)
		}
	}
	r, warns := reopen(t, s)
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none (a blank line is not a problem)", warns)
	}
	if r.Len() != 3 {
		t.Errorf("Len() = %d, want 3", r.Len())
	}
}

func TestAppendRejects(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	cases := []struct {
		name string
		e    Entry
	}{
		{"no type", Entry{}},
		{"header", Entry{Type: TypeSession}},
		{"unknown type", Entry{Type: "frobnicate"}},
		{"message without message", Entry{Type: TypeMessage}},
		{"state without extension", Entry{Type: TypeExtState, State: json.RawMessage(`1`)}},
		{"state not JSON", Entry{Type: TypeExtState, Extension: "x", State: json.RawMessage(`{`)}},
		{"state too big", Entry{Type: TypeExtState, Extension: "x", State: json.RawMessage(`"` + strings.Repeat("a", MaxStateSize) + `"`)}},
		{"custom without type", Entry{Type: TypeCustom, Extension: "x"}},
		{"custom data not JSON", Entry{Type: TypeCustom, Extension: "x", CustomType: "c", Data: json.RawMessage(`nope`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Append(tc.e); err == nil {
				t.Errorf("Append(%+v) = nil error, want one", tc.e)
			}
			if s.Len() != 0 {
				t.Errorf("Len() = %d after a refused append, want 0", s.Len())
			}
		})
	}
}

func TestAppendAfterClose(t *testing.T) {
	s := newFile(t)
	s.Close()
	if err := s.AppendMessage(user("late"), Meta{}); !errors.Is(err, ErrClosed) {
		t.Errorf("AppendMessage after Close = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
}

// TestConcurrentAppends appends from many goroutines: every line of the
// file must be a valid entry and the entries must form one chain.
func TestConcurrentAppends(t *testing.T) {
	s := newFile(t)
	const workers, each = 8, 150
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				text := fmt.Sprintf("worker %d message %d %s", w, i, strings.Repeat("z", i*37))
				if err := s.AppendMessage(user(text), Meta{}); err != nil {
					t.Errorf("AppendMessage: %v", err)
					return
				}
				s.Messages()
				s.Identity()
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != workers*each+1 {
		t.Fatalf("file has %d lines, want %d", len(lines), workers*each+1)
	}
	prev := s.ID()
	for i, line := range lines[1:] {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		if e.ParentID != prev {
			t.Fatalf("line %d parent = %q, want %q (the previous line)", i+2, e.ParentID, prev)
		}
		prev = e.ID
	}
	r, warns := reopen(t, s)
	if len(warns) != 0 || len(r.Messages()) != workers*each {
		t.Errorf("reopened: %d messages, warnings %v; want %d, none", len(r.Messages()), warns, workers*each)
	}
}
