package telegram

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file parses inline markdown (emphasis, code spans, links) with the
// delimiter-run rules of CommonMark: runs of *, _ and ~ are matched by a
// doubly linked stack of delimiters, links by a stack of brackets.

type pieceKind uint8

const (
	pieceText    pieceKind = iota
	pieceCode              // a code span; text is its content
	pieceDelim             // a run of *, _ or ~
	pieceBracket           // "[" or "![", a possible link start
	pieceLinkEnd           // the end of a link; opener is its bracket piece
)

type piece struct {
	kind  pieceKind
	text  string
	char  byte // pieceDelim
	count int  // pieceDelim: characters not used as markers
	orig  int  // pieceDelim: the run's length
	// canOpen and canClose follow the flanking rules.
	canOpen, canClose bool
	closes, opens     []string // entity types, in the order they matched
	link              bool     // pieceBracket: it became a link
	url               string   // pieceBracket: the destination
	opener            int      // pieceLinkEnd
}

type delimiter struct {
	piece      int
	prev, next int // -1: none
}

type bracket struct {
	piece  int
	image  bool
	active bool
	bottom int // the top delimiter when the bracket was pushed
}

type inlineParser struct {
	src      string
	pieces   []piece
	delims   []delimiter
	top      int // the last delimiter in the stack, -1 when empty
	brackets []bracket
	text     strings.Builder
}

// inlineInto parses s as inline markdown and writes it to b.
func inlineInto(b *builder, s string) {
	p := &inlineParser{src: s, top: -1}
	p.parse()
	p.emit(b)
}

func (p *inlineParser) flush() {
	if p.text.Len() > 0 {
		p.pieces = append(p.pieces, piece{kind: pieceText, text: p.text.String()})
		p.text.Reset()
	}
}

func (p *inlineParser) add(pc piece) int {
	p.flush()
	p.pieces = append(p.pieces, pc)
	return len(p.pieces) - 1
}

func (p *inlineParser) parse() {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			p.text.WriteByte(s[i+1])
			i += 2
		case c == '`':
			i = p.codeSpan(i)
		case c == '*' || c == '_' || c == '~':
			i = p.delimRun(i)
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			p.pushBracket("![", true)
			i += 2
		case c == '[':
			p.pushBracket("[", false)
			i++
		case c == ']':
			i = p.closeBracket(i)
		case c == '<':
			i = p.autolink(i)
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			p.text.WriteString(s[i : i+n])
			i += n
		}
	}
	p.flush()
	p.processEmphasis(-1)
}

func (p *inlineParser) codeSpan(i int) int {
	s := p.src
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		m := 0
		for j+m < len(s) && s[j+m] == '`' {
			m++
		}
		if m == n {
			body := strings.ReplaceAll(s[i+n:j], "\n", " ")
			if len(body) >= 2 && body[0] == ' ' && body[len(body)-1] == ' ' && strings.TrimSpace(body) != "" {
				body = body[1 : len(body)-1]
			}
			p.add(piece{kind: pieceCode, text: body})
			return j + m
		}
		j += m
	}
	p.text.WriteString(s[i : i+n])
	return i + n
}

func (p *inlineParser) delimRun(i int) int {
	s := p.src
	c := s[i]
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i+n < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i+n:])
	}
	left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
	right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
	open, close := left, right
	if c == '_' {
		open = left && (!right || isPunct(before))
		close = right && (!left || isPunct(after))
	}
	if c == '~' && n != 2 {
		open, close = false, false // only ~~strike~~: a lone ~ means "about"
	}
	idx := p.add(piece{kind: pieceDelim, text: s[i : i+n], char: c, count: n, orig: n, canOpen: open, canClose: close})
	if open || close {
		p.delims = append(p.delims, delimiter{piece: idx, prev: p.top, next: -1})
		d := len(p.delims) - 1
		if p.top >= 0 {
			p.delims[p.top].next = d
		}
		p.top = d
	}
	return i + n
}

func (p *inlineParser) pushBracket(text string, image bool) {
	idx := p.add(piece{kind: pieceBracket, text: text})
	p.brackets = append(p.brackets, bracket{piece: idx, image: image, active: true, bottom: p.top})
}

func (p *inlineParser) closeBracket(i int) int {
	if len(p.brackets) == 0 {
		p.text.WriteByte(']')
		return i + 1
	}
	b := p.brackets[len(p.brackets)-1]
	p.brackets = p.brackets[:len(p.brackets)-1]
	if !b.active {
		p.text.WriteByte(']')
		return i + 1
	}
	url, end, ok := linkDestination(p.src, i+1)
	if !ok {
		p.text.WriteByte(']')
		return i + 1
	}
	p.flush()
	p.processEmphasis(b.bottom)
	p.pieces[b.piece].link = true
	p.pieces[b.piece].url = url
	p.add(piece{kind: pieceLinkEnd, opener: b.piece})
	if !b.image {
		for k := range p.brackets {
			if !p.brackets[k].image {
				p.brackets[k].active = false
			}
		}
	}
	return end
}

