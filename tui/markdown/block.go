package markdown

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
)

// This file is the block parser of the markdown renderer: a line-by-line
// CommonMark-style parser (block quotes, lists, fenced and indented code,
// ATX and setext headings, thematic breaks, paragraphs with lazy
// continuation) with GFM tables. Link reference definitions and HTML
// blocks are not recognised; their text renders as paragraphs.

// mdKind is the type of a markdown block.
type mdKind uint8

const (
	mdDocument mdKind = iota
	mdQuote
	mdList
	mdItem
	mdParagraph
	mdHeading
	mdFence
	mdIndented
	mdRule
	mdTable
)

// mdBlock is a node of the block tree.
type mdBlock struct {
	kind     mdKind
	parent   *mdBlock
	children []*mdBlock
	// lines are a leaf's content: paragraph and heading text, code lines,
	// table rows (header first, then the body rows).
	lines []string
	// start is the absolute source offset of the block's first line; with
	// kind and depth it identifies a block across re-parses.
	start int
	depth int
	// open blocks still accept lines. A closed block is final when it was
	// closed by complete input; only final blocks are cached and
	// committed, since a block closed by a half-typed line may reopen.
	open, final bool
	// blankBefore records a blank source line before the block.
	blankBefore bool
	// lastStart is the offset of a paragraph's last line.
	lastStart int

	level int // heading level

	fenceChar   byte   // fence: '`' or '~'
	fenceLen    int    // fence: length of the opening fence
	fenceIndent int    // fence: indentation of the opening fence
	info        string // fence: info string
	// headComplete reports that a fence's opening line was complete, so
	// its info string is known.
	headComplete bool
	// complete counts the leading lines (code lines, table rows) that came
	// from complete source lines; completeEnd is the source offset after
	// the last of them.
	complete    int
	completeEnd int
	// lineBase is the index in the whole code block of lines[0]: a fence
	// whose first lines were committed is parsed again from where they end
	// (see parseBlocks).
	lineBase int

	ordered       bool // list, item
	marker        byte // list, item: '-', '+', '*', or '.' and ')' when ordered
	number        int  // item: its number
	contentIndent int  // item: columns from the line position to the content
	startedBlank  bool // item: the marker line had no content
	task          taskState

	aligns []byte // table: 'l', 'c', 'r' or 0 per column
}

// taskState records whether a list item is a task ("[ ]" or "[x]").
type taskState uint8

const (
	taskUnknown taskState = iota
	taskNone
	taskOpen
	taskChecked
)

// lastOpen returns b's last child when it is still open.
func (b *mdBlock) lastOpen() *mdBlock {
	if n := len(b.children); n > 0 && b.children[n-1].open {
		return b.children[n-1]
	}
	return nil
}

// mdParser builds a block tree line by line.
type mdParser struct {
	root      *mdBlock
	partial   bool // the line being processed is not complete yet
	lineEnd   int  // absolute offset after the line being processed
	prevBlank bool
}

// parseBlocks parses src, whose first byte is at absolute offset base and
// starts a line. When done is false the text may continue: a last line
// without a newline is parsed but blocks it closes are not final, and
// blocks still open at the end stay open. When done is true everything is
// closed and final.
//
// resume, when not nil, is a top-level fenced code block that src
// continues: parsing starts inside it, which keeps the cost of a long
// streaming code block independent of its length.
func parseBlocks(src string, base int, done bool, resume *mdBlock) *mdBlock {
	p := &mdParser{root: &mdBlock{kind: mdDocument, open: true, start: base}}
	if resume != nil {
		f := *resume
		f.parent, f.children, f.lines = p.root, nil, nil
		f.open, f.final, f.complete, f.completeEnd = true, false, 0, base
		p.root.children = []*mdBlock{&f}
	}
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		var line string
		next := len(src)
		if end >= 0 {
			line = src[off : off+end]
			next = off + end + 1
		} else {
			line = src[off:]
			p.partial = !done
		}
		line = strings.TrimSuffix(line, "\r")
		p.lineEnd = base + next
		p.line(ansi.ExpandTabs(line), base+off)
		off = next
	}
	p.partial = false
	if done {
		p.close(p.root)
	}
	return p.root
}

