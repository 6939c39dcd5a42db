package regular

import (
	"fmt"
	"os"
	"sync"
)

// MaxLog is the usual cap of one log file: 8 MiB. With the one older
// file kept beside it (path.1), a log never takes more than 16 MiB.
const MaxLog = 8 << 20

// noteRoom is kept free under a log's cap for the lines Log writes itself.
const noteRoom = 512

// Log is a log file that cannot fill the disk: an append-only regular
// file (see OpenAppend: never a FIFO or a device, mode 0600) capped at Max
// bytes. A write that would take it past the cap rotates it: the file
// gets a last line saying where the log continues, is renamed to path.1
// (replacing the one before, whose bytes are dropped) and a new file is
// started whose first line says how much was dropped so far. Close ends
// the file with a line saying what was dropped, when anything was. A Log
// is safe for concurrent use; Write never fails the writer for the cap,
// so a child process whose stderr it is never gets a broken pipe.
type Log struct {
	mu      sync.Mutex
	path    string
	max     int64
	f       *os.File
	size    int64
	rotated int   // times the file was rotated
	dropped int64 // bytes gone with replaced .1 files
	err     error // the first error opening a new file after a rotation
}

// OpenLog opens (creating) the log at path, capped at max bytes (MaxLog
// when max is 0 or less). A file already at its cap is rotated first.
// The caller closes the Log.
func OpenLog(path string, max int64) (*Log, error) {
	if max <= 0 {
		max = MaxLog
	}
	if max < 2*noteRoom {
		max = 2 * noteRoom
	}
	f, err := OpenAppend(path)
	if err != nil {
		return nil, err
	}
	l := &Log{path: path, max: max, f: f}
	if fi, err := f.Stat(); err == nil {
		l.size = fi.Size()
	}
	if l.size >= l.max-noteRoom {
		l.mu.Lock()
		l.rotate()
		l.mu.Unlock()
	}
	return l, nil
}

// Path is the file the log writes.
func (l *Log) Path() string { return l.path }

// Write appends p, rotating the file as often as the cap needs. It
// reports len(p) written unless the log is closed or its file could not
// be reopened after a rotation.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if l.f == nil {
			if l.err == nil {
				l.err = &Error{Op: "write", Path: l.path, Err: os.ErrClosed}
			}
			return 0, l.err
		}
		room := l.max - noteRoom - l.size
		if room <= 0 {
			l.rotate()
			continue
		}
		chunk := p
		if int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		w, err := l.f.Write(chunk)
		l.size += int64(w)
		if err != nil {
			return n - len(p) + w, &Error{Op: "write", Path: l.path, Err: err}
		}
		p = p[len(chunk):]
	}
	return n, nil
}

// rotate ends the current file, moves it to path.1 and starts a new one.
// l.mu is held.
func (l *Log) rotate() {
	old := l.path + ".1"
	if fi, err := os.Lstat(old); err == nil {
		l.dropped += fi.Size()
	}
	fmt.Fprintf(l.f, "\n[zut: this log reached its %s cap; it continues in %s]\n", sizeText(l.max), l.path)
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, old); err != nil {
		l.err = &Error{Op: "write", Path: l.path, Err: fmt.Errorf("rotate: %w", err)}
		return
	}
	f, err := OpenAppend(l.path)
	if err != nil {
		l.err = err
		return
	}
	l.f, l.size = f, 0
	l.rotated++
	w, _ := fmt.Fprintf(f, "[zut: log rotated %d times (cap %s per file); the one before is %s%s]\n",
		l.rotated, sizeText(l.max), old, droppedText(l.dropped))
	l.size += int64(w)
}

func droppedText(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s older than it dropped", sizeText(n))
}

// Dropped reports how many bytes of the log are gone (the .1 files
// replaced by later rotations) and how many times it rotated.
func (l *Log) Dropped() (bytes int64, rotations int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped, l.rotated
}

// Close ends the log. When it rotated, its last line says how often and
// what was dropped. Close is safe to call more than once.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	if l.rotated > 0 {
		fmt.Fprintf(l.f, "[zut: log closed after %d rotations at %s each; earlier output is in %s.1%s]\n",
			l.rotated, sizeText(l.max), l.path, droppedText(l.dropped))
	}
	err := l.f.Close()
	l.f = nil
	l.err = &Error{Op: "write", Path: l.path, Err: os.ErrClosed}
	return err
}
