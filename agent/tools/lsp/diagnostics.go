package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools"
)

// Bounds on the diagnostics kept per server: by count, and by bytes, so
// that a server sending huge messages cannot grow zut without end. A
// message longer than maxDiagnosticMessage is cut (its source and code
// at maxDiagnosticField); a file's diagnostics stop at
// maxDiagnosticFileBytes; a publication that would take the server's
// store past maxDiagnosticBytes is dropped (the file keeps what it had).
const (
	maxDiagnosticFiles     = 10000
	maxDiagnosticsInFile   = 1000
	maxDiagnosticMessage   = 4 << 10
	maxDiagnosticField     = 256
	maxDiagnosticFileBytes = 512 << 10
	maxDiagnosticBytes     = 16 << 20
)

// boundDiagnostics applies the count and byte bounds to one file's
// diagnostics and returns them with the bytes they hold. Cut strings are
// copied, so the server's huge message is not kept alive behind them.
func boundDiagnostics(items []wireDiagnostic) ([]wireDiagnostic, int) {
	if len(items) > maxDiagnosticsInFile {
		items = items[:maxDiagnosticsInFile]
	}
	out := make([]wireDiagnostic, 0, len(items))
	total := 0
	for _, w := range items {
		w.Message = clipDiagnostic(w.Message, maxDiagnosticMessage)
		w.Source = clipDiagnostic(w.Source, maxDiagnosticField)
		if len(w.Code) > maxDiagnosticField {
			w.Code = nil
		}
		n := len(w.Message) + len(w.Source) + len(w.Code) + 64
		if total+n > maxDiagnosticFileBytes {
			break
		}
		total += n
		out = append(out, w)
	}
	return out, total
}

// clipDiagnostic cuts s to at most max bytes at a rune boundary, marking
// the cut, in a copy of its own.
func clipDiagnostic(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(" [cut]")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]) + " [cut]"
}

// fileDiagnostics is the last publishDiagnostics of one file.
type fileDiagnostics struct {
	version *int
	seq     uint64    // order of arrival among all publications
	at      time.Time // arrival
	items   []wireDiagnostic
	bytes   int
}

// diagStore holds the diagnostics a server published of the files'
// current text, and wakes those waiting for new ones. It knows the last
// version of each file sent to the server: what it held of older text is
// dropped when a version is sent, and so is any later publication naming
// an older version. Safe for concurrent use.
type diagStore struct {
	mu      sync.Mutex
	files   map[string]*fileDiagnostics
	sent    map[string]int // the last version of each file sent
	bytes   int            // what the files' diagnostics hold, as boundDiagnostics counts
	seq     uint64
	stale   int           // publications dropped for naming an older version
	changed chan struct{} // closed and replaced at every publication
}

func (ds *diagStore) init() {
	ds.files = map[string]*fileDiagnostics{}
	ds.sent = map[string]int{}
	ds.changed = make(chan struct{})
}

// nextVersion is the version the next text of the file at path goes out
// with: versions only grow, even across a close and a new open.
func (ds *diagStore) nextVersion(path string) int {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.sent[path] + 1
}

// expect records that version of the file at path is being sent: what the
// store holds of the file is of older text and is dropped. It returns the
// sequence number the publications of the new text come after.
func (ds *diagStore) expect(path string, version int) uint64 {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.sent[path] = version
	ds.dropLocked(path)
	return ds.seq
}

// drop forgets the diagnostics of the file at path.
func (ds *diagStore) drop(path string) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.dropLocked(path)
}

func (ds *diagStore) dropLocked(path string) {
	if f, ok := ds.files[path]; ok {
		ds.bytes -= f.bytes
		delete(ds.files, path)
	}
}

// of returns what the store holds of the file at path, or nil.
func (ds *diagStore) of(path string) *fileDiagnostics {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.files[path]
}

// current is the sequence number of the last publication.
func (ds *diagStore) current() uint64 {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.seq
}

