package markdown

import (
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/highlight"
	"slices"
	"strconv"
	"strings"
)

// This file turns the block tree into styled lines. Each block renders on
// its own from its content and the width it gets, so a block that is final
// renders the same way every time; that is what lets the streaming
// renderer commit lines and cache blocks.

// mdRenderer renders blocks for one width, theme and set of options.
type mdRenderer struct {
	theme      *ansi.Theme
	hyperlinks bool
	// done is set when the text is complete; otherwise tip is the leaf that
	// holds the end of the text and renders optimistically.
	done bool
	tip  *mdBlock
	memo map[memoKey][][]ansi.Span
	code codeCache
	// table keeps the last rendering of the table being streamed: its
	// lines change only when a row completes, or when the delimiter row
	// was cut short and its alignments changed as it completed.
	tableCache struct {
		key    memoKey
		rows   int
		width  int
		aligns string
		lines  [][]ansi.Span
	}
}

// memoKey identifies a final block across re-parses of a growing text.
type memoKey struct {
	start int
	kind  mdKind
	depth int
}

// codeCache keeps the rendered lines of the code block being streamed so
// that each new line is highlighted once.
type codeCache struct {
	key   memoKey
	width int
	lines [][]ansi.Span // rendered lines of the first n code lines
	n     int
	state highlight.HighlightState
	valid bool
}

// renderCtx is what a block inherits from its containers.
type renderCtx struct {
	listDepth int
	base      ansi.Style
}

// block renders b to lines of at most width cells. stable counts the
// leading lines that can never change as the text grows.
func (r *mdRenderer) block(b *mdBlock, width int, c renderCtx) (lines [][]ansi.Span, stable int) {
	width = max(width, 1)
	key := memoKey{b.start, b.kind, b.depth}
	if b.final && b.depth > 1 {
		if l, ok := r.memo[key]; ok {
			return l, len(l)
		}
	}
	switch b.kind {
	case mdParagraph:
		lines = r.paragraph(b, width, c)
	case mdHeading:
		lines = r.heading(b, width, c)
	case mdRule:
		lines = [][]ansi.Span{{{Text: strings.Repeat("─", width), Style: r.theme.Style(ansi.RoleMDRule)}}}
	case mdFence, mdIndented:
		lines, stable = r.codeBlock(b, width)
	case mdTable:
		lines = r.table(b, width, c)
	case mdQuote:
		lines, stable = r.quote(b, width, c)
	case mdList:
		lines, stable = r.list(b, width, c)
	case mdItem, mdDocument:
		lines, stable = r.children(b, width, c, false)
	}
	if b.final {
		stable = len(lines)
		if b.depth > 1 {
			if r.memo == nil {
				r.memo = make(map[memoKey][][]ansi.Span)
			}
			r.memo[key] = lines
		}
	}
	return lines, stable
}

// children renders the child blocks of a container. Between siblings goes
// a blank line: always when sep is true, else where the source had one.
func (r *mdRenderer) children(b *mdBlock, width int, c renderCtx, sep bool) (lines [][]ansi.Span, stable int) {
	counting := true
	for i, ch := range b.children {
		cl, cs := r.block(ch, width, c)
		if i > 0 && (sep || ch.blankBefore) && len(cl) > 0 {
			lines = append(lines, nil)
		}
		if counting {
			if ch.final {
				stable = len(lines) + len(cl)
			} else {
				if cs > 0 {
					stable = len(lines) + cs
				}
				counting = false
			}
		}
		lines = append(lines, cl...)
	}
	return lines, stable
}

// inline renders leaf text with the tip rendering optimistically.
func (r *mdRenderer) inline(b *mdBlock, text string, base ansi.Style) []ansi.Span {
	return renderInline(text, inlineOptions{
		theme:      r.theme,
		base:       base,
		hyperlinks: r.hyperlinks,
		optimistic: !r.done && b == r.tip,
	})
}

func (r *mdRenderer) paragraph(b *mdBlock, width int, c renderCtx) [][]ansi.Span {
	text := strings.TrimRight(strings.Join(b.lines, "\n"), " ")
	return ansi.WrapSpans(r.inline(b, text, c.base), width)
}

