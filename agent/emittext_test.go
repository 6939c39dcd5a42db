package agent

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// TestEmitText: with Config.EmitText set, the turn's text deltas go to it
// and no longer to Emit, in the same order among the other events as Emit
// alone gets them.
func TestEmitText(t *testing.T) {
	run := func(text bool) []string {
		var log []string
		c := &scriptedClient{replies: []reply{
			{text: "Let me look.", tools: []provider.Block{toolUse("t1", "echo", `{"text":"x"}`)}},
			{text: "It says x."},
		}}
		cfg := Config{Client: c, Model: Model{ID: "m", Provider: "test"}, Store: &memStore{},
			Tools: []tools.Tool{&echoTool{name: "echo"}},
			Emit:  func(ev Event) { log = append(log, fmt.Sprintf("emit %s %v", ev.EventType(), deltaOf(ev))) }}
		if text {
			cfg.EmitText = func(d TextDelta) { log = append(log, fmt.Sprintf("emit text_delta %v", d.Delta)) }
		}
		if err := New(cfg).Prompt(context.Background(), Input{Text: "go"}); err != nil {
			t.Fatal(err)
		}
		return log
	}
	withEmit, withText := run(false), run(true)
	if !reflect.DeepEqual(withText, withEmit) {
		t.Errorf("events with EmitText:\n%q\nwith Emit alone:\n%q", withText, withEmit)
	}
	n := 0
	for _, l := range withEmit {
		if strings.HasPrefix(l, "emit text_delta") {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no text deltas in %q", withEmit)
	}
}

// deltaOf is a TextDelta's text, "" for other events.
func deltaOf(ev Event) string {
	if d, ok := ev.(TextDelta); ok {
		return d.Delta
	}
	return ""
}
