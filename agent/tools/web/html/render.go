package html

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// renderer writes the text of a tree. Text is written word by word; block
// elements ask for line breaks that are written, with the current
// indentation, only when more text follows.
type renderer struct {
	t       *tree
	base    *url.URL
	page    string // the page URL without its fragment, to spot self-links
	links   *linkSet
	rootLen int32
	out     []byte

	nl        int    // line breaks owed before the next word: 0, 1 or 2 (a blank line)
	space     bool   // a space is owed before the next word
	lineStart bool   // nothing written on the current line yet
	col       int    // runes on the current line
	indent    string // prefix of new lines
	blank     string // prefix of the owed blank line (the shorter indent around it)
	first     string // prefix of the next new line, when hasFirst (a list marker)
	hasFirst  bool
	glue      string // text written just before the next word ("## ", "[")
	flat      int    // > 0: line breaks become spaces (headings, links, cells)
	noWrap    int    // > 0: no wrapping (headings, cells)
	inLink    int    // > 0: inside a link's text
	lists     []listState
	resolved  map[string]string // href -> absolute URL, "" when not followable; shared with cell renderers
	cell      *renderer         // reused to render table cells
}

type listState struct {
	ordered bool
	n       int
}

func newRenderer(t *tree, base, pageURL *url.URL) *renderer {
	r := &renderer{t: t, base: base, links: &linkSet{ids: map[string]int{}}, lineStart: true, resolved: map[string]string{}}
	if pageURL != nil {
		p := *pageURL
		p.Fragment, p.RawFragment = "", ""
		r.page = p.String()
	}
	return r
}