func (r *mdRenderer) heading(b *mdBlock, width int, c renderCtx) [][]ansi.Span {
	st := c.base.With(r.theme.Style(ansi.RoleMDHeading))
	if b.level == 1 {
		st.Underline = true
	}
	spans := r.inline(b, b.lines[0], st)
	if b.level >= 3 {
		prefix := ansi.Span{Text: strings.Repeat("#", b.level) + " ", Style: c.base.With(r.theme.Style(ansi.RoleMuted))}
		spans = append([]ansi.Span{prefix}, spans...)
	}
	return ansi.WrapSpans(spans, width)
}

// codeBlock renders a fenced or indented code block: a rule with the
// language, the highlighted lines (broken at the width, never reflowed, so
// copied code keeps its shape), and a closing rule once the fence closes.
// Lines from complete input are stable while the block streams.
func (r *mdRenderer) codeBlock(b *mdBlock, width int) (lines [][]ansi.Span, stable int) {
	border := r.theme.Style(ansi.RoleBorder)
	lang := ""
	if b.kind == mdFence {
		if f := strings.Fields(b.info); len(f) > 0 {
			lang = strings.TrimPrefix(strings.Trim(f[0], "{}"), ".")
		}
	}
	lex := highlight.LookupLanguage(lang)
	base := r.theme.Style(ansi.RoleMDCodeBlock)
	if lex != nil {
		base = r.theme.Style(ansi.RoleText)
	}
	head := strings.Repeat("─", width)
	if lang != "" {
		label := "── " + ansi.Printable(lang) + " "
		if lw := ansi.TextWidth(label); lw <= width {
			head = label + strings.Repeat("─", width-lw)
		} else {
			head = label
		}
	}
	key := memoKey{b.start, b.kind, b.depth}
	cc := &r.code
	// A cache holding more lines than the block now has (a line that
	// looked complete was re-read as part of another, such as a CR
	// before its LF) starts over.
	if !cc.valid || cc.key != key || cc.width != width || cc.n > b.lineBase+len(b.lines) {
		// The cache starts with the head line, so that a streaming
		// block's lines are the cached lines without copying.
		*cc = codeCache{key: key, width: width, valid: true}
		cc.lines = append(cc.lines, nil)
	}
	// The info string may still be arriving.
	cc.lines[0] = []ansi.Span{{Text: head, Style: border}}
	if len(head) > 3*width {
		cc.lines[0] = ansi.TruncateSpans(cc.lines[0], width)
	}
	render := func(line string, st highlight.HighlightState) ([][]ansi.Span, highlight.HighlightState) {
		line = ansi.Printable(line)
		var spans []ansi.Span
		if lex != nil {
			spans, st = lex.Line(line, st, r.theme, base)
		} else if line != "" {
			spans = []ansi.Span{{Text: line, Style: base}}
		}
		return ansi.HardWrap(spans, width), st
	}
	// Line numbers here count from the top of the whole block; b.lines
	// may start further down (lineBase) when the fence was resumed.
	complete := b.complete
	if b.final {
		complete = len(b.lines)
	} else if b.kind == mdIndented {
		// Blank lines at the end of indented code go when it closes.
		for complete > 0 && isBlank(b.lines[complete-1]) {
			complete--
		}
	}
	if cc.n < b.lineBase {
		// Fences are resumed only from lines in this cache, so this does
		// not happen; if it did, skipping the lost lines beats crashing.
		cc.n = b.lineBase
	}
	for cc.n < b.lineBase+complete {
		l, st := render(b.lines[cc.n-b.lineBase], cc.state)
		cc.lines = append(cc.lines, l...)
		cc.state = st
		cc.n++
	}
	// Lines after the cached ones go into the cache's spare capacity: the
	// caller uses them before the next render, and a final block's
	// lines are never overwritten because its cache is dropped.
	lines = cc.lines
	stable = len(lines)
	if b.kind == mdFence && !b.headComplete {
		stable = 0
	}
	st := cc.state
	for _, line := range b.lines[cc.n-b.lineBase:] {
		var l [][]ansi.Span
		l, st = render(line, st)
		lines = append(lines, l...)
	}
	if !b.open {
		lines = append(lines, []ansi.Span{{Text: strings.Repeat("─", width), Style: border}})
	}
	if b.final {
		cc.valid = false
	}
	return lines, stable
}

