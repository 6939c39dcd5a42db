package sdktest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
)

// BenchmarkToolCall measures a tool call's round trip through the real
// host to each extension of Bench: the raw-JSON script and the one on
// the SDK doing the same; the difference is the SDK's overhead per call
// (target: at most 0.3 ms).
func (s *SDK) BenchmarkToolCall(b *testing.B) {
	s.needRuntime(b)
	for _, prog := range s.Bench {
		b.Run(filepath.Base(prog), func(b *testing.B) {
			dir := s.extDir(b, "bench", prog, "")
			h, err := host.Start(context.Background(), host.Config{Home: b.TempDir(), CWD: b.TempDir(), ExtDirs: []string{dir}})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			if r := h.Diagnostics(); r[0].Status != host.StatusOK {
				b.Fatalf("%+v", r)
			}
			args := json.RawMessage(`{"text":"Berlin"}`)
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				r, err := h.CallTool(context.Background(), "echo", args)
				if err != nil || r.Content[0].Text != "Berlin" {
					b.Fatal(r, err)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "µs-median")
			b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "µs-p99")
		})
	}
}
