package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeDir is a fresh workspace for the fake server with the files given.
func fakeDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	writeFile(t, filepath.Join(dir, "fake.root"), "")
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	return dir
}

// fakeStateOf asks the fake for its state through hover.
func fakeStateOf(t *testing.T, m *Manager, path string) fakeState {
	t.Helper()
	r := run(t, m, fmt.Sprintf(`{"action":"hover","path":%q,"line":1,"column":1}`, path))
	if r.IsError {
		t.Fatalf("hover %s: %s", path, r.Text())
	}
	var st fakeState
	if err := json.Unmarshal([]byte(details(t, r).Hover), &st); err != nil {
		t.Fatalf("hover %s = %q, not the fake's state: %v", path, details(t, r).Hover, err)
	}
	return st
}

// TestIncrementalSync edits a file many times and checks after each change
// that the server, which applies the incremental changes with its own
// UTF-16 arithmetic, holds exactly the file's content.
func TestIncrementalSync(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "héllo 😀 world\nline two\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	path := filepath.Join(dir, "a.fake")
	tests := []struct{ name, content string }{
		{"insert after emoji", "héllo 😀 ERROR world\nline two\n"},
		{"replace emoji", "héllo 𝄞𝄞 ERROR world\nline two\n"},
		{"crlf", "héllo\r\n𝄞 WARN\r\nline two\r\n"},
		{"drop a CR", "héllo\n𝄞 WARN\r\nline two\r\n"},
		{"add a CR", "héllo\r\n𝄞 WARN\r\nline two\r\n"},
		{"lone CR", "a\rb\r\nc"},
		{"empty", ""},
		{"from empty", "ERROR\n"},
		{"same", "ERROR\n"},
		{"multi-line", "one\ntwo 😀\nthree\nERROR four\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, path, tc.content)
			got := m.DiagnosticsAfterWrite(t.Context(), path)
			if want := strings.Count(tc.content, "ERROR"); want > 0 && !strings.Contains(got, countWord(want, "error")) {
				t.Errorf("DiagnosticsAfterWrite = %q, want %d errors", got, want)
			}
			if st := fakeStateOf(t, m, path); st.Text != tc.content {
				t.Fatalf("server holds %q, want %q", st.Text, tc.content)
			}
		})
	}
	// Random edits over text with wide characters and mixed line ends.
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "é", "😀", "𝄞", "\n", "\r\n", "\r", " ", "ERROR", "xyz"}
	content := "start\n"
	for i := range 60 {
		runes := []rune(content)
		at := rng.Intn(len(runes) + 1)
		del := min(rng.Intn(4), len(runes)-at)
		var ins strings.Builder
		for range rng.Intn(4) {
			ins.WriteString(pieces[rng.Intn(len(pieces))])
		}
		content = string(runes[:at]) + ins.String() + string(runes[at+del:])
		writeFile(t, path, content)
		m.DiagnosticsAfterWrite(t.Context(), path)
		if st := fakeStateOf(t, m, path); st.Text != content {
			t.Fatalf("random edit %d: server holds %q, want %q", i, st.Text, content)
		}
	}
}