// quote renders a block quote with a bar before each line.
func (r *mdRenderer) quote(b *mdBlock, width int, c renderCtx) (lines [][]ansi.Span, stable int) {
	inner := c
	inner.base = c.base.With(r.theme.Style(ansi.RoleMDQuote))
	inner.base.Italic = true
	body, stable := r.children(b, width-2, inner, true)
	bar := ansi.Span{Text: "│ ", Style: r.theme.Style(ansi.RoleMDQuote)}
	if len(body) == 0 {
		body = [][]ansi.Span{nil}
	}
	lines = make([][]ansi.Span, len(body))
	for i, l := range body {
		if len(l) == 0 {
			lines[i] = []ansi.Span{{Text: "│", Style: bar.Style}}
			continue
		}
		lines[i] = append([]ansi.Span{bar}, l...)
	}
	return lines, stable
}

// bullets are the list markers by nesting depth.
var bullets = []string{"•", "◦", "▪", "▫"}

// list renders the items of a list with hanging indentation.
func (r *mdRenderer) list(b *mdBlock, width int, c renderCtx) (lines [][]ansi.Span, stable int) {
	counting := true
	bulletStyle := r.theme.Style(ansi.RoleMDListBullet)
	for i, item := range b.children {
		var marker string
		if item.ordered {
			marker = strconv.Itoa(item.number) + string(item.marker)
		} else {
			marker = bullets[c.listDepth%len(bullets)]
		}
		markerSpans := []ansi.Span{{Text: marker, Style: bulletStyle}}
		// A task list item: "[ ] " or "[x] " opening the first paragraph
		// shows a box in place of the bullet.
		if check, ok := taskBox(item); ok {
			box := ansi.Span{Text: "☐", Style: r.theme.Style(ansi.RoleMuted)}
			if check {
				box = ansi.Span{Text: "☑", Style: r.theme.Style(ansi.RoleSuccess)}
			}
			if item.ordered {
				markerSpans = append(markerSpans, ansi.Span{Text: " "}, box)
			} else {
				markerSpans = []ansi.Span{box}
			}
		}
		mw := ansi.SpansWidth(markerSpans) + 1
		inner := c
		inner.listDepth++
		body, bs := r.block(item, width-mw, inner)
		if len(body) == 0 {
			body = [][]ansi.Span{nil}
			if item.final {
				bs = 1
			}
		}
		var itemLines [][]ansi.Span
		if i > 0 && item.blankBefore {
			itemLines = append(itemLines, nil)
			if bs > 0 {
				bs++
			}
		}
		pad := ansi.Span{Text: strings.Repeat(" ", mw)}
		for j, l := range body {
			var prefix []ansi.Span
			switch {
			case j == 0 && len(l) == 0:
				prefix = markerSpans
			case j == 0:
				prefix = append(append(prefix, markerSpans...), ansi.Span{Text: " "})
			case len(l) > 0:
				prefix = []ansi.Span{pad}
			}
			itemLines = append(itemLines, append(slices.Clip(prefix), l...))
		}
		if counting {
			if item.final {
				stable = len(lines) + len(itemLines)
			} else {
				if bs > 0 {
					stable = len(lines) + bs
				}
				counting = false
			}
		}
		lines = append(lines, itemLines...)
	}
	return lines, stable
}

// taskBox reports whether item is a task list item and whether it is
// checked, and strips the box from the item's first paragraph (once: the
// answer is kept in the item).
func taskBox(item *mdBlock) (checked, ok bool) {
	switch item.task {
	case taskNone:
		return false, false
	case taskOpen:
		return false, true
	case taskChecked:
		return true, true
	}
	item.task = taskNone
	if len(item.children) == 0 || item.children[0].kind != mdParagraph {
		return false, false
	}
	p := item.children[0]
	first := p.lines[0]
	if len(first) < 3 || first[0] != '[' || first[2] != ']' || (len(first) > 3 && first[3] != ' ') {
		return false, false
	}
	switch first[1] {
	case ' ':
		item.task = taskOpen
	case 'x', 'X':
		item.task = taskChecked
	default:
		return false, false
	}
	p.lines[0] = strings.TrimLeft(first[3:], " ")
	return item.task == taskChecked, true
}