// publish records one publication; it never blocks. It reports false
// when the publication was dropped: of a version older than the last
// sent, or over the bounds.
func (ds *diagStore) publish(path string, version *int, items []wireDiagnostic) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if version != nil && *version < ds.sent[path] {
		ds.stale++
		return false
	}
	items, n := boundDiagnostics(items)
	old, ok := ds.files[path]
	if !ok && len(ds.files) >= maxDiagnosticFiles {
		return false
	}
	if ok {
		ds.bytes -= old.bytes
	}
	if ds.bytes+n > maxDiagnosticBytes {
		if ok {
			ds.bytes += old.bytes
		}
		return false
	}
	ds.bytes += n
	ds.seq++
	ds.files[path] = &fileDiagnostics{version: version, seq: ds.seq, at: time.Now(), items: items, bytes: n}
	close(ds.changed)
	ds.changed = make(chan struct{})
	return true
}

// staleCount is the number of publications dropped as stale.
func (ds *diagStore) staleCount() int {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.stale
}

// all returns a copy of every file's diagnostics.
func (ds *diagStore) all() map[string][]wireDiagnostic {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	out := make(map[string][]wireDiagnostic, len(ds.files))
	for p, f := range ds.files {
		if len(f.items) > 0 {
			out[p] = f.items
		}
	}
	return out
}

// errNoDiagnostics is a wait for diagnostics that ran out of time.
var errNoDiagnostics = errors.New("no diagnostics in time")

// diagnostics returns the diagnostics of a document in state d: pulled
// with textDocument/diagnostic when the server offers it, else the
// first publication that arrived after d's last change was sent and, when
// the server sends versions, is of version d.version or later.
func (s *server) diagnostics(ctx context.Context, d docState) ([]wireDiagnostic, error) {
	if provides(s.caps.DiagnosticProvider) {
		var rep documentDiagnosticReport
		err := s.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": textDocumentIdentifier{URI: d.uri}}, &rep)
		if err != nil {
			return nil, err
		}
		items, _ := boundDiagnostics(rep.Items)
		return items, nil
	}
	f, err := s.published(ctx, d)
	if err != nil {
		return nil, err
	}
	if f.version == nil {
		// Without a version a publication may be of the text before the
		// change: the newest one once the server is quiet about the file
		// (settleUnversioned without a newer one, and no work done
		// progress in flight) is taken.
		return s.quietOn(ctx, d.path, f).items, nil
	}
	// A server may publish a version more than once: gopls first sends
	// what it knows without type checking, then the type check. An empty
	// publication while the server reports work in progress, or in its
	// first moments, waits a little for a newer one (bounded by ctx).
	for len(f.items) == 0 && ctx.Err() == nil && (s.busy() || s.young()) {
		g := s.diag.newer(ctx, d.path, f.seq, settleEmpty)
		if g != nil && g.seq > f.seq {
			f = g
			continue
		}
		if !s.busy() {
			break
		}
	}
	return f.items, nil
}

// settleEmpty is how long an empty publication waits for a newer one,
// and defaultWarmup how long a new server counts as still getting to know
// the workspace (Config.Warmup).
const (
	settleEmpty       = 300 * time.Millisecond
	settleUnversioned = 300 * time.Millisecond
	defaultWarmup     = 10 * time.Second
)

// quietOn returns the newest publication for the file at path, from f on,
// once the server has been quiet about it for settleUnversioned and
// reports no work in progress, or when ctx ends.
func (s *server) quietOn(ctx context.Context, path string, f *fileDiagnostics) *fileDiagnostics {
	for ctx.Err() == nil {
		if g := s.diag.newer(ctx, path, f.seq, settleUnversioned); g != nil && g.seq > f.seq {
			f = g
			continue
		}
		if !s.busy() {
			break
		}
		s.diag.mu.Lock()
		ch := s.diag.changed
		s.diag.mu.Unlock()
		select {
		case <-ch:
		case <-s.progressChanged():
		case <-ctx.Done():
		}
	}
	return f
}

// settle waits until the server has published nothing for quiet and
// reports no work in progress, or ctx ends.
func (s *server) settle(ctx context.Context, quiet time.Duration) {
	t := time.NewTimer(quiet)
	defer t.Stop()
	for {
		s.diag.mu.Lock()
		ch := s.diag.changed
		s.diag.mu.Unlock()
		select {
		case <-ch:
			t.Reset(quiet)
		case <-t.C:
			if !s.busy() {
				return
			}
			select {
			case <-s.progressChanged():
			case <-ctx.Done():
				return
			}
			t.Reset(quiet)
		case <-ctx.Done():
			return
		}
	}
}

