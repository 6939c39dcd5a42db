package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDiagnosticsAfterWrite measures DiagnosticsAfterWrite after an
// edit, with the fake server (whose own work is nearly nothing) and with
// gopls. It reports the server's latency (from the change going out to
// its diagnostics coming in) and zut's overhead (the rest: reading and
// diffing the file, encoding, waking the waiter, formatting). ns/op also
// holds writing the file (write-µs/op), which is the edit tool's part.
// The "warm" cases are a server past its warmup (Config.Warmup), the
// steady state; in a server's first 10 s an edit that leaves no problem
// also waits up to 300 ms for a later publication (the young cases).
func BenchmarkDiagnosticsAfterWrite(b *testing.B) {
	for _, warm := range []bool{true, false} {
		suffix, warmup := "-warm", time.Duration(-1)
		if !warm {
			suffix, warmup = "-young", 0
		}
		b.Run("fake"+suffix, func(b *testing.B) {
			dir := fakeDir(b, map[string]string{"a.fake": "x\n"})
			benchAfterWrite(b, dir, "a.fake", fakeConfig("ok"), "ERROR", "fine", warmup)
		})
		b.Run("gopls"+suffix, func(b *testing.B) {
			gopls := goplsPath(b)
			dir := copyDir(b, "testdata/greet")
			benchAfterWrite(b, dir, "use.go", goplsConfig(gopls), "Greet(len(b))", "Greet(b)", warmup)
		})
	}
}

func benchAfterWrite(b *testing.B, dir, name string, sc ServerConfig, bad, good string, warmup time.Duration) {
	m := NewManager(Config{CWD: dir, Home: dir, Servers: []ServerConfig{sc}, DiagnosticsAfterEdit: true,
		DiagnosticsWait: hangGuard, RequestTimeout: hangGuard, Warmup: warmup})
	defer m.Close(b.Context())
	defer b.StopTimer() // Close is not part of the measure
	abs := filepath.Join(dir, name)
	data, _ := readBounded(abs, maxDocument)
	base := string(data)
	if !strings.Contains(base, good) {
		base += "\n// " + good + "\n"
	}
	// Start the server and open the file outside the timing.
	if got := m.DiagnosticsAfterWrite(b.Context(), name); strings.Contains(got, "within") {
		b.Fatal(got)
	}
	s := m.running()[0]
	var server, total, write time.Duration
	b.ResetTimer()
	for i := range b.N {
		content := base
		if i%2 == 0 {
			content = strings.Replace(base, good, bad, 1)
		}
		ws := time.Now()
		writeFile(b, abs, content)
		write += time.Since(ws)
		start := time.Now()
		got := m.DiagnosticsAfterWrite(b.Context(), name)
		total += time.Since(start)
		if (i%2 == 0) != strings.Contains(got, "error") {
			b.Fatalf("DiagnosticsAfterWrite = %q", got)
		}
		s.docs.mu.Lock()
		sent := s.docs.open[abs].sentAt
		s.docs.mu.Unlock()
		s.diag.mu.Lock()
		at := s.diag.files[abs].at
		s.diag.mu.Unlock()
		server += at.Sub(sent)
	}
	b.ReportMetric(float64(write.Microseconds())/float64(b.N), "write-µs/op")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "total-µs/op")
	b.ReportMetric(float64(server.Microseconds())/float64(b.N), "server-µs/op")
	b.ReportMetric(float64((total-server).Microseconds())/float64(b.N), "overhead-µs/op")
}
