package telegram_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when goroutines of the bot packages outlive the
// tests: every goroutine the runner, the presenter, the mirror and the
// client start must be joined.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines still running after the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

func leakedGoroutines() string {
	var leaked []string
	// Goroutines may be on their way out (a closed connection's reader);
	// give them a few seconds.
	for range 100 {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		leaked = leaked[:0]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "zut/agent/bot.") || strings.Contains(g, "zut/agent/bot/telegram.") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 {
			return ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	return strings.Join(leaked, "\n\n")
}
