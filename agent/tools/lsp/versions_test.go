package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDiagStoreVersions plays sends and publications against one store:
// a publication of a version older than the last sent is dropped, and a
// send drops what the store held of the older text.
func TestDiagStoreVersions(t *testing.T) {
	type step struct {
		send    int  // expect this version, when > 0
		publish *int // publish this version (nil: none) ...
		unver   bool // ... or one without a version
		errors  int  // with this many errors
	}
	v := func(n int) *int { return &n }
	tests := []struct {
		name      string
		steps     []step
		want      int  // errors held at the end, -1 for nothing held
		wantVer   *int // version held
		wantStale int
	}{
		{"current version kept", []step{{send: 1}, {publish: v(1), errors: 2}}, 2, v(1), 0},
		{"older version dropped", []step{{send: 1}, {send: 2}, {publish: v(2), errors: 1}, {publish: v(1), errors: 3}}, 1, v(2), 1},
		{"older version before the newer", []step{{send: 1}, {send: 2}, {publish: v(1), errors: 3}}, -1, nil, 1},
		{"a send drops the older text's", []step{{send: 1}, {publish: v(1), errors: 3}, {send: 2}}, -1, nil, 0},
		{"a send drops an unversioned one", []step{{unver: true, errors: 3}, {send: 1}}, -1, nil, 0},
		{"unversioned after a send kept", []step{{send: 4}, {unver: true, errors: 2}}, 2, nil, 0},
		{"newer than sent kept", []step{{send: 1}, {publish: v(3), errors: 1}}, 1, v(3), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ds diagStore
			ds.init()
			const path = "/w/a.go"
			for _, st := range tc.steps {
				if st.send > 0 {
					if got := ds.nextVersion(path); got > st.send {
						t.Fatalf("nextVersion = %d, past the version %d the test sends", got, st.send)
					}
					ds.expect(path, st.send)
				}
				items := make([]wireDiagnostic, st.errors)
				for i := range items {
					items[i] = wireDiagnostic{Severity: 1, Message: fmt.Sprintf("e%d", i)}
				}
				switch {
				case st.publish != nil:
					ds.publish(path, st.publish, items)
				case st.unver:
					ds.publish(path, nil, items)
				}
			}
			f := ds.of(path)
			switch {
			case tc.want < 0 && f != nil:
				t.Errorf("the store holds %d diagnostics of version %v, want none", len(f.items), f.version)
			case tc.want >= 0 && f == nil:
				t.Errorf("the store holds nothing, want %d diagnostics", tc.want)
			case f != nil && (len(f.items) != tc.want || (f.version == nil) != (tc.wantVer == nil) || f.version != nil && *f.version != *tc.wantVer):
				t.Errorf("the store holds %d diagnostics of version %v, want %d of %v", len(f.items), f.version, tc.want, tc.wantVer)
			}
			if got := ds.staleCount(); got != tc.wantStale {
				t.Errorf("stale publications = %d, want %d", got, tc.wantStale)
			}
			if f == nil && ds.bytes != 0 {
				t.Errorf("the store counts %d bytes with nothing held", ds.bytes)
			}
		})
	}
	// Versions only grow, even when the file is closed and opened again.
	var ds diagStore
	ds.init()
	ds.expect("/w/a.go", 7)
	if got := ds.nextVersion("/w/a.go"); got != 8 {
		t.Errorf("nextVersion after 7 = %d, want 8", got)
	}
}

// serverOf returns the one server m runs.
func serverOf(t *testing.T, m *Manager) *server {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.servers) != 1 {
		t.Fatalf("%d servers run, want 1", len(m.servers))
	}
	for _, s := range m.servers {
		return s
	}
	return nil
}

