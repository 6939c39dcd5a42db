package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host/procgroup"
)

// The reference servers from npm, installed by .ci/run with
//
//	npm install --prefix "$ZUT_MCP_SERVERS_DIR" @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31
//
// and found through ZUT_MCP_SERVERS_DIR.

func serverScript(t testing.TB, pkg string) string {
	t.Helper()
	dir := os.Getenv("ZUT_MCP_SERVERS_DIR")
	if dir == "" {
		t.Skip("set ZUT_MCP_SERVERS_DIR to a directory where @modelcontextprotocol/server-everything and server-filesystem are npm-installed")
	}
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("%s is not installed in ZUT_MCP_SERVERS_DIR: %v", pkg, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return script
}

func everythingStdio(t testing.TB) ServerConfig {
	return ServerConfig{Name: "everything", Origin: OriginGlobal, Transport: "stdio", Command: "node",
		Args: []string{serverScript(t, "server-everything"), "stdio"}, Enabled: true}
}

func refuseSampling(ctx context.Context, server string, p json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("zut refuses sampling in this test")
}

// exerciseEverything drives the everything server through m: tools of
// each content kind, progress, cancellation, refused sampling, prompts,
// resources and list changes.
func exerciseEverything(t *testing.T, m *Manager, ev *events, name string) {
	ctx := context.Background()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	tool := func(s string) string { return "mcp__" + name + "__" + s }
	call := func(s, args string, progress func(Progress)) *Result {
		t.Helper()
		res, err := m.Call(ctx, tool(s), json.RawMessage(args), progress)
		if err != nil {
			t.Fatalf("Call(%s) = %v", s, err)
		}
		return res
	}
	if r := call("echo", `{"message":"hi there"}`, nil); !strings.Contains(r.Text(), "hi there") {
		t.Errorf("echo = %q", r.Text())
	}
	if r := call("get-sum", `{"a":2,"b":40}`, nil); !strings.Contains(r.Text(), "42") {
		t.Errorf("get-sum = %q", r.Text())
	}
	img := call("get-tiny-image", `{}`, nil)
	found := false
	for _, b := range img.Blocks() {
		found = found || b.Type == "image" && b.MIMEType == "image/png"
	}
	if !found {
		t.Errorf("get-tiny-image gave no PNG block: %q", img.Text())
	}
	if r := call("get-resource-links", `{"count":2}`, nil); !strings.Contains(r.Text(), "[resource link:") {
		t.Errorf("get-resource-links = %q", r.Text())
	}
	if r := call("get-resource-reference", `{"resourceType":"Text","resourceId":3}`, nil); !strings.Contains(r.Text(), "[resource <demo://resource/dynamic/text/3>") {
		t.Errorf("get-resource-reference = %q", r.Text())
	}
	if r := call("get-structured-content", `{"location":"New York"}`, nil); len(r.Structured) == 0 {
		t.Errorf("get-structured-content has no structured content: %q", r.Text())
	}
	var steps []float64
	if r := call("trigger-long-running-operation", `{"duration":0.3,"steps":3}`, func(p Progress) { steps = append(steps, p.Progress) }); !strings.Contains(r.Text(), "completed") {
		t.Errorf("long-running = %q", r.Text())
	}
	if fmt.Sprint(steps) != "[1 2 3]" {
		t.Errorf("progress = %v, want [1 2 3]", steps)
	}
	// Cancelling a long operation returns at once.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := m.Call(cctx, tool("trigger-long-running-operation"), json.RawMessage(`{"duration":60,"steps":2}`), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled long-running = %v", err)
	}
	// Sampling is refused cleanly: the tool fails, nothing hangs.
	res, err := m.Call(ctx, tool("trigger-sampling-request"), json.RawMessage(`{"prompt":"hello"}`), nil)
	if err == nil && !res.IsError {
		t.Errorf("sampling tool succeeded although zut refused: %q", res.Text())
	}
	// A tool that registers a resource: the server says the resource list
	// changed, and the new resource appears.
	call("gzip-file-as-resource", `{"name":"zipped.gz","data":"data:text/plain;base64,aGVsbG8=","outputType":"resourceLink"}`, nil)
	for !hasResource(m, "demo://resource/session/zipped.gz") {
		select {
		case <-ev.res:
		case <-time.After(hangGuard):
			t.Fatalf("no resources/list_changed after gzip-file-as-resource")
		}
	}
	// Prompts.
	var args Prompt
	for _, p := range m.Prompts() {
		if p.Prompt == "args-prompt" {
			args = p
		}
	}
	pa, err := PromptArgs(args, "Paris")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := m.Prompt(ctx, args.Name, pa)
	if err != nil || !strings.Contains(pr.Text(), "Paris") {
		t.Errorf("args-prompt = %v, %v", pr, err)
	}
	// Resources.
	if len(m.Resources()) == 0 || len(m.Templates()) == 0 {
		t.Errorf("resources %d, templates %d", len(m.Resources()), len(m.Templates()))
	}
	r := m.ResourceTool(ctx, json.RawMessage(`{"server":"`+name+`","uri":"demo://resource/dynamic/text/1"}`))
	if r.IsError || !strings.Contains(r.Text(), "demo://resource/dynamic/text/1") {
		t.Errorf("mcp_resource = %q", r.Text())
	}
}

