package agent

import (
	"context"
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
