package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// maxLogSize caps a server's log: past it the log is rotated to
// <name>.log.1 (one older file kept), and it says so in its lines (see
// regular.Log).
const maxLogSize = regular.MaxLog

// logFile is a server's log, $ZUT_HOME/logs/mcp-<name>.log, mode 0600: a
// stdio server's stderr, the notifications it logs and zut's own lines
// about the server, capped and rotated. A logFile with no file (no home,
// or the file could not be opened) drops lines.
type logFile struct {
	path string
	mu   sync.Mutex
	f    *regular.Log
}

// LogPath is where the log of the server named name is kept under home.
func LogPath(home, name string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "logs", "mcp-"+fileName(name)+".log")
}

// openLog opens (creating, appending) the log of server name. A FIFO, a
// device or a directory planted there is refused at once.
func openLog(home, name string) (*logFile, error) {
	path := LogPath(home, name)
	if path == "" {
		return &logFile{}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &logFile{}, fmt.Errorf("open log %s: %w", path, err)
	}
	f, err := regular.OpenLog(path, maxLogSize)
	if err != nil {
		return &logFile{path: path}, fmt.Errorf("open log: %w", err)
	}
	return &logFile{path: path, f: f}, nil
}

// file is the log, for a child's stderr, or nil.
func (l *logFile) file() *regular.Log {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f
}

func (l *logFile) printf(format string, v ...any) {
	if l == nil {
		return
	}
	line := time.Now().UTC().Format(time.RFC3339) + " zut: " + fmt.Sprintf(format, v...)
	line = strings.TrimRight(line, "\n") + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.Write([]byte(line))
	}
}

func (l *logFile) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// fileName makes a server name safe as part of a file name.
func fileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		s = "server"
	}
	if s != name { // two names that differ only in unsafe characters get two files
		s += "-" + shortHash(name)
	}
	return s
}
