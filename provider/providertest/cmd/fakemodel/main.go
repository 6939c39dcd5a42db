// Command fakemodel serves a scripted model over HTTP for end-to-end tests
// that run zut as a separate process (shell, tmux, RPC). It speaks the
// Anthropic, OpenAI Chat Completions, OpenAI Responses and Ollama wires,
// prints its base URL on the first line of stdout, and serves until it is
// interrupted.
//
// Usage:
//
//	fakemodel [-addr 127.0.0.1:0] [-record requests.jsonl] [-loop] script.json
//
// The script is a JSON array of replies, answered in order (with -loop the
// script starts over; without it a request past the end gets a 500):
//
//	[
//	  {"text": "Let me look.", "tools": [{"id": "call_1", "name": "read", "args": {"path": "a.go"}}]},
//	  {"thinking": "Short.", "text": "Done.", "usage": {"input": 120, "output": 8}},
//	  {"status": 429, "error_type": "rate_limit_error", "error_message": "slow down",
//	   "header": {"retry-after-ms": "10"}},
//	  {"text": "slow answer", "delay_ms": 200, "event_delay_ms": 20, "chunks": 5},
//	  {"text": "cut off", "cut": true},
//	  {"hang": true}
//	]
//
// Point zut at it with, for example, --provider anthropic --base-url URL,
// or --provider openai --base-url URL/v1. With -record every request is
// appended to the file as a JSON line (wire, path, model, body; no keys).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func loadScript(path string) ([]providertest.Reply, error) {
	data, err := os.ReadFile(path) //zut:open test support: the test's own files
	if err != nil {
		return nil, err
	}
	r, err := providertest.ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("read script %s: %v", path, err)
	}
	return r, nil
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	record := fs.String("record", "", "append each request to this file as a JSON line")
	loop := fs.Bool("loop", false, "start the script over after its last reply")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"usage: fakemodel [-addr HOST:PORT] [-record FILE] [-loop] script.json"}
	}
	replies, err := loadScript(fs.Arg(0))
	if err != nil {
		return err
	}
	var rec io.Writer
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644) //zut:open test support: the test's own files
		if err != nil {
			return err
		}
		defer f.Close()
		rec = f
	}
	var mu sync.Mutex
	handler := providertest.NewHandlerFunc(func(r providertest.Recorded) providertest.Reply {
		if rec != nil {
			line, _ := json.Marshal(map[string]any{"n": r.N, "wire": r.Wire, "path": r.Path, "model": r.Model, "has_key": r.HasKey, "body": r.Body})
			mu.Lock()
			rec.Write(append(line, '\n'))
			mu.Unlock()
		}
		n := r.N
		if *loop && len(replies) > 0 {
			n %= len(replies)
		}
		if n < len(replies) {
			return replies[n]
		}
		return providertest.Reply{Status: http.StatusInternalServerError, ErrorType: "api_error",
			ErrorMessage: fmt.Sprintf("fakemodel: request %d has no scripted reply (%d scripted)", r.N+1, len(replies))}
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
	}
	<-done
	return nil
}
