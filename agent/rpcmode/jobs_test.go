package rpcmode

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

// TestRPCJobs checks that jobs run one at a time in order, that idle
// refuses while a job runs or waits, that dropQueued tells each dropped
// job, that cancelRunning cancels the running one, and that close lets
// the worker finish what waits.
func TestRPCJobs(t *testing.T) {
	j := newRPCJobs(2)
	var mu sync.Mutex
	var log []string
	note := func(s string) {
		mu.Lock()
		log = append(log, s)
		mu.Unlock()
	}
	running := make(chan struct{}, 10)
	exec := func(ctx context.Context, job *rpcJob) {
		note("run " + job.input.Text)
		running <- struct{}{}
		if job.input.Text == "block" {
			<-ctx.Done()
			note("cancelled " + job.input.Text)
		}
	}
	job := func(name string) *rpcJob {
		j := &rpcJob{kind: "prompt", started: func() { note("start " + name) },
			dropped: func(reason string) { note("drop " + name + ": " + reason) }}
		j.input.Text = name
		return j
	}
	go j.run(context.Background(), exec)

	if err := j.idle(func() error { note("idle"); return nil }); err != nil {
		t.Fatalf("idle() on an empty queue = %v", err)
	}
	if err := j.add(job("block")); err != nil {
		t.Fatal(err)
	}
	<-running
	if !j.busy() {
		t.Errorf("busy() = false while a job runs")
	}
	if err := j.idle(func() error { t.Error("idle ran fn while busy"); return nil }); !errors.Is(err, errRPCBusy) {
		t.Errorf("idle() while busy = %v, want errRPCBusy", err)
	}
	for _, n := range []string{"a", "b"} {
		if err := j.add(job(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.add(job("c")); err == nil {
		t.Errorf("add() past the limit of 2 waiting jobs = nil, want an error")
	}
	if running, queued := j.state(); running != "prompt" || queued != 2 {
		t.Errorf("state() = %q, %d; want prompt, 2", running, queued)
	}
	if !j.dropQueued("gone") {
		t.Errorf("dropQueued() = false with two waiting jobs")
	}
	if !j.cancelRunning() {
		t.Errorf("cancelRunning() = false with a running job")
	}
	if err := j.add(job("d")); err != nil {
		t.Fatal(err)
	}
	j.close()
	<-j.done
	if err := j.add(job("e")); err == nil {
		t.Errorf("add() after close = nil, want an error")
	}
	want := []string{"idle", "start block", "run block", "drop a: gone", "drop b: gone", "cancelled block", "start d", "run d"}
	if !slices.Equal(log, want) {
		t.Errorf("jobs log = %q, want %q", log, want)
	}
}
