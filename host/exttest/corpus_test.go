package exttest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// needPython skips a test whose extensions are Python scripts when there
// is no python3.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH; the extensions of testdata/corpus are Python scripts")
	}
}

// corpusCase is one extension of testdata/corpus, a raw Python script
// without an SDK (testdata/corpus/base.py run in one mode), and its
// expected verdict: the checks it must fail (a violating extension), or,
// when fail is empty (a legal one), the checks it may only warn.
type corpusCase struct {
	dir      string
	timeouts Timeouts // shortened only where the extension never answers
	toolArgs map[string][]json.RawMessage
	noTools  []string // built-ins the run under test switches off
	fail     []string
	warn     []string // asserted exactly when fail is empty
}

var corpusCases = []corpusCase{
	// Legal extensions: pass, warnings only for what is legal but unwise.
	{dir: "ok"},
	{dir: "ok-additions"},
	{dir: "legal.no_cancel_cap"},
	{dir: "legal.cancel_async"},
	{dir: "legal.right_bar"},
	{dir: "legal.pipelined"},
	{dir: "legal.minimal"},
	{dir: "legal.commands_only"},
	{dir: "legal.interactive"},
	{dir: "legal.slow_tool"},
	{dir: "legal.tool_branch_default"},
	{dir: "legal.no_tools_bash", noTools: []string{"bash"}},
	{dir: "legal.auto_ready", warn: []string{"registration.ready"}},
	{dir: "legal.unknown_position", warn: []string{"robustness.frames"}},
	{dir: "handshake.capabilities", warn: []string{"handshake.capabilities"}},
	{dir: "registration.subscribe", warn: []string{"registration.subscribe"}},
	{dir: "registration.declared", warn: []string{"registration.declared"}},
	{dir: "robustness.stderr", warn: []string{"robustness.stderr"}},
	{dir: "additions.ui", warn: []string{"additions.ui"}},

	// Violating extensions: each fails exactly the check named.
	{dir: "handshake.manifest", fail: []string{"handshake.manifest"}},
	{dir: "handshake.hello_first", fail: []string{"handshake.hello_first"}},
	{dir: "handshake.hello_deadline", timeouts: Timeouts{Hello: time.Second}, fail: []string{"handshake.hello_deadline"}},
	{dir: "handshake.hello_slow", timeouts: Timeouts{Hello: time.Second}, fail: []string{"handshake.hello_deadline"}},
	{dir: "handshake.protocol_version", fail: []string{"handshake.protocol_version"}},
	{dir: "handshake.name", fail: []string{"handshake.name"}},
	{dir: "handshake.version_mismatch", fail: []string{"handshake.version_mismatch"}},
	{dir: "handshake.version_linger", timeouts: Timeouts{Mismatch: 2 * time.Second}, fail: []string{"handshake.version_mismatch"}},
	{dir: "registration.commands", fail: []string{"registration.commands"}},
	{dir: "registration.tools", fail: []string{"registration.tools"}},
	{dir: "registration.schema", fail: []string{"registration.schema"}},
	{dir: "registration.ready", timeouts: Timeouts{Ready: time.Second, Quiet: 3 * time.Second}, fail: []string{"registration.ready"}},
	{dir: "registration.late", fail: []string{"registration.late"}},
	{dir: "calls.command", fail: []string{"calls.command"}},
	{dir: "calls.prompt_empty", fail: []string{"calls.command"}},
	{dir: "calls.tool", fail: []string{"calls.tool"}},
	{dir: "calls.tool_timeout", timeouts: Timeouts{Tool: 2 * time.Second}, fail: []string{"calls.tool"}},
	{dir: "calls.tool_branch", toolArgs: map[string][]json.RawMessage{"echo": {json.RawMessage(`{"text":"hi","mode":"loud"}`)}}, fail: []string{"calls.tool"}},
	{dir: "calls.tool_invalid", fail: []string{"calls.tool_invalid"}},
	{dir: "calls.ids", fail: []string{"calls.ids"}},
	{dir: "calls.unknown_fields", fail: []string{"calls.unknown_fields"}},
	{dir: "events.deliver", fail: []string{"events.deliver"}},
	{dir: "events.intercept", timeouts: Timeouts{Intercept: time.Second}, fail: []string{"events.intercept"}},
	{dir: "events.chain", fail: []string{"events.chain"}},
	{dir: "cancel.tool_cancel", fail: []string{"cancel.tool_cancel"}},
	{dir: "cancel.late", fail: []string{"cancel.tool_cancel"}},
	{dir: "cancel.panel", fail: []string{"cancel.tool_cancel"}},
	{dir: "cancel.unknown_id", fail: []string{"cancel.tool_cancel"}},
	{dir: "panels.open", fail: []string{"panels.open"}},
	{dir: "panels.keys", fail: []string{"panels.keys"}},
	{dir: "panels.close", fail: []string{"panels.close"}},
	{dir: "panels.close.late", fail: []string{"panels.close"}},
	{dir: "state.details", fail: []string{"state.details"}},
	{dir: "state.restore", fail: []string{"state.restore"}},
	{dir: "robustness.unknown_frame", fail: []string{"robustness.unknown_frame"}},
	{dir: "robustness.slow_host", fail: []string{"robustness.slow_host"}},
	{dir: "robustness.stdin_closed", timeouts: Timeouts{EOF: time.Second}, fail: []string{"robustness.stdin_closed"}},
	{dir: "robustness.shutdown", timeouts: Timeouts{Shutdown: time.Second}, fail: []string{"robustness.shutdown"}},
	{dir: "robustness.shutdown_noack", fail: []string{"robustness.shutdown"}},
	{dir: "robustness.stdout", fail: []string{"robustness.stdout"}},
	{dir: "robustness.frames", fail: []string{"robustness.frames"}},
	{dir: "frames.widget_id", fail: []string{"robustness.frames"}},
	{dir: "frames.widget_clear_id", fail: []string{"robustness.frames"}},
	{dir: "frames.status_key", fail: []string{"robustness.frames"}},
	{dir: "frames.level", fail: []string{"robustness.frames"}},
	{dir: "robustness.process_group", timeouts: Timeouts{Group: 500 * time.Millisecond}, fail: []string{"robustness.process_group"}},
	{dir: "robustness.process_group.setsid", timeouts: Timeouts{Group: 500 * time.Millisecond}, fail: []string{"robustness.process_group"}},
	{dir: "additions.capabilities", fail: []string{"additions.capabilities"}},
	{dir: "additions.host_request", fail: []string{"additions.host_request"}},
	{dir: "additions.shortcut", fail: []string{"additions.shortcut"}},
	{dir: "additions.key_name", fail: []string{"additions.shortcut", "additions.editor_key"}},
	{dir: "additions.complete", timeouts: Timeouts{Complete: time.Second}, fail: []string{"additions.complete"}},
	{dir: "additions.editor_key", fail: []string{"additions.editor_key"}},
	{dir: "additions.render", timeouts: Timeouts{Render: 500 * time.Millisecond}, fail: []string{"additions.render"}},
	{dir: "additions.option", fail: []string{"additions.option"}},
}