// countWord prints "1 error" or "2 errors".
func countWord(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

func TestDiagnosticsAfterWriteFake(t *testing.T) {
	content := "fine\n\tx := \"😀\" + ERROR\nWARN then ERROR\n"
	for _, mode := range []string{"ok", "unversioned", "pull"} {
		t.Run(mode, func(t *testing.T) {
			dir := fakeDir(t, map[string]string{"a.fake": "fine\n"})
			m := newManager(t, dir, fakeConfig(mode))
			if got := m.DiagnosticsAfterWrite(t.Context(), "a.fake"); got != "lsp: fake reports no problems in a.fake" {
				t.Errorf("DiagnosticsAfterWrite(clean) = %q", got)
			}
			writeFile(t, filepath.Join(dir, "a.fake"), content)
			golden(t, "after-write-fake", m.DiagnosticsAfterWrite(t.Context(), "a.fake")+"\n")
			r := run(t, m, `{"action":"diagnostics","path":"a.fake"}`)
			d := details(t, r)
			if r.IsError || len(d.Diagnostics) != 3 || d.Diagnostics[0].Severity != "error" || d.Diagnostics[2].Severity != "warning" {
				t.Fatalf("diagnostics = %s %s, want 2 errors then 1 warning", r.Text(), r.Details)
			}
			if g := d.Diagnostics[0]; g.Line != 2 || g.Column != 13 || g.EndColumn != 18 || g.Code != "F1" || g.Source != "fake" {
				t.Errorf("first diagnostic = %+v, want line 2, columns 13-18 (in characters), code F1", g)
			}
		})
	}
}

func TestDiagnosticsAfterWriteOff(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "ERROR\n", "notes.txt": "x"})
	m := newManager(t, dir, fakeConfig("ok"))
	if got := m.DiagnosticsAfterWrite(t.Context(), "notes.txt"); got != "" {
		t.Errorf("DiagnosticsAfterWrite(notes.txt) = %q, want \"\" (no server handles .txt)", got)
	}
	m.cfg.DiagnosticsAfterEdit = false
	if got := m.DiagnosticsAfterWrite(t.Context(), "a.fake"); got != "" {
		t.Errorf("DiagnosticsAfterWrite with the setting off = %q, want \"\"", got)
	}
	if len(m.running()) != 0 {
		t.Errorf("a server was started although nothing needed one")
	}
	// lsp.json can turn it off too.
	m2 := newManager(t, dir, fakeConfig("ok"))
	writeFile(t, filepath.Join(m2.cfg.ZutHome, "lsp.json"), `{"diagnosticsAfterEdit": false}`)
	if got := m2.DiagnosticsAfterWrite(t.Context(), "a.fake"); got != "" {
		t.Errorf("DiagnosticsAfterWrite with lsp.json off = %q, want \"\"", got)
	}
}

func TestServerRequestsAnswered(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	st := fakeStateOf(t, m, "a.fake")
	want := map[string]string{
		"window/workDoneProgress/create": "null",
		"client/registerCapability":      "null",
		"workspace/workspaceFolders":     fmt.Sprintf(`[{"name":%q,"uri":%q}]`, filepath.Base(dir), fileURI(dir)),
		"window/showDocument":            `{"success":false}`,
		"fake/unknown":                   "error: zut does not handle fake/unknown (code -32601)",
	}
	for method, w := range want {
		if got := st.Answers[method]; got != w {
			t.Errorf("answer to %s = %s, want %s", method, got, w)
		}
	}
	if string(st.Config) != `{"level": 3}` && string(st.Config) != `{"level":3}` {
		t.Errorf("workspace/configuration answered %s, want the fake section of Settings", st.Config)
	}
	ss := m.Status()
	var in Instance
	for _, s := range ss {
		if s.Name == "fake" && len(s.Instances) == 1 {
			in = s.Instances[0]
		}
	}
	if in.State != "running" || in.PID == 0 || in.Root != dir || in.Info != "fake 1.0" || in.Progress != "" {
		t.Fatalf("status of the fake = %+v, want it running in %s, version 1.0, no progress", in, dir)
	}
	log, err := os.ReadFile(in.Log)
	if err != nil || !strings.Contains(string(log), "info: fake: configured") {
		t.Errorf("log %s = %q (%v), want the logged message", in.Log, log, err)
	}
}

func TestLocationsRoundTrip(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x := 😀 alpha\n\tbeta 𝄞 alpha\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	tests := []struct {
		name, args string
		want       string
	}{
		{"definition by column", `{"action":"definition","path":"a.fake","line":2,"column":10}`, "definition of alpha (a.fake:2:10), from fake:\na.fake:1:8: x := 😀 alpha"},
		{"definition by query", `{"action":"definition","path":"a.fake","line":2,"query":"alpha"}`, "definition of alpha (a.fake:2:9), from fake:\na.fake:1:8: x := 😀 alpha"},
		{"references by query in file", `{"action":"references","path":"a.fake","query":"alpha"}`, "2 references to alpha (a.fake:1:8), from fake:\na.fake:1:8: x := 😀 alpha\na.fake:2:9: beta 𝄞 alpha"},
		{"no definition", `{"action":"definition","path":"a.fake","line":1,"column":5}`, "fake found no definition of a.fake:1:5"},
		{"symbols", `{"action":"symbols","path":"a.fake"}`, "symbols of a.fake, from fake:\n1:1 function Top\n  2:3 variable inner — int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, m, tc.args)
			if r.IsError || r.Text() != tc.want {
				t.Fatalf("lsp %s = %q (error %v), want %q", tc.args, r.Text(), r.IsError, tc.want)
			}
		})
	}
}