// TestStalePublicationDropped has the fake publish, after each change, the
// diagnostics of the version before: they must not replace the current
// ones, neither in the result nor in what action=diagnostics lists later.
func TestStalePublicationDropped(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "fine\n"})
	m := newManager(t, dir, fakeConfig("stale"))
	if got := m.DiagnosticsAfterWrite(t.Context(), "a.fake"); got != "lsp: fake reports no problems in a.fake" {
		t.Fatalf("DiagnosticsAfterWrite(clean) = %q", got)
	}
	for i, content := range []string{"ERROR\n", "ERROR ERROR\n", "fine again\n", "ERROR\n"} {
		writeFile(t, filepath.Join(dir, "a.fake"), content)
		want := "lsp: fake reports no problems in a.fake"
		if n := strings.Count(content, "ERROR"); n > 0 {
			want = fmt.Sprintf("lsp: fake reports %s in a.fake:", countWord(n, "error"))
		}
		if got := m.DiagnosticsAfterWrite(t.Context(), "a.fake"); !strings.HasPrefix(got, want) {
			t.Fatalf("change %d: DiagnosticsAfterWrite = %q, want %q", i+1, got, want)
		}
		// The answer to hover comes after the stale publication the fake
		// sent before it, so the store has seen it by now.
		fakeStateOf(t, m, "a.fake")
		s := serverOf(t, m)
		if got := s.diag.staleCount(); got != i+1 {
			t.Errorf("change %d: %d stale publications dropped, want %d", i+1, got, i+1)
		}
		r := run(t, m, `{"action":"diagnostics"}`)
		if got := len(details(t, r).Diagnostics); got != strings.Count(content, "ERROR") {
			t.Errorf("change %d: action=diagnostics lists %d, want those of the current text: %s", i+1, got, r.Text())
		}
		f := s.diag.of(filepath.Join(dir, "a.fake"))
		if f == nil || f.version == nil || *f.version != i+2 {
			t.Errorf("change %d: the store holds %+v, want version %d", i+1, f, i+2)
		}
	}
}

// TestColdServerWaitsForLoad has the fake load the workspace until the
// test ends it: the first edit's diagnostics wait for the load, so they
// are complete, and nothing is sent to the server before it.
func TestColdServerWaitsForLoad(t *testing.T) {
	content := "ERROR one\nERROR two\nERROR three\nERROR four\n"
	dir := fakeDir(t, map[string]string{"a.fake": content})
	sc := fakeConfig("cold")
	rec := filepath.Join(t.TempDir(), "recording.jsonl")
	sc.Env[fakeRecordEnv] = rec
	m := newManager(t, dir, sc)
	got := make(chan string, 1)
	go func() { got <- m.DiagnosticsAfterWrite(t.Context(), "a.fake") }()
	s := waitServer(t, m)
	waitFor(t, "the edit to wait for the load", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.loadWaits > 0
	})
	if methods := recordedMethods(t, rec); strings.Contains(methods, "textDocument/didOpen") {
		t.Fatalf("the file was sent before the server loaded the workspace: %s", methods)
	}
	if err := s.notify(t.Context(), "fake/endLoad", nil); err != nil {
		t.Fatal(err)
	}
	text := <-got
	if !strings.HasPrefix(text, "lsp: fake reports 4 errors in a.fake:") || strings.Contains(text, "incomplete") {
		t.Errorf("first DiagnosticsAfterWrite = %q, want all 4 errors", text)
	}
	// Later edits do not wait.
	writeFile(t, filepath.Join(dir, "a.fake"), "ERROR\n")
	if text := m.DiagnosticsAfterWrite(t.Context(), "a.fake"); !strings.HasPrefix(text, "lsp: fake reports 1 error in a.fake:") {
		t.Errorf("second DiagnosticsAfterWrite = %q, want 1 error", text)
	}
	s.mu.Lock()
	waits := s.loadWaits
	s.mu.Unlock()
	if waits != 1 {
		t.Errorf("%d calls waited for the load, want 1", waits)
	}
}

