package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// maxLogFile caps a server's log file: past it the log is rotated to
// <file>.1 (one older file kept; see regular.Log).
const maxLogFile = regular.MaxLog

// maxTail is how much of a server's standard error is kept in memory for
// the message that says why it stopped.
const maxTail = 4 << 10

// serverLog is where one server's standard error and logged messages go:
// a capped, rotated file (when the manager has a log directory) and an
// in-memory tail. It is safe for concurrent use.
type serverLog struct {
	path string // "" without a log directory

	mu   sync.Mutex
	f    *regular.Log
	tail []byte // the last maxTail bytes of standard error
}

// openLog opens (appending) the log file of a server in dir, named after
// the server and its root; with dir empty, or a log that is not a
// regular file, only the tail is kept.
func openLog(dir, name, root string) *serverLog {
	l := &serverLog{}
	if dir == "" {
		return l
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return l
	}
	p := filepath.Join(dir, fmt.Sprintf("lsp-%s-%08x.log", safeName(name), fnv32(root)))
	f, err := regular.OpenLog(p, maxLogFile)
	if err != nil {
		return l
	}
	l.path, l.f = p, f
	return l
}

// stderr records bytes of the server's standard error.
func (l *serverLog) stderr(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail = append(l.tail, p...)
	if len(l.tail) > maxTail {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-maxTail:]...)
	}
	l.writeLocked(p)
}

// printf records one line of zut's own, or a message the server logged.
func (l *serverLog) printf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := time.Now().Format("2006-01-02 15:04:05.000 ") + fmt.Sprintf(format, a...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	l.writeLocked([]byte(line))
}

func (l *serverLog) writeLocked(p []byte) {
	if l.f != nil {
		_, _ = l.f.Write(p)
	}
}

// lastLines returns up to n non-empty last lines of standard error, joined
// with " | " and clipped, for an error message.
func (l *serverLog) lastLines(n int) string {
	l.mu.Lock()
	t := bytes.TrimSpace(l.tail)
	l.mu.Unlock()
	lines := strings.Split(string(t), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			keep = append([]string{clipText(s, 200)}, keep...)
		}
	}
	return strings.Join(keep, " | ")
}

func (l *serverLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// safeName keeps letters, digits, '-', '_' and '.' of a server name for a
// file name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// fnv32 is the FNV-1a hash of s, to tell roots apart in log file names.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// clipText shortens s to at most n bytes at a character boundary, marking
// the cut with "…".
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
