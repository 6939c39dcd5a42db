package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/agent/tools/lsp"
	"github.com/zut-go/zut/agent/tools/python"
	"github.com/zut-go/zut/agent/tools/syntax"
	"github.com/zut-go/zut/agent/tools/web"
	"github.com/zut-go/zut/agent/tools/worktree"
)

// ToolSummary is the compact view of a finished call of one of the
// built-in tools beyond the first six, built from the Details of its
// result: a search as a numbered list of results, a page as its title,
// URL and first lines, diagnostics as a list with their severities, an
// outline as its symbols. It returns "" for other tools, for failed
// calls and when the details do not decode; the UI then shows the text
// the model got.
func ToolSummary(name string, details json.RawMessage) string {
	if len(details) == 0 {
		return ""
	}
	var b strings.Builder
	switch name {
	case "web_search":
		var d web.SearchDetails
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		fmt.Fprintf(&b, "%s from %s\n", plural(len(d.Results), "result"), d.Backend)
		for _, r := range d.Results {
			fmt.Fprintf(&b, "%d. %s\n   %s\n", r.N, oneLine(r.Title), r.URL)
			if r.Snippet != "" {
				fmt.Fprintf(&b, "   %s\n", clipLine(r.Snippet, 160))
			}
		}
	case "web_open", "web_click":
		var d web.PageDetails
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		title := d.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&b, "%s\n%s\n", oneLine(title), d.URL)
		fmt.Fprintf(&b, "lines %d-%d of %d · %s · %d links\n", d.From, d.To, d.Lines, d.Size, d.Links)
		for _, h := range d.Head {
			fmt.Fprintf(&b, "  %s\n", clipLine(h, 160))
		}
		if d.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", d.Note)
		}
	case "web_find":
		var d web.FindDetails
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		fmt.Fprintf(&b, "%d matches of %q in %s\n", d.Total, d.Pattern, oneLine(firstNonEmpty(d.Title, d.URL)))
		for _, m := range d.Matches {
			fmt.Fprintf(&b, "%5d: %s\n", m.Line, clipLine(m.Text, 160))
		}
	case "lsp":
		var d lsp.Details
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		lspSummary(&b, d)
	case "ast":
		var d syntax.Details
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		for _, s := range d.Symbols {
			indent := strings.Repeat("  ", s.Depth)
			fmt.Fprintf(&b, "%s%s %s  %s:%d\n", indent, s.Kind, s.Name, filepath.ToSlash(s.File), s.Line)
		}
		if d.Partial || d.TimedOut || d.Cut {
			b.WriteString("(partial: see the tool's text for what was left out)\n")
		}
	case "python":
		var d python.Details
		if json.Unmarshal(details, &d) != nil {
			return ""
		}
		for _, part := range []string{d.Stdout, d.Stderr, d.Traceback} {
			if s := strings.TrimRight(part, "\n"); s != "" {
				b.WriteString(s + "\n")
			}
		}
		if d.Value != "" {
			b.WriteString("→ " + d.Value + "\n")
		}
	case "worktree":
		var d worktree.Details
		if json.Unmarshal(details, &d) != nil || len(d.Worktrees) == 0 {
			return ""
		}
		for _, w := range d.Worktrees {
			state := "clean"
			if w.Dirty {
				state = fmt.Sprintf("%d changes", w.Changes)
			}
			fmt.Fprintf(&b, "%s  %s  %s\n", firstNonEmpty(w.Branch, "(detached)"), w.Path, state)
		}
	default:
		return ""
	}
	return strings.TrimRight(b.String(), "\n")
}

// lspSummary lists what an lsp call found.
func lspSummary(b *strings.Builder, d lsp.Details) {
	for _, g := range d.Diagnostics {
		fmt.Fprintf(b, "%-7s %s:%d:%d  %s\n", g.Severity, filepath.ToSlash(g.Path), g.Line, g.Column, oneLine(g.Message))
	}
	for _, l := range d.Locations {
		fmt.Fprintf(b, "%s:%d:%d  %s\n", filepath.ToSlash(l.Path), l.Line, l.Column, clipLine(l.Text, 120))
	}
	if d.Hover != "" {
		b.WriteString(strings.TrimSpace(d.Hover) + "\n")
	}
	for _, s := range d.Symbols {
		fmt.Fprintf(b, "%s%s %s  %s:%d\n", strings.Repeat("  ", s.Depth), s.Kind, s.Name, filepath.ToSlash(s.Path), s.Line)
	}
	if len(d.Edits) > 0 {
		n := 0
		for _, e := range d.Edits {
			n += len(e.Changes)
		}
		verb := "proposed"
		if d.Applied {
			verb = "applied"
		}
		fmt.Fprintf(b, "%d changes in %d files %s\n", n, len(d.Edits), verb)
		for _, e := range d.Edits {
			fmt.Fprintf(b, "  %s (%d)\n", filepath.ToSlash(e.Path), len(e.Changes))
		}
	}
	if d.Action == "diagnostics" && len(d.Diagnostics) == 0 {
		b.WriteString("no problems\n")
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

func clipLine(s string, n int) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
