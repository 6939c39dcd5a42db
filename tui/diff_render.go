package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DiffOptions say how a diff is rendered.
type DiffOptions struct {
	// Width is the number of cells per line.
	Width int
	// Theme colours the diff; nil means the built-in dark theme.
	Theme *ansi.Theme
	// Profile is the terminal's colour capability.
	Profile ansi.Profile
	// MaxLines collapses a longer rendering to its first MaxLines-1 lines
	// and a "… +K lines" line; 0 shows everything.
	MaxLines int
}

// RenderDiff renders hunks for the terminal: a line-number gutter, the
// sign, and the text in the added, removed or context colour, with the
// changed words of a modified line highlighted. Long lines wrap under
// their text; hunks are separated by a "⋮" line.
func RenderDiff(hunks []Hunk, o DiffOptions) []string {
	lines := diffSpans(hunks, max(o.Width, 1), o.Theme)
	if o.MaxLines > 0 {
		lines = collapseLines(lines, o.MaxLines, "", o.Theme)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.ClampLine(ansi.RenderSpans(l, o.Profile, false), max(o.Width, 1))
	}
	return out
}

// collapseLines keeps the first max-1 lines of a longer list and adds a
// muted "… +K lines" line, followed by hint when it is not empty.
func collapseLines(lines [][]ansi.Span, limit int, hint string, t *ansi.Theme) [][]ansi.Span {
	if limit <= 0 || len(lines) <= limit {
		return lines
	}
	keep := max(limit-1, 0)
	more := "… +" + strconv.Itoa(len(lines)-keep) + " lines"
	if hint != "" {
		more += " " + hint
	}
	out := append(lines[:keep:keep], []ansi.Span{{Text: more, Style: t.Style(ansi.RoleMuted)}})
	return out
}

// diffSpans lays out hunks as styled lines of at most width cells.
func diffSpans(hunks []Hunk, width int, t *ansi.Theme) [][]ansi.Span {
	maxNum := 0
	for _, h := range hunks {
		maxNum = max(maxNum, h.OldStart+h.OldLines, h.NewStart+h.NewLines)
	}
	nw := len(strconv.Itoa(maxNum))
	gutter := nw + 3 // number, space, sign, space
	textWidth := width - gutter
	if textWidth < 4 {
		// Too narrow for a gutter: sign and text only.
		nw, gutter, textWidth = 0, 2, max(width-2, 1)
	}
	numStyle := t.Style(ansi.RoleDiffLineNumber)
	var out [][]ansi.Span
	for hi, h := range hunks {
		if hi > 0 {
			out = append(out, []ansi.Span{{Text: strings.Repeat(" ", max(nw-1, 0)) + "⋮", Style: t.Style(ansi.RoleMuted)}})
		}
		clean := make([]DiffLine, len(h.Lines))
		for li, l := range h.Lines {
			l.Text = ansi.ExpandTabs(ansi.Printable(l.Text))
			clean[li] = l
		}
		marks := intraLine(clean)
		for li, l := range clean {
			num := l.New
			role := ansi.RoleDiffContext
			hl := ansi.RoleDiffAddedBG
			switch l.Kind {
			case '-':
				num, role, hl = l.Old, ansi.RoleDiffRemoved, ansi.RoleDiffRemovedBG
			case '+':
				role = ansi.RoleDiffAdded
			}
			base := t.Style(role)
			text := l.Text
			var spans []ansi.Span
			if m := marks[li]; m != nil {
				spans = markedSpans(text, m, base, base.With(t.Style(hl)))
			} else if text != "" {
				spans = []ansi.Span{{Text: text, Style: base}}
			}
			var head []ansi.Span
			if nw > 0 {
				head = append(head, ansi.Span{Text: padLeft(strconv.Itoa(num), nw) + " ", Style: numStyle})
			}
			sign := string(l.Kind)
			if len(spans) > 0 {
				sign += " "
			}
			head = append(head, ansi.Span{Text: sign, Style: base})
			for k, w := range ansi.HardWrap(spans, textWidth) {
				prefix := head
				if k > 0 {
					prefix = []ansi.Span{{Text: strings.Repeat(" ", gutter)}}
				}
				out = append(out, append(append([]ansi.Span(nil), prefix...), w...))
			}
		}
	}
	return out
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	if n := w - len(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// intraLine finds the changed words of modified lines: a run of k removed
// lines followed by k added lines pairs them up in order. For each paired
// line it returns byte ranges to highlight (nil for other lines, and for
// pairs so different that highlighting would mark nearly everything).
func intraLine(lines []DiffLine) [][][2]int {
	marks := make([][][2]int, len(lines))
	for i := 0; i < len(lines); {
		if lines[i].Kind != '-' {
			i++
			continue
		}
		r0 := i
		for i < len(lines) && lines[i].Kind == '-' {
			i++
		}
		a0 := i
		for i < len(lines) && lines[i].Kind == '+' {
			i++
		}
		if a0-r0 != i-a0 {
			continue
		}
		for k := 0; k < a0-r0; k++ {
			old, new := lines[r0+k].Text, lines[a0+k].Text
			if len(old)+len(new) > 4000 {
				continue
			}
			mo, mn, ok := wordDiff(old, new)
			if ok {
				marks[r0+k], marks[a0+k] = mo, mn
			}
		}
	}
	return marks
}

// wordDiff diffs two lines word by word and returns the changed byte
// ranges of each; ok is false when too little is shared to be useful.
func wordDiff(old, new string) (mo, mn [][2]int, ok bool) {
	ta, tb := wordTokens(old), wordTokens(new)
	ids := make(map[string]int)
	intern := func(s string, toks [][2]int) []int {
		out := make([]int, len(toks))
		for i, tk := range toks {
			w := s[tk[0]:tk[1]]
			id, found := ids[w]
			if !found {
				id = len(ids)
				ids[w] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(old, ta), b: intern(new, tb)}
	d.delA = make([]bool, len(ta))
	d.insB = make([]bool, len(tb))
	d.compare(0, len(ta), 0, len(tb))
	same := 0
	ranges := func(s string, toks [][2]int, changed []bool) [][2]int {
		var out [][2]int
		for i, tk := range toks {
			if !changed[i] {
				same += tk[1] - tk[0]
				continue
			}
			if n := len(out); n > 0 && out[n-1][1] == tk[0] {
				out[n-1][1] = tk[1]
				continue
			}
			out = append(out, tk)
		}
		return out
	}
	mo = ranges(old, ta, d.delA)
	mn = ranges(new, tb, d.insB)
	if len(mo) == 0 && len(mn) == 0 || same*2 < len(old)+len(new) {
		return nil, nil, false
	}
	return mo, mn, true
}

// wordTokens splits s into words, runs of spaces and single other
// characters, as byte ranges.
func wordTokens(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		j := i + size
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				j += sz
			}
		case r == ' ' || r == '\t':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// markedSpans styles text with the byte ranges in marks highlighted.
func markedSpans(text string, marks [][2]int, base, hl ansi.Style) []ansi.Span {
	var out []ansi.Span
	pos := 0
	for _, m := range marks {
		if m[1] > len(text) || m[0] < pos {
			return []ansi.Span{{Text: text, Style: base}}
		}
		if m[0] > pos {
			out = append(out, ansi.Span{Text: text[pos:m[0]], Style: base})
		}
		out = append(out, ansi.Span{Text: text[m[0]:m[1]], Style: hl})
		pos = m[1]
	}
	if pos < len(text) {
		out = append(out, ansi.Span{Text: text[pos:], Style: base})
	}
	return out
}
