// Command memload measures the peak memory of opening a session file
// that holds one huge line: it writes a session with a short entry, a
// line of -size bytes and another short entry into a temporary
// directory, opens it, and reports the warnings, the entries kept and
// the peak resident memory (VmHWM).
//
//	go run ./agent/session/testdata/memload -size 1GiB
//
// It lives under testdata so that go build ./... and go test ./... skip it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

func main() {
	size := flag.String("size", "1GiB", "bytes of the huge line")
	flag.Parse()
	n, err := provider.ParseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "memload-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	s, err := session.Create(dir, "/work/project")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s.AppendMessage(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("before")}}, session.Meta{})
	path := s.Path()
	s.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0) //zut:open test support: the test's own files
	f.WriteString(`{"type":"message","id":"huge","message":{"role":"user","content":[{"type":"text","text":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for left := n; left > 0; left -= int64(len(chunk)) {
		f.Write(chunk[:min(int64(len(chunk)), left)])
	}
	f.WriteString("\"}]}}\n")
	f.Close()
	t0 := time.Now()
	r, warns, err := session.Open(path)
	took := time.Since(t0)
	if err != nil {
		fmt.Println("open:", err)
	} else {
		fmt.Printf("line of %s: opened in %s, %d entries kept, peak RSS %s\n", *size, took.Round(time.Millisecond), r.Len(), peakRSS())
		for _, w := range warns {
			fmt.Println("warning:", w)
		}
		r.Close()
	}
}

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
