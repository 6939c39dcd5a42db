package schedule

import (
	"testing"
	"time"

	"github.com/zut-go/zut/agent/session"
)

// BenchmarkCronNext measures finding the next run of a restricted
// expression.
func BenchmarkCronNext(b *testing.B) {
	c, err := ParseCron("*/15 9-17 * * MON-FRI", time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	at := base
	for b.Loop() {
		at = c.Next(at)
	}
}

// BenchmarkSchedulerIdle holds 50 entries none of which is due for an
// hour and counts how often the scheduler's goroutine wakes in a second
// of wall time: wakeups/s is 0 when it neither polls nor keeps a timer
// per entry.
func BenchmarkSchedulerIdle(b *testing.B) {
	now := time.Now()
	sess := session.NewMemory("/p")
	s := New(Config{Session: func() *session.Session { return sess }, Location: time.UTC, Now: func() time.Time { return now }})
	s.Start()
	defer s.Close()
	for range MaxEntries {
		if _, err := s.Add("", "+1h", "later"); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(10 * time.Millisecond) // the goroutine takes the last change
	before := s.wakes.Load()
	b.ResetTimer()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	b.ReportMetric(float64(s.wakes.Load()-before)/float64(b.N), "wakeups/s")
}