// TestReadyTimeout has the fake never finish loading: the first edit
// waits for the ready timeout, then reports what the server sent and says
// it may be incomplete.
func TestReadyTimeout(t *testing.T) {
	dir := fakeDir(t, map[string]string{"a.fake": "ERROR one\nERROR two\n"})
	m := newManager(t, dir, fakeConfig("cold"))
	m.cfg.ReadyTimeout = 100 * time.Millisecond
	// Started first, so that the note can name the work it reports.
	s, err := m.serverFor(filepath.Join(dir, "a.fake"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the fake to report its load", func() bool { return s.progressText() != "" })
	text := m.DiagnosticsAfterWrite(t.Context(), "a.fake")
	want := "lsp: fake reports 1 error in a.fake:\na.fake:1:1: error: found ERROR [fake F1]\n    1 | ERROR one\n" +
		"lsp: fake was still loading the workspace after 100ms (it reports: Loading), so these diagnostics may be incomplete; check again later with lsp action=diagnostics"
	if text != want {
		t.Errorf("DiagnosticsAfterWrite = %q, want %q", text, want)
	}
	r := run(t, m, `{"action":"diagnostics","path":"a.fake"}`)
	if !strings.HasSuffix(r.Text(), "so these diagnostics may be incomplete; check again later with lsp action=diagnostics") {
		t.Errorf("action=diagnostics = %q, want the note", r.Text())
	}
	s.notify(t.Context(), "fake/endLoad", nil) // so that it shuts down at once
}

// TestRenameResyncsEveryFile renames across more files than the old cap
// of twenty: every file written is announced, synced and checked, and the
// diagnostics the server had published of the old text are gone.
func TestRenameResyncsEveryFile(t *testing.T) {
	files := map[string]string{}
	const n = 25
	for i := range n {
		files[fmt.Sprintf("f%02d.fake", i)] = "alpha ERROR\n"
	}
	dir := fakeDir(t, files)
	sc := fakeConfig("workspace")
	rec := filepath.Join(t.TempDir(), "recording.jsonl")
	sc.Env[fakeRecordEnv] = rec
	m := newManager(t, dir, sc)
	// The fake reports every file's error before any is open.
	run(t, m, `{"action":"hover","path":"f00.fake","line":1,"column":1}`)
	r := run(t, m, `{"action":"diagnostics"}`)
	if !strings.HasPrefix(r.Text(), fmt.Sprintf("fake report %d errors in %d files:", n, n)) {
		t.Fatalf("diagnostics before the rename = %q, want an error in each file", r.Text())
	}

	r = run(t, m, `{"action":"rename","path":"f00.fake","line":1,"query":"ERROR","new_name":"fine","apply":true}`)
	if r.IsError || !strings.Contains(r.Text(), fmt.Sprintf("applied %d edits in %d files.\nfake reports no errors in the renamed files.", n, n)) {
		t.Fatalf("rename ERROR → fine = %q", r.Text())
	}
	r = run(t, m, `{"action":"diagnostics"}`)
	if r.Text() != "fake report no problems in the files checked so far" {
		t.Errorf("diagnostics after the rename = %q, want none: the old ones are stale", r.Text())
	}
	var announced []string
	for _, line := range recordedLines(t, rec) {
		if line.Method != "workspace/didChangeWatchedFiles" {
			continue
		}
		var p struct {
			Changes []fileEvent `json:"changes"`
		}
		json.Unmarshal(line.Params, &p)
		for _, c := range p.Changes {
			announced = append(announced, c.URI)
		}
	}
	if len(announced) != n {
		t.Errorf("%d files announced as changed on disk, want %d", len(announced), n)
	}

	r = run(t, m, `{"action":"rename","path":"f00.fake","line":1,"query":"alpha","new_name":"ERROR","apply":true}`)
	if r.IsError || !strings.Contains(r.Text(), fmt.Sprintf("applied %d edits in %d files.\nfake now reports %d errors in the renamed files:\n", n, n, n)) ||
		!strings.Contains(r.Text(), fmt.Sprintf("… and %d more; see lsp action=diagnostics", n-10)) {
		t.Errorf("rename alpha → ERROR = %q, want an error in each file", r.Text())
	}
	st := fakeStateOf(t, m, "f24.fake")
	if st.Text != "ERROR fine\n" {
		t.Errorf("the server holds %q for f24.fake, want the renamed text", st.Text)
	}
}

// waitServer waits for m to have started its one server.
func waitServer(t *testing.T, m *Manager) *server {
	t.Helper()
	var s *server
	waitFor(t, "the server to start", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, x := range m.servers {
			s = x
		}
		return s != nil
	})
	return s
}

// waitFor waits for cond to hold, failing after hangGuard.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recordedLines reads the fake's recording.
func recordedLines(t *testing.T, path string) []recorded {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r recorded
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// recordedMethods lists the methods of the fake's recording.
func recordedMethods(t *testing.T, path string) string {
	var ms []string
	for _, r := range recordedLines(t, path) {
		if r.Method != "" {
			ms = append(ms, r.Method)
		}
	}
	return strings.Join(ms, " ")
}
