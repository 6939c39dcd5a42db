// Command memstream measures what one hostile response costs zut's
// provider client: it serves a stream over loopback and reports the bytes
// received, how the stream ended, the time taken and the peak resident
// memory (VmHWM). Run one mode per process, so each peak is its own:
//
//	go run ./provider/testdata/memstream -mode endless   # text deltas without end
//	go run ./provider/testdata/memstream -mode 2gb       # 2 GB of valid chunks, then a stop
//	go run ./provider/testdata/memstream -mode silent    # headers never come (defaults: how long to give up)
//
// -text sets the text bytes of each delta: 1 makes a body of tiny chunks,
// bounded by the body limit rather than the message limit.
//
// It lives under testdata so that go build ./... and go test ./... skip it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/provider"
)

const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"

const stop = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func main() {
	mode := flag.String("mode", "endless", "endless, 2gb or silent")
	text := flag.Int("text", 4000, "bytes of text in each delta")
	flag.Parse()
	delta := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("x", *text) + "\"}}\n\n"
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if *mode == "silent" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, start)
		var limit int64 = 1 << 62
		if *mode == "2gb" {
			limit = 2 << 30
		}
		for sent.Load() < limit {
			n, err := io.WriteString(w, delta)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		io.WriteString(w, stop)
	}))
	defer srv.Close()
	c := &provider.Anthropic{Config: provider.Config{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k",
		Model: &provider.Model{ID: "m", MaxOutput: 128000}}}
	t0 := time.Now()
	s, err := c.Stream(context.Background(), &provider.Request{Model: "m"})
	if err == nil {
		for s.Next() {
		}
		err = s.Err()
		s.Close()
	}
	fmt.Printf("mode %s, %d-byte deltas: %s sent by the server, %s taken, peak RSS %s\nended with: %v\n",
		*mode, *text, mib(sent.Load()), time.Since(t0).Round(100*time.Millisecond), peakRSS(), err)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// peakRSS reads VmHWM from /proc/self/status.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status") //zut:open test support: the test's own files
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