// linkDestination parses "(dest "title")" at s[i:]; it returns the
// destination and the index after ")".
func linkDestination(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '(' {
		return "", 0, false
	}
	i++
	i = skipSpaces(s, i)
	var dest string
	if i < len(s) && s[i] == '<' {
		j := strings.IndexAny(s[i+1:], ">\n")
		if j < 0 || s[i+1+j] != '>' {
			return "", 0, false
		}
		dest = s[i+1 : i+1+j]
		i += j + 2
	} else {
		depth := 0
		j := i
		for ; j < len(s); j++ {
			c := s[j]
			if c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
				continue
			}
			if c == ' ' || c == '\n' || c == '\t' || c < 0x20 {
				break
			}
			if c == '(' {
				depth++
			}
			if c == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		dest = unescapePunct(s[i:j])
		i = j
	}
	i = skipSpaces(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		endc := s[i]
		if endc == '(' {
			endc = ')'
		}
		j := strings.IndexByte(s[i+1:], endc)
		if j < 0 {
			return "", 0, false
		}
		i = skipSpaces(s, i+2+j)
	}
	if i >= len(s) || s[i] != ')' {
		return "", 0, false
	}
	return dest, i + 1, true
}

func (p *inlineParser) autolink(i int) int {
	s := p.src
	j := strings.IndexAny(s[i+1:], "<> \n\t")
	if j > 0 && s[i+1+j] == '>' {
		u := s[i+1 : i+1+j]
		if safeURL(u) {
			b := p.add(piece{kind: pieceBracket, text: "", link: true, url: u})
			p.text.WriteString(u)
			p.add(piece{kind: pieceLinkEnd, opener: b})
			return i + j + 2
		}
	}
	p.text.WriteByte('<')
	return i + 1
}

func (p *inlineParser) removeDelim(d int) {
	x := p.delims[d]
	if x.prev >= 0 {
		p.delims[x.prev].next = x.next
	}
	if x.next >= 0 {
		p.delims[x.next].prev = x.prev
	}
	if p.top == d {
		p.top = x.prev
	}
}

// processEmphasis matches the delimiters above bottom (-1: all) and then
// removes them from the stack.
func (p *inlineParser) processEmphasis(bottom int) {
	type key struct {
		c     byte
		open  bool
		mod3  int
		count int
	}
	openersBottom := map[key]int{}
	cur := -1
	if bottom >= 0 {
		cur = p.delims[bottom].next
	} else {
		// the first delimiter: walk down from the top
		for d := p.top; d >= 0; d = p.delims[d].prev {
			cur = d
		}
	}
	for cur >= 0 {
		cl := &p.pieces[p.delims[cur].piece]
		if !cl.canClose || cl.count == 0 {
			cur = p.delims[cur].next
			continue
		}
		k := key{c: cl.char, open: cl.canOpen, mod3: cl.orig % 3}
		if cl.char == '~' {
			k.count = cl.count
		}
		limit, hasLimit := openersBottom[k]
		found := -1
		for o := p.delims[cur].prev; o >= 0 && o != bottom && !(hasLimit && o == limit); o = p.delims[o].prev {
			op := &p.pieces[p.delims[o].piece]
			if op.char != cl.char || !op.canOpen || op.count == 0 {
				continue
			}
			if cl.char == '~' {
				if op.count != cl.count {
					continue
				}
			} else if (op.canClose || cl.canOpen) && (op.orig+cl.orig)%3 == 0 && !(op.orig%3 == 0 && cl.orig%3 == 0) {
				continue
			}
			found = o
			break
		}
		if found < 0 {
			openersBottom[k] = p.delims[cur].prev
			next := p.delims[cur].next
			if !cl.canOpen {
				p.removeDelim(cur)
			}
			cur = next
			continue
		}
		op := &p.pieces[p.delims[found].piece]
		use, kind := 1, EntityItalic
		switch {
		case cl.char == '~':
			use, kind = cl.count, EntityStrikethrough
		case op.count >= 2 && cl.count >= 2:
			use, kind = 2, EntityBold
		}
		op.opens = append(op.opens, kind)
		cl.closes = append(cl.closes, kind)
		op.count -= use
		cl.count -= use
		// The delimiters between opener and closer become plain text.
		p.delims[found].next = cur
		p.delims[cur].prev = found
		if op.count == 0 {
			p.removeDelim(found)
		}
		if cl.count == 0 {
			next := p.delims[cur].next
			p.removeDelim(cur)
			cur = next
		}
	}
	// Remove everything above bottom.
	if bottom >= 0 {
		p.delims[bottom].next = -1
		p.top = bottom
	} else {
		p.top = -1
	}
}

// emit writes the pieces to b.
func (p *inlineParser) emit(b *builder) {
	base := b.depth()
	linkOpened := map[int]bool{}
	for i, pc := range p.pieces {
		switch pc.kind {
		case pieceText:
			b.write(pc.text)
		case pieceCode:
			b.open(Entity{Type: EntityCode})
			b.write(pc.text)
			b.close()
		case pieceDelim:
			for range pc.closes {
				if b.depth() > base {
					b.close()
				}
			}
			b.write(pc.text[:pc.count])
			for k := len(pc.opens) - 1; k >= 0; k-- {
				b.open(Entity{Type: pc.opens[k]})
			}
		case pieceBracket:
			switch {
			case !pc.link:
				b.write(pc.text)
			case safeURL(pc.url):
				b.open(Entity{Type: EntityTextLink, URL: pc.url})
				linkOpened[i] = true
			}
		case pieceLinkEnd:
			if linkOpened[pc.opener] && b.depth() > base {
				b.close()
			}
		}
	}
	b.closeTo(base)
}

// safeURL reports whether u may be a text_link: an absolute http(s), tg or
// mailto URL without spaces or controls.
func safeURL(u string) bool {
	if len(u) > 2048 {
		return false
	}
	for _, r := range u {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	l := strings.ToLower(u)
	for _, scheme := range []string{"http://", "https://", "tg://", "mailto:"} {
		if strings.HasPrefix(l, scheme) && len(l) > len(scheme) {
			return true
		}
	}
	return false
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

func unescapePunct(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }
