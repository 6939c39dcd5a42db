package rpcmode

import (
	"bufio"
	"context"
	"github.com/zut-go/zut/agent/app"
	"io"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent"
)

// BenchmarkRPCEvents measures an agent event's way to stdout: encoding,
// the bounded queue and the writer goroutine.
func BenchmarkRPCEvents(b *testing.B) {
	s := &rpcServer{out: newRPCOutbox(io.Discard, defaultRPCLimits)}
	go s.out.run()
	ev := agent.TextDelta{Delta: "a few words of an answer "}
	b.ReportAllocs()
	for b.Loop() {
		s.agentEvent(ev)
	}
	s.out.close()
	<-s.out.done
	if err := s.out.failure(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRPCPing measures one command's round trip through RPC mode in
// process: the line in, the dispatcher, the response out.
func BenchmarkRPCPing(b *testing.B) {
	home := b.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &app.Env{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "ZUT_HOME" {
			return home
		}
		return ""
	}}
	o, err := app.ParseOptions([]string{"--mode", "rpc", "--no-extensions", "--no-skills", "--no-context-files"}, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- serveRPC(context.Background(), e, o, defaultRPCLimits)
		outW.Close()
	}()
	r := bufio.NewReader(outR)
	ping := []byte(`{"type":"ping","id":1}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := inW.Write(ping); err != nil {
			b.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil || !strings.Contains(line, `"pong":true`) {
			b.Fatalf("response %q, %v", line, err)
		}
	}
	b.StopTimer()
	inW.Close()
	io.Copy(io.Discard, r)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
