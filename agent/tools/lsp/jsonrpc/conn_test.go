package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard bounds waits that only a bug would make long.
const hangGuard = 30 * time.Second

// pair connects two Conns through in-memory pipes.
func pair(t *testing.T, a, b Options) (*Conn, *Conn) {
	t.Helper()
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	ca := NewConn(r1, w2, a)
	cb := NewConn(r2, w1, b)
	t.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

func TestCallAnswers(t *testing.T) {
	tests := []struct {
		name    string
		handler func(ctx context.Context, method string, params json.RawMessage) (any, error)
		want    string
		wantErr string
	}{
		{name: "result", handler: func(_ context.Context, m string, p json.RawMessage) (any, error) {
			return map[string]string{"method": m, "params": string(p)}, nil
		}, want: `{"method":"add","params":"[1,2]"}`},
		{name: "null result", handler: func(context.Context, string, json.RawMessage) (any, error) { return nil, nil }, want: ``},
		{name: "rpc error", handler: func(context.Context, string, json.RawMessage) (any, error) {
			return nil, &Error{Code: RequestFailed, Message: "no identifier here"}
		}, wantErr: "no identifier here (code -32803)"},
		{name: "plain error", handler: func(context.Context, string, json.RawMessage) (any, error) {
			return nil, errors.New("boom")
		}, wantErr: "boom (code -32603)"},
		{name: "no handler", wantErr: "method not found: add (code -32601)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client, _ := pair(t, Options{}, Options{Request: tc.handler})
			var got json.RawMessage
			err := client.Call(testCtx(t), "add", []int{1, 2}, &got)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Call(add) error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Call(add) = %s, %v, want %s", got, err, tc.want)
			}
		})
	}
}

func TestNotificationsInOrder(t *testing.T) {
	var mu sync.Mutex
	var got []string
	client, server := pair(t, Options{Notification: func(m string, p json.RawMessage) {
		mu.Lock()
		got = append(got, m+string(p))
		mu.Unlock()
	}}, Options{Request: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		return "ok", nil
	}})
	ctx := testCtx(t)
	// The server sends its notifications before it answers the call,
	// through the same ordered writer, so all are seen once Call returns.
	done := make(chan error, 1)
	go func() {
		for i := range 100 {
			if err := server.Notify(ctx, "n", i); err != nil {
				done <- err
				return
			}
		}
		done <- server.Notify(ctx, "last", nil)
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A call from the client is answered after the server's queue drains.
	var reply string
	if err := client.Call(ctx, "sync", nil, &reply); err != nil {
		t.Fatal(err)
	}
	// The reply travelled server->client after the notifications.
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 101 || got[0] != "n0" || got[99] != "n99" || got[100] != "last" {
		t.Fatalf("notifications = %d, first %q, want 101 in order", len(got), got[:min(len(got), 3)])
	}
}

func TestCallCancelSendsCancelRequest(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan string, 1)
	release := make(chan struct{})
	defer close(release)
	client, _ := pair(t, Options{CancelMethod: "$/cancelRequest"}, Options{
		Request: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		},
		Notification: func(m string, p json.RawMessage) { cancelled <- m + " " + string(p) },
	})
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "slow", nil, nil) }()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call(slow) after cancel = %v, want context.Canceled", err)
	}
	select {
	case got := <-cancelled:
		if got != `$/cancelRequest {"id":1}` {
			t.Fatalf("peer got %q, want $/cancelRequest {\"id\":1}", got)
		}
	case <-time.After(hangGuard):
		t.Fatal("peer never got $/cancelRequest")
	}
}

func TestPeerGoneFailsPendingCalls(t *testing.T) {
	tests := []struct {
		name    string
		peer    func(w io.WriteCloser)
		wantErr string
	}{
		{name: "closed", peer: func(w io.WriteCloser) { w.Close() }, wantErr: "connection closed by the peer: EOF"},
		{name: "garbage", peer: func(w io.WriteCloser) { io.WriteString(w, "panic: runtime error\n\n") }, wantErr: `header has no Content-Length field (read "panic: runtime error")`},
		{name: "log line", peer: func(w io.WriteCloser) { io.WriteString(w, "starting server\n") }, wantErr: `malformed header line "starting server"`},
		{name: "huge", peer: func(w io.WriteCloser) { io.WriteString(w, "Content-Length: 999999999\r\n\r\n") }, wantErr: "over the 64 MiB limit"},
		{name: "not json", peer: func(w io.WriteCloser) { Write(w, []byte("hello")) }, wantErr: "message is not a JSON object"},
		{name: "cut", peer: func(w io.WriteCloser) { io.WriteString(w, "Content-Length: 10\r\n\r\n{"); w.Close() }, wantErr: "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r1, w1 := io.Pipe()
			r2, w2 := io.Pipe()
			go io.Copy(io.Discard, r2) // the peer reads the call
			c := NewConn(r1, w2, Options{})
			defer c.Close()
			errc := make(chan error, 1)
			go func() { errc <- c.Call(testCtx(t), "x", nil, nil) }()
			tc.peer(w1)
			err := <-errc
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Call with a %s peer = %v, want an error containing %q", tc.name, err, tc.wantErr)
			}
			<-c.Done()
			if c.Err() == nil {
				t.Fatal("Err() = nil after the connection ended")
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	client, _ := pair(t, Options{}, Options{Request: func(_ context.Context, _ string, p json.RawMessage) (any, error) {
		return json.RawMessage(p), nil
	}})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			var got int
			if err := client.Call(ctx, "echo", i, &got); err != nil || got != i {
				errs <- fmt.Errorf("Call(echo %d) = %d, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseEndsCalls(t *testing.T) {
	client, _ := pair(t, Options{}, Options{})
	client.Close()
	if err := client.Call(testCtx(t), "x", nil, nil); err != ErrClosed {
		t.Fatalf("Call after Close = %v, want ErrClosed", err)
	}
	if err := client.Notify(testCtx(t), "x", nil); err != ErrClosed {
		t.Fatalf("Notify after Close = %v, want ErrClosed", err)
	}
}
