package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
)

// conversation is one chat of a Runner with its Agent. It owns two
// goroutines: the presenter (output) and the worker (prompts and the
// commands that change the conversation, one at a time). Both end in
// close.
type conversation struct {
	chat  ChatID
	agent Agent
	t     Transport
	out   *presenter
	jobs  *queue[job]
	log   Logger
	lim   Limits

	unsubscribe, disconnect func()
	stopOut                 context.CancelFunc
	workerDone              chan struct{}
	tasks                   sync.WaitGroup // queries started by command

	mu        sync.Mutex
	cancelJob context.CancelFunc // of the running job, nil when idle
	questions map[string]*question
	listed    []string // the session ids /sessions showed, in order
}

// job is work for the worker.
type job struct {
	kind   string // "prompt", "compact", "new", "resume", "model", "command"
	update Update
	name   string // command
	arg    string
}

func (r *Runner) newConversation(ctx context.Context, chat ChatID) (*conversation, error) {
	a, err := r.cfg.NewAgent(ctx)
	if err != nil {
		return nil, err
	}
	c := &conversation{
		chat: chat, agent: a, t: r.cfg.Transport, jobs: newQueue[job](), log: r.log, lim: r.lim,
		out:        newPresenter(r.cfg.Transport, chat, r.log, r.cfg.EditInterval),
		questions:  map[string]*question{},
		workerDone: make(chan struct{}),
	}
	// Output outlives the runner's context by the drain in close.
	octx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stopOut = stop
	go c.out.run(octx)
	c.unsubscribe = a.Subscribe(c.out.event)
	c.disconnect = a.Connect(asker{out: c.out, c: c}, fileTools(r.cfg.Protocol, r.cfg.Files, r.lim, c.sendFile))
	go c.work(ctx)
	return c, nil
}

// sendFile hands a file to the presenter and waits until it is sent.
func (c *conversation) sendFile(ctx context.Context, f File) error {
	done := make(chan error, 1)
	if !c.out.q.push(item{file: &fileJob{f: f, done: done}}) {
		return errors.New("the chat is closed")
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drainTimeout bounds how long close waits for the last messages.
const drainTimeout = 10 * time.Second

// close stops the running turn, joins the worker, sends what is left,
// joins the presenter and closes the agent.
func (c *conversation) close() {
	c.jobs.close()
	c.jobs.clear()
	c.agent.Abort()
	c.mu.Lock()
	if c.cancelJob != nil {
		c.cancelJob()
	}
	c.mu.Unlock()
	<-c.workerDone
	c.tasks.Wait()
	c.disconnect()
	c.unsubscribe()
	c.out.q.close()
	t := time.NewTimer(drainTimeout)
	select {
	case <-c.out.done:
	case <-t.C:
		c.log.Printf("chat %s: the last messages could not be sent within %s", c.chat, drainTimeout)
	}
	t.Stop()
	c.stopOut()
	<-c.out.done
	if err := c.agent.Close(); err != nil {
		c.log.Printf("chat %s: close: %v", c.chat, err)
	}
}

// handle routes one update; it runs on the polling goroutine and does not
// block on the network.
func (c *conversation) handle(ctx context.Context, u Update) {
	switch {
	case u.Callback != nil:
		c.press(u.Callback)
	case u.Unsupported != "" && strings.TrimSpace(u.Text) == "" && len(u.Attachments) == 0:
		c.out.sayf("I read text, photos and documents; this message has %s.", u.Unsupported)
	case len(u.Attachments) == 0 && strings.HasPrefix(u.Text, "/"):
		name, args := parseCommand(u.Text)
		c.command(ctx, name, args)
	case strings.TrimSpace(u.Text) == "" && len(u.Attachments) == 0:
		// nothing to say
	default:
		c.enqueue(job{kind: "prompt", update: u})
	}
}

// busy reports whether a job runs or waits.
func (c *conversation) busy() bool {
	c.mu.Lock()
	running := c.cancelJob != nil
	c.mu.Unlock()
	return running || c.jobs.len() > 0
}

func (c *conversation) enqueue(j job) {
	queued := c.busy()
	if !c.jobs.push(j) {
		return
	}
	if queued && j.kind == "prompt" {
		c.out.sayf("⏳ Queued: it runs after the current turn. /stop cancels both.")
	}
}

func (c *conversation) work(ctx context.Context) {
	defer close(c.workerDone)
	for {
		j, ok := c.jobs.next(ctx)
		if !ok {
			return
		}
		c.run(ctx, j)
	}
}

func (c *conversation) run(ctx context.Context, j job) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancelJob = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cancelJob = nil
		c.mu.Unlock()
		cancel()
	}()
	var err error
	switch j.kind {
	case "prompt":
		in, notes := buildInput(ctx, c.t, c.lim, j.update)
		for _, n := range notes {
			c.out.sayf("⚠ %s", n)
		}
		if strings.TrimSpace(in.Text) == "" && len(in.Images) == 0 {
			return
		}
		err = c.agent.Prompt(ctx, in)
	case "compact":
		c.out.sayf("🗜 Compacting the conversation…")
		err = c.agent.Compact(ctx, j.arg)
	case "new":
		if err = c.agent.NewSession(ctx); err == nil {
			c.out.sayf("🆕 New conversation.")
		}
	case "resume":
		if err = c.agent.Resume(ctx, j.arg); err == nil {
			st := c.agent.Status()
			c.out.sayf("↩ Resumed %s (%d messages).", orDefault(st.Title, st.Session), st.Messages)
		}
	case "model":
		var m string
		if m, err = c.agent.SetModel(ctx, j.arg); err == nil {
			c.out.sayf("Model: %s", m)
		}
	case "command":
		err = c.agent.RunCommand(ctx, j.name, j.arg)
	}
	if err != nil && !errors.Is(err, agent.ErrAborted) && !errors.Is(err, context.Canceled) {
		c.out.sayf("⚠ %s", firstLine(err.Error()))
	}
}

// stop cancels the running job and drops the queued ones.
func (c *conversation) stop() {
	dropped := len(c.jobs.clear())
	c.mu.Lock()
	cancel := c.cancelJob
	c.mu.Unlock()
	c.agent.Abort()
	if cancel != nil {
		cancel()
	}
	switch {
	case cancel == nil && dropped == 0:
		c.out.sayf("Nothing is running.")
	case dropped > 0:
		c.out.sayf("⏹ Stopping; %d queued messages were dropped.", dropped)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
