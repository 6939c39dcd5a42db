package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// rgMaxLine bounds one line of rg's JSON output.
const rgMaxLine = 64 << 20

// rgMessage is one line of rg --json output, the fields grep uses.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path         rgData `json:"path"`
		Lines        rgData `json:"lines"`
		LineNumber   int    `json:"line_number"`
		BinaryOffset *int64 `json:"binary_offset"`
	} `json:"data"`
}

// rgData is text rg reports either as UTF-8 text or, when it is not valid
// UTF-8, as base64 bytes.
type rgData struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (d rgData) bytes() []byte {
	if d.Text != nil {
		return []byte(*d.Text)
	}
	b, _ := base64.StdEncoding.DecodeString(d.Bytes)
	return b
}

// rgError is a failure of rg itself. Emitted says whether results were
// already handed on; when not, the caller may fall back to the Go backend.
type rgError struct {
	emitted bool
	msg     string
}

func (e *rgError) Error() string { return e.msg }

// ripgrep runs q with rg, handing each file's results to col in path
// order until it is full, and telling it what rg could not search: paths
// it reported as unreadable, and matching lines too long to take in.
func ripgrep(ctx context.Context, rg string, q *grepQuery, col *grepCollector) error {
	emit := col.add
	args := []string{"--json", "--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--sort", "path", "-e", q.pattern}
	if q.ignoreCase {
		args = append(args, "--ignore-case")
	}
	if q.context > 0 {
		args = append(args, "--context", fmt.Sprint(q.context))
	}
	if q.glob != "" {
		args = append(args, "--glob", q.glob)
	}
	args = append(args, "--glob", "!.git")
	dir := q.root
	if q.rootIsFile {
		dir = filepath.Dir(q.root)
		args = append(args, "--", q.root)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(rctx, rg, args...)
	cmd.Dir = dir
	if q.rootDir != nil {
		// The directory opened and checked, not whatever its name leads
		// to by now: the child changes into it before it runs rg, while
		// it still holds zut's descriptors.
		if fdDir := fmt.Sprintf("/proc/self/fd/%d", q.rootDir.Fd()); dirExists(fdDir) {
			cmd.Dir = fdDir
		}
		if scopeSwapHook != nil {
			scopeSwapHook(q.root)
		}
	}
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return &rgError{msg: fmt.Sprintf("rg: %v", err)}
	}
	if err := cmd.Start(); err != nil {
		return &rgError{msg: fmt.Sprintf("start rg: %v", unwrapPath(err))}
	}
	emitted, stopped, summary := false, false, false
	perr := func() error {
		br := bufio.NewReaderSize(stdout, 256<<10)
		var cur *grepFile
		for {
			line, err := readLine(br, rgMaxLine)
			if errors.Is(err, errLineTooLong) {
				path := ""
				if cur != nil {
					path = cur.path
				}
				col.skip(path, fmt.Sprintf("a matching line is longer than the %s grep takes in, so it is not shown; search it with bash (for example grep -c)", formatSize(rgMaxLine)))
				continue
			}
			if len(line) > 0 {
				var m rgMessage
				if jerr := json.Unmarshal(line, &m); jerr != nil {
					return fmt.Errorf("rg: unreadable output: %v", jerr)
				}
				switch m.Type {
				case "begin":
					cur = &grepFile{path: rgPath(dir, m.Data.Path.bytes())}
				case "match", "context":
					if cur == nil {
						return errors.New("rg: output has a match outside a file")
					}
					cur.lines = append(cur.lines, grepLine{num: m.Data.LineNumber, text: trimEOL(m.Data.Lines.bytes()), match: m.Type == "match"})
				case "end":
					if cur != nil && m.Data.BinaryOffset == nil && len(cur.lines) > 0 {
						emitted = true
						if !emit(*cur) {
							stopped = true
							return nil
						}
					}
					cur = nil
				case "summary":
					summary = true
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("rg: read output: %v", err)
			}
		}
	}()
	if stopped || perr != nil {
		cancel()
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil && !stopped:
		return ctx.Err()
	case perr != nil:
		return &rgError{emitted: emitted, msg: perr.Error()}
	case stopped:
		return nil
	}
	// rg goes on past paths it cannot read, says so on stderr and exits 2.
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		// Only path errors ("x: Permission denied (os error 13)"), not
		// notes such as "No files were searched".
		if l = strings.TrimSpace(strings.TrimPrefix(l, "rg: ")); strings.Contains(l, "(os error") {
			col.skip("", "rg could not search "+l)
		}
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() == 1 {
		return nil // no match
	}
	if werr != nil && !summary {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return &rgError{emitted: emitted, msg: "rg: " + msg}
	}
	return nil
}

// rgPath makes a path from rg's output absolute.
func rgPath(dir string, p []byte) string {
	s := string(p)
	if !filepath.IsAbs(s) {
		s = filepath.Join(dir, s)
	}
	return filepath.Clean(s)
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(p []byte) []byte {
	p = bytes.TrimSuffix(p, []byte{'\n'})
	return bytes.TrimSuffix(p, []byte{'\r'})
}

// errLineTooLong is returned by readLine for a line over its bound,
// which it has read through and dropped.
var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its "\n"). A line over max is read
// to its end without being kept, and errLineTooLong returned.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	over := false
	for {
		part, err := br.ReadSlice('\n')
		if !over && len(line)+len(part) > max {
			over, line = true, nil
		}
		if !over {
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			if err == nil {
				err = errLineTooLong
			}
			return nil, err
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), err
	}
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// dirExists reports whether p names a directory.
func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