func hasResource(m *Manager, uri string) bool {
	for _, r := range m.Resources() {
		if r.URI == uri {
			return true
		}
	}
	return false
}

func TestEverythingStdio(t *testing.T) {
	checkNoLeaks(t)
	cfg := everythingStdio(t)
	ev := newEvents()
	rec := &recorder{}
	m := NewManager(Options{Home: t.TempDir(), Config: &Config{Servers: []ServerConfig{cfg}}, Callbacks: ev.callbacks(),
		Sampling: refuseSampling, Trace: rec.trace, StartTimeout: hangGuard})
	defer m.Close()
	exerciseEverything(t, m, ev, "everything")
	st := m.Servers()[0]
	m.Close()
	if conformanceDir() != "" {
		if n := rec.check(t, "everything", st.Protocol); n < 20 {
			t.Errorf("only %d frames checked", n)
		}
	}
}

// startNode runs the everything server on HTTP (mode streamableHttp or
// sse) on a free loopback port and returns its base URL once it listens.
func startNode(t *testing.T, mode string) string {
	script := serverScript(t, "server-everything")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", script, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	procgroup.Set(cmd)
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		procgroup.Kill(cmd.Process.Pid)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() { // wait for the event, not for a time
		if strings.Contains(sc.Text(), fmt.Sprint(port)) {
			go func() {
				for sc.Scan() {
				}
			}()
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}
	}
	t.Fatalf("the everything server (%s) did not start", mode)
	return ""
}

func TestEverythingHTTP(t *testing.T) {
	base := startNode(t, "streamableHttp")
	ev := newEvents()
	rec := &recorder{}
	cfg := ServerConfig{Name: "web", Origin: OriginGlobal, Transport: "http", URL: base + "/mcp", Enabled: true}
	m := NewManager(Options{Home: t.TempDir(), Config: &Config{Servers: []ServerConfig{cfg}}, Callbacks: ev.callbacks(),
		Sampling: refuseSampling, Trace: rec.trace})
	defer m.Close()
	exerciseEverything(t, m, ev, "web")
	st := m.Servers()[0]
	if st.Transport != "http" {
		t.Errorf("transport = %q", st.Transport)
	}
	m.Close()
	if !strings.Contains(readLog(t, st.Log), "session deleted") {
		t.Errorf("Close did not DELETE the session:\n%s", readLog(t, st.Log))
	}
	if conformanceDir() != "" {
		rec.check(t, "web", st.Protocol)
	}
}

func TestEverythingLegacySSE(t *testing.T) {
	base := startNode(t, "sse")
	cfg := ServerConfig{Name: "old", Origin: OriginGlobal, Transport: "http", URL: base + "/sse", Enabled: true}
	c, err := Connect(context.Background(), cfg, ConnectOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Transport() != "sse" {
		t.Errorf("transport = %q, want the sse fallback", c.Transport())
	}
	res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"legacy"}`), nil)
	if err != nil || !strings.Contains(res.Text(), "legacy") {
		t.Errorf("echo over HTTP+SSE = %v, %v", res, err)
	}
}

func TestFilesystemStdio(t *testing.T) {
	checkNoLeaks(t)
	script := serverScript(t, "server-filesystem")
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from disk\n"), 0o644)
	cfg := ServerConfig{Name: "fs", Origin: OriginGlobal, Transport: "stdio", Command: "node", Args: []string{script, root}, Enabled: true}
	rec := &recorder{}
	m := NewManager(Options{Home: t.TempDir(), CWD: root, Config: &Config{Servers: []ServerConfig{cfg}}, Trace: rec.trace})
	defer m.Close()
	ctx := context.Background()
	m.Wait(ctx)
	call := func(tool string, args any) *Result {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := m.Call(ctx, "mcp__fs__"+tool, b, nil)
		if err != nil {
			t.Fatalf("Call(%s) = %v (tools: %s)", tool, err, toolNames(m))
		}
		return res
	}
	if r := call("read_text_file", map[string]string{"path": filepath.Join(root, "hello.txt")}); !strings.Contains(r.Text(), "hello from disk") {
		t.Errorf("read_text_file = %q", r.Text())
	}
	call("write_file", map[string]string{"path": filepath.Join(root, "new.txt"), "content": "written by an MCP tool"})
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "written by an MCP tool" {
		t.Errorf("new.txt = %q, %v", b, err)
	}
	if r := call("list_directory", map[string]string{"path": root}); !strings.Contains(r.Text(), "new.txt") {
		t.Errorf("list_directory = %q", r.Text())
	}
	if r := call("read_text_file", map[string]string{"path": "/etc/passwd"}); !r.IsError {
		t.Errorf("reading outside the root succeeded: %q", r.Text())
	}
	if conformanceDir() != "" {
		rec.check(t, "fs", m.Servers()[0].Protocol)
	}
}