// block asks for n line breaks (2: a blank line) before the next word.
func (r *renderer) block(n int) {
	if r.flat > 0 {
		r.space = true
		return
	}
	if n >= 2 {
		if r.nl >= 2 {
			r.blank = commonPrefix(r.blank, r.indent)
		} else {
			r.blank = r.indent
		}
	}
	r.nl = max(r.nl, n)
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// breakLine writes the line breaks owed and the new line's prefix.
func (r *renderer) breakLine() {
	if len(r.out) > 0 {
		r.out = append(r.out, '\n')
		if r.nl > 1 {
			r.out = append(r.out, strings.TrimRight(r.blank, " ")...)
			r.out = append(r.out, '\n')
		}
	}
	prefix := r.indent
	if r.hasFirst {
		prefix, r.hasFirst = r.first, false
	}
	r.out = append(r.out, prefix...)
	r.col = utf8.RuneCountInString(prefix)
	r.nl, r.space, r.lineStart = 0, false, true
}

// word writes w, preceded by the owed space or line break.
func (r *renderer) word(w string) { r.wordBytes([]byte(w)) }

// wordBytes is word for bytes, which it does not keep.
func (r *renderer) wordBytes(w []byte) {
	if r.nl > 0 {
		r.breakLine()
	}
	n := utf8.RuneCount(w) + utf8.RuneCountInString(r.glue)
	if r.space && !r.lineStart {
		// Links stay on one line: only their first word may wrap.
		canWrap := r.noWrap == 0 && (r.inLink == 0 || strings.HasSuffix(r.glue, "["))
		if canWrap && r.col+1+n > Width {
			r.out = append(r.out, '\n')
			r.out = append(r.out, r.indent...)
			r.col = utf8.RuneCountInString(r.indent)
		} else {
			r.out = append(r.out, ' ')
			r.col++
		}
	}
	r.out = append(r.out, r.glue...)
	r.out = append(r.out, w...)
	r.glue = ""
	r.col += n
	r.space, r.lineStart = false, false
}

// inline writes text in the normal flow: runs of white space become one
// space, wrapped at Width.
func (r *renderer) inline(s []byte) {
	for i := 0; i < len(s); {
		if w := spaceWidth(s, i); w > 0 {
			r.space = true
			i += w
			continue
		}
		j := i
		for j < len(s) && spaceWidth(s, j) == 0 {
			j++
		}
		r.wordBytes(s[i:j])
		i = j
	}
}

// spaceWidth returns the length of the white space character at s[i], 0
// when there is none; a no-break space counts as a space.
func spaceWidth(s []byte, i int) int {
	switch c := s[i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
		return 1
	case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
		return 2
	}
	return 0
}

// children renders the children of node i.
func (r *renderer) children(i int32) {
	for c := r.t.nodes[i].first; c >= 0; c = r.t.nodes[c].next {
		r.node(c)
	}
}

// dropped reports whether node i is left out.
func (r *renderer) dropped(i int32) bool {
	n := &r.t.nodes[i]
	if alwaysDropped(n) {
		return true
	}
	// A form or a block with a boilerplate class that holds most of the
	// text is the page itself (some sites wrap everything in a form).
	return r.t.looksBoilerplate(i) && n.textLen*3 < r.rootLen*2
}

// node renders node i.
func (r *renderer) node(i int32) {
	n := &r.t.nodes[i]
	if n.tag == tagText {
		r.inline(r.t.text[n.ts:n.te])
		return
	}
	if r.dropped(i) {
		return
	}
	switch n.tag {
	case tagBr:
		if r.flat > 0 {
			r.space = true
		} else if !r.lineStart || r.nl > 0 {
			r.nl = min(r.nl+1, 2)
		}
	case tagHr:
		r.block(2)
		r.word("---")
		r.block(2)
	case tagP:
		r.block(2)
		r.children(i)
		r.block(2)
	case tagH1, tagH2, tagH3, tagH4, tagH5, tagH6:
		r.heading(i, int(n.tag-tagH1)+1)
	case tagUl, tagOl, tagMenu:
		r.list(i, n.tag == tagOl)
	case tagLi:
		r.item(i)
	case tagDt:
		r.block(1)
		r.children(i)
		r.block(1)
	case tagDd:
		r.indented(i, "  ")
	case tagBlockquote:
		r.block(2)
		r.indented(i, "> ")
		r.block(2)
	case tagPre:
		r.code(i)
	case tagCode, tagKbd, tagSamp, tagTt:
		r.inlineCode(i)
	case tagTable:
		r.table(i)
	case tagA:
		r.link(i)
	case tagImg:
		alt := r.t.attr(n, aAlt)
		if strings.TrimSpace(alt) == "" {
			break
		}
		if r.inLink > 0 {
			r.inline([]byte(alt))
		} else {
			r.word("(image: " + collapseSpace(alt) + ")")
		}
	case tagDiv, tagSection, tagArticle, tagMain, tagHeader, tagFooter, tagFigure, tagFigcaption,
		tagAddress, tagCenter, tagDetails, tagSummary, tagFieldset, tagLegend, tagHgroup, tagSearch,
		tagForm, tagDl, tagTr, tagCaption, tagTbody, tagThead, tagTfoot, tagPicture:
		r.block(1)
		r.children(i)
		r.block(1)
	case tagTd, tagTh:
		r.children(i)
		r.space = true
	default:
		r.children(i)
	}
}

var headingMarks = [...]string{"# ", "## ", "### ", "#### ", "##### ", "###### "}

func (r *renderer) heading(i int32, level int) {
	mark := headingMarks[level-1]
	r.block(2)
	r.glue += mark
	r.flat++
	r.noWrap++
	r.children(i)
	r.flat--
	r.noWrap--
	r.glue = strings.TrimSuffix(r.glue, mark)
	r.block(2)
}

func (r *renderer) list(i int32, ordered bool) {
	st := listState{ordered: ordered}
	if start := r.t.attr(&r.t.nodes[i], aStart); ordered && start != "" {
		if v, err := strconv.Atoi(strings.TrimSpace(start)); err == nil {
			st.n = v - 1
		}
	}
	if len(r.lists) == 0 {
		r.block(2)
	} else {
		r.block(1)
	}
	r.lists = append(r.lists, st)
	r.children(i)
	r.lists = r.lists[:len(r.lists)-1]
	if len(r.lists) == 0 {
		r.block(2)
	} else {
		r.block(1)
	}
}

func (r *renderer) item(i int32) {
	marker := "- "
	if k := len(r.lists) - 1; k >= 0 && r.lists[k].ordered {
		r.lists[k].n++
		marker = strconv.Itoa(r.lists[k].n) + ". "
	}
	if r.flat > 0 {
		r.space = true
		r.children(i)
		return
	}
	r.block(1)
	old := r.indent
	r.first, r.hasFirst = old+marker, true
	r.indent = old + strings.Repeat(" ", len(marker))
	r.children(i)
	r.indent = old
	r.hasFirst = false
	r.block(1)
}

// indented renders node i with prefix added to its lines.
func (r *renderer) indented(i int32, prefix string) {
	if r.flat > 0 {
		r.children(i)
		return
	}
	r.block(1)
	old := r.indent
	if r.hasFirst {
		r.first += prefix
	}
	r.indent += prefix
	r.children(i)
	r.indent = old
	r.block(1)
}
