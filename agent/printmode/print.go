// Package printmode runs zut's two one-shot modes: print mode (zut -p),
// which answers one prompt and prints the final text, and JSON mode
// (zut --mode json), which writes every agent event as one JSON line.
// Extension notes and warnings go to stderr in both.
package printmode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
)

// Print answers one prompt and prints the final assistant text. Notes
// from extensions and warnings go to stderr.
func Print(ctx context.Context, e *app.Env, o app.Options, prompt string) error {
	var last string
	var notices []string
	emit := func(ev agent.Event) {
		switch ev := ev.(type) {
		case agent.AssistantMessage:
			if t := visibleText(ev.Content); t != "" {
				last = t
			}
		case agent.Notice:
			notices = append(notices, ev.Message)
			fmt.Fprintf(e.Stderr, "zut: %s\n", noticeText(ev))
		case agent.RetryScheduled:
			fmt.Fprintf(e.Stderr, "zut: %s\n", retryText(ev))
		}
	}
	a, err := app.New(ctx, e, o, app.Frontend{UI: &stderrUI{w: e.Stderr}, Emit: emit})
	if err != nil {
		return err
	}
	defer a.Close()
	if a.Resolved().Note != "" {
		fmt.Fprintf(e.Stderr, "zut: %s\n", a.Resolved().Note)
	}
	a.Start()
	err = a.Prompt(ctx, agent.Input{Text: prompt})
	switch {
	case errors.Is(err, agent.ErrAborted) && ctx.Err() != nil:
		return app.ErrAborted
	case errors.Is(err, agent.ErrAborted):
		return fmt.Errorf("the turn was blocked: %s", strings.Join(notices, "; "))
	case err != nil:
		return err
	}
	if last != "" {
		w := bufio.NewWriter(e.Stdout)
		w.WriteString(strings.TrimRight(last, "\n"))
		w.WriteString("\n")
		return w.Flush()
	}
	return nil
}

// JSON answers one prompt and writes every agent event as one JSON
// object per line on stdout.
func JSON(ctx context.Context, e *app.Env, o app.Options, prompt string) error {
	var mu sync.Mutex
	w := bufio.NewWriter(e.Stdout)
	var werr error
	emit := func(ev agent.Event) {
		line, err := agent.MarshalEvent(ev)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write(line)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil && werr == nil {
			werr = err
		}
	}
	a, err := app.New(ctx, e, o, app.Frontend{UI: &stderrUI{w: e.Stderr}, Emit: emit})
	if err != nil {
		return err
	}
	defer a.Close()
	a.Start()
	err = a.Prompt(ctx, agent.Input{Text: prompt})
	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		return fmt.Errorf("write events: %w", werr)
	}
	switch {
	case errors.Is(err, agent.ErrAborted) && ctx.Err() != nil:
		return app.ErrAborted
	case errors.Is(err, agent.ErrAborted):
		return app.ErrSilent // the notice event says why
	}
	return err
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