// add appends a new open block of kind k to parent. Only items go into a
// list: anything else closes the list and goes into the list's parent.
func (p *mdParser) add(parent *mdBlock, k mdKind, start int) *mdBlock {
	for parent.kind == mdList && k != mdItem {
		p.close(parent)
		parent = parent.parent
	}
	b := &mdBlock{kind: k, parent: parent, open: true, start: start, lastStart: start, depth: parent.depth + 1, blankBefore: p.prevBlank}
	parent.children = append(parent.children, b)
	return b
}

// close closes b and its open descendants.
func (p *mdParser) close(b *mdBlock) {
	if c := b.lastOpen(); c != nil {
		p.close(c)
	}
	if !b.open {
		return
	}
	b.open = false
	b.final = !p.partial
	if b.kind == mdIndented {
		for len(b.lines) > 0 && strings.TrimSpace(b.lines[len(b.lines)-1]) == "" {
			b.lines = b.lines[:len(b.lines)-1]
		}
		b.complete = min(b.complete, len(b.lines))
	}
}

// closeChildren closes b's open child, if any.
func (p *mdParser) closeChildren(b *mdBlock) {
	if c := b.lastOpen(); c != nil {
		p.close(c)
	}
}

// line processes one source line (tabs already expanded) starting at
// absolute offset start.
func (p *mdParser) line(line string, start int) {
	blank := isBlank(line)
	defer func() { p.prevBlank = blank }()

	// Step 1: continue the open containers the line belongs to.
	container := p.root
	pos := 0
	allMatched := true
walk:
	for {
		c := container.lastOpen()
		if c == nil {
			break
		}
		matched := true
		switch c.kind {
		case mdQuote:
			ind := indentAt(line, pos)
			if ind <= 3 && pos+ind < len(line) && line[pos+ind] == '>' {
				pos += ind + 1
				if pos < len(line) && line[pos] == ' ' {
					pos++
				}
			} else {
				matched = false
			}
		case mdList:
			// A list continues while its items do; a new item of another
			// type or a line that is no item content ends it below.
		case mdItem:
			switch {
			case isBlank(line[pos:]):
				if len(c.children) == 0 {
					matched = false
				}
			case indentAt(line, pos) >= c.contentIndent:
				pos += c.contentIndent
			default:
				matched = false
			}
		default:
			// A leaf: handled below.
			break walk
		}
		if !matched {
			allMatched = false
			break
		}
		container = c
	}
	matchedContainer := container
	if leaf := container.lastOpen(); leaf != nil && allMatched {
		switch leaf.kind {
		case mdFence:
			p.fenceLine(leaf, line[pos:])
			return
		case mdIndented:
			if rest := line[pos:]; indentAt(line, pos) >= 4 {
				p.addLeafLine(leaf, rest[4:])
				return
			} else if isBlank(rest) {
				p.addLeafLine(leaf, "")
				return
			}
		}
	}
	tip := p.root
	for c := tip.lastOpen(); c != nil; c = tip.lastOpen() {
		tip = c
	}
	// Step 2: open new blocks.
	started := false
	for {
		ind := indentAt(line, pos)
		rest := line[pos+min(ind, len(line)-pos):]
		if ind >= 4 {
			if tip.kind == mdParagraph || isBlank(line[pos:]) {
				break
			}
			p.closeChildren(container)
			code := p.add(container, mdIndented, start)
			p.addLeafLine(code, line[pos+4:])
			return
		}
		if rest == "" {
			break
		}
		if rest[0] == '>' {
			p.closeChildren(container)
			container = p.add(container, mdQuote, start)
			pos += ind + 1
			if pos < len(line) && line[pos] == ' ' {
				pos++
			}
			started, allMatched = true, true
			continue
		}
		if level, text, ok := atxHeading(rest); ok {
			p.closeChildren(container)
			h := p.add(container, mdHeading, start)
			h.level = level
			h.lines = []string{text}
			p.close(h)
			return
		}
		if ch, n, info, ok := fenceOpen(rest); ok {
			p.closeChildren(container)
			f := p.add(container, mdFence, start)
			f.fenceChar, f.fenceLen, f.fenceIndent, f.info = ch, n, ind, info
			f.headComplete = !p.partial
			return
		}
		para := container.lastOpen()
		interrupting := para != nil && para.kind == mdParagraph && allMatched && !started
		if interrupting {
			if level, ok := setextUnderline(rest); ok {
				para.kind = mdHeading
				para.level = level
				para.lines = []string{strings.Join(para.lines, "\n")}
				p.close(para)
				return
			}
			if aligns, ok := tableDelimiter(rest); ok && len(splitRow(para.lines[len(para.lines)-1])) == len(aligns) {
				p.startTable(container, para, aligns)
				return
			}
		}
		if isThematicBreak(rest) {
			p.closeChildren(container)
			r := p.add(container, mdRule, start)
			p.close(r)
			return
		}
		if m, ok := listMarker(line, pos); ok {
			if interrupting && (m.blank || m.ordered && m.number != 1) {
				break
			}
			var list *mdBlock
			if container.kind == mdList {
				if container.ordered == m.ordered && container.marker == m.marker {
					list = container
				} else {
					p.close(container)
					container = container.parent
				}
			}
			if list == nil {
				p.closeChildren(container)
				list = p.add(container, mdList, start)
				list.ordered, list.marker = m.ordered, m.marker
			} else {
				p.closeChildren(list)
			}
			item := p.add(list, mdItem, start)
			item.ordered, item.marker, item.number = m.ordered, m.marker, m.number
			item.contentIndent, item.startedBlank = m.contentIndent, m.blank
			pos += m.contentIndent
			if pos > len(line) {
				pos = len(line)
			}
			container = item
			started, allMatched = true, true
			continue
		}
		break
	}
	// Step 3: the rest of the line is text.
	rest := line[pos:]
	if !started && !allMatched && tip.kind == mdParagraph && !isBlank(rest) {
		tip.lines = append(tip.lines, strings.TrimLeft(rest, " "))
		tip.lastStart = start
		return
	}
	if !started && !allMatched {
		p.closeChildren(matchedContainer)
	}
	leaf := container.lastOpen()
	if isBlank(rest) {
		if leaf != nil && (leaf.kind == mdParagraph || leaf.kind == mdTable) {
			p.close(leaf)
		}
		return
	}
	if leaf != nil && leaf.kind == mdParagraph {
		leaf.lines = append(leaf.lines, strings.TrimLeft(rest, " "))
		leaf.lastStart = start
		return
	}
	if leaf != nil && leaf.kind == mdTable {
		if strings.IndexByte(rest, '|') >= 0 {
			p.addLeafLine(leaf, rest)
			return
		}
		p.close(leaf)
	} else if leaf != nil {
		p.close(leaf)
	}
	para := p.add(container, mdParagraph, start)
	para.lines = []string{strings.TrimLeft(rest, " ")}
}

