package subagent

import (
	"context"
	"testing"

	"github.com/zut-go/zut/agent"
)

// subagentStopHost is the parent's Extensions with SubagentStop hooks.
type subagentStopHost struct {
	agent.Extensions
	asked []bool
}

func (h *subagentStopHost) InterceptSubagentStop(ctx context.Context, answer string, active bool) agent.StopDecision {
	h.asked = append(h.asked, active)
	return agent.StopDecision{Continue: !active, Reason: "check " + answer}
}

// TestSubagentStop: a child that would stop asks the parent's
// SubagentStop hooks through its filtered view; a parent without them
// lets it stop.
func TestSubagentStop(t *testing.T) {
	h := &subagentStopHost{}
	f := &filtered{x: h}
	if d := f.InterceptStop(context.Background(), "done", false); !d.Continue || d.Reason != "check done" {
		t.Errorf("first stop = %+v, want continue with the hook's reason", d)
	}
	if d := f.InterceptStop(context.Background(), "done", true); d.Continue {
		t.Errorf("second stop = %+v, want stop", d)
	}
	if len(h.asked) != 2 || h.asked[0] || !h.asked[1] {
		t.Errorf("asked = %v", h.asked)
	}
	plain := &filtered{x: struct{ agent.Extensions }{}}
	if d := plain.InterceptStop(context.Background(), "done", false); d.Continue {
		t.Errorf("without SubagentStop hooks = %+v, want stop", d)
	}
}
