package exttest

import (
	"context"
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
		t.Skip("python3 is not on PATH; the broken extensions of testdata/broken are Python scripts")
	}
}

// brokenCase is one extension of testdata/broken and the checks it must
// fail (or, for checks that can only warn, warn).
type brokenCase struct {
	dir      string
	timeouts Timeouts // shortened only where the extension never answers
	fail     []string
	warn     []string // asserted exactly when fail is empty
}

var brokenCases = []brokenCase{
	{dir: "ok"},
	{dir: "ok-additions"},
	{dir: "handshake.manifest", fail: []string{"handshake.manifest"}},
	{dir: "handshake.hello_first", fail: []string{"handshake.hello_first"}},
	{dir: "handshake.hello_deadline", timeouts: Timeouts{Hello: time.Second}, fail: []string{"handshake.hello_deadline"}},
	{dir: "handshake.protocol_version", fail: []string{"handshake.protocol_version"}},
	{dir: "handshake.name", fail: []string{"handshake.name"}},
	{dir: "handshake.capabilities", warn: []string{"handshake.capabilities"}},
	{dir: "handshake.version_mismatch", warn: []string{"handshake.version_mismatch"}},
	{dir: "registration.commands", fail: []string{"registration.commands"}},
	{dir: "registration.tools", fail: []string{"registration.tools"}},
	{dir: "registration.schema", fail: []string{"registration.schema"}},
	{dir: "registration.subscribe", warn: []string{"registration.subscribe"}},
	{dir: "registration.ready", timeouts: Timeouts{Ready: time.Second, Quiet: 3 * time.Second}, fail: []string{"registration.ready"}},
	{dir: "registration.late", warn: []string{"registration.late"}},
	{dir: "registration.declared", warn: []string{"registration.declared"}},
	{dir: "calls.command", fail: []string{"calls.command"}},
	{dir: "calls.tool", fail: []string{"calls.tool"}},
	{dir: "calls.tool_invalid", fail: []string{"calls.tool_invalid"}},
	{dir: "calls.ids", fail: []string{"calls.ids"}},
	{dir: "calls.unknown_fields", fail: []string{"calls.unknown_fields"}},
	{dir: "events.deliver", fail: []string{"events.deliver"}},
	{dir: "events.intercept", timeouts: Timeouts{Intercept: time.Second}, fail: []string{"events.intercept"}},
	{dir: "events.chain", fail: []string{"events.chain"}},
	{dir: "cancel.tool_cancel", fail: []string{"cancel.tool_cancel"}},
	{dir: "panels.open", fail: []string{"panels.open"}},
	{dir: "panels.keys", fail: []string{"panels.keys"}},
	{dir: "panels.close", warn: []string{"panels.close"}},
	{dir: "state.details", fail: []string{"state.details"}},
	{dir: "state.restore", fail: []string{"state.restore"}},
	{dir: "robustness.unknown_frame", fail: []string{"robustness.unknown_frame"}},
	{dir: "robustness.slow_host", fail: []string{"robustness.slow_host"}},
	{dir: "robustness.stdin_closed", timeouts: Timeouts{EOF: time.Second}, fail: []string{"robustness.stdin_closed"}},
	{dir: "robustness.shutdown", timeouts: Timeouts{Shutdown: time.Second}, fail: []string{"robustness.shutdown"}},
	{dir: "robustness.stdout", fail: []string{"robustness.stdout"}},
	{dir: "robustness.frames", fail: []string{"robustness.frames"}},
	{dir: "robustness.process_group", timeouts: Timeouts{Group: 500 * time.Millisecond}, fail: []string{"robustness.process_group"}},
	{dir: "robustness.process_group.setsid", timeouts: Timeouts{Group: 500 * time.Millisecond}, fail: []string{"robustness.process_group"}},
	{dir: "robustness.stderr", warn: []string{"robustness.stderr"}},
	{dir: "additions.capabilities", fail: []string{"additions.capabilities"}},
	{dir: "additions.host_request", fail: []string{"additions.host_request"}},
	{dir: "additions.ui", warn: []string{"additions.ui"}},
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
func testAll(t *testing.T, cases []brokenCase) map[string]*Report {
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
			rep, err := Test(ctx, filepath.Join("testdata", "broken", tc.dir), Options{Timeouts: generous(tc.timeouts)})
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

// TestBroken checks that each broken extension fails exactly its check,
// that those that can only warn warn exactly there, and that the
// compliant ones pass without a warning.
func TestBroken(t *testing.T) {
	needPython(t)
	reports := testAll(t, brokenCases)
	for _, tc := range brokenCases {
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

// TestCatalogHasABrokenCase keeps the catalog and the broken cases in
// step: every check has a case that fails or warns it.
func TestCatalogHasABrokenCase(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range brokenCases {
		for _, id := range append(tc.fail, tc.warn...) {
			covered[id] = true
		}
	}
	for _, c := range Catalog() {
		if !covered[c.ID] {
			t.Errorf("check %s has no case in testdata/broken", c.ID)
		}
	}
}