// addLeafLine appends a content line to a code block or table, counting
// the lines that came from complete input.
func (p *mdParser) addLeafLine(b *mdBlock, s string) {
	b.lines = append(b.lines, s)
	if !p.partial {
		b.complete = len(b.lines)
		b.completeEnd = p.lineEnd
	}
}

// fenceLine adds a line to an open fenced code block or closes it.
func (p *mdParser) fenceLine(f *mdBlock, rest string) {
	ind := indentAt(rest, 0)
	if ind <= 3 {
		r := strings.TrimRight(rest[ind:], " ")
		n := 0
		for n < len(r) && r[n] == f.fenceChar {
			n++
		}
		if n == len(r) && n >= f.fenceLen {
			p.close(f)
			return
		}
		if p.partial && n == len(r) && n > 0 {
			// Half a closing fence: show nothing until the line completes
			// rather than a code line that would vanish.
			return
		}
	}
	// Strip up to the fence's own indentation.
	strip := min(f.fenceIndent, ind)
	p.addLeafLine(f, rest[strip:])
}

// startTable turns the last line of para into a table header.
func (p *mdParser) startTable(container, para *mdBlock, aligns []byte) {
	header := para.lines[len(para.lines)-1]
	var t *mdBlock
	if len(para.lines) == 1 {
		para.kind = mdTable
		para.lines = nil
		t = para
	} else {
		para.lines = para.lines[:len(para.lines)-1]
		p.close(para)
		t = p.add(container, mdTable, para.lastStart)
	}
	t.aligns = aligns
	t.lines = []string{header}
	t.complete = 1
	if p.partial {
		t.complete = 0
	}
}

