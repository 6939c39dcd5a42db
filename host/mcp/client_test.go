package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host/procgroup"
)

func TestClientHandshakeAndTools(t *testing.T) {
	checkNoLeaks(t)
	c, _ := connectFake(t, "ok", ConnectOptions{})
	if c.Version() != Versions[0] || c.Server().Name != "fake" || c.Server().Version != "1.2.3" {
		t.Fatalf("handshake = %q %+v, want %q fake 1.2.3", c.Version(), c.Server(), Versions[0])
	}
	if c.Instructions() != "Use the fake tools." {
		t.Errorf("Instructions() = %q", c.Instructions())
	}
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	want := "echo image audio link embedded structured fail slow wait sample elicit crash change huge endless pingback"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("Tools() over two pages = %q, want %q", got, want)
	}
}

func TestClientResults(t *testing.T) {
	c, _ := connectFake(t, "ok", ConnectOptions{})
	var b strings.Builder
	for _, name := range []string{"echo", "image", "audio", "link", "embedded", "structured", "fail"} {
		res, err := c.CallTool(context.Background(), name, json.RawMessage(`{"message":"hello"}`), nil)
		if err != nil {
			t.Fatalf("CallTool(%q) = %v", name, err)
		}
		fmt.Fprintf(&b, "== %s isError=%v\n", name, res.IsError)
		for _, bl := range res.Blocks() {
			if bl.Type == "image" {
				fmt.Fprintf(&b, "image %s %d base64 bytes\n", bl.MIMEType, len(bl.Data))
				continue
			}
			fmt.Fprintf(&b, "text %s\n", bl.Text)
		}
	}
	golden(t, "results.golden", b.String())

	_, err := c.CallTool(context.Background(), "nosuch", nil, nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || !strings.Contains(err.Error(), `mcp server "fake"`) {
		t.Errorf("CallTool(nosuch) = %v, want an RPCError -32602 naming the server", err)
	}
	if _, err := c.CallTool(context.Background(), "echo", json.RawMessage(`[1]`), nil); err == nil {
		t.Errorf("CallTool with array arguments = nil error, want one")
	}
}

func TestClientProgress(t *testing.T) {
	c, _ := connectFake(t, "ok", ConnectOptions{})
	var got []string
	res, err := c.CallTool(context.Background(), "slow", nil, func(p Progress) {
		got = append(got, fmt.Sprintf("%v/%v %s", p.Progress, p.Total, p.Message))
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1/3 step 1|2/3 step 2|3/3 step 3"; strings.Join(got, "|") != want {
		t.Errorf("progress = %q, want %q", strings.Join(got, "|"), want)
	}
	if res.Text() != "done" {
		t.Errorf("result = %q, want done", res.Text())
	}
}

func TestClientCancel(t *testing.T) {
	checkNoLeaks(t)
	c, _ := connectFake(t, "ok", ConnectOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "wait", nil, nil)
		errc <- err
	}()
	// The server has the call and waits for its cancellation.
	waitLog(t, c.LogPath(), "waits for its cancellation")
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled CallTool = %v, want context.Canceled", err)
	}
	// The server learns of it through notifications/cancelled.
	waitLog(t, c.LogPath(), " cancelled\n")
}

func TestClientServerRequests(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		sampling SamplingFunc
		want     string
		note     string
	}{
		{"sampling not offered", "sample", nil, `"code":-32601`, "zut does not offer sampling"},
		{"sampling refused", "sample", func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("the user declined")
		}, `{"code":-1,"message":"the user declined"}`, ""},
		{"elicitation", "elicit", nil, `"code":-32601`, "nobody can answer here"},
		{"ping from the server", "pingback", nil, "ping answer: {}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, n := connectFake(t, "ok", ConnectOptions{ClientOptions: ClientOptions{Sampling: tc.sampling}})
			res, err := c.CallTool(context.Background(), tc.tool, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text(), tc.want) {
				t.Errorf("CallTool(%q) = %q, want it to contain %q", tc.tool, res.Text(), tc.want)
			}
			if tc.note != "" && !strings.Contains(n.all(), tc.note) {
				t.Errorf("notes = %q, want one containing %q", n.all(), tc.note)
			}
		})
	}
}

