package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Bounds of the Go grep backend.
const (
	walkWholeFile = 8 << 20  // files up to this size are read at once
	walkMaxLine   = 16 << 20 // longer lines are matched on this prefix
)

// walker is the Go grep backend: it walks the tree in name order like
// rg --sort path, applying the same ignore rules and glob semantics.
type walker struct {
	ctx     context.Context
	q       *grepQuery
	prefix  *regexp.Regexp // the pattern in multi-line mode: a quick test of a whole file
	glob    *regexp.Regexp
	negGlob bool
	col     *grepCollector
	buf     []byte // file contents, reused between files
}

// walkGrep runs q over the file system, handing each file's results to
// col in path order until it is full, and telling it what could not be
// searched.
func walkGrep(ctx context.Context, q *grepQuery, col *grepCollector) error {
	w := &walker{ctx: ctx, q: q, col: col}
	w.prefix = regexp.MustCompile("(?m)" + q.re.String())
	if q.rootIsFile {
		if f, ok := w.searchFile(q.root); ok {
			col.add(f)
		}
		return ctx.Err()
	}
	if q.glob != "" {
		g := q.glob
		if strings.HasPrefix(g, "!") {
			w.negGlob, g = true, g[1:]
		}
		re, err := compileGlob(g)
		if err != nil {
			return err
		}
		w.glob = re
	}
	w.dir(q.root, parentIgnores(q.root))
	return ctx.Err()
}

// dir searches one directory; it returns false to stop the walk.
func (w *walker) dir(abs string, stack ignoreStack) bool {
	stack = append(stack[:len(stack):len(stack)], dirIgnores(abs)...)
	entries, err := os.ReadDir(abs) // sorted by name
	if err != nil {
		w.col.skip(abs, "could not read the directory: "+unwrapPath(err).Error())
		if len(entries) == 0 {
			return true // unreadable: skipped, as rg does, and said
		}
	}
	for _, e := range entries {
		if w.ctx.Err() != nil {
			return false
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		typ := e.Type()
		isDir := e.IsDir()
		if typ&os.ModeSymlink != 0 || !isDir && !typ.IsRegular() {
			continue
		}
		child := filepath.Join(abs, name)
		if !w.wanted(child, isDir, stack) {
			continue
		}
		if isDir {
			if !w.dir(child, stack) {
				return false
			}
			continue
		}
		if f, ok := w.searchFile(child); ok && !w.col.add(f) {
			return false
		}
	}
	return true
}

// wanted applies the glob and the ignore rules to one entry. A glob
// overrides the ignore rules, as in rg: a file matching a positive glob is
// searched even when ignored, and an entry matching a negative glob is
// skipped. Directories only obey negative globs.
func (w *walker) wanted(abs string, isDir bool, stack ignoreStack) bool {
	if w.glob != nil {
		rel, _ := relSlash(w.q.root, abs)
		m := w.glob.MatchString(rel)
		switch {
		case w.negGlob && m:
			return false
		case !w.negGlob && !isDir && !m:
			return false
		case !w.negGlob && !isDir && m:
			return true
		}
	}
	return !stack.ignored(abs, isDir)
}

// searchFile matches one file. ok is false when the file cannot be read,
// is binary (holds a NUL byte anywhere), or has no match.
func (w *walker) searchFile(abs string) (grepFile, bool) {
	if scopeSwapHook != nil && w.q.opened != nil {
		scopeSwapHook(abs)
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		w.col.skip(abs, "could not read the file: "+unwrapPath(err).Error())
		return grepFile{}, false
	}
	defer f.Close()
	if w.q.opened != nil {
		if err := w.q.opened(abs, f); err != nil {
			w.col.skip(abs, "was swapped for a file out of scope as it was opened, so it was not searched")
			return grepFile{}, false
		}
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return grepFile{}, false // a file replaced by a FIFO or device since the listing
	}
	if fi.Size() <= walkWholeFile {
		if int64(cap(w.buf)) < fi.Size()+1 {
			w.buf = make([]byte, 0, max(fi.Size()+1, 64<<10))
		}
		n, err := io.ReadFull(f, w.buf[:fi.Size()+1]) // one more byte: a file that grew is read short
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			w.col.skip(abs, "could not read the file: "+unwrapPath(err).Error())
			return grepFile{}, false
		}
		data := w.buf[:n]
		if bytes.IndexByte(data, 0) >= 0 || !w.prefix.Match(data) {
			return grepFile{}, false
		}
		return w.matchLines(abs, &sliceLines{data: data})
	}
	return w.matchLines(abs, &readerLines{br: bufio.NewReaderSize(f, 1<<20)})
}

