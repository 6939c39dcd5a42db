package mcp

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// hangGuard bounds waits that only a broken build would exceed.
const hangGuard = 60 * time.Second

func fakeConfig(t testing.TB, name, mode string, env ...string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"ZUT_MCP_FAKE": mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return ServerConfig{Name: name, Origin: OriginGlobal, Transport: "stdio", Command: exe, Args: []string{"-test.run=^$"}, Env: e, Enabled: true}
}

// notes collects the notes of a client or manager.
type notes struct {
	mu   sync.Mutex
	list []string
	ch   chan string
}

func newNotes() *notes { return &notes{ch: make(chan string, 100)} }

func (n *notes) add(msg string) {
	n.mu.Lock()
	n.list = append(n.list, msg)
	n.mu.Unlock()
	select {
	case n.ch <- msg:
	default:
	}
}

func (n *notes) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.list, "\n")
}

// waitNote waits for a note containing sub.
func (n *notes) waitNote(t *testing.T, sub string) {
	t.Helper()
	if strings.Contains(n.all(), sub) {
		return
	}
	timer := time.NewTimer(hangGuard)
	defer timer.Stop()
	for {
		select {
		case msg := <-n.ch:
			if strings.Contains(msg, sub) {
				return
			}
		case <-timer.C:
			t.Fatalf("no note containing %q; notes:\n%s", sub, n.all())
		}
	}
}

func connectFake(t *testing.T, mode string, opts ConnectOptions, env ...string) (*Client, *notes) {
	t.Helper()
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	n := newNotes()
	if opts.Note == nil {
		opts.Note = n.add
	}
	c, err := Connect(context.Background(), fakeConfig(t, "fake", mode, env...), opts)
	if err != nil {
		t.Fatalf("Connect(%s) = %v", mode, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, n
}

// checkNoLeaks fails when goroutines started after base outlive the
// test's clean-up; it waits for them to end (they may be finishing).
func checkNoLeaks(t *testing.T) {
	t.Helper()
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(hangGuard)
		for runtime.NumGoroutine() > base {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Errorf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), base, buf[:n])
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func pidOf(c *Client) int {
	if st, ok := c.t.(*stdioTransport); ok {
		return st.pid
	}
	return 0
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}

// waitLog waits for the log at path to contain sub.
func waitLog(t *testing.T, path, sub string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), sub) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s never contained %q:\n%s", path, sub, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func runtimeGosched()                            { time.Sleep(time.Millisecond) }
func timeAfter(d time.Duration) <-chan time.Time { return time.After(d) }

type contextT = context.Context

func contextBG() context.Context { return context.Background() }

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}
