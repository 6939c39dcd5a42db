package subagent

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

// rssKiB reads the process's resident set size.
func rssKiB(tb testing.TB) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status: the RSS figure needs Linux")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// BenchmarkFourSubagents runs four children at once, each streaming a
// long answer in many deltas from the scripted server (in this process:
// its memory is counted too), and reports the parent's RSS growth per
// child while they stream, and the goroutines left once they ended.
func BenchmarkFourSubagents(b *testing.B) {
	long := strings.Repeat("streamed words of a subagent's answer ", 400)
	children := map[string][]providertest.Reply{}
	for i := range 4 {
		children[fmt.Sprintf("t%d", i)] = []providertest.Reply{{Text: long, Chunks: 400, EventDelay: 500 * time.Microsecond}}
	}
	rig := newRig(b, rigOptions{children: children})
	round := func(sample func()) {
		rig.models.mu.Lock()
		rig.models.count = map[string]int{}
		rig.models.mu.Unlock()
		for i := range 4 {
			res := run(b, toolNamed(rig.m, "subagent_spawn"), fmt.Sprintf(`{"task":"[t%d] stream"}`, i))
			if res.IsError {
				b.Fatal(res.Text())
			}
		}
		for rig.m.Running() > 0 {
			sample()
			time.Sleep(2 * time.Millisecond)
		}
		for range 4 {
			<-rig.results
		}
	}
	round(func() {}) // warm up: connections, buffers, the heap's first arenas
	runtime.GC()
	baseGo := runtime.NumGoroutine()
	base := rssKiB(b)
	peak := 0
	b.ResetTimer()
	for b.Loop() {
		round(func() { peak = max(peak, rssKiB(b)-base) })
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/4, "KiB-RSS/child")
	rig.m.Close()
	rig.srv.Close() // its connections' goroutines are the test server's, not the children's
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseGo && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	b.ReportMetric(float64(runtime.NumGoroutine()-baseGo), "goroutines-left")
}
