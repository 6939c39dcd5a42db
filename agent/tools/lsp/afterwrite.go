package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// maxAfterWrite bounds the diagnostics appended to an edit's result.
const maxAfterWrite = 10

// afterEdit reports whether diagnostics after edits are on.
func (m *Manager) afterEdit() bool {
	return m.cfg.DiagnosticsAfterEdit && !m.settings().afterEditOff
}

// DiagnosticsAfterWrite returns the diagnostics of the file at path (as
// the edit and write tools took it) after a change, for the host to
// append to the tool's result: errors first, at most 10, each with its
// source line. It starts the file's server when one is configured and
// installed, sends it the new content, and waits for the diagnostics of
// that version, bounded by the diagnostics wait and ctx. A server it
// starts is first given its ready timeout to load the workspace; when that
// runs out, a last line says the diagnostics may be incomplete. It returns
// "" when diagnostics after edits are off or no server handles the file,
// and a one-line note when the server does not answer in time or fails.
func (m *Manager) DiagnosticsAfterWrite(ctx context.Context, path string) string {
	if !m.afterEdit() {
		return ""
	}
	abs := m.paths.Resolve(path)
	shown := m.paths.Display(abs)
	s, err := m.serverFor(abs)
	if err != nil {
		if errors.As(err, new(*noServerError)) || errors.Is(err, errClosed) {
			return ""
		}
		return "lsp: " + err.Error()
	}
	// A new server first loads the workspace, bounded by the ready
	// timeout; the diagnostics wait starts after it.
	loaded, err := s.waitLoaded(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ""
		}
		return fmt.Sprintf("lsp: no diagnostics for %s: %v", shown, err)
	}
	wait := m.wait()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	d, err := s.sync(ctx, abs, true)
	if err == nil {
		var items []wireDiagnostic
		if items, err = s.diagnostics(ctx, d); err == nil {
			text := afterWriteText(s.cfg.Name, shown, toDiagnostics(shown, d.text, s.enc, items))
			if !loaded || d.early {
				text += "\nlsp: " + s.loadNote()
			}
			return text
		}
	}
	switch {
	case errors.Is(err, errNoDiagnostics) || errors.Is(err, context.DeadlineExceeded):
		what := "sent no diagnostics for " + shown
		switch {
		case !s.isReady():
			what = "is still starting, so it has not checked " + shown
		case !s.isLoaded():
			what = "is still loading the workspace, so it has not checked " + shown
		}
		return fmt.Sprintf("lsp: %s %s within %s; check later with lsp action=diagnostics", s.cfg.Name, what, wait)
	case ctx.Err() != nil:
		return "" // the caller gave up
	}
	return fmt.Sprintf("lsp: no diagnostics for %s: %v", shown, err)
}

// afterWriteText formats the diagnostics of one file after a change.
func afterWriteText(server, shown string, ds []Diagnostic) string {
	if len(ds) == 0 {
		return fmt.Sprintf("lsp: %s reports no problems in %s", server, shown)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lsp: %s reports %s in %s:\n", server, countSeverities(ds), shown)
	formatDiagnostics(&b, ds, maxAfterWrite, "; see lsp action=diagnostics path="+shown)
	return strings.TrimRight(b.String(), "\n")
}