// generous lengthens the deadlines a loaded machine could miss while an
// extension answers as fast as it can; a case shortens only the deadline
// its extension never meets.
func generous(t Timeouts) Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&t.Hello, 30*time.Second)
	def(&t.Quiet, 5*time.Second)
	def(&t.Ready, 20*time.Second)
	def(&t.Intercept, 30*time.Second)
	def(&t.Shutdown, 20*time.Second)
	def(&t.EOF, 20*time.Second)
	def(&t.Mismatch, 20*time.Second)
	def(&t.Group, 5*time.Second)
	def(&t.EditorKey, 20*time.Second)
	def(&t.Render, 20*time.Second)
	def(&t.Complete, 20*time.Second)
	return t
}

// testAll runs Test on every case, several at a time: the extensions
// mostly wait, so this costs little CPU and keeps the test short.
func testAll(t *testing.T, cases []corpusCase) map[string]*Report {
	t.Helper()
	reports := make(map[string]*Report, len(cases))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, tc := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep, err := Test(ctx, filepath.Join("testdata", "corpus", tc.dir), Options{Timeouts: generous(tc.timeouts), ToolArgs: tc.toolArgs, NoTools: tc.noTools})
			if err != nil {
				t.Errorf("Test(%s) error: %v", tc.dir, err)
				return
			}
			mu.Lock()
			reports[tc.dir] = rep
			mu.Unlock()
		}()
	}
	wg.Wait()
	return reports
}

// TestCorpus checks that each violating extension fails exactly its
// check and that each legal one passes, warning exactly where it is
// unwise.
func TestCorpus(t *testing.T) {
	needPython(t)
	reports := testAll(t, corpusCases)
	for _, tc := range corpusCases {
		t.Run(tc.dir, func(t *testing.T) {
			rep := reports[tc.dir]
			if rep == nil {
				t.Fatal("no report")
			}
			t.Logf("%s took %v", tc.dir, rep.Duration)
			var text strings.Builder
			rep.WriteText(&text)
			if got := rep.Failed(); !slices.Equal(got, tc.fail) {
				t.Errorf("Test(%s).Failed() = %q, want %q\n%s", tc.dir, got, tc.fail, text.String())
			}
			if len(tc.fail) == 0 {
				if got := rep.Warned(); !slices.Equal(got, tc.warn) {
					t.Errorf("Test(%s).Warned() = %q, want %q\n%s", tc.dir, got, tc.warn, text.String())
				}
			}
			wantVerdict := Pass
			if len(tc.fail) > 0 {
				wantVerdict = Fail
			}
			if rep.Verdict != wantVerdict {
				t.Errorf("Test(%s).Verdict = %s, want %s", tc.dir, rep.Verdict, wantVerdict)
			}
		})
	}
}

// TestCorpusSize keeps the corpus as large as promised (docs/protocol.md):
// at least 50 violating and 10 legal extensions, each a directory of
// testdata/corpus, and every directory a case.
func TestCorpusSize(t *testing.T) {
	violating, legal := 0, 0
	listed := map[string]bool{}
	for _, tc := range corpusCases {
		listed[tc.dir] = true
		if len(tc.fail) > 0 {
			violating++
		} else {
			legal++
		}
	}
	if violating < 50 || legal < 10 {
		t.Errorf("the corpus has %d violating and %d legal extensions, want at least 50 and 10", violating, legal)
	}
	ents, err := os.ReadDir(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && !listed[e.Name()] {
			t.Errorf("testdata/corpus/%s is no case of corpusCases", e.Name())
		}
	}
}

// TestCatalogHasACorpusCase keeps the catalog and the corpus in step:
// every check has a case that fails or warns it.
func TestCatalogHasACorpusCase(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range corpusCases {
		for _, id := range append(tc.fail, tc.warn...) {
			covered[id] = true
		}
	}
	for _, c := range Catalog() {
		if !covered[c.ID] {
			t.Errorf("check %s has no case in testdata/corpus", c.ID)
		}
	}
}
