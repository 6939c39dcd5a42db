// Package printmode runs zut's two one-shot modes: print mode (zut -p),
// which answers one prompt and prints the final text, and JSON mode
// (zut --mode json), which writes every agent event as one JSON line.
// Extension notes and warnings go to stderr in both.
//
// One prompt may become several: an extension's app.send queues a prompt
// of its own (interrupt aborts the running one first), and a prompt that
// is a slash command runs the command, whose answer may be a prompt.
package printmode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
)

// Print answers one prompt and prints the final assistant text. Notes
// from extensions and warnings go to stderr.
func Print(ctx context.Context, e *app.Env, o app.Options, prompt string) error {
	var (
		mu      sync.Mutex
		last    string
		notices []string
	)
	cwd, _ := os.Getwd()
	dim := dimmer(e)
	stats := newStatsRecorder(time.Now)
	streamed := false // --stream wrote text, not yet ended by a newline
	// One call for each delta of the answer, and the statistics do not
	// count them: only --stream does anything with them.
	text := func(d agent.TextDelta) {
		if o.Stream && d.Delta != "" {
			mu.Lock()
			io.WriteString(e.Stdout, d.Delta)
			streamed = true
			mu.Unlock()
		}
	}
	emit := func(ev agent.Event) {
		if d, ok := ev.(agent.TextDelta); ok {
			text(d)
			return
		}
		stats.record(ev)
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case agent.AssistantMessage:
			if t := visibleText(ev.Content); t != "" {
				last = t
			}
			if streamed {
				io.WriteString(e.Stdout, "\n")
				streamed, last = false, ""
			}
		case agent.ToolCall:
			dim(e.Stderr, toolLine(ev, cwd))
		case agent.Notice:
			notices = append(notices, ev.Message)
			fmt.Fprintf(e.Stderr, "zut: %s\n", noticeText(ev))
		case agent.RetryScheduled:
			fmt.Fprintf(e.Stderr, "zut: %s\n", retryText(ev))
		case agent.SubagentEnd:
			// A subagent that did not finish is named: one the run's
			// end stopped says so (the run awaits the others).
			if ev.Status != "done" {
				fmt.Fprintf(e.Stderr, "zut: subagent %s %s: %s\n", ev.ID, ev.Status, ev.Error)
			}
		}
	}
	r := &run{env: e, display: func(text string) { mu.Lock(); last = text; mu.Unlock() }, text: text}
	err := r.run(ctx, o, prompt, emit)
	mu.Lock()
	defer mu.Unlock()
	if o.Stats != "" {
		status, _ := r.outcome(err)
		if werr := stats.write(o.Stats, status); werr != nil {
			fmt.Fprintf(e.Stderr, "zut: %v\n", werr)
		}
	}
	stopped := errors.Is(err, agent.ErrMaxSteps)
	switch {
	case errors.Is(err, errBlocked):
		return fmt.Errorf("the turn was blocked: %s", strings.Join(notices, "; "))
	case err != nil && !stopped:
		return err
	}
	if last != "" {
		w := bufio.NewWriter(e.Stdout)
		w.WriteString(strings.TrimRight(last, "\n"))
		w.WriteString("\n")
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if stopped {
		return app.ErrStepLimit
	}
	if _, code := r.outcome(nil); code == app.StatusGoal {
		return app.ErrGoalStopped
	}
	return nil
}

// JSON answers one prompt and writes every agent event as one JSON
// object per line on stdout.
func JSON(ctx context.Context, e *app.Env, o app.Options, prompt string) error {
	var mu sync.Mutex
	w := bufio.NewWriter(e.Stdout)
	var werr error
	stats := newStatsRecorder(time.Now)
	write := func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		w.Write(line)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil && werr == nil {
			werr = err
		}
	}
	emit := func(ev agent.Event) {
		stats.record(ev)
		if line, err := agent.MarshalEvent(ev); err == nil {
			write(line)
		}
		// What is said about MCP servers (one skipped, failed, or left
		// behind) goes to stderr too, where a script's user looks.
		if n, ok := ev.(agent.Notice); ok && strings.HasPrefix(n.Source, "mcp:") {
			fmt.Fprintf(e.Stderr, "zut: %s\n", noticeText(n))
		}
	}
	r := &run{env: e, display: func(text string) {
		if line, err := agent.MarshalEvent(agent.Notice{Level: "info", Message: text}); err == nil {
			write(line)
		}
	}}
	err := r.run(ctx, o, prompt, emit)
	status, code := r.outcome(app.Interrupted(ctx, err))
	if o.Stats != "" {
		if serr := stats.write(o.Stats, status); serr != nil {
			fmt.Fprintf(e.Stderr, "zut: %v\n", serr)
		}
	}
	// Every run ends with exactly one end event, last, with its outcome.
	end := endEvent{Type: "end", Status: status, ExitCode: code, Usage: stats.total()}
	if err != nil && code != app.StatusStepLimit && code != app.StatusGoal {
		end.Error = err.Error()
	}
	if line, merr := json.Marshal(end); merr == nil {
		write(line)
	}
	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		return fmt.Errorf("write events: %w", werr)
	}
	switch {
	case errors.Is(err, errBlocked):
		return app.ErrSilent // the notice event says why
	case errors.Is(err, agent.ErrMaxSteps):
		return app.ErrStepLimit
	case err == nil && code == app.StatusGoal:
		return app.ErrGoalStopped
	}
	return err
}

