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

// recheckSettle is how quiet a server must be after an applied rename
// before its diagnostics of the renamed files are taken.
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

// recheck tells the server about every file the rename wrote and reports
// the errors it then finds in them. Every file is announced as changed on
// disk and synced, its old diagnostics dropped (see resync); then each
// file's publication of its new version is awaited, and after the last of
// them the server's quiet (recheckSettle without a publication, and no
// work in progress), so that no file is judged against its neighbours'
// old text.
func (t *lspTool) recheck(ctx context.Context, s *server, edits []FileEdit) string {
	paths := make([]string, len(edits))
	for i, fe := range edits {
		paths[i] = fe.Path
	}
	if !t.m.afterEdit() {
		s.resync(ctx, paths)
		return ""
	}
	wctx, cancel := context.WithTimeout(ctx, t.m.wait())
	defer cancel()
	states := s.resync(wctx, paths)
	pull := provides(s.caps.DiagnosticProvider)
	results := make([][]wireDiagnostic, len(states))
	got := make([]bool, len(states))
	var wg sync.WaitGroup
	for i, d := range states {
		wg.Go(func() {
			items, err := s.diagnostics(wctx, d)
			results[i], got[i] = items, err == nil
		})
	}
	wg.Wait()
	if !pull {
		s.settle(wctx, recheckSettle)
		for i, d := range states {
			// The newest publication of the file's text; older versions
			// never reach the store.
			if f := s.diag.of(d.path); f != nil && f.seq > d.sentSeq {
				results[i], got[i] = f.items, true
			}
		}
	}
	var errs []Diagnostic
	missing, early := len(paths)-len(states), false
	for i, d := range states {
		early = early || d.early
		if !got[i] {
			missing++
			continue
		}
		for _, dg := range toDiagnostics(t.m.paths.Display(d.path), d.text, s.enc, results[i]) {
			if dg.Severity == "error" {
				errs = append(errs, dg)
			}
		}
	}
	sortDiagnostics(errs)
	var b strings.Builder
	switch {
	case len(errs) > 0:
		fmt.Fprintf(&b, "%s now reports %s in the renamed files:\n", s.cfg.Name, tools.Plural(len(errs), "error"))
		formatDiagnostics(&b, errs, 10, "; see lsp action=diagnostics")
	case missing == 0:
		fmt.Fprintf(&b, "%s reports no errors in the renamed files.\n", s.cfg.Name)
	case missing == len(paths):
		fmt.Fprintf(&b, "%s sent no diagnostics for the renamed files within %s; check later with lsp action=diagnostics.\n", s.cfg.Name, t.m.wait())
	default:
		fmt.Fprintf(&b, "%s reports no errors in %s of the renamed files, and sent none for the other %d within %s; check later with lsp action=diagnostics.\n",
			s.cfg.Name, tools.Plural(len(paths)-missing, "file"), missing, t.m.wait())
	}
	if early {
		b.WriteString(s.loadNote() + "\n")
	}
	return b.String()
}
