package rpcmode

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zut-go/zut/agent"
)

// errRPCBusy refuses commands that cannot wait for the running prompt.
var errRPCBusy = errors.New("busy: a prompt or compaction is running or waiting; wait for its done (or compact_done) event, or send abort first")

// rpcJob is a prompt or a compaction: the commands that run one at a time
// and wait for each other.
type rpcJob struct {
	kind         string // "prompt" or "compact"
	input        agent.Input
	instructions string
	// started is called when the job starts, before it runs: it sends the
	// command's response. dropped is called instead when abort or shutdown
	// removes the job before it started.
	started func()
	dropped func(reason string)
}

// rpcJobs runs jobs one at a time, in order, on one worker goroutine
// (run). Commands that change the conversation use idle to run while no
// job runs or waits. Safe for concurrent use.
type rpcJobs struct {
	max int

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*rpcJob
	running *rpcJob
	cancel  context.CancelFunc // of the running job
	closed  bool
	done    chan struct{} // closed when run returns
}

func newRPCJobs(max int) *rpcJobs {
	j := &rpcJobs{max: max, done: make(chan struct{})}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// add queues job. It fails when too many jobs wait or the queue is closed.
func (j *rpcJobs) add(job *rpcJob) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errors.New("zut is shutting down: no new prompts")
	}
	if len(j.queue) >= j.max {
		return fmt.Errorf("%d prompts are already waiting: wait for done events before sending more", len(j.queue))
	}
	j.queue = append(j.queue, job)
	j.cond.Signal()
	return nil
}

// busy reports whether a job runs or waits.
func (j *rpcJobs) busy() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.running != nil || len(j.queue) > 0
}

// state returns the kind of the running job ("" when idle) and how many
// wait.
func (j *rpcJobs) state() (running string, queued int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running != nil {
		running = j.running.kind
	}
	return running, len(j.queue)
}

// idle runs fn while no job runs or waits, and keeps jobs from starting
// until fn returns; it returns errRPCBusy without calling fn otherwise.
func (j *rpcJobs) idle(fn func() error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running != nil || len(j.queue) > 0 {
		return errRPCBusy
	}
	return fn()
}

// runningKind calls fn with the kind of the running job while holding the
// queue lock, so the job cannot end meanwhile in the queue's view.
func (j *rpcJobs) withRunning(fn func(kind string)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	kind := ""
	if j.running != nil {
		kind = j.running.kind
	}
	fn(kind)
}

// dropQueued removes the waiting jobs and tells each why. It reports
// whether there were any.
func (j *rpcJobs) dropQueued(reason string) bool {
	j.mu.Lock()
	dropped := j.queue
	j.queue = nil
	j.mu.Unlock()
	for _, job := range dropped {
		job.dropped(reason)
	}
	return len(dropped) > 0
}

// cancelRunning cancels the running job's context. It reports whether a
// job was running.
func (j *rpcJobs) cancelRunning() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cancel != nil {
		j.cancel()
	}
	return j.running != nil
}

// finish marks the running job as finished, before exec returns, so that
// commands see zut idle as soon as the job's last event is out.
func (j *rpcJobs) finish() {
	j.mu.Lock()
	j.running, j.cancel = nil, nil
	j.mu.Unlock()
}

// close lets run finish the queued jobs and return.
func (j *rpcJobs) close() {
	j.mu.Lock()
	j.closed = true
	j.cond.Signal()
	j.mu.Unlock()
}

// run is the worker goroutine: it runs jobs with exec until close has
// been called and the queue is empty. Each job gets its own context,
// derived from ctx and cancelled by cancelRunning. Once ctx has ended no
// job starts: those still waiting when close is called are dropped.
func (j *rpcJobs) run(ctx context.Context, exec func(ctx context.Context, job *rpcJob)) {
	defer close(j.done)
	for {
		j.mu.Lock()
		for (len(j.queue) == 0 || ctx.Err() != nil) && !j.closed {
			j.cond.Wait()
		}
		if len(j.queue) == 0 || ctx.Err() != nil {
			left := j.queue
			j.queue = nil
			j.mu.Unlock()
			for _, job := range left {
				job.dropped("zut is exiting")
			}
			return
		}
		job := j.queue[0]
		j.queue = j.queue[1:]
		jctx, cancel := context.WithCancel(ctx)
		j.running, j.cancel = job, cancel
		j.mu.Unlock()

		job.started()
		exec(jctx, job)
		cancel()
		j.finish()
	}
}