func TestRenameFake(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "😀alpha = 1\nalpha + alpha\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	r := run(t, m, `{"action":"rename","path":"a.fake","line":2,"column":1,"new_name":"ERROR"}`)
	d := details(t, r)
	if r.IsError || len(d.Edits) != 1 || len(d.Edits[0].Changes) != 3 || d.Applied {
		t.Fatalf("rename = %q %s, want 3 edits not applied", r.Text(), r.Details)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.fake")); string(data) != "😀alpha = 1\nalpha + alpha\n" {
		t.Fatalf("rename without apply changed the file: %q", data)
	}
	golden(t, "rename-fake", r.Text()+"\n")
	r = run(t, m, `{"action":"rename","path":"a.fake","line":2,"column":1,"new_name":"ERROR","apply":true}`)
	if r.IsError || !details(t, r).Applied {
		t.Fatalf("rename apply = %q", r.Text())
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.fake")); string(data) != "😀ERROR = 1\nERROR + ERROR\n" {
		t.Fatalf("after rename apply the file is %q", data)
	}
	if !strings.Contains(r.Text(), "fake now reports 3 errors in the renamed files") {
		t.Errorf("rename apply = %q, want the new diagnostics", r.Text())
	}
	if st := fakeStateOf(t, m, "a.fake"); st.Text != "😀ERROR = 1\nERROR + ERROR\n" {
		t.Errorf("server holds %q after the rename, want the new content", st.Text)
	}
	// A host without Apply refuses apply: true.
	m.cfg.Apply = nil
	r = run(t, m, `{"action":"rename","path":"a.fake","line":2,"column":1,"new_name":"x","apply":true}`)
	if !r.IsError || !strings.Contains(r.Text(), "cannot apply lsp edits") {
		t.Errorf("rename apply without Apply = %q, want a refusal", r.Text())
	}
}

// TestBrokenServers checks that a server that crashes, hangs or writes
// garbage gives a clear error and never hangs the call.
func TestBrokenServers(t *testing.T) {
	tests := []struct {
		mode, args string
		timeout    time.Duration
		want       []string
	}{
		{"crash-init", `{"action":"hover","path":"a.fake","line":1,"column":1}`, 0,
			[]string{"lsp hover: fake exited unexpectedly (exit status 3) during initialize; its last output: fake: loading the workspace | panic: fake crashed on purpose; log: ", "the next lsp call starts it again"}},
		{"hang-init", `{"action":"hover","path":"a.fake","line":1,"column":1}`, time.Second,
			[]string{"lsp hover: fake did not answer initialize within 1s; it may be hung or still loading the workspace; zut stopped it"}},
		{"garbage", `{"action":"hover","path":"a.fake","line":1,"column":1}`, 0,
			[]string{`lsp hover: fake broke the protocol (read frame: malformed header line "this is not a header"; the peer may be printing text (logs?) on its standard output), so zut stopped it during initialize`}},
		{"huge", `{"action":"hover","path":"a.fake","line":1,"column":1}`, 0,
			[]string{"lsp hover: fake broke the protocol (read frame: message of 95 MiB is over the 64 MiB limit), so zut stopped it during initialize"}},
		{"crash-request", `{"action":"definition","path":"a.fake","line":1,"column":1}`, 0,
			[]string{"lsp definition: fake exited unexpectedly (exit status 2) during textDocument/definition; its last output: panic: definition is broken"}},
		{"hang-request", `{"action":"hover","path":"a.fake","line":1,"column":1}`, 500 * time.Millisecond,
			[]string{"lsp hover: fake did not answer textDocument/hover within 500ms; it may be hung or still loading the workspace; try again, or see lsp action=status"}},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
			m := newManager(t, dir, fakeConfig(tc.mode))
			switch {
			case tc.mode == "hang-init":
				m.cfg.RequestTimeout = tc.timeout
			case tc.timeout > 0:
				// Start with the long bound, then shorten it for the
				// request that hangs.
				if r := run(t, m, `{"action":"symbols","path":"a.fake"}`); r.IsError {
					t.Fatalf("symbols: %s", r.Text())
				}
				m.running()[0].timeout = tc.timeout
			}
			r := run(t, m, tc.args)
			if !r.IsError {
				t.Fatalf("lsp %s with a %s server succeeded: %q", tc.args, tc.mode, r.Text())
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text(), w) {
					t.Errorf("lsp %s = %q\nwant it to contain %q", tc.args, r.Text(), w)
					logs, _ := filepath.Glob(filepath.Join(m.cfg.LogDir, "*.log"))
					for _, l := range logs {
						data, _ := os.ReadFile(l)
						t.Logf("%s:\n%s", l, data)
					}
				}
			}
			var last string
			for _, s := range m.Status() {
				if s.Name == "fake" {
					last = s.LastError
				}
			}
			if last == "" {
				t.Errorf("status shows no last error after the %s failure", tc.mode)
			}
		})
	}
}

