package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// events records the Manager's callbacks.
type events struct {
	notes *notes
	mu    sync.Mutex
	tools chan struct{}
	res   chan struct{}
	wait  []string
}

func newEvents() *events {
	return &events{notes: newNotes(), tools: make(chan struct{}, 100), res: make(chan struct{}, 100)}
}

func (e *events) callbacks() Callbacks {
	return Callbacks{
		ToolsChanged: func() {
			select {
			case e.tools <- struct{}{}:
			default:
			}
		},
		ResourcesChanged: func() {
			select {
			case e.res <- struct{}{}:
			default:
			}
		},
		Note: func(server, msg string) { e.notes.add(server + ": " + msg) },
		Waiting: func(server string) {
			e.mu.Lock()
			e.wait = append(e.wait, server)
			e.mu.Unlock()
		},
	}
}

func newTestManager(t *testing.T, ev *events, servers ...ServerConfig) *Manager {
	t.Helper()
	m := NewManager(Options{Home: t.TempDir(), CWD: t.TempDir(), Config: &Config{Servers: servers}, Callbacks: ev.callbacks(),
		Trusted: func(c ServerConfig) bool { return c.Name == "trusted" }})
	t.Cleanup(func() { m.Close() })
	return m
}

func toolNames(m *Manager) string {
	var names []string
	for _, t := range m.Tools() {
		names = append(names, t.Name)
	}
	return strings.Join(names, " ")
}

func TestManagerStartsAndCalls(t *testing.T) {
	checkNoLeaks(t)
	ev := newEvents()
	slow := fakeConfig(t, "slow", "slowinit")
	m := newTestManager(t, ev, fakeConfig(t, "fake", "ok"), slow)
	// A call for a server still starting waits for it, with a note.
	res, err := m.Call(context.Background(), "mcp__slow__echo", json.RawMessage(`{"message":"waited"}`), nil)
	if err != nil || res.Text() != "waited" {
		t.Fatalf("Call while starting = %v, %v", res, err)
	}
	ev.mu.Lock()
	waited := strings.Join(ev.wait, ",")
	ev.mu.Unlock()
	if waited != "slow" {
		t.Errorf("Waiting callbacks = %q, want slow", waited)
	}
	if err := m.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Tools()); n != 32 {
		t.Errorf("len(Tools()) = %d, want 32 (16 per server)", n)
	}
	var progress []float64
	res, err = m.Call(context.Background(), "mcp__fake__slow", nil, func(p Progress) { progress = append(progress, p.Progress) })
	if err != nil || res.Text() != "done" || len(progress) != 3 {
		t.Errorf("Call(slow) = %v, %v, progress %v", res, err, progress)
	}
	if _, err := m.Call(context.Background(), "mcp__nope__x", nil, nil); err == nil || !strings.Contains(err.Error(), "no mcp server") {
		t.Errorf("Call(unknown server) = %v", err)
	}
	if _, err := m.Call(context.Background(), "read", nil, nil); err == nil {
		t.Errorf("Call(read) = nil error")
	}
	st := m.Servers()
	if len(st) != 2 || st[0].State != StateReady || st[0].Protocol != Versions[0] || st[0].Server.Name != "fake" || st[0].Prompts != 1 || st[0].Resources != 1 || st[0].Templates != 1 {
		t.Errorf("Servers()[0] = %+v", st[0])
	}
}

func TestManagerPromptsAndResources(t *testing.T) {
	ev := newEvents()
	m := newTestManager(t, ev, fakeConfig(t, "fake", "ok"))
	m.Wait(context.Background())
	ps := m.Prompts()
	if len(ps) != 1 || ps[0].Name != "mcp__fake__greet" {
		t.Fatalf("Prompts() = %+v", ps)
	}
	args, err := PromptArgs(ps[0], `"the world" happy days`)
	if err != nil || args["who"] != "the world" || args["mood"] != "happy days" {
		t.Errorf("PromptArgs = %v, %v", args, err)
	}
	if _, err := PromptArgs(ps[0], ""); err == nil || !strings.Contains(err.Error(), `needs the argument "who"`) {
		t.Errorf("PromptArgs without who = %v", err)
	}
	args, _ = PromptArgs(ps[0], "mood=calm Bob")
	pr, err := m.Prompt(context.Background(), ps[0].Name, args)
	if err != nil || pr.Text() != "Say hello to Bob, calm." {
		t.Errorf("Prompt = %v, %v", pr, err)
	}
	res := m.ResourceTool(context.Background(), json.RawMessage(`{"server":"fake"}`))
	if res.IsError || !strings.Contains(res.Text(), "fake://notes/1  note one (text/plain)") || !strings.Contains(res.Text(), "fake://notes/{id}") {
		t.Errorf("ResourceTool(list) = %q", res.Text())
	}
	res = m.ResourceTool(context.Background(), json.RawMessage(`{"server":"fake","uri":"fake://notes/9"}`))
	if res.IsError || !strings.Contains(res.Text(), "the text of fake://notes/9") {
		t.Errorf("ResourceTool(read) = %q", res.Text())
	}
	for _, bad := range []string{`{}`, `{"server":"fake","uri":"other://x"}`, `{"server":"zz"}`, `{"server":"fake","x":1}`} {
		if res := m.ResourceTool(context.Background(), json.RawMessage(bad)); !res.IsError {
			t.Errorf("ResourceTool(%s) = %q, want an error result", bad, res.Text())
		}
	}
	if srv, uri, ok := ParseMention("@fake:fake://notes/1"); !ok || srv != "fake" || uri != "fake://notes/1" {
		t.Errorf("ParseMention = %q %q %v", srv, uri, ok)
	}
}