// lineSource yields the lines of a file without their "\n". binary is set
// once a NUL byte was seen; cut reports that the last line returned was
// longer than walkMaxLine and is only its start, and its full length.
type lineSource interface {
	next() (line []byte, stable bool, ok bool)
	binary() bool
	cut() (bool, int64)
}

// matchLines collects the matching lines of one file with their context.
func (w *walker) matchLines(abs string, src lineSource) (grepFile, bool) {
	res := grepFile{path: abs}
	n := w.q.context
	type held struct {
		num  int
		text []byte
	}
	var before []held // up to n lines before the next match
	after, last := 0, 0
	for num := 1; ; num++ {
		line, stable, ok := src.next()
		if !ok {
			break
		}
		if num&1023 == 0 && w.ctx.Err() != nil {
			return grepFile{}, false
		}
		matched := w.q.re.Match(line)
		if cut, size := src.cut(); cut && !matched {
			w.col.skip(abs, fmt.Sprintf("line %d is %s long, over the %s grep reads of one line, so only its start was searched; search it with bash (for example grep -c)", num, formatSize(size), formatSize(walkMaxLine)))
		}
		if matched {
			for _, h := range before {
				if h.num > last {
					res.lines = append(res.lines, grepLine{num: h.num, text: trimCR(h.text)})
				}
			}
			before = before[:0]
			res.lines = append(res.lines, grepLine{num: num, text: trimCR(own(line, stable)), match: true})
			last, after = num, n
			continue
		}
		if after > 0 {
			res.lines = append(res.lines, grepLine{num: num, text: trimCR(own(line, stable))})
			last = num
			after--
			continue
		}
		if n > 0 {
			if len(before) == n {
				copy(before, before[1:])
				before = before[:n-1]
			}
			before = append(before, held{num, own(line, stable)})
		}
	}
	if src.binary() || len(res.lines) == 0 {
		return grepFile{}, false
	}
	return res, true
}

// own returns line itself when it stays valid, else a copy.
func own(line []byte, stable bool) []byte {
	if stable {
		return line
	}
	return append([]byte(nil), line...)
}

func trimCR(p []byte) []byte { return bytes.TrimSuffix(p, []byte{'\r'}) }

// sliceLines splits a file held in memory.
type sliceLines struct {
	data []byte
	off  int
}

// Its lines are not stable: the buffer is reused for the next file.
func (s *sliceLines) next() ([]byte, bool, bool) {
	if s.off >= len(s.data) {
		return nil, false, false
	}
	rest := s.data[s.off:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		s.off = len(s.data)
		return rest, false, true
	}
	s.off += i + 1
	return rest[:i], false, true
}

func (s *sliceLines) binary() bool { return false } // checked before

func (s *sliceLines) cut() (bool, int64) { return false, 0 } // whole files are below walkMaxLine

// readerLines streams a large file; lines past walkMaxLine are cut.
type readerLines struct {
	br   *bufio.Reader
	buf  []byte
	bin  bool
	size int64 // length of the last line, when it was cut
}

func (r *readerLines) next() ([]byte, bool, bool) {
	if r.bin {
		return nil, false, false
	}
	r.buf = r.buf[:0]
	r.size = 0
	for {
		part, err := r.br.ReadSlice('\n')
		r.size += int64(len(part))
		if len(r.buf)+len(part) <= walkMaxLine {
			r.buf = append(r.buf, part...)
		} else if room := walkMaxLine - len(r.buf); room > 0 {
			r.buf = append(r.buf, part[:room]...)
		}
		if bytes.IndexByte(part, 0) >= 0 {
			r.bin = true
			return nil, false, false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(r.buf) == 0 && err != nil {
			return nil, false, false
		}
		return bytes.TrimSuffix(r.buf, []byte{'\n'}), false, true
	}
}

func (r *readerLines) binary() bool { return r.bin }

func (r *readerLines) cut() (bool, int64) {
	n := r.size
	if n > 0 && len(r.buf) < int(n) && r.size > walkMaxLine {
		return true, n
	}
	return false, 0
}