func TestCancelDuringRequest(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("hang-request"))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	r := m.Tool().Run(ctx, json.RawMessage(`{"action":"definition","path":"a.fake","line":1,"column":1}`), func(p string) {
		if strings.HasPrefix(p, "asking") {
			cancel()
		}
	})
	if !r.IsError || r.Text() != "lsp definition: aborted" {
		t.Fatalf("cancelled definition = %q, want lsp definition: aborted", r.Text())
	}
}

func TestRestartAfterCrash(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("crash-request"))
	fakeStateOf(t, m, "a.fake")
	pid := m.running()[0].pid
	if r := run(t, m, `{"action":"definition","path":"a.fake","line":1,"column":1}`); !r.IsError {
		t.Fatalf("definition on a crashing server = %q, want an error", r.Text())
	}
	if st := fakeStateOf(t, m, "a.fake"); st.Text != "x\n" {
		t.Fatalf("restarted server holds %q", st.Text)
	}
	if again := m.running()[0].pid; again == pid {
		t.Errorf("the server was not restarted: pid %d both times", pid)
	}
}

func TestFailedStartsPause(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("crash-init"))
	for i := range maxFailures + 1 {
		r := run(t, m, `{"action":"hover","path":"a.fake","line":1,"column":1}`)
		if !r.IsError {
			t.Fatalf("hover %d succeeded", i)
		}
		if i == maxFailures && !strings.Contains(r.Text(), "fake failed 3 times in a row, so zut waits") {
			t.Fatalf("hover after %d failed starts = %q, want a pause", maxFailures, r.Text())
		}
	}
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return !(i > 0 && i+2 < len(s) && s[i+2] == 'Z')
}

func TestCloseStopsEverything(t *testing.T) {
	for _, mode := range []string{"child", "no-exit"} {
		t.Run(mode, func(t *testing.T) {
			before := runtime.NumGoroutine()
			dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
			m := NewManager(Config{CWD: dir, Home: dir, Servers: []ServerConfig{fakeConfig(mode)}, RequestTimeout: hangGuard})
			st := fakeStateOf(t, m, "a.fake")
			pid := m.running()[0].pid
			if st.ChildPID == 0 || !alive(pid) || !alive(st.ChildPID) {
				t.Fatalf("the fake (pid %d) or its child (pid %d) is not running", pid, st.ChildPID)
			}
			bound := hangGuard
			if mode == "no-exit" {
				bound = time.Second // it never exits: Close kills it at the bound
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			err := m.Close(ctx)
			if mode == "no-exit" && (err == nil || !strings.Contains(err.Error(), "did not exit after shutdown, so it was killed")) {
				t.Errorf("Close = %v, want the kill reported", err)
			}
			if mode == "child" && err != nil && !strings.Contains(err.Error(), "so it was killed") {
				// A loaded machine may make the fake miss the exit bound;
				// then it is killed, which is also right.
				t.Errorf("Close = %v", err)
			}
			if alive(pid) {
				t.Errorf("server pid %d is still running after Close", pid)
			}
			for deadline := time.Now().Add(hangGuard); alive(st.ChildPID) && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond) // the kernel delivers SIGKILL to the group
			}
			if alive(st.ChildPID) {
				t.Errorf("the server's child pid %d is still running after Close", st.ChildPID)
			}
			for deadline := time.Now().Add(hangGuard); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after Close, %d before", n, before)
			}
			if r := run(t, m, `{"action":"hover","path":"a.fake","line":1,"column":1}`); !r.IsError || !strings.Contains(r.Text(), "shutting down") {
				t.Errorf("hover after Close = %q, want an error", r.Text())
			}
		})
	}
}