func TestManagerSkipsBadTools(t *testing.T) {
	ev := newEvents()
	m := newTestManager(t, ev, fakeConfig(t, "bad", "badschema"))
	m.Wait(context.Background())
	golden(t, "badschema.golden", toolNames(m)+"\n"+ev.notes.all()+"\n")
}

func TestManagerFilters(t *testing.T) {
	ev := newEvents()
	a := fakeConfig(t, "a", "ok")
	a.AllowedTools = []string{"echo", "mcp__a__image", "fail"}
	a.DisabledTools = []string{"fail"}
	m := newTestManager(t, ev, a)
	m.Wait(context.Background())
	if got := toolNames(m); got != "mcp__a__echo mcp__a__image" {
		t.Errorf("Tools() = %q, want echo and image only", got)
	}
}

func TestManagerTrustAndStates(t *testing.T) {
	checkNoLeaks(t)
	ev := newEvents()
	untrusted := fakeConfig(t, "proj", "ok")
	untrusted.Origin = OriginProject
	trusted := fakeConfig(t, "trusted", "ok")
	trusted.Origin = OriginProject
	disabled := fakeConfig(t, "off", "ok")
	disabled.Enabled = false
	invalid := ServerConfig{Name: "broken", Err: errors.New("bad entry")}
	failing := fakeConfig(t, "failing", "exit")
	m := newTestManager(t, ev, untrusted, trusted, disabled, invalid, failing)
	m.Wait(context.Background())
	var got []string
	for _, s := range m.Servers() {
		got = append(got, s.Name+"="+string(s.State))
	}
	if want := "broken=invalid failing=failed off=disabled proj=untrusted trusted=ready"; strings.Join(got, " ") != want {
		t.Errorf("states = %q, want %q", strings.Join(got, " "), want)
	}
	ev.notes.waitNote(t, `failing: start mcp server "failing"`)
	if u := m.Untrusted(); len(u) != 1 || u[0].Name != "proj" {
		t.Errorf("Untrusted() = %v", u)
	}
	if _, err := m.Call(context.Background(), "mcp__proj__echo", nil, nil); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("Call(untrusted) = %v", err)
	}
	if err := m.Trust("proj"); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(context.Background(), "mcp__proj__echo", json.RawMessage(`{"message":"now"}`), nil)
	if err != nil || res.Text() != "now" {
		t.Errorf("Call after Trust = %v, %v", res, err)
	}
}

func TestManagerCrashAndRestart(t *testing.T) {
	checkNoLeaks(t)
	ev := newEvents()
	m := newTestManager(t, ev, fakeConfig(t, "fake", "ok"))
	m.Wait(context.Background())
	for i := 0; i < maxRestarts; i++ {
		_, err := m.Call(context.Background(), "mcp__fake__crash", nil, nil)
		var stopped *StoppedError
		if !errors.As(err, &stopped) || stopped.Server != "fake" {
			t.Fatalf("crash %d: Call = %v, want a StoppedError naming fake", i, err)
		}
		ev.notes.waitNote(t, "zut starts it again")
		res, err := m.Call(context.Background(), "mcp__fake__echo", json.RawMessage(`{"message":"back"}`), nil)
		if err != nil || res.Text() != "back" {
			t.Fatalf("restart %d: Call = %v, %v", i, res, err)
		}
	}
	m.Call(context.Background(), "mcp__fake__crash", nil, nil)
	ev.notes.waitNote(t, "stays stopped")
	if _, err := m.Call(context.Background(), "mcp__fake__echo", nil, nil); err == nil || !strings.Contains(err.Error(), "restarted 3 times") {
		t.Errorf("Call after %d restarts = %v", maxRestarts, err)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("a server that stays stopped still lists tools")
	}
	// The user's restart (/mcp reconnect) starts it afresh.
	if err := m.Restart("fake"); err != nil {
		t.Fatalf("Restart = %v", err)
	}
	m.Wait(context.Background())
	res, err := m.Call(context.Background(), "mcp__fake__echo", json.RawMessage(`{"message":"again"}`), nil)
	if err != nil || res.Text() != "again" {
		t.Fatalf("Call after Restart = %v, %v", res, err)
	}
	// A ready server restarts too; an unknown one is an error.
	if err := m.Restart("fake"); err != nil {
		t.Fatalf("Restart of a ready server = %v", err)
	}
	m.Wait(context.Background())
	if st := m.Servers()[0]; st.State != StateReady {
		t.Errorf("state after restarting a ready server = %s (%v)", st.State, st.Err)
	}
	if err := m.Restart("nope"); err == nil {
		t.Error("Restart of an unknown server succeeded")
	}
}

func TestManagerListChanged(t *testing.T) {
	ev := newEvents()
	m := newTestManager(t, ev, fakeConfig(t, "fake", "ok"))
	m.Wait(context.Background())
	if strings.Contains(toolNames(m), "added") {
		t.Fatal("tool added listed too early")
	}
	drain := len(ev.tools)
	for i := 0; i < drain; i++ {
		<-ev.tools
	}
	if _, err := m.Call(context.Background(), "mcp__fake__change", nil, nil); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(toolNames(m), "mcp__fake__added") {
		<-ev.tools // each list change is followed by ToolsChanged
	}
}

func TestManagerNoConfigCostsNothing(t *testing.T) {
	checkNoLeaks(t)
	m := NewManager(Options{Home: t.TempDir()})
	if len(m.Tools()) != 0 || len(m.Servers()) != 0 {
		t.Errorf("an empty Manager lists something")
	}
	m.Close()
}
