package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Bounds on what one call lists.
const (
	maxLocations      = 200
	maxSymbols        = 500
	maxWorkspaceItems = 50
	maxDiagShown      = 50
	maxRenameLines    = 100
)

// locations answers definition and references.
func (t *lspTool) locations(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	tg, err := t.locate(ctx, c, progress)
	if err != nil {
		return "", err
	}
	t.about(det, tg)
	method, params := "textDocument/definition", any(tg.positionParams())
	if c.action == "references" {
		method = "textDocument/references"
		params = map[string]any{"textDocument": tg.positionParams().TextDocument, "position": tg.pos,
			"context": map[string]bool{"includeDeclaration": true}}
	}
	progress(fmt.Sprintf("asking %s for %s", tg.s.cfg.Name, c.action))
	var raw json.RawMessage
	if err := tg.s.call(ctx, method, params, &raw); err != nil {
		return "", err
	}
	src := newSources(tg.s)
	for _, l := range parseLocations(raw) {
		if loc, ok := src.locationOf(l.URI, l.Range, t.m.paths.Display); ok {
			det.Locations = append(det.Locations, loc)
		}
	}
	sort.SliceStable(det.Locations, func(i, j int) bool {
		a, b := det.Locations[i], det.Locations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	what := "definition"
	if c.action == "references" {
		what = "references"
	}
	if len(det.Locations) == 0 {
		return fmt.Sprintf("%s found no %s of %s", tg.s.cfg.Name, what, tg.about()), nil
	}
	var b strings.Builder
	if c.action == "references" {
		fmt.Fprintf(&b, "%s to %s, from %s:\n", tools.Plural(len(det.Locations), "reference"), tg.about(), tg.s.cfg.Name)
	} else {
		fmt.Fprintf(&b, "definition of %s, from %s:\n", tg.about(), tg.s.cfg.Name)
	}
	for i, l := range det.Locations {
		if i == maxLocations {
			fmt.Fprintf(&b, "… and %d more\n", len(det.Locations)-maxLocations)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", l.Path, l.Line, l.Column, clipText(l.Text, 200))
	}
	if len(det.Locations) > maxLocations {
		det.Locations = det.Locations[:maxLocations]
	}
	return b.String(), nil
}

// about fills the Details with the target of a call.
func (t *lspTool) about(det *Details, tg *target) {
	det.Server, det.Path, det.Line, det.Column = tg.s.cfg.Name, tg.shown, tg.line, tg.col
}

// hover answers hover.
func (t *lspTool) hover(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	tg, err := t.locate(ctx, c, progress)
	if err != nil {
		return "", err
	}
	t.about(det, tg)
	var res *struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := tg.s.call(ctx, "textDocument/hover", tg.positionParams(), &res); err != nil {
		return "", err
	}
	if res != nil {
		det.Hover = hoverText(res.Contents)
	}
	if det.Hover == "" {
		return fmt.Sprintf("%s has no hover information for %s", tg.s.cfg.Name, tg.about()), nil
	}
	return fmt.Sprintf("hover for %s, from %s:\n%s", tg.about(), tg.s.cfg.Name, det.Hover), nil
}

// symbols answers symbols: the outline of a file, or a workspace search.
func (t *lspTool) symbols(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	if c.query != "" {
		return t.workspaceSymbols(ctx, c, det, progress)
	}
	tg, err := t.open(ctx, c, progress)
	if err != nil {
		return "", err
	}
	det.Server, det.Path = tg.s.cfg.Name, tg.shown
	var raw json.RawMessage
	if err := tg.s.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": textDocumentIdentifier{URI: tg.doc.uri}}, &raw); err != nil {
		return "", err
	}
	var items []json.RawMessage
	json.Unmarshal(raw, &items)
	src := newSources(tg.s)
	txt := tg.doc.text
	var walk func(ds []documentSymbol, depth int)
	walk = func(ds []documentSymbol, depth int) {
		for _, d := range ds {
			if len(det.Symbols) >= maxSymbols {
				return
			}
			line, col, _, _ := placeSpan(txt, tg.s.enc, d.SelectionRange)
			det.Symbols = append(det.Symbols, Symbol{Name: d.Name, Kind: symbolKind(d.Kind), Detail: d.Detail,
				Path: tg.shown, Line: line, Column: col, Depth: depth})
			walk(d.Children, depth+1)
		}
	}
	for _, it := range items {
		var probe struct {
			Location json.RawMessage `json:"location"`
		}
		json.Unmarshal(it, &probe)
		if probe.Location != nil {
			var si symbolInformation
			if json.Unmarshal(it, &si) == nil && len(det.Symbols) < maxSymbols {
				det.Symbols = append(det.Symbols, t.symbolOf(src, si))
			}
			continue
		}
		var ds documentSymbol
		if json.Unmarshal(it, &ds) == nil {
			walk([]documentSymbol{ds}, 0)
		}
	}
	if len(det.Symbols) == 0 {
		return fmt.Sprintf("%s found no symbols in %s", tg.s.cfg.Name, tg.shown), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "symbols of %s, from %s:\n", tg.shown, tg.s.cfg.Name)
	for _, s := range det.Symbols {
		fmt.Fprintf(&b, "%s%d:%d %s %s", strings.Repeat("  ", s.Depth), s.Line, s.Column, s.Kind, s.Name)
		if s.Detail != "" {
			fmt.Fprintf(&b, " — %s", clipText(strings.ReplaceAll(s.Detail, "\n", " "), 120))
		}
		if s.Container != "" {
			fmt.Fprintf(&b, " (in %s)", s.Container)
		}
		b.WriteByte('\n')
	}
	if len(det.Symbols) == maxSymbols {
		fmt.Fprintf(&b, "[the outline was cut at %d symbols]\n", maxSymbols)
	}
	return b.String(), nil
}

// symbolOf converts a SymbolInformation or WorkspaceSymbol.
func (t *lspTool) symbolOf(src *sources, si symbolInformation) Symbol {
	sym := Symbol{Name: si.Name, Kind: symbolKind(si.Kind), Container: si.ContainerName}
	abs, err := uriPath(si.Location.URI)
	if err != nil {
		return sym
	}
	sym.Path = t.m.paths.Display(abs)
	if si.Location.Range != nil {
		sym.Line, sym.Column, _, _ = placeSpan(src.text(abs), src.s.enc, *si.Location.Range)
	}
	return sym
}

// workspaceSymbols searches the workspace of c.path's server, or of every
// running server (starting the project's when none runs).
func (t *lspTool) workspaceSymbols(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	var servers []*server
	if c.path != "" {
		tg, err := t.open(ctx, c, progress)
		if err != nil {
			return "", err
		}
		servers = []*server{tg.s}
	} else if servers = t.m.running(); len(servers) == 0 {
		if servers = t.m.projectServers(); len(servers) == 0 {
			return "", errors.New("no language server is running, and none is configured for this project's files; give path, a source file, to choose the server")
		}
	}
	var names []string
	var errs []string
	for _, s := range servers {
		names = append(names, s.cfg.Name)
		if !s.isReady() {
			progress("starting " + s.cfg.Name)
		}
		if c.path == "" && s.waitReady(ctx) == nil {
			s.refresh(ctx)
		}
		var raw []symbolInformation
		if err := s.call(ctx, "workspace/symbol", map[string]string{"query": c.query}, &raw); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			errs = append(errs, err.Error())
			continue
		}
		// Symbols of the workspace before those of dependencies.
		src := newSources(s)
		sort.SliceStable(raw, func(i, j int) bool {
			return t.inWorkspace(s, raw[i].Location.URI) && !t.inWorkspace(s, raw[j].Location.URI)
		})
		for i, si := range raw {
			if i == maxWorkspaceItems {
				break
			}
			det.Symbols = append(det.Symbols, t.symbolOf(src, si))
		}
	}
	det.Server = strings.Join(names, ", ")
	if len(det.Symbols) == 0 && len(errs) > 0 {
		return "", errors.New(strings.Join(errs, "; "))
	}
	var b strings.Builder
	if len(det.Symbols) == 0 {
		fmt.Fprintf(&b, "%s found no symbols matching %q\n", det.Server, c.query)
	} else {
		fmt.Fprintf(&b, "%s matching %q, from %s:\n", tools.Plural(len(det.Symbols), "symbol"), c.query, det.Server)
	}
	for _, s := range det.Symbols {
		fmt.Fprintf(&b, "%s %s — %s:%d:%d", s.Kind, s.Name, s.Path, s.Line, s.Column)
		if s.Container != "" {
			fmt.Fprintf(&b, " (in %s)", s.Container)
		}
		b.WriteByte('\n')
	}
	for _, e := range errs {
		fmt.Fprintf(&b, "(%s)\n", e)
	}
	return b.String(), nil
}

// inWorkspace reports whether uri is inside the server's root or the
// working directory.
func (t *lspTool) inWorkspace(s *server, uri string) bool {
	p, err := uriPath(uri)
	return err == nil && (within(p, s.root) || within(p, t.m.cfg.CWD))
}

// diagnostics answers diagnostics: of one file, waiting for the server to
// check it, or everything the running servers reported so far.
func (t *lspTool) diagnostics(ctx context.Context, c call, det *Details, progress func(string)) (string, error) {
	if c.path == "" {
		return t.allDiagnostics(det)
	}
	tg, err := t.open(ctx, c, progress)
	if err != nil {
		return "", err
	}
	det.Server, det.Path = tg.s.cfg.Name, tg.shown
	progress("waiting for " + tg.s.cfg.Name + " to check " + tg.shown)
	wctx, cancel := context.WithTimeout(ctx, max(t.m.wait(), 10*time.Second))
	defer cancel()
	items, err := tg.s.diagnostics(wctx, tg.doc)
	if errors.Is(err, errNoDiagnostics) {
		return fmt.Sprintf("%s reported no diagnostics for %s in time; it may still be loading (see lsp action=status)", tg.s.cfg.Name, tg.shown), nil
	}
	if err != nil {
		return "", err
	}
	det.Diagnostics = toDiagnostics(tg.shown, tg.doc.text, tg.s.enc, items)
	var b strings.Builder
	if len(det.Diagnostics) == 0 {
		fmt.Fprintf(&b, "%s reports no problems in %s\n", tg.s.cfg.Name, tg.shown)
	} else {
		fmt.Fprintf(&b, "%s reports %s in %s:\n", tg.s.cfg.Name, countSeverities(det.Diagnostics), tg.shown)
		formatDiagnostics(&b, det.Diagnostics, maxDiagShown, "")
	}
	if tg.doc.early {
		b.WriteString(tg.s.loadNote() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// allDiagnostics lists what every running server has reported.
func (t *lspTool) allDiagnostics(det *Details) (string, error) {
	servers := t.m.running()
	if len(servers) == 0 {
		return "no language server is running yet, so there are no diagnostics; give path to check a file", nil
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.cfg.Name)
		src := newSources(s)
		for abs, items := range s.diag.all() {
			det.Diagnostics = append(det.Diagnostics, toDiagnostics(t.m.paths.Display(abs), src.text(abs), s.enc, items)...)
		}
	}
	sortDiagnostics(det.Diagnostics)
	det.Server = strings.Join(names, ", ")
	if len(det.Diagnostics) == 0 {
		return fmt.Sprintf("%s report no problems in the files checked so far", det.Server), nil
	}
	files := map[string]bool{}
	for _, d := range det.Diagnostics {
		files[d.Path] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s report %s in %s:\n", det.Server, countSeverities(det.Diagnostics), tools.Plural(len(files), "file"))
	formatDiagnostics(&b, det.Diagnostics, maxDiagShown, "; give path to see one file's")
	if len(det.Diagnostics) > maxDiagShown {
		det.Diagnostics = det.Diagnostics[:maxDiagShown]
	}
	return b.String(), nil
}

// status lists the known servers.
func (t *lspTool) status() (string, Details) {
	det := Details{Action: "status", Servers: t.m.Status()}
	var b strings.Builder
	b.WriteString("language servers:\n")
	for _, ss := range det.Servers {
		fmt.Fprintf(&b, "%s (%s; %s): ", ss.Name, strings.Join(ss.Extensions, " "), ss.Source)
		switch {
		case ss.Disabled:
			b.WriteString("disabled")
		case !ss.Available:
			b.WriteString(ss.Problem)
		case len(ss.Instances) == 0:
			fmt.Fprintf(&b, "available (%s), not started", ss.Executable)
		default:
			fmt.Fprintf(&b, "available (%s)", ss.Executable)
		}
		b.WriteByte('\n')
		for _, in := range ss.Instances {
			fmt.Fprintf(&b, "  %s in %s", in.State, in.Root)
			if in.PID > 0 {
				fmt.Fprintf(&b, ", pid %d", in.PID)
			}
			if in.Info != "" {
				fmt.Fprintf(&b, ", %s", in.Info)
			}
			fmt.Fprintf(&b, ", %s open", tools.Plural(in.OpenFiles, "file"))
			if in.Progress != "" {
				fmt.Fprintf(&b, ", working: %s", in.Progress)
			}
			if in.Log != "" {
				fmt.Fprintf(&b, ", log %s", in.Log)
			}
			b.WriteByte('\n')
			if in.LastError != "" {
				fmt.Fprintf(&b, "    last error: %s\n", in.LastError)
			}
		}
	}
	st := t.m.settings()
	for _, f := range st.files {
		fmt.Fprintf(&b, "config: %s\n", f)
	}
	if st.projectIgnored != "" {
		fmt.Fprintf(&b, "config: %s is ignored because the project is not trusted\n", st.projectIgnored)
	}
	for _, p := range st.problems {
		fmt.Fprintf(&b, "config problem: %s\n", p)
	}
	return b.String(), det
}