func TestClientVersions(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			c, _ := connectFake(t, "ok", ConnectOptions{}, "ZUT_MCP_FAKE_VERSION", v)
			if c.Version() != v {
				t.Errorf("Version() = %q, want %q", c.Version(), v)
			}
		})
	}
	t.Run("unsupported", func(t *testing.T) {
		_, err := Connect(context.Background(), fakeConfig(t, "old", "ok", "ZUT_MCP_FAKE_VERSION", "2024-11-05"), ConnectOptions{Home: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), `speaks protocol version "2024-11-05"`) {
			t.Errorf("Connect to a 2024-11-05 server = %v, want a version error", err)
		}
	})
}

func TestClientBadServers(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		timeout time.Duration
		want    []string
	}{
		{"exits at once", "exit", 0, []string{`start mcp server "bad"`, "exit status 3", "its log is"}},
		{"never answers initialize", "silent", 300 * time.Millisecond, []string{`mcp server "bad" did not answer initialize within 300ms`}},
		{"command missing", "", 0, []string{`command "/nonexistent/zut-mcp" not found`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkNoLeaks(t)
			home := t.TempDir()
			cfg := fakeConfig(t, "bad", tc.mode)
			if tc.mode == "" {
				cfg.Command = "/nonexistent/zut-mcp"
			}
			_, err := Connect(context.Background(), cfg, ConnectOptions{Home: home, ClientOptions: ClientOptions{InitTimeout: tc.timeout}})
			if err == nil {
				t.Fatal("Connect = nil error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Connect(%s) = %v, want it to contain %q", tc.mode, err, w)
				}
			}
			if tc.mode == "exit" {
				if log := readLog(t, LogPath(home, "bad")); !strings.Contains(log, "fatal: no configuration") {
					t.Errorf("log lacks the server's stderr:\n%s", log)
				}
			}
		})
	}
}

func TestClientMalformed(t *testing.T) {
	c, n := connectFake(t, "malformed", ConnectOptions{})
	res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"still works"}`), nil)
	if err != nil || res.Text() != "still works" {
		t.Fatalf("CallTool after malformed lines = %v, %v", res, err)
	}
	if !strings.Contains(n.all(), `mcp server "fake" sent a message that is not JSON`) {
		t.Errorf("notes = %q, want one about a message that is not JSON", n.all())
	}
	if log := readLog(t, c.LogPath()); strings.Count(log, "skipped") < 3 {
		t.Errorf("log should record each skipped message:\n%s", log)
	}
}

func TestClientDisconnects(t *testing.T) {
	tests := []struct {
		tool string
		want string
	}{
		{"crash", "it exited (exit status 7)"},
		{"huge", "longer than 16 MiB"},
		{"endless", "longer than 16 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			checkNoLeaks(t)
			c, _ := connectFake(t, "ok", ConnectOptions{})
			pid := pidOf(c)
			_, err := c.CallTool(context.Background(), tc.tool, nil, nil)
			var stopped *StoppedError
			if !errors.As(err, &stopped) || stopped.Server != "fake" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CallTool(%s) = %v, want a StoppedError naming fake and %q", tc.tool, err, tc.want)
			}
			if _, err := c.CallTool(context.Background(), "echo", nil, nil); !errors.As(err, &stopped) {
				t.Errorf("CallTool after the end = %v, want a StoppedError", err)
			}
			c.Close()
			if procgroup.Alive(pid) {
				t.Errorf("process group %d still alive after Close", pid)
			}
		})
	}
}

func TestClientCloseStopsServer(t *testing.T) {
	checkNoLeaks(t)
	c, _ := connectFake(t, "ok", ConnectOptions{})
	pid := pidOf(c)
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if procgroup.Alive(pid) {
		t.Errorf("process group %d still alive after Close", pid)
	}
	log := readLog(t, c.LogPath())
	if !strings.Contains(log, "fake server: stdin closed") || strings.Contains(log, "SIGTERM") {
		t.Errorf("the server should stop when its stdin closes, before any signal:\n%s", log)
	}
	if fi, err := os.Stat(c.LogPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}
