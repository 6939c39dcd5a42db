package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// BenchmarkStep measures the agent's own cost of one model step with one
// tool call: building the request, consuming the stream, recording the
// messages, running the (instant) tool and emitting events. The model and
// the tool cost nothing here.
func BenchmarkStep(b *testing.B) {
	const steps = 20
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var replies []reply
		for s := 0; s < steps-1; s++ {
			replies = append(replies, reply{text: "working", tools: []provider.Block{toolUse("t", "echo", `{"text":"x"}`)}})
		}
		replies = append(replies, reply{text: "done"})
		c := &scriptedClient{replies: replies}
		a := New(Config{Client: c, Model: Model{ID: "m", ContextWindow: 1 << 20}, Store: &memStore{},
			Tools: []tools.Tool{&echoTool{name: "echo"}}, Emit: func(Event) {}})
		b.StartTimer()
		if err := a.Prompt(context.Background(), Input{Text: "go"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps)/1000, "µs/step")
}

// deltaClient answers every request with one text streamed as n deltas of
// one byte, made as they are asked for: the agent's fan-out of deltas
// alone.
type deltaClient struct{ n int }

func (c deltaClient) Stream(ctx context.Context, req *provider.Request) (provider.Stream, error) {
	return &deltaStream{i: -1, n: c.n}, nil
}

// deltaStream yields a request, a start, n text deltas and a stop.
type deltaStream struct{ i, n int }

func (s *deltaStream) Next() bool { s.i++; return s.i < s.n+3 }
func (s *deltaStream) Event() provider.Event {
	switch s.i {
	case 0:
		return provider.Event{Type: provider.EventRequest, Attempt: 1, MaxAttempts: 1}
	case 1:
		return provider.Event{Type: provider.EventStart, Model: "m"}
	case s.n + 2:
		return provider.Event{Type: provider.EventStop, Stop: provider.StopEndTurn}
	}
	return provider.Event{Type: provider.EventTextDelta, Text: "x"}
}
func (s *deltaStream) Err() error   { return nil }
func (s *deltaStream) Close() error { return nil }
func (s *deltaStream) Message() provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(strings.Repeat("x", s.n))}}
}

// BenchmarkStreamFanOut is the agent's cost of one answer streamed as
// 25,000 text deltas (the provider costs nothing here): each delta becomes
// a TextDelta for the frontend, through Emit (an Event each) or EmitText.
func BenchmarkStreamFanOut(b *testing.B) {
	const deltas = 25000
	for _, tc := range []struct {
		name string
		text bool
	}{{"Emit", false}, {"EmitText", true}} {
		b.Run(tc.name, func(b *testing.B) {
			n := 0
			cfg := Config{Client: deltaClient{n: deltas}, Model: Model{ID: "m", ContextWindow: 1 << 20}, Store: &memStore{},
				Emit: func(ev Event) {
					if d, ok := ev.(TextDelta); ok {
						n += len(d.Delta)
					}
				}}
			if tc.text {
				cfg.EmitText = func(d TextDelta) { n += len(d.Delta) }
			}
			b.ReportAllocs()
			for b.Loop() {
				a := New(cfg)
				if err := a.Prompt(context.Background(), Input{Text: "go"}); err != nil {
					b.Fatal(err)
				}
			}
			if n != b.N*deltas {
				b.Fatalf("the frontend got %d bytes of deltas, want %d", n, b.N*deltas)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
		})
	}
}