// indentAt counts the spaces at line[pos:].
func indentAt(line string, pos int) int {
	n := 0
	for pos+n < len(line) && line[pos+n] == ' ' {
		n++
	}
	return n
}

// isBlank reports whether s holds only spaces.
func isBlank(s string) bool {
	return strings.TrimLeft(s, " ") == ""
}

// atxHeading recognises "# text" (s starts at the first non-space).
func atxHeading(s string) (level int, text string, ok bool) {
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(s) && s[level] != ' ' {
		return 0, "", false
	}
	text = strings.TrimSpace(s[level:])
	// An optional closing sequence of #s after a space.
	t := strings.TrimRight(text, "#")
	if t == "" {
		text = ""
	} else if t != text && strings.HasSuffix(t, " ") {
		text = strings.TrimRight(t, " ")
	}
	return level, text, true
}

// fenceOpen recognises an opening code fence.
func fenceOpen(s string) (ch byte, n int, info string, ok bool) {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0, 0, "", false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	info = strings.TrimSpace(s[n:])
	if ch == '`' && strings.IndexByte(info, '`') >= 0 {
		return 0, 0, "", false
	}
	return ch, n, info, true
}

// setextUnderline recognises "===" and "---" under a paragraph.
func setextUnderline(s string) (level int, ok bool) {
	s = strings.TrimRight(s, " ")
	if s == "" || strings.Trim(s, string(s[0])) != "" {
		return 0, false
	}
	switch s[0] {
	case '=':
		return 1, true
	case '-':
		return 2, true
	}
	return 0, false
}

// isThematicBreak recognises "***", "- - -", "___" and the like.
func isThematicBreak(s string) bool {
	if s == "" || s[0] != '*' && s[0] != '-' && s[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// marker describes a list item marker.
type marker struct {
	ordered       bool
	marker        byte
	number        int
	contentIndent int
	blank         bool
}

// listMarker recognises a list item marker at line[pos:] (after up to
// three spaces of indentation).
func listMarker(line string, pos int) (marker, bool) {
	ind := indentAt(line, pos)
	if ind > 3 {
		return marker{}, false
	}
	i := pos + ind
	var m marker
	switch {
	case i < len(line) && (line[i] == '-' || line[i] == '+' || line[i] == '*'):
		m.marker = line[i]
		i++
	case i < len(line) && line[i] >= '0' && line[i] <= '9':
		j := i
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j >= len(line) || line[j] != '.' && line[j] != ')' {
			return marker{}, false
		}
		for _, d := range line[i:j] {
			m.number = m.number*10 + int(d-'0')
		}
		m.ordered, m.marker = true, line[j]
		i = j + 1
	default:
		return marker{}, false
	}
	if i < len(line) && line[i] != ' ' {
		return marker{}, false
	}
	spaces := indentAt(line, i)
	width := i - pos
	switch {
	case i+spaces >= len(line):
		m.blank = true
		m.contentIndent = width + 1
	case spaces > 4:
		m.contentIndent = width + 1
	default:
		m.contentIndent = width + spaces
	}
	return m, true
}

// tableDelimiter recognises a GFM table delimiter row and returns the
// column alignments.
func tableDelimiter(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if strings.IndexByte(s, '|') < 0 && !strings.Contains(s, ":-") && !strings.Contains(s, "-:") {
		return nil, false
	}
	cells := splitRow(s)
	if len(cells) == 0 {
		return nil, false
	}
	aligns := make([]byte, len(cells))
	for i, c := range cells {
		c = strings.TrimSpace(c)
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		c = strings.Trim(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			aligns[i] = 'c'
		case right:
			aligns[i] = 'r'
		case left:
			aligns[i] = 'l'
		}
	}
	return aligns, true
}

// splitRow splits a table row into cells at pipes that are neither
// escaped nor inside a code span, dropping the optional outer pipes.
func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, "\\|") {
		s = s[:len(s)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			if end := strings.Index(s[i+n:], strings.Repeat("`", n)); end >= 0 {
				i += n + end + n - 1
			} else {
				i += n - 1
			}
		case '|':
			cells = append(cells, s[start:i])
			start = i + 1
		}
	}
	cells = append(cells, s[start:])
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\\|", "|"))
	}
	return cells
}