// busy reports work done progress in flight; young a server started less
// than its warmup ago.
func (s *server) busy() bool { return s.progressText() != "" }

func (s *server) young() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.started.IsZero() && time.Since(s.started) < s.warmup
}

// published waits for the first publication for d's file that arrived
// after d's last change was sent and, when the server sends versions, is
// of version d.version or later.
func (s *server) published(ctx context.Context, d docState) (*fileDiagnostics, error) {
	ds := &s.diag
	for {
		ds.mu.Lock()
		f := ds.files[d.path]
		ch := ds.changed
		ds.mu.Unlock()
		if f != nil && f.seq > d.sentSeq && (f.version == nil || *f.version >= d.version) {
			return f, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, errNoDiagnostics
			}
			return nil, ctx.Err()
		case <-s.conn.Done():
			return nil, s.deadError("")
		}
	}
}

// newer waits up to settle for a publication for the file at path that
// arrived after sequence number after, and returns the newest one held.
func (ds *diagStore) newer(ctx context.Context, path string, after uint64, settle time.Duration) *fileDiagnostics {
	t := time.NewTimer(settle)
	defer t.Stop()
	for {
		ds.mu.Lock()
		f := ds.files[path]
		ch := ds.changed
		ds.mu.Unlock()
		if f != nil && f.seq > after {
			return f
		}
		select {
		case <-ch:
		case <-t.C:
			return f
		case <-ctx.Done():
			return f
		}
	}
}

// severityName names a DiagnosticSeverity; a missing one counts as an
// error, as editors show it.
func severityName(n int) string {
	switch n {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error"
}

// codeText prints a diagnostic code, a number or a string.
func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// toDiagnostics converts wire diagnostics of the file at abs, placed in t
// (nil when the file could not be read), sorted errors first.
func toDiagnostics(shown string, t *text, enc encoding, items []wireDiagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(items))
	for _, w := range items {
		d := Diagnostic{Path: shown, Severity: severityName(w.Severity), Source: w.Source,
			Code: codeText(w.Code), Message: strings.TrimSpace(w.Message)}
		d.Line, d.Column, d.EndLine, d.EndColumn = placeSpan(t, enc, w.Range)
		if t != nil {
			d.Text = strings.TrimSpace(t.line(d.Line - 1))
		}
		out = append(out, d)
	}
	sortDiagnostics(out)
	return out
}

// sortDiagnostics orders errors first, then warnings, info and hints, each
// by file and position.
func sortDiagnostics(ds []Diagnostic) {
	rank := map[string]int{"error": 0, "warning": 1, "info": 2, "hint": 3}
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] < rank[b.Severity]
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// countSeverities prints "2 errors, 1 warning".
func countSeverities(ds []Diagnostic) string {
	counts := map[string]int{}
	for _, d := range ds {
		counts[d.Severity]++
	}
	var parts []string
	for _, sev := range []string{"error", "warning", "info", "hint"} {
		switch n := counts[sev]; {
		case n == 0:
		case sev == "info":
			parts = append(parts, fmt.Sprintf("%d info", n))
		default:
			parts = append(parts, tools.Plural(n, sev))
		}
	}
	return strings.Join(parts, ", ")
}

// formatDiagnostics prints up to max diagnostics, one per line with the
// source line under it, and a last line counting the rest.
func formatDiagnostics(b *strings.Builder, ds []Diagnostic, max int, more string) {
	for i, d := range ds {
		if i == max {
			fmt.Fprintf(b, "… and %d more%s\n", len(ds)-max, more)
			break
		}
		fmt.Fprintf(b, "%s:%d:%d: %s: %s", d.Path, d.Line, d.Column, d.Severity, d.Message)
		var tag []string
		if d.Source != "" {
			tag = append(tag, d.Source)
		}
		if d.Code != "" {
			tag = append(tag, d.Code)
		}
		if len(tag) > 0 {
			fmt.Fprintf(b, " [%s]", strings.Join(tag, " "))
		}
		b.WriteByte('\n')
		if d.Text != "" {
			fmt.Fprintf(b, "    %d | %s\n", d.Line, clipText(d.Text, 200))
		}
	}
}
