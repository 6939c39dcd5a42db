package host

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// benchHome makes a ZUT_HOME with n test-binary extensions.
func benchHome(b *testing.B, n int, args ...string) Config {
	b.Helper()
	home := b.TempDir()
	for i := range n {
		goExt(b, filepath.Join(home, "extensions"), fmt.Sprintf("e%02d", i), args...)
	}
	return Config{Home: home, CWD: b.TempDir()}
}

// BenchmarkToolRoundTrip measures CallTool from the host to a Go
// extension process and back; the target is a median under 150 µs.
func BenchmarkToolRoundTrip(b *testing.B) {
	cfg := benchHome(b, 1, "-tools", "echo")
	h, err := Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	args := []byte(`{"city":"Berlin"}`)
	var durations []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := h.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "µs-median")
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "µs-p99")
}

// BenchmarkHandshake measures Start (discovery, spawn, hello, ready) of 1
// and of 10 extensions; the target is 10 in under 1.5x the time of 1.
func BenchmarkHandshake(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("extensions=%d", n), func(b *testing.B) {
			cfg := benchHome(b, n)
			for b.Loop() {
				h, err := Start(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if len(h.pids()) != n {
					b.Fatalf("%d extensions loaded, want %d: %+v", len(h.pids()), n, h.Diagnostics())
				}
				h.Close(context.Background())
				b.StartTimer()
			}
		})
	}
}

// BenchmarkIdleMemory measures the host's memory per idle extension
// connection (heap and goroutine stacks); the target is under 64 KiB.
func BenchmarkIdleMemory(b *testing.B) {
	const n = 16
	cfg := benchHome(b, n, "-tools", "echo", "-commands", "c")
	var perExt float64
	for b.Loop() {
		before := memInUse()
		h, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		after := memInUse()
		perExt = float64(after-before) / n
		b.StopTimer()
		h.Close(context.Background())
		b.StartTimer()
	}
	b.ReportMetric(perExt/1024, "KiB/ext")
}

func memInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}
