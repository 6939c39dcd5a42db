package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// waitLimit bounds every wait for something that must happen; it is a
// guard against hangs, not a timing assertion.
const waitLimit = 60 * time.Second

// recorder is a recording fake of Callbacks: every call becomes one line.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) callbacks() Callbacks {
	return Callbacks{
		Notify:      func(ext, level, msg string) { r.add("notify %s %s %s", ext, level, msg) },
		ClearNotes:  func(ext string) { r.add("clear_notes %s", ext) },
		Alert:       func(ext, kind, reason string) { r.add("alert %s %s %s", ext, kind, reason) },
		Status:      func(ext, key, level, text string) { r.add("status %s %s %s %s", ext, key, level, text) },
		Widget:      func(ext string, w proto.Widget) { r.add("widget %s %s %s %v", ext, w.ID, w.Position, w.Lines) },
		WidgetClear: func(ext, id string) { r.add("widget_clear %s %s", ext, id) },
		OpenPanel:   func(ext string, p proto.Panel) { r.add("open_panel %s %s %v", ext, p.ID, p.Lines) },
		RenderPanel: func(ext string, p proto.Panel) { r.add("render_panel %s %s %v", ext, p.ID, p.Lines) },
		ClosePanel:  func(ext, id string) { r.add("close_panel %s %s", ext, id) },
		Submit:      func(ext, text string) { r.add("submit %s %s", ext, text) },
		SubmitSlash: func(ext, text string) { r.add("submit_slash %s %s", ext, text) },
		ClearChrome: func(ext string) { r.add("clear_chrome %s", ext) },
		Exited: func(ext string, err error, log string) {
			r.add("exited %s %v | log %s", ext, err, log)
		},
		ToolsChanged:    func() { r.add("tools_changed") },
		CommandsChanged: func() { r.add("commands_changed") },
		Log:             func(ext, msg string) { r.add("log %s %s", ext, msg) },
	}
}

// wait returns the first line containing every part, waiting for it.
func (r *recorder) wait(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if l, ok := r.find(parts...); ok {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("no callback line with %q; got:\n%s", parts, r.dump())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitCount waits until n lines contain every part.
func (r *recorder) waitCount(t *testing.T, n int, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for r.count(parts...) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d callback lines with %q; got:\n%s", n, parts, r.dump())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (r *recorder) find(parts ...string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
next:
	for _, l := range r.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		return l, true
	}
	return "", false
}

func (r *recorder) count(parts ...string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
next:
	for _, l := range r.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		n++
	}
	return n
}

func (r *recorder) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// testBinary is this test binary, re-executed as the scripted extension.
func testBinary(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeManifest writes dir/extension.json from fields.
func writeManifest(t testing.TB, dir string, fields map[string]any) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeScript writes an executable file.
func writeScript(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// goExt creates parent/<dir> holding a test-binary extension named name
// that runs with the script flags args, and returns its directory. The
// executable is a hard link to (or, across file systems, a copy of) this
// test binary named testExtExe, which TestMain recognises.
func goExt(t testing.TB, parent, name string, args ...string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, testExtExe)
	if err := os.Link(testBinary(t), exe); err != nil {
		data, err := os.ReadFile(testBinary(t))
		if err != nil {
			t.Fatal(err)
		}
		writeScript(t, exe, string(data))
	}
	writeManifest(t, dir, map[string]any{
		"name": name, "version": "1.0.0", "exec": "./" + testExtExe, "language": "go",
		"args": append([]string{"-name", name}, args...),
	})
	return dir
}

// fixture is a ZUT_HOME, a project directory and a recorder.
type fixture struct {
	home, cwd string
	rec       *recorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "project"), rec: &recorder{}}
	for _, d := range []string{f.home, f.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// global returns the directory of installed extensions.
func (f *fixture) global() string { return filepath.Join(f.home, "extensions") }

// project returns the project-local extension directory.
func (f *fixture) project() string { return filepath.Join(f.cwd, ".zut", "extensions") }

// config returns a Config with short timeouts for tests.
func (f *fixture) config(extDirs ...string) Config {
	return Config{
		Home: f.home, CWD: f.cwd, ExtDirs: extDirs,
		ZutVersion: "0.1.0-test", Provider: "fake", Model: "fake-1",
		Callbacks: f.rec.callbacks(),
		Timeouts:  Timeouts{Hello: 5 * time.Second, Shutdown: 500 * time.Millisecond, Kill: 500 * time.Millisecond},
	}
}

// start starts a host and closes it at the end of the test, checking that
// every process it started is gone.
func (f *fixture) start(t *testing.T, cfg Config) *Host {
	t.Helper()
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start() error: %v", err)
	}
	t.Cleanup(func() { closeHost(t, h) })
	return h
}

// closeHost closes h and checks that none of its processes survive.
func closeHost(t *testing.T, h *Host) {
	t.Helper()
	pids := h.pids()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Errorf("Close() error: %v", err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after Close", pid)
		}
	}
}

// pids lists the process ids of every extension of the current load.
func (h *Host) pids() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for _, rec := range h.records {
		if rec.e != nil {
			out = append(out, rec.e.p.pid)
		}
	}
	return out
}

// ext returns the extension of the current load named name.
func (h *Host) ext(name string) *extension {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, rec := range h.records {
		if rec.e != nil && rec.e.name == name {
			return rec.e
		}
	}
	return nil
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// waitGone waits until pid is no longer alive.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// report returns the report of name.
func report(t *testing.T, reports []Report, name string) Report {
	t.Helper()
	for _, r := range reports {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no report for %q in %+v", name, reports)
	return Report{}
}

// checkNoLeaks fails the test when goroutines started during it are
// still running once it ends (after its cleanups closed the host).
func checkNoLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(waitLimit)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Errorf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:n])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}
