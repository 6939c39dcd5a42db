package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools"
)

// target is the file, and the position in it, that one call is about.
type target struct {
	s         *server
	abs       string
	shown     string
	doc       docState
	pos       position
	line, col int    // 1-based, col in characters
	word      string // the identifier at the position
}

// where prints the position as "main.go:7:27".
func (tg *target) where() string { return fmt.Sprintf("%s:%d:%d", tg.shown, tg.line, tg.col) }

// about prints what the call is about: "Greet (main.go:7:27)".
func (tg *target) about() string {
	if tg.word == "" {
		return tg.where()
	}
	return fmt.Sprintf("%s (%s)", tg.word, tg.where())
}

// open resolves c.path, finds its server (starting it when needed) and
// syncs the file and every other open one with it.
func (t *lspTool) open(ctx context.Context, c call, progress func(string)) (*target, error) {
	abs := t.m.paths.Resolve(c.path)
	tg := &target{abs: abs, shown: t.m.paths.Display(abs)}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file; give the path of a source file", tg.shown)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", tg.shown, tools.UnwrapPath(err))
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory; give the path of a source file", tg.shown)
	}
	s, err := t.m.serverFor(abs)
	if err != nil {
		return nil, err
	}
	tg.s = s
	if !s.isReady() {
		progress("starting " + s.cfg.Name)
		if err := s.waitReady(ctx); err != nil {
			return nil, err
		}
	}
	if !s.isLoaded() {
		progress("waiting for " + s.cfg.Name + " to load the workspace")
		if _, err := s.waitLoaded(ctx); err != nil {
			return nil, err
		}
	}
	s.refresh(ctx)
	if tg.doc, err = s.sync(ctx, abs, true); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.As(err, new(*fileError)) {
			return nil, fmt.Errorf("%s: %v", tg.shown, err)
		}
		return nil, err
	}
	return tg, nil
}

// locate opens c.path and resolves the position: line and column, or the
// query on the line, or the query's first occurrence in the file.
func (t *lspTool) locate(ctx context.Context, c call, progress func(string)) (*target, error) {
	tg, err := t.open(ctx, c, progress)
	if err != nil {
		return nil, err
	}
	txt := tg.doc.text
	tg.line, tg.col = c.line, c.column
	if c.column == 0 {
		line, col, err := findQuery(txt, c.query, c.line)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", tg.shown, err)
		}
		tg.line, tg.col = line, col
	}
	if tg.pos, err = txt.toPosition(tg.line, tg.col, tg.s.enc); err != nil {
		return nil, fmt.Errorf("%s: %v", tg.shown, err)
	}
	l := txt.line(tg.line - 1)
	off := len(l)
	for i := range l {
		if utf8.RuneCountInString(l[:i]) == tg.col-1 {
			off = i
			break
		}
	}
	tg.word = wordAt(l, off)
	return tg, nil
}

// findQuery finds the identifier q on line (1-based), or with line 0 its
// first whole-word occurrence in the file (else its first occurrence).
func findQuery(t *text, q string, line int) (int, int, error) {
	col := func(l string, off int) int { return utf8.RuneCountInString(l[:off]) + 1 }
	if line > 0 {
		if line > len(t.starts) {
			return 0, 0, fmt.Errorf("line %d is past the end of the file (%d lines)", line, t.lineCount())
		}
		l := t.line(line - 1)
		off := findWord(l, q)
		if off < 0 {
			return 0, 0, fmt.Errorf("%q is not on line %d: %s", q, line, clipText(strings.TrimSpace(l), 200))
		}
		return line, col(l, off), nil
	}
	// Whole words on code lines first, then on comment lines, then any.
	first, firstCol := 0, 0
	comment, commentCol := 0, 0
	for i := range t.starts {
		l := t.line(i)
		off := findWord(l, q)
		if off < 0 {
			continue
		}
		switch {
		case wordAt(l, off) != q:
			if first == 0 {
				first, firstCol = i+1, col(l, off)
			}
		case isComment(l):
			if comment == 0 {
				comment, commentCol = i+1, col(l, off)
			}
		default:
			return i + 1, col(l, off), nil
		}
	}
	if comment != 0 {
		return comment, commentCol, nil
	}
	if first == 0 {
		return 0, 0, fmt.Errorf("%q does not occur in the file", q)
	}
	return first, firstCol, nil
}

// positionParams are the TextDocumentPositionParams of the target.
func (tg *target) positionParams() textDocumentPositionParams {
	return textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: tg.doc.uri}, Position: tg.pos}
}

// isComment reports whether a line looks like a comment line in the usual
// languages.
func isComment(l string) bool {
	l = strings.TrimSpace(l)
	for _, p := range []string{"//", "#", "/*", "*", "--", ";", "\"\"\""} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