func TestLazy(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	tool := m.Tool()
	tool.Definition()
	if len(m.servers) != 0 {
		t.Fatal("a server started before any call")
	}
	if r := run(t, m, `{"action":"status"}`); r.IsError || !strings.Contains(r.Text(), "fake (.fake; host): available") {
		t.Fatalf("status = %q", r.Text())
	}
	if len(m.servers) != 0 {
		t.Fatal("status started a server")
	}
	if r := run(t, m, `{"action":"diagnostics"}`); r.Text() != "no language server is running yet, so there are no diagnostics; give path to check a file" {
		t.Fatalf("diagnostics of nothing = %q", r.Text())
	}
}

func TestNoServer(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.txt": "x\n", "b.py": "x = 1\n"})
	missing := ServerConfig{Name: "py", Command: "zut-no-such-server", Extensions: []string{".py"}, Install: "pip install it"}
	m := newManager(t, dir, missing)
	m.settings().servers = []ServerConfig{missing} // only this one
	tests := []struct{ args, want string }{
		{`{"action":"hover","path":"a.txt","line":1,"column":1}`, "lsp hover: no language server handles .txt files (servers are configured for .py); add one to "},
		{`{"action":"hover","path":"b.py","line":1,"column":1}`, "lsp hover: no language server for .py files is installed: zut-no-such-server is not on PATH (install: pip install it); or configure one in "},
		{`{"action":"hover","path":"nope.py","line":1,"column":1}`, "lsp hover: nope.py: no such file; give the path of a source file"},
		{`{"action":"hover","path":".","line":1,"column":1}`, "lsp hover: . is a directory; give the path of a source file"},
	}
	for _, tc := range tests {
		r := run(t, m, tc.args)
		if !r.IsError || !strings.HasPrefix(r.Text(), tc.want) {
			t.Errorf("lsp %s = %q, want it to start with %q", tc.args, r.Text(), tc.want)
		}
	}
}

func TestPositionErrors(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "one\ntwo 😀\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	tests := []struct{ args, want string }{
		{`{"action":"definition","path":"a.fake","line":9,"column":1}`, "lsp definition: a.fake: line 9 is past the end of the file (2 lines)"},
		{`{"action":"definition","path":"a.fake","line":2,"column":7}`, "lsp definition: a.fake: column 7 is past the end of line 2 (5 characters)"},
		{`{"action":"definition","path":"a.fake","line":1,"query":"zap"}`, `lsp definition: a.fake: "zap" is not on line 1: one`},
		{`{"action":"definition","path":"a.fake","query":"zap"}`, `lsp definition: a.fake: "zap" does not occur in the file`},
	}
	for _, tc := range tests {
		if r := run(t, m, tc.args); !r.IsError || r.Text() != tc.want {
			t.Errorf("lsp %s = %q, want %q", tc.args, r.Text(), tc.want)
		}
	}
}

func TestWorkspaceSymbolsStartsProjectServer(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "x\n"})
	m := newManager(t, dir, fakeConfig("ok"))
	r := run(t, m, `{"action":"symbols","query":"zz"}`)
	if r.IsError || r.Text() != `fake found no symbols matching "zz"` {
		t.Fatalf("workspace symbols with no server running = %q, want the project's fake started and asked", r.Text())
	}
	os.Remove(filepath.Join(dir, "fake.root"))
	m2 := newManager(t, dir, fakeConfig("ok"))
	if r := run(t, m2, `{"action":"symbols","query":"zz"}`); !r.IsError || !strings.Contains(r.Text(), "give path, a source file, to choose the server") {
		t.Fatalf("workspace symbols without a project server = %q", r.Text())
	}
}
