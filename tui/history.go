package tui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/proto/regular"
)

// DefaultHistorySize is the number of entries a History keeps when
// OpenHistory is given no size.
const DefaultHistorySize = 1000

// MaxHistoryFile bounds the history file OpenHistory reads: 64 MiB.
const MaxHistoryFile = 64 << 20

// maxHistoryLine bounds one entry of the file: 16 MiB.
const maxHistoryLine = 16 << 20

// History is the list of submitted prompts, oldest first, persisted as
// JSON lines (one JSON string per line) in a file the caller chooses,
// such as $ZUT_HOME/history.jsonl. It keeps at most its size in memory
// and rewrites the file to that size when the file grows to twice it.
// Several zut processes may append to the same file: each entry is one
// append write. A History is not safe for concurrent use.
type History struct {
	path    string
	size    int
	entries []string
	lines   int // lines in the file, for deciding when to compact
}

// OpenHistory loads the history at path; a missing file is an empty
// history, and so is path "" (nothing is persisted). Lines that are not
// JSON strings are skipped. size <= 0 means DefaultHistorySize. A path
// that is not a regular file (a FIFO, a device, a directory) or a file
// over MaxHistoryFile is refused at once with an error naming it (and the
// limit); the History returned then starts empty, and Add refuses (at
// once, with an error) to write anything but a regular file.
func OpenHistory(path string, size int) (*History, error) {
	if size <= 0 {
		size = DefaultHistorySize
	}
	h := &History{path: path, size: size}
	if path == "" {
		return h, nil
	}
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("open history: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxHistoryFile {
		return h, fmt.Errorf("open history: %w", &regular.Error{Op: "read", Path: path, Limit: MaxHistoryFile, Err: regular.ErrTooLarge})
	}
	sc := bufio.NewScanner(io.LimitReader(f, MaxHistoryFile))
	sc.Buffer(make([]byte, 64*1024), maxHistoryLine)
	for sc.Scan() {
		h.lines++
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.push(s)
		}
	}
	if err := sc.Err(); err != nil {
		return h, fmt.Errorf("read history %s: %w (the entries before the bad line are kept)", path, err)
	}
	return h, nil
}

func (h *History) push(s string) {
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > h.size {
		h.entries = append(h.entries[:0], h.entries[len(h.entries)-h.size:]...)
	}
}

// Len returns the number of entries.
func (h *History) Len() int { return len(h.entries) }

// Entry returns entry i, 0 being the oldest.
func (h *History) Entry(i int) string { return h.entries[i] }

// Add appends an entry, unless it repeats the newest one, and persists
// it. The entry is kept in memory even when writing fails.
func (h *History) Add(s string) error {
	if s == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == s) {
		return nil
	}
	h.push(s)
	if h.path == "" {
		return nil
	}
	line, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("save history %s: %w", h.path, err)
	}
	f, err := regular.OpenAppend(h.path)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("save history %s: %w", h.path, err)
	}
	h.lines++
	if h.lines >= 2*h.size {
		return h.compact()
	}
	return nil
}

// compact rewrites the file with the entries in memory, through a
// temporary file renamed over it.
func (h *History) compact() error {
	var b strings.Builder
	for _, s := range h.entries {
		line, _ := json.Marshal(s)
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return fmt.Errorf("compact history %s: %w", h.path, err)
	}
	_, werr := tmp.WriteString(b.String())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("compact history %s: %w", h.path, err)
	}
	if err := os.Rename(tmp.Name(), h.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("compact history %s: %w", h.path, err)
	}
	h.lines = len(h.entries)
	return nil
}
