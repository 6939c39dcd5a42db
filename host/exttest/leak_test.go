//go:build linux

package exttest

import (
	"context"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestNothingLeftBehind runs the extension that leaves a child behind and
// the one that ignores shutdown, then checks that Test stopped every
// process and joined every goroutine it started.
func TestNothingLeftBehind(t *testing.T) {
	needPython(t)
	before := runtime.NumGoroutine()
	ctx := context.Background()
	rep, err := Test(ctx, filepath.Join("testdata", "corpus", "robustness.process_group"), Options{Timeouts: generous(Timeouts{Group: 500 * time.Millisecond})})
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, c := range rep.Checks {
		if c.ID == "robustness.process_group" {
			for _, m := range regexp.MustCompile(`: (\d+) sleep 30`).FindAllStringSubmatch(c.Message, -1) {
				pid, _ := strconv.Atoi(m[1])
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no leftover sleep named in the report:\n%+v", rep.Checks)
	}
	if _, err := Test(ctx, filepath.Join("testdata", "corpus", "robustness.shutdown"), Options{Timeouts: generous(Timeouts{Shutdown: 500 * time.Millisecond})}); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		// The leftover was reparented; wait for whoever reaps it.
		deadline := time.Now().Add(30 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d (sleep 30) of the extension's group still runs after Test returned", pid)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Test, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
