package extensions_test

// Each example is loaded through the real host: Go examples are built into
// a temporary copy of their directory, script examples run in place.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// waitLimit bounds waits for something that must happen; it guards
// against hangs and is not a timing assertion.
const waitLimit = 60 * time.Second

// buildExample returns a directory holding the example name, ready to
// load: for a Go example, a copy of its directory (without Go sources)
// with the binary built into it by go build; for a script example, its
// directory in the source tree.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	src, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(src, "extension.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct{ Exec, Language string }
	if err := json.Unmarshal(m, &manifest); err != nil {
		t.Fatalf("%s/extension.json: %v", name, err)
	}
	if manifest.Language != "go" {
		return src
	}
	dst := filepath.Join(t.TempDir(), name)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case strings.HasSuffix(path, ".go"), rel == filepath.Clean(manifest.Exec):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := linkBuilt(name, filepath.Join(dst, manifest.Exec)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// built holds the Go examples' binaries, each built once for the test
// binary (every test that loads an example used to link its own); TestMain
// removes them.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*builtBin
}

type builtBin struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// linkBuilt puts the binary of the Go example name at dst: a hard link to
// the one built for the test binary (or a copy where links fail).
func linkBuilt(name, dst string) error {
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*builtBin{}
	}
	b := built.bins[name]
	if b == nil {
		b = &builtBin{}
		built.bins[name] = b
	}
	if built.dir == "" {
		d, err := os.MkdirTemp("", "zut-examples-")
		if err != nil {
			built.mu.Unlock()
			return err
		}
		built.dir = d
	}
	dir := built.dir
	built.mu.Unlock()
	b.once.Do(func() {
		src, err := filepath.Abs(name)
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		cmd := exec.Command(goTool(), "build", "-o", b.path, ".")
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", name, err, out)
		}
	})
	if b.err != nil {
		return b.err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Link(b.path, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(b.path)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// fixture is a host with one example loaded and a recording of its
// callbacks.
type fixture struct {
	*host.Host
	rec  *recorder
	home string
	dir  string
	cwd  string
}

// load starts a host on the example in dir and checks its status. At the
// end of the test it closes the host and checks that the example
// acknowledged shutdown.
func load(t *testing.T, dir, wantStatus string) *fixture {
	t.Helper()
	f := &fixture{rec: newRecorder(), home: t.TempDir(), dir: dir, cwd: t.TempDir()}
	f.start(t)
	r := f.Diagnostics()
	if len(r) != 1 || r[0].Status != wantStatus {
		log, _ := os.ReadFile(r[0].Log)
		t.Fatalf("Diagnostics() = %+v, want status %s; log:\n%s", r, wantStatus, log)
	}
	return f
}

func (f *fixture) start(t *testing.T) {
	t.Helper()
	h, err := host.Start(context.Background(), host.Config{
		Home: f.home, CWD: f.cwd, ExtDirs: []string{f.dir}, ZutVersion: "test",
		Provider: "test", Model: "test-model", Callbacks: f.rec.callbacks(),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Host = h
	t.Cleanup(func() { f.stop(t) })
}

// stop closes the host and checks that the example exited after
// acknowledging shutdown.
func (f *fixture) stop(t *testing.T) {
	t.Helper()
	if f.Host == nil {
		return
	}
	name := f.Diagnostics()[0].Name
	f.Close(context.Background())
	f.Host = nil
	log, _ := os.ReadFile(host.LogPath(f.home, name))
	if !strings.Contains(string(log), "shutdown acknowledged") || strings.Contains(string(log), "no exit within") {
		t.Errorf("extension %s did not acknowledge shutdown and exit; log:\n%s", name, log)
	}
}

func (f *fixture) command(t *testing.T, name, args string) proto.CommandResponse {
	t.Helper()
	r, err := f.InvokeCommand(context.Background(), name, args)
	if err != nil {
		t.Fatalf("InvokeCommand(%q, %q): %v", name, args, err)
	}
	r.ID = ""
	return r
}

func (f *fixture) tool(t *testing.T, name, args string) host.ToolResult {
	t.Helper()
	r, err := f.CallTool(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("CallTool(%q, %s): %v", name, args, err)
	}
	return r
}

func text(r host.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// registrations lists a report's commands and tools as "name:state".
func registrations(r host.Report) (cmds, tools string) {
	var c, tl []string
	for _, x := range r.Commands {
		c = append(c, x.Name+":"+x.State)
	}
	for _, x := range r.Tools {
		tl = append(tl, x.Name+":"+x.State)
	}
	return strings.Join(c, " "), strings.Join(tl, " ")
}

// recorder is a recording fake of host.Callbacks.
type recorder struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newRecorder() *recorder { return &recorder{added: make(chan struct{}, 1)} }

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recorder) callbacks() host.Callbacks {
	return host.Callbacks{
		Notify:      func(ext, level, msg string) { r.add("notify %s %s %s", ext, level, msg) },
		Status:      func(ext, key, level, text string) { r.add("status %s %s %s %s", ext, key, level, text) },
		Widget:      func(ext string, w proto.Widget) { r.add("widget %s %s %s", ext, w.ID, strings.Join(w.Lines, " | ")) },
		WidgetClear: func(ext, id string) { r.add("widget_clear %s %s", ext, id) },
		OpenPanel:   func(ext string, p proto.Panel) { r.add("open_panel %s %s", ext, strings.Join(p.Lines, " | ")) },
		RenderPanel: func(ext string, p proto.Panel) { r.add("render_panel %s %s", ext, strings.Join(p.Lines, " | ")) },
		ClosePanel:  func(ext, id string) { r.add("close_panel %s %s", ext, id) },
		Exited:      func(ext string, err error, log string) { r.add("exited %s %v", ext, err) },
	}
}

// wait waits until a recorded line equals want.
func (r *recorder) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := slices.Contains(r.lines, want)
		lines := slices.Clone(r.lines)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.added:
		case <-deadline.C:
			t.Fatalf("callbacks never got %q; they got:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

// eventually retries check until it returns "", and fails with its last
// complaint after waitLimit. It is for effects of one-way frames, which
// an extension handles on its own schedule.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHello(t *testing.T) {
	f := load(t, buildExample(t, "hello"), host.StatusOK)
	if cmds, _ := registrations(f.Diagnostics()[0]); cmds != "hello:active echo:active cwd:active" {
		t.Errorf("commands = %s, want hello, echo and cwd", cmds)
	}
	tests := []struct {
		name, args string
		want       proto.CommandResponse
	}{
		{"hello", "", proto.CommandResponse{Action: "prompt", Prompt: "Greet me in one short sentence."}},
		{"hello", "Ada", proto.CommandResponse{Action: "prompt", Prompt: "Greet Ada in one short sentence."}},
		{"echo", "a note", proto.CommandResponse{Action: "display", Display: "a note"}},
		{"echo", "", proto.CommandResponse{Action: "noop", Error: "/echo needs some text, for example: /echo hello"}},
		{"cwd", "", proto.CommandResponse{Action: "display", Display: "project: " + f.cwd}},
	}
	for _, tc := range tests {
		t.Run(tc.name+" "+tc.args, func(t *testing.T) {
			if got := f.command(t, tc.name, tc.args); !reflectEqual(got, tc.want) {
				t.Errorf("InvokeCommand(%q, %q) = %+v, want %+v", tc.name, tc.args, got, tc.want)
			}
		})
	}
}

func reflectEqual(a, b proto.CommandResponse) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestWeather(t *testing.T) {
	f := load(t, buildExample(t, "weather"), host.StatusOK)
	tools := f.Tools()
	if len(tools) != 1 || tools[0].Name != "weather" || !json.Valid(tools[0].Schema) {
		t.Fatalf("Tools() = %+v, want the weather tool with a schema", tools)
	}
	tests := []struct {
		args    string
		want    string
		isError bool
	}{
		{`{"city":"Berlin"}`, "Berlin: 1°C, cloudy", false},
		{`{"city":"berlin","units":"imperial"}`, "berlin: 33°F, cloudy", false},
		{`{"city":"Lisbon"}`, "Lisbon: 6°C, light rain", false},
		{`{}`, `weather: city is empty; pass a city name such as "Berlin"`, true},
		{`{"city":"Oslo","units":"kelvin"}`, `weather: units "kelvin" is not metric or imperial`, true},
		{`{"city":5}`, "weather: the arguments must be an object", true},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			r := f.tool(t, "weather", tc.args)
			if !strings.HasPrefix(text(r), tc.want) || r.IsError != tc.isError {
				t.Errorf("weather(%s) = %q (error %v), want %q (error %v)", tc.args, text(r), r.IsError, tc.want, tc.isError)
			}
			if again := f.tool(t, "weather", tc.args); text(again) != text(r) {
				t.Errorf("weather(%s) changed between calls: %q, then %q", tc.args, text(r), text(again))
			}
		})
	}
	if r := f.command(t, "weather", "Oslo"); r.Action != "prompt" || !strings.Contains(r.Prompt, "Oslo") {
		t.Errorf("/weather Oslo = %+v, want a prompt about Oslo", r)
	}
}

func TestGuard(t *testing.T) {
	f := load(t, buildExample(t, "guard"), host.StatusOK)
	ctx := context.Background()
	tests := []struct {
		name, tool, args string
		block            bool
		wantArgs         string
	}{
		{"rm -rf /", "bash", `{"command":"rm -rf /","timeout":30}`, true, ""},
		{"sudo rm", "bash", `{"command":"cd / && sudo rm -fr /*","timeout":5}`, true, ""},
		{"fork bomb", "bash", `{"command":":(){ :|:& };:","timeout":5}`, true, ""},
		{"force push", "bash", `{"command":"git push -f origin main","timeout":30}`, false, `{"command":"git push --force-with-lease origin main","timeout":30}`},
		{"harmless", "bash", `{"command":"ls -la","timeout":30}`, false, `{"command":"ls -la","timeout":30}`},
		{"another tool", "read", `{"path":"rm -rf /"}`, false, `{"path":"rm -rf /"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := f.InterceptToolCall(ctx, "tu", tc.tool, json.RawMessage(tc.args))
			if d.Block != tc.block || !tc.block && string(d.Args) != tc.wantArgs {
				t.Errorf("InterceptToolCall(%s, %s) = %+v (args %s), want block=%v args %s", tc.tool, tc.args, d, d.Args, tc.block, tc.wantArgs)
			}
			if tc.block && !strings.Contains(d.Reason, "refused by guard") {
				t.Errorf("InterceptToolCall(%s) reason = %q, want a guard refusal", tc.args, d.Reason)
			}
		})
	}
	f.rec.wait(t, "status guard guard warn guard: 3 refused, 1 rewritten")
	f.Emit(proto.Event{Name: proto.EventToolCall, ToolID: "tu9", ToolName: "read", ToolArgs: json.RawMessage(`{}`)})
	eventually(t, func() string {
		if r := f.command(t, "guard", ""); !strings.HasPrefix(r.Display, "guard: 1 tool calls seen, 3 refused, 1 rewritten") {
			return fmt.Sprintf("/guard = %q, want the counts after one tool_call event", r.Display)
		}
		return ""
	})
}

func TestTodo(t *testing.T) {
	dir := buildExample(t, "todo")
	f := load(t, dir, host.StatusOK)

	r := f.tool(t, "todo", `{"action":"add","text":"write tests"}`)
	if text(r) != "1. [ ] write tests" || !r.StateSet || string(r.State) != `{"version":1,"items":[{"text":"write tests","done":false}]}` {
		t.Errorf("todo add = %q state %s (set %v)", text(r), r.State, r.StateSet)
	}
	f.tool(t, "todo", `{"action":"add","text":"ship"}`)
	if r := f.tool(t, "todo", `{"action":"done","index":7}`); !r.IsError || text(r) != "todo: no item 7; the list has 2 items" {
		t.Errorf("todo done 7 = %q (error %v), want an is_error result", text(r), r.IsError)
	}
	data, err := os.ReadFile(filepath.Join(dir, "todos.json"))
	if err != nil || !strings.Contains(string(data), `"text": "ship"`) {
		t.Errorf("todos.json in the data dir = %q, %v; want both items", data, err)
	}

	if resp := f.command(t, "todo", ""); resp.Action != "open_panel" || resp.OpenPanel == nil {
		t.Fatalf("/todo = %+v, want open_panel", resp)
	}
	f.rec.wait(t, "open_panel todo › □ write tests |   □ ship")
	f.PanelKey("todo-main", "down", "")
	f.rec.wait(t, "render_panel todo   □ write tests | › □ ship")
	f.PanelKey("todo-main", "rune", "x")
	f.rec.wait(t, "render_panel todo   □ write tests | › ✓ ship")
	f.PanelClosed("todo-main")

	// A branch with its own saved list gets it back.
	f.SetSession(&proto.Session{ID: "b2"}, map[string]json.RawMessage{
		"todo": json.RawMessage(`{"version":1,"items":[{"text":"from branch","done":true}]}`),
	})
	f.Emit(proto.Event{Name: proto.EventSessionSwitched})
	eventually(t, func() string {
		if got := text(f.tool(t, "todo", `{"action":"list"}`)); got != "1. [x] from branch" {
			return fmt.Sprintf("todo list after session_switched = %q, want the branch's list", got)
		}
		return ""
	})

	// A restart reads todos.json.
	f.stop(t)
	f.start(t)
	if got := text(f.tool(t, "todo", `{"action":"list"}`)); got != "1. [x] from branch" {
		t.Errorf("todo list after a restart = %q, want what todos.json holds", got)
	}
}

func TestPhases(t *testing.T) {
	dir := buildExample(t, "phases")
	f := load(t, dir, host.StatusOK)
	ctx := context.Background()

	idx := skills.Discover(skills.Options{ExtensionDirs: f.Skills()})
	if s, ok := idx.Lookup("phases"); !ok || !strings.HasPrefix(s.Dir, dir) {
		t.Errorf("bundled skills %v: no phases skill inside %s (found %v, warnings %v)", f.Skills(), dir, idx.Names(), idx.Warnings())
	}

	if d := f.InterceptTurnStart(ctx, 1); d.Context != "" || d.Block {
		t.Errorf("InterceptTurnStart without a plan = %+v, want nothing", d)
	}
	r := f.tool(t, "phases", `{"action":"plan","phases":["read","write","test"]}`)
	if !r.StateSet || string(r.State) != `{"version":1,"phases":["read","write","test"],"done":0}` {
		t.Errorf("phases plan state = %s (set %v)", r.State, r.StateSet)
	}
	f.rec.wait(t, "status phases phase info phase 1/3: read")
	f.rec.wait(t, "widget phases phases ▶ read | · write | · test")
	want := "[phases] Current phase (1/3): read\nRemaining: write; test\nWhen this phase is finished, call the phases tool with action next."
	if d := f.InterceptTurnStart(ctx, 2); d.Context != want {
		t.Errorf("InterceptTurnStart = %q, want %q", d.Context, want)
	}
	f.tool(t, "phases", `{"action":"next"}`)
	f.rec.wait(t, "status phases phase info phase 2/3: write")

	f.SetSession(&proto.Session{ID: "b3"}, map[string]json.RawMessage{
		"phases": json.RawMessage(`{"version":1,"phases":["a","b"],"done":2}`),
	})
	f.Emit(proto.Event{Name: proto.EventSessionForked})
	f.rec.wait(t, "status phases phase success all 2 phases done")
	f.rec.wait(t, "widget phases phases ✓ a | ✓ b")
	if d := f.InterceptTurnStart(ctx, 3); d.Context != "" {
		t.Errorf("InterceptTurnStart after the plan is done = %q, want none", d.Context)
	}
	f.SetSession(&proto.Session{ID: "b4"}, nil)
	f.Emit(proto.Event{Name: proto.EventSessionOpened})
	f.rec.wait(t, "widget_clear phases phases")
}

func TestClock(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	f := load(t, buildExample(t, "clock"), host.StatusOK)
	if cmds, _ := registrations(f.Diagnostics()[0]); cmds != "clock:active date:active" {
		t.Errorf("commands = %s, want clock and date", cmds)
	}
	r := f.command(t, "clock", "utc")
	if r.Action != "display" || !regexp.MustCompile(`^\d\d:\d\d:\d\d UTC$`).MatchString(r.Display) {
		t.Errorf("/clock utc = %+v, want the UTC time", r)
	}
	if r := f.command(t, "date", ""); r.Action != "display" || r.Display == "" {
		t.Errorf("/date = %+v, want a date", r)
	}
}

func TestHelloPy(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := load(t, buildExample(t, "hello-py"), host.StatusOK)
	if r := f.command(t, "hellopy", ""); r.Action != "prompt" || r.Prompt != "Greet me very briefly in one sentence." {
		t.Errorf("/hellopy = %+v, want the greeting prompt", r)
	}
	if r := f.command(t, "hellopy-echo", "héllo"); r.Action != "display" || r.Display != "héllo" {
		t.Errorf("/hellopy-echo = %+v, want the text back", r)
	}
}

func TestShout(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	f := load(t, buildExample(t, "shout"), host.StatusOK)
	tests := []struct{ args, display, err string }{
		{"hello there", "HELLO THERE", ""},
		{`say "hi" \o/`, `SAY "HI" \O/`, ""},
		{"", "", "/shout needs some text, for example: /shout hello"},
	}
	for _, tc := range tests {
		r := f.command(t, "shout", tc.args)
		if r.Display != tc.display || r.Error != tc.err {
			t.Errorf("/shout %s = %+v, want display %q error %q", tc.args, r, tc.display, tc.err)
		}
	}
}
