package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools"
)

// maxRecheck bounds the renamed files whose diagnostics are awaited after
// an applied rename.
const maxRecheck = 20

// recheckSettle is how long an applied rename waits for a file to be
// published again after the last renamed file changed.
const recheckSettle = 500 * time.Millisecond

// rename answers rename: the edits, written through Config.Apply when
// apply is set.
func (t *lspTool) rename(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	tg, err := t.locate(ctx, c, progress)
	if err != nil {
		return "", err
	}
	t.about(det, tg)
	if c.apply && t.m.cfg.Apply == nil {
		return "", errors.New("this zut cannot apply lsp edits; call rename without apply to see them, then make them with edit")
	}
	progress("asking " + tg.s.cfg.Name + " for the rename")
	var we *workspaceEdit
	params := map[string]any{"textDocument": tg.positionParams().TextDocument, "position": tg.pos, "newName": c.newName}
	if err := tg.s.call(ctx, "textDocument/rename", params, &we); err != nil {
		return "", err
	}
	if we == nil {
		return "", fmt.Errorf("%s cannot rename %s: it returned no edits", tg.s.cfg.Name, tg.about())
	}
	edits, err := tg.s.fileEdits(*we)
	if err != nil {
		return "", err
	}
	det.Edits = edits
	if len(edits) == 0 {
		return fmt.Sprintf("renaming %s to %s changes nothing", tg.about(), c.newName), nil
	}
	n := 0
	for _, fe := range edits {
		n += len(fe.Changes)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rename %s → %s: %s in %s, from %s", tg.about(), c.newName, tools.Plural(n, "edit"), tools.Plural(len(edits), "file"), tg.s.cfg.Name)
	if !c.apply {
		b.WriteString(" (not applied; call again with apply: true to write them)")
	}
	b.WriteString(":\n")
	budget := maxRenameLines
	for _, fe := range edits {
		t.showFileEdit(&b, fe, &budget)
	}
	if !c.apply {
		return b.String(), nil
	}
	progress(fmt.Sprintf("applying %s", tools.Plural(n, "edit")))
	if err := t.m.cfg.Apply(ctx, edits); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("the edits were not applied: %v", err)
	}
	det.Applied = true
	fmt.Fprintf(&b, "applied %s in %s.\n", tools.Plural(n, "edit"), tools.Plural(len(edits), "file"))
	b.WriteString(t.recheck(ctx, tg.s, edits))
	return b.String(), nil
}

// showFileEdit prints the lines one file's edits change, old then new,
// within a budget of lines.
func (t *lspTool) showFileEdit(b *strings.Builder, fe FileEdit, budget *int) {
	shown := t.m.paths.Display(fe.Path)
	fmt.Fprintf(b, "%s (%s):\n", shown, tools.Plural(len(fe.Changes), "edit"))
	old := newText(fe.Old)
	for i := 0; i < len(fe.Changes); {
		if *budget <= 0 {
			b.WriteString("  …\n")
			return
		}
		ch := fe.Changes[i]
		if ch.EndLine != ch.Line {
			fmt.Fprintf(b, "  %d:%d-%d:%d replaced by %q\n", ch.Line, ch.Column, ch.EndLine, ch.EndColumn, clipText(ch.NewText, 120))
			i++
			*budget--
			continue
		}
		// Every single-line change on this line, applied to it.
		l := old.line(ch.Line - 1)
		var nl strings.Builder
		prev := 0
		j := i
		for ; j < len(fe.Changes) && fe.Changes[j].Line == ch.Line && fe.Changes[j].EndLine == ch.Line; j++ {
			c := fe.Changes[j]
			a, e := runeOffset(l, c.Column), runeOffset(l, c.EndColumn)
			if a < prev {
				break
			}
			nl.WriteString(l[prev:a])
			nl.WriteString(c.NewText)
			prev = e
		}
		nl.WriteString(l[prev:])
		fmt.Fprintf(b, "  %d:%d: %s\n  %s→ %s\n", ch.Line, ch.Column, clipText(strings.TrimSpace(l), 200),
			strings.Repeat(" ", len(fmt.Sprintf("%d:%d", ch.Line, ch.Column))), clipText(strings.TrimSpace(nl.String()), 200))
		*budget -= 2
		i = max(j, i+1)
	}
}

// runeOffset is the byte offset of the 1-based character column col of l.
func runeOffset(l string, col int) int {
	off := 0
	for n := 1; n < col && off < len(l); n++ {
		_, size := utf8.DecodeRuneInString(l[off:])
		off += size
	}
	return off
}

// recheck syncs the renamed files with the server and reports the errors
// it then finds in them.
func (t *lspTool) recheck(ctx context.Context, s *server, edits []FileEdit) string {
	if !t.m.afterEdit() {
		for _, fe := range edits {
			s.sync(ctx, fe.Path, true)
		}
		return ""
	}
	wctx, cancel := context.WithTimeout(ctx, t.m.wait())
	defer cancel()
	// Send every change first, then wait for publications that came after
	// the last one, so no file is judged against its neighbours' old text.
	var states []docState
	for i, fe := range edits {
		if i == maxRecheck {
			break
		}
		if d, err := s.sync(wctx, fe.Path, true); err == nil {
			states = append(states, d)
		}
	}
	var last uint64
	for _, d := range states {
		last = max(last, d.sentSeq)
	}
	pull := provides(s.caps.DiagnosticProvider)
	results := make([][]Diagnostic, len(states))
	var wg sync.WaitGroup
	for i, d := range states {
		wg.Go(func() {
			items, err := s.diagnostics(wctx, d)
			if err != nil {
				return
			}
			if !pull {
				// A publication from before the last file changed may
				// judge this one against its neighbours' old text: give
				// the server a moment to publish again.
				if f := s.diag.newer(wctx, d.path, last, recheckSettle); f != nil {
					items = f.items
				}
			}
			for _, dg := range toDiagnostics(t.m.paths.Display(d.path), d.text, s.enc, items) {
				if dg.Severity == "error" {
					results[i] = append(results[i], dg)
				}
			}
		})
	}
	wg.Wait()
	var errs []Diagnostic
	for _, r := range results {
		errs = append(errs, r...)
	}
	if len(errs) == 0 {
		return fmt.Sprintf("%s reports no errors in the renamed files.\n", s.cfg.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s now reports %s in the renamed files:\n", s.cfg.Name, tools.Plural(len(errs), "error"))
	formatDiagnostics(&b, errs, 10, "")
	return b.String()
}
