package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"testing"
)

// BenchmarkCallRoundTrip is one tools/call through the client to a stdio
// server and back.
func BenchmarkCallRoundTrip(b *testing.B) {
	c, err := Connect(context.Background(), fakeConfig(b, "fake", "ok"), ConnectOptions{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := json.RawMessage(`{"message":"ping"}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.CallTool(context.Background(), "echo", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawRoundTrip is the same exchange without the client: the
// line written and read by hand, the floor the client adds to.
func BenchmarkRawRoundTrip(b *testing.B) {
	cfg := fakeConfig(b, "fake", "ok")
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(cmd.Environ(), "ZUT_MCP_FAKE=ok")
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	r := bufio.NewReader(outp)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}}` + "\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Write(line)
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDoctor5 starts five stdio servers through a Manager (as `zut
// mcp doctor` does), waits until all are ready, and stops them.
func BenchmarkDoctor5(b *testing.B) {
	var servers []ServerConfig
	for i := 0; i < 5; i++ {
		servers = append(servers, fakeConfig(b, fmt.Sprintf("s%d", i), "ok"))
	}
	home := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := NewManager(Options{Home: home, Config: &Config{Servers: servers}})
		m.Wait(context.Background())
		if len(m.Tools()) != 80 {
			b.Fatalf("tools = %d", len(m.Tools()))
		}
		m.Close()
	}
}

// BenchmarkRaw5 is the servers' own start-up: five processes spawned in
// parallel, each sent initialize and tools/list by hand, then stopped.
func BenchmarkRaw5(b *testing.B) {
	cfg := fakeConfig(b, "fake", "ok")
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for j := 0; j < 5; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(cfg.Command, cfg.Args...)
				cmd.Env = append(cmd.Environ(), "ZUT_MCP_FAKE=ok")
				in, _ := cmd.StdinPipe()
				outp, _ := cmd.StdoutPipe()
				cmd.Start()
				r := bufio.NewReader(outp)
				for _, m := range []string{
					`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`,
					`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"page2"}}`} {
					in.Write([]byte(m + "\n"))
					r.ReadBytes('\n')
				}
				in.Close()
				cmd.Wait()
			}()
		}
		wg.Wait()
	}
}

// BenchmarkNoConfig is zut's start-up cost when no MCP file exists.
func BenchmarkNoConfig(b *testing.B) {
	home, cwd := b.TempDir(), b.TempDir()
	for i := 0; i < b.N; i++ {
		cfg, err := LoadConfig(LoadOptions{Home: home, CWD: cwd})
		if err != nil {
			b.Fatal(err)
		}
		m := NewManager(Options{Home: home, CWD: cwd, Config: cfg})
		_ = m.Tools()
		m.Close()
	}
}
