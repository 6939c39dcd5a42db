package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// fileEdits turns the WorkspaceEdit of a rename into one FileEdit per
// file, computed against the files' current content, in path order.
func (s *server) fileEdits(we workspaceEdit) ([]FileEdit, error) {
	byPath := map[string][]textEdit{}
	versions := map[string]*int{}
	add := func(uri string, edits []textEdit, version *int) error {
		p, err := uriPath(uri)
		if err != nil {
			return err
		}
		byPath[p] = append(byPath[p], edits...)
		if version != nil {
			versions[p] = version
		}
		return nil
	}
	if len(we.DocumentChanges) > 0 {
		for _, raw := range we.DocumentChanges {
			var probe struct {
				Kind string `json:"kind"`
			}
			json.Unmarshal(raw, &probe)
			if probe.Kind != "" {
				return nil, fmt.Errorf("the rename would also %s files, which the lsp tool does not do; rename the files yourself", probe.Kind)
			}
			var tde textDocumentEdit
			if err := json.Unmarshal(raw, &tde); err != nil {
				return nil, fmt.Errorf("bad documentChanges entry: %v", err)
			}
			if err := add(tde.TextDocument.URI, tde.Edits, tde.TextDocument.Version); err != nil {
				return nil, err
			}
		}
	} else {
		for uri, edits := range we.Changes {
			if err := add(uri, edits, nil); err != nil {
				return nil, err
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []FileEdit
	for _, p := range paths {
		data, err := readBounded(p, maxDocument)
		if err != nil {
			return nil, fmt.Errorf("read %s: %v", p, tools.UnwrapPath(err))
		}
		if v := versions[p]; v != nil {
			s.docs.mu.Lock()
			d := s.docs.open[p]
			stale := d != nil && d.version != *v
			s.docs.mu.Unlock()
			if stale {
				return nil, fmt.Errorf("%s changed while the server computed the rename; call rename again", p)
			}
		}
		fe, err := applyTextEdits(p, newText(string(data)), s.enc, byPath[p])
		if err != nil {
			return nil, err
		}
		if fe.New != fe.Old {
			out = append(out, fe)
		}
	}
	return out, nil
}

// applyTextEdits applies LSP text edits to t, refusing overlaps. Edits
// that start at the same place keep their order.
func applyTextEdits(path string, t *text, enc encoding, edits []textEdit) (FileEdit, error) {
	type placed struct {
		start, end int
		newText    string
	}
	ps := make([]placed, len(edits))
	for i, e := range edits {
		a, b := t.offset(e.Range.Start, enc), t.offset(e.Range.End, enc)
		if b < a {
			return FileEdit{}, fmt.Errorf("%s: an edit ends before it starts (%d:%d-%d:%d)", path, e.Range.Start.Line+1, e.Range.Start.Character+1, e.Range.End.Line+1, e.Range.End.Character+1)
		}
		ps[i] = placed{a, b, e.NewText}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].start < ps[j].start })
	fe := FileEdit{Path: path, Old: t.s}
	var b strings.Builder
	prev := 0
	for _, p := range ps {
		if p.start < prev {
			return FileEdit{}, fmt.Errorf("%s: the server sent overlapping edits; nothing was changed", path)
		}
		b.WriteString(t.s[prev:p.start])
		b.WriteString(p.newText)
		prev = p.end
		tc := TextChange{OldText: t.s[p.start:p.end], NewText: p.newText}
		tc.Line, tc.Column = t.point(p.start)
		tc.EndLine, tc.EndColumn = t.point(p.end)
		fe.Changes = append(fe.Changes, tc)
	}
	b.WriteString(t.s[prev:])
	fe.New = b.String()
	return fe, nil
}

// WriteEdits is a ready Config.Apply. It checks that every file still
// holds the content the edits were computed against, then replaces each
// file atomically (a temporary file in the same directory renamed over
// it, keeping its permissions; a symlink's target is replaced). When a
// file changed, nothing is written.
func WriteEdits(ctx context.Context, edits []FileEdit) error {
	for _, fe := range edits {
		data, err := readBounded(fe.Path, maxDocument)
		if err != nil {
			return fmt.Errorf("read %s: %v; nothing was written", fe.Path, tools.UnwrapPath(err))
		}
		if string(data) != fe.Old {
			return fmt.Errorf("%s changed since the rename was computed; nothing was written; call rename again", fe.Path)
		}
	}
	for i, fe := range edits {
		if ctx.Err() != nil {
			return fmt.Errorf("aborted after writing %d of %d files", i, len(edits))
		}
		if _, err := tools.WriteFile(fe.Path, []byte(fe.New)); err != nil {
			return fmt.Errorf("write %s: %v (%d of %d files were written before it)", fe.Path, err, i, len(edits))
		}
	}
	return nil
}