// endEvent is the last line of every JSON run.
type endEvent struct {
	Type     string     `json:"type"`
	Status   string     `json:"status"`
	ExitCode int        `json:"exit_code"`
	Error    string     `json:"error,omitempty"`
	Usage    usageTotal `json:"usage"`
}

// outcome names how the run ended, with its exit status: done 0, error 1,
// usage error 2, max_steps 3, goal_budget or goal_blocked 4, stopped (an
// extension blocked the turn) 1, interrupted 130.
func (r *run) outcome(err error) (string, int) {
	var usage *app.UsageError
	var sig *app.SignalError
	switch {
	case errors.As(err, &usage):
		return "error", 2
	case errors.Is(err, agent.ErrMaxSteps) || errors.Is(err, app.ErrStepLimit):
		return "max_steps", app.StatusStepLimit
	case errors.As(err, &sig):
		return "interrupted", sig.ExitCode()
	case errors.Is(err, app.ErrAborted):
		return "interrupted", app.StatusInterrupted
	case errors.Is(err, errBlocked):
		return "stopped", 1
	case err != nil:
		return "error", 1
	}
	r.mu.Lock()
	g := r.goal
	r.mu.Unlock()
	switch {
	case g.Status == "paused" && g.By == "budget":
		return "goal_budget", app.StatusGoal
	case g.Status == "blocked":
		return "goal_blocked", app.StatusGoal
	}
	return "done", 0
}

// errBlocked is a prompt that ended without the user or an extension
// asking: an extension blocked its turn.
var errBlocked = errors.New("blocked")

// run is one invocation of print or JSON mode: the first prompt, then
// those that extensions queue with app.send, until none is left or an
// extension asks zut to exit (app.exit).
type run struct {
	env *app.Env
	// display shows the text of a command answered with display.
	display func(text string)
	// text, when set, takes the answer's text deltas in place of emit.
	text func(agent.TextDelta)

	mu     sync.Mutex
	queue  []string
	exit   bool
	cancel context.CancelFunc // of the running prompt
	goal   goalState          // the session's goal when the run ended
}

// goalState is what outcome needs of the session's goal.
type goalState struct{ Status, By string }

func (r *run) run(ctx context.Context, o app.Options, prompt string, emit func(agent.Event)) error {
	a, err := app.New(ctx, r.env, o, app.Frontend{UI: &stderrUI{w: r.env.Stderr, run: r}, Emit: emit, EmitText: r.text, OneShot: true})
	if err != nil {
		return err
	}
	defer a.Close()
	defer func() {
		if g, ok := a.Goal(); ok {
			r.mu.Lock()
			r.goal = goalState{Status: g.Status, By: g.By}
			r.mu.Unlock()
		}
	}()
	if a.Resolved().Note != "" {
		fmt.Fprintf(r.env.Stderr, "zut: %s\n", a.Resolved().Note)
	}
	// An extension that failed to load is named, as the UI and RPC do:
	// a notice on stderr, an event in JSON mode.
	if h := a.Host(); h != nil {
		for _, msg := range app.LoadErrors(h.Diagnostics()) {
			emit(agent.Notice{Level: "error", Message: msg})
		}
	}
	a.Start()
	text, source := prompt, "cli"
	for {
		err := r.one(ctx, a, text, source)
		next, exit := r.next()
		switch {
		case exit:
			return nil
		case ctx.Err() != nil:
			return app.ErrAborted
		case next != "":
			// An extension's app.send: interrupt aborted the prompt on
			// purpose, queue waited for it to end.
			text, source = next, "extension"
			continue
		case errors.Is(err, agent.ErrAborted):
			return errBlocked
		}
		return err
	}
}

// one runs text: a slash command when it names one, else a prompt.
func (r *run) one(ctx context.Context, a *app.App, text, source string) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.mu.Lock()
	r.cancel = cancel
	exit := r.exit
	r.mu.Unlock()
	if exit {
		return nil
	}
	if prompt, handled, err := command(pctx, a, text, r.display); handled {
		if err != nil || prompt == "" {
			return err
		}
		text, source = prompt, "extension"
	}
	return a.Prompt(pctx, agent.Input{Text: text, Source: source})
}

// next takes the next queued prompt, and says whether zut should exit.
func (r *run) next() (text string, exit bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exit {
		return "", true
	}
	if len(r.queue) == 0 {
		return "", false
	}
	text, r.queue = r.queue[0], r.queue[1:]
	return text, false
}

// enqueue serves app.send: the text runs as a prompt once the running one
// ends (the app has aborted it first for interrupt).
func (r *run) enqueue(text string) {
	r.mu.Lock()
	r.queue = append(r.queue, text)
	r.mu.Unlock()
}

// stop serves app.exit: the running prompt ends now and none follows.
func (r *run) stop() {
	r.mu.Lock()
	r.exit = true
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// visibleText joins the text blocks of an assistant message as shown.
func visibleText(blocks []agent.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func noticeText(n agent.Notice) string {
	s := n.Message
	if n.Source != "" {
		s = "[" + n.Source + "] " + s
	}
	return s
}

func retryText(r agent.RetryScheduled) string {
	d := (time.Duration(r.DelayMS) * time.Millisecond).Round(100 * time.Millisecond)
	s := fmt.Sprintf("retrying in %s (%d/%d)", d, r.Attempt+1, r.MaxAttempts)
	if r.Error != "" {
		s += ": " + r.Error
	}
	return s
}
