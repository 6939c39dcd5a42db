package subagent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/provider/providertest"
)

// TestParallelSpawns: the subagent_spawn calls with wait of one reply run
// at once. Each child's first request is answered only once the other
// child's has arrived, so children run one after the other would never
// get their answers; the results go back in the order of the calls (a
// call refused between them too), and a call of another tool after them
// waits for both.
func TestParallelSpawns(t *testing.T) {
	arrived := map[string]chan struct{}{"tp1": make(chan struct{}), "tp2": make(chan struct{})}
	other := map[string]string{"tp1": "tp2", "tp2": "tp1"}
	first := func(key string) error {
		ch, ok := arrived[key]
		if !ok {
			return fmt.Errorf("unexpected child %s", key)
		}
		close(ch)
		select {
		case <-arrived[other[key]]:
			return nil
		case <-time.After(60 * time.Second):
			return fmt.Errorf("child %s ran alone: %s had not started after 60s", key, other[key])
		}
	}
	r := newRig(t, rigOptions{
		parent: []providertest.Reply{
			{Tools: []providertest.ToolCall{
				toolCall("s1", "subagent_spawn", `{"task":"[tp1] the left half","wait":300}`),
				toolCall("s2", "subagent_spawn", `{"wait":300}`),
				toolCall("s3", "subagent_spawn", `{"task":"[tp2] the right half","wait":300}`),
				toolCall("s4", "subagent_status", `{}`),
			}},
			{Text: "Both halves are done."},
		},
		children: map[string][]providertest.Reply{
			"tp1": {{Text: "left result"}},
			"tp2": {{Text: "right result"}},
		},
		first: first,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := r.parent.Prompt(ctx, agent.Input{Text: "split the work"}); err != nil {
		t.Fatalf("Prompt: %v", err)
	}

	var results []agent.ToolResult
	for _, ev := range r.eventsOf("tool_result") {
		results = append(results, ev.(agent.ToolResult))
	}
	var ids []string
	for _, res := range results {
		ids = append(ids, res.ID)
	}
	if strings.Join(ids, ",") != "s1,s2,s3,s4" {
		t.Fatalf("tool_result events for %v, want s1,s2,s3,s4 in the order of the calls", ids)
	}
	for _, i := range []int{0, 2} {
		want := map[int]string{0: "left result", 2: "right result"}[i]
		if text := blocksText(results[i].Content); results[i].IsError || !strings.Contains(text, want) {
			t.Errorf("result of %s = %q, want a result holding %q", results[i].ID, text, want)
		}
	}
	if text := blocksText(results[1].Content); !results[1].IsError || !strings.Contains(text, "task") {
		t.Errorf("result of s2 (no task) = %q, want its error", text)
	}
	// subagent_status ran after both children had ended.
	if text := blocksText(results[3].Content); !strings.Contains(text, "sa-1  done") || !strings.Contains(text, "sa-2  done") {
		t.Errorf("subagent_status after the spawns = %q, want both done", text)
	}
	reqs := r.srv.Requests()
	last := string(reqs[len(reqs)-1].Raw)
	prev := -1
	for _, id := range []string{"s1", "s2", "s3", "s4"} {
		at := strings.Index(last, `"tool_use_id":"`+id+`"`)
		if at < prev {
			t.Errorf("the parent's last request holds the result of %s at %d, before the one of the call before it (%d)", id, at, prev)
		}
		prev = at
	}
}

// blocksText joins the text of an event's content blocks.
func blocksText(bs []agent.Block) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// BenchmarkParallelSpawns: one reply with two subagent_spawn calls with
// wait, each child answering after 100 ms. Run side by side, a prompt
// takes about one child's time (ms/prompt); one after the other it took
// two.
func BenchmarkParallelSpawns(b *testing.B) {
	r := newRig(b, rigOptions{
		parent: []providertest.Reply{
			{Tools: []providertest.ToolCall{
				toolCall("s1", "subagent_spawn", `{"task":"[tb1] one","wait":60}`),
				toolCall("s2", "subagent_spawn", `{"task":"[tb2] two","wait":60}`),
			}},
			{Text: "done"},
		},
		children: map[string][]providertest.Reply{
			"tb1": {{Text: "one", Delay: 100 * time.Millisecond}},
			"tb2": {{Text: "two", Delay: 100 * time.Millisecond}},
		},
	})
	start := time.Now()
	for b.Loop() {
		r.models.mu.Lock()
		r.models.count = map[string]int{}
		r.models.mu.Unlock()
		if err := r.parent.Prompt(context.Background(), agent.Input{Text: "go"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/prompt")
}
