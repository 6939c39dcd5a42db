package printmode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zut-go/zut/agent"
)

// Stats is what --stats PATH writes when a print or JSON run ends: the
// whole run and each model turn, with its tokens, cost, time and the tools
// it called.
type Stats struct {
	Status     string         `json:"status"` // done, error, max_steps, interrupted
	DurationMS int64          `json:"duration_ms"`
	Input      int            `json:"input_tokens"`
	Output     int            `json:"output_tokens"`
	CacheRead  int            `json:"cache_read_tokens"`
	CacheWrite int            `json:"cache_write_tokens"`
	CostUSD    float64        `json:"cost_usd"`
	Tools      map[string]int `json:"tools"` // calls per tool name
	ToolErrors int            `json:"tool_errors"`
	Turns      []TurnStats    `json:"turns"`
}

// TurnStats is one model turn of Stats.
type TurnStats struct {
	Step       int      `json:"step"`
	DurationMS int64    `json:"duration_ms"`
	Input      int      `json:"input_tokens"`
	Output     int      `json:"output_tokens"`
	CostUSD    float64  `json:"cost_usd"`
	Stop       string   `json:"stop"`
	Tools      []string `json:"tools"`
}

// statsRecorder gathers Stats from the run's events. It is safe for
// concurrent use (events of subagents arrive on other goroutines).
type statsRecorder struct {
	mu    sync.Mutex
	now   func() time.Time
	start time.Time
	turn  time.Time
	s     Stats
}

func newStatsRecorder(now func() time.Time) *statsRecorder {
	return &statsRecorder{now: now, start: now(), s: Stats{Tools: map[string]int{}, Turns: []TurnStats{}}}
}

// record takes one event.
func (r *statsRecorder) record(ev agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := func() *TurnStats {
		if len(r.s.Turns) == 0 {
			r.s.Turns = append(r.s.Turns, TurnStats{Step: 1, Tools: []string{}})
			r.turn = r.now()
		}
		return &r.s.Turns[len(r.s.Turns)-1]
	}
	switch ev := ev.(type) {
	case agent.TurnStart:
		r.s.Turns = append(r.s.Turns, TurnStats{Step: ev.Step, Tools: []string{}})
		r.turn = r.now()
	case agent.Usage:
		t := cur()
		t.Input, t.Output, t.CostUSD = ev.Input, ev.Output, ev.CostUSD
		r.s.Input += ev.Input
		r.s.Output += ev.Output
		r.s.CacheRead += ev.CacheRead
		r.s.CacheWrite += ev.CacheWrite
		r.s.CostUSD += ev.CostUSD
	case agent.ToolCall:
		t := cur()
		t.Tools = append(t.Tools, ev.Name)
		r.s.Tools[ev.Name]++
	case agent.ToolResult:
		if ev.IsError {
			r.s.ToolErrors++
		}
	case agent.TurnEnd:
		t := cur()
		t.Stop = ev.Stop
		t.DurationMS = r.now().Sub(r.turn).Milliseconds()
	}
}

// usageTotal is the run's usage in the end event of JSON mode.
type usageTotal struct {
	Input      int     `json:"input"`
	Output     int     `json:"output"`
	CacheRead  int     `json:"cache_read"`
	CacheWrite int     `json:"cache_write"`
	CostUSD    float64 `json:"cost_usd"`
}

// total is the usage so far.
func (r *statsRecorder) total() usageTotal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return usageTotal{Input: r.s.Input, Output: r.s.Output, CacheRead: r.s.CacheRead, CacheWrite: r.s.CacheWrite, CostUSD: r.s.CostUSD}
}

// write saves the statistics to path, replacing it atomically.
func (r *statsRecorder) write(path, status string) error {
	r.mu.Lock()
	s := r.s
	s.Status = status
	s.DurationMS = r.now().Sub(r.start).Milliseconds()
	r.mu.Unlock()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".zut-stats-*")
	if err != nil {
		return fmt.Errorf("--stats %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("--stats %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--stats %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--stats %s: %w", path, err)
	}
	return nil
}
