package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// This file holds the Editor's cursor motions: by grapheme cluster, word,
// line and visual row, and the history walk at the top and bottom rows.

// lineStart returns the start of the cursor's logical line.
func (e *Editor) lineStart() int {
	return strings.LastIndexByte(e.text[:e.cur], '\n') + 1
}

// lineEnd returns the end of the cursor's logical line (before its '\n').
func (e *Editor) lineEnd() int {
	if i := strings.IndexByte(e.text[e.cur:], '\n'); i >= 0 {
		return e.cur + i
	}
	return len(e.text)
}

// nextCluster returns the position after the cluster (or paste marker) at
// the cursor.
func (e *Editor) nextCluster() int {
	if e.cur >= len(e.text) {
		return len(e.text)
	}
	if m, ok := e.markerAfter(); ok {
		return e.cur + len(m)
	}
	n, _ := uniwidth.Cluster(e.text[e.cur:])
	return e.cur + n
}

// prevCluster returns the start of the cluster (or paste marker) before
// the cursor.
func (e *Editor) prevCluster() int {
	if e.cur == 0 {
		return 0
	}
	if m, ok := e.markerBefore(); ok {
		return e.cur - len(m)
	}
	if e.text[e.cur-1] == '\n' {
		return e.cur - 1
	}
	// Clusters are found going forward, from the start of the line.
	pos := e.lineStart()
	for {
		n, _ := uniwidth.Cluster(e.text[pos:e.cur])
		if pos+n >= e.cur {
			return pos
		}
		pos += n
	}
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// prevWord returns the start of the word before the cursor.
func (e *Editor) prevWord() int {
	i := e.cur
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(e.text[:i])
		if isWordRune(r) {
			break
		}
		i -= n
	}
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(e.text[:i])
		if !isWordRune(r) {
			break
		}
		i -= n
	}
	return i
}

// nextWord returns the end of the word after the cursor.
func (e *Editor) nextWord() int {
	i := e.cur
	for i < len(e.text) {
		r, n := utf8.DecodeRuneInString(e.text[i:])
		if isWordRune(r) {
			break
		}
		i += n
	}
	for i < len(e.text) {
		r, n := utf8.DecodeRuneInString(e.text[i:])
		if !isWordRune(r) {
			break
		}
		i += n
	}
	return i
}

// prevSpaceWord returns the start of the whitespace-delimited word before
// the cursor (Ctrl+W).
func (e *Editor) prevSpaceWord() int {
	i := e.cur
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(e.text[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(e.text[:i])
		if unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	return i
}

// vertical moves the cursor one visual row up (dir -1) or down (dir 1),
// keeping its column across consecutive moves. From the first row Up
// recalls the previous History entry; from the last row Down the next one,
// and past the newest the text that was being edited.
func (e *Editor) vertical(dir int) EditAction {
	e.lastEdit = editNone
	e.yankFrom = -1
	width := e.lastWidth
	if width <= 0 {
		width = 80
	}
	rows := e.layout(width)
	r, c := e.cursorCell(rows, width)
	if e.goalCol < 0 {
		e.goalCol = c
	}
	target := r + dir
	switch {
	case target < 0:
		if e.historyStep(-1) {
			return EditHandled
		}
		e.cur = 0
		return EditHandled
	case target >= len(rows):
		if e.historyStep(1) {
			return EditHandled
		}
		e.cur = len(e.text)
		return EditHandled
	}
	goal := e.goalCol
	row := rows[target]
	pos, col := row.start, 0
	for pos < row.end {
		n, w := e.clusterAt(pos)
		if col+w > goal {
			break
		}
		col += w
		pos += n
	}
	if pos == row.end && target+1 < len(rows) && rows[target+1].start == row.end && pos > row.start {
		// The end of a wrapped row is the start of the next one; stay on
		// this row.
		save := e.cur
		e.cur = pos
		pos = e.prevCluster()
		e.cur = save
	}
	e.cur = pos
	return EditHandled
}

// historyStep walks the History: dir -1 to older entries, 1 to newer. It
// reports whether it changed the text.
func (e *Editor) historyStep(dir int) bool {
	h := e.History
	if h == nil || h.Len() == 0 {
		return false
	}
	if !e.walking {
		if dir > 0 {
			return false
		}
		e.walking = true
		e.draft = e.text
		e.histPos = h.Len()
	}
	next := e.histPos + dir
	switch {
	case next < 0:
		return false
	case next >= h.Len():
		e.walking = false
		e.replaceText(e.draft)
		return true
	}
	e.histPos = next
	e.replaceText(h.Entry(next))
	return true
}

// replaceText swaps the text for a history entry or the draft, cursor at
// the end; the change can be undone.
func (e *Editor) replaceText(s string) {
	e.undo = append(e.undo, editState{e.text, e.cur})
	e.text, e.cur = s, len(s)
	e.lastEdit = editNone
	e.menu = nil
}

// clusterAt returns the length and display width of the cluster at pos;
// a tab shows as DefaultTabWidth spaces, fewer on a narrower editor.
func (e *Editor) clusterAt(pos int) (n, w int) {
	if e.text[pos] == '\t' {
		return 1, e.tabWidth()
	}
	return uniwidth.Cluster(e.text[pos:])
}

// tabWidth is the cells a tab takes at the current layout width.
func (e *Editor) tabWidth() int {
	if e.layoutWidth > 0 {
		return min(ansi.DefaultTabWidth, e.layoutWidth)
	}
	return ansi.DefaultTabWidth
}
