package html

import (
	"bytes"
	"strings"
)

// tree is a small document tree built from the tokens: enough of the
// HTML tree construction rules (implied end tags of p, li, dt, dd, table
// parts and options; raw text elements; foreign content) to render text,
// in flat arrays so a large page costs few allocations.
type tree struct {
	nodes []node
	attrs []attr // node.attr indexes the first of a node's nattr attributes
	text  []byte // the bytes of every text node
	title string
	base  string // the first <base href>
}

// node is an element or a text node. Links between nodes are indexes into
// tree.nodes; -1 is none. Node 0 is the root. A node holds no pointers,
// so the garbage collector need not scan the slice.
type node struct {
	parent, first, last int32
	next                int32
	ts, te              int32 // text nodes: text[ts:te]
	attr                int32 // tree.attrs[attr:attr+nattr] are the node's attributes
	textLen             int32 // bytes of rendered text below, see measure
	tag                 tag
	nattr               uint8
	hidden              bool
}

// attr is one attribute the text extraction reads; the name of an element
// that tagOther stands for is kept as an attribute too.
type attr struct {
	key attrKey
	val string
}

type attrKey uint8

const (
	aName attrKey = iota // the tag name of a tagOther element
	aHref
	aAlt
	aTitle
	aLabel // aria-label
	aClass
	aID
	aRole // lower case
	aStart
)

func attrKeys() map[string]attrKey {
	return attrKeysLazy.get(func() map[string]attrKey {
		return map[string]attrKey{
			"href": aHref, "alt": aAlt, "title": aTitle, "aria-label": aLabel, "class": aClass,
			"id": aID, "role": aRole, "start": aStart,
		}
	})
}

var attrKeysLazy lazy[map[string]attrKey]

// attr returns the value of attribute k of node n, "" when it has none.
func (t *tree) attr(n *node, k attrKey) string {
	for _, a := range t.attrs[n.attr : n.attr+int32(n.nattr)] {
		if a.key == k {
			return a.val
		}
	}
	return ""
}

// maxDepth bounds the element nesting; deeper elements are added to the
// deepest open one, so a page of endless unclosed tags stays flat.
const maxDepth = 200

// buildTree tokenizes src into a tree.
func buildTree(src []byte) *tree {
	// Every "<" makes at most one element, and text between tags one
	// text node: size the arrays once for a typical page.
	tags := bytes.Count(src, []byte{'<'})
	t := &tree{nodes: make([]node, 1, tags+tags/4+8), attrs: make([]attr, 0, tags/2+8), text: make([]byte, 0, len(src)/2)}
	t.nodes[0] = node{tag: tagRoot, parent: -1, first: -1, last: -1, next: -1}
	b := builder{t: t, stack: []int32{0}}
	z := NewTokenizer(src)
	b.z = z
	for {
		switch z.Next() {
		case EOF:
			return t
		case Text:
			b.addText(z.Token().Data)
		case StartTag:
			b.start(z.Token())
		case EndTag:
			b.end(z.Token())
		}
	}
}

type builder struct {
	t       *tree
	strs    map[string]string // interned attribute values
	z       *Tokenizer
	stack   []int32 // open elements; stack[0] is the root
	foreign int     // open svg and math elements
	inTitle bool
}

func (b *builder) top() int32 { return b.stack[len(b.stack)-1] }

func (b *builder) topTag() tag { return b.t.nodes[b.top()].tag }

// appendChild adds a node under parent and returns its index.
func (b *builder) appendChild(parent int32, n node) int32 {
	t := b.t
	n.parent, n.first, n.last, n.next = parent, -1, -1, -1
	i := int32(len(t.nodes))
	t.nodes = append(t.nodes, n)
	p := &t.nodes[parent]
	if p.last >= 0 {
		t.nodes[p.last].next = i
	} else {
		p.first = i
	}
	p.last = i
	return i
}

func (b *builder) addText(data []byte) {
	if b.inTitle {
		if b.t.title == "" {
			b.t.title = collapseSpace(string(data))
		}
		return
	}
	switch b.topTag() {
	case tagScript, tagStyle, tagNoscript, tagTemplate, tagTextarea, tagIframe, tagXMP, tagNoembed, tagNoframes:
		return // raw text nobody reads
	}
	if bytes.IndexByte(data, 0) >= 0 {
		data = bytes.ReplaceAll(data, []byte{0}, nil)
	}
	if len(data) == 0 {
		return
	}
	t := b.t
	top := b.top()
	if last := t.nodes[top].last; last >= 0 && t.nodes[last].tag == tagText && int(t.nodes[last].te) == len(t.text) {
		t.text = append(t.text, data...)
		t.nodes[last].te = int32(len(t.text))
		return
	}
	ts := int32(len(t.text))
	t.text = append(t.text, data...)
	b.appendChild(top, node{tag: tagText, ts: ts, te: int32(len(t.text))})
}

func (b *builder) start(tok *Token) {
	tg, name := lookupTag(tok.Data)
	if b.foreign > 0 {
		// Inside svg or math: no implied ends, no raw text, "/>" closes.
		i := b.push(tg, name, tok)
		if tok.SelfClosing && i >= 0 {
			b.pop()
		}
		return
	}
	switch {
	case tg == tagTitle:
		b.inTitle = true
		b.z.SetState(RCDATAState)
		return
	case tg == tagBase:
		if v, ok := tok.AttrValue("href"); ok && b.t.base == "" {
			b.t.base = strings.TrimSpace(string(v))
		}
		return
	case tg == tagHTML || tg == tagHead || tg == tagBody:
		return // implied: their children go where they are
	}
	if closesP(tg) {
		b.closeP()
	}
	switch tg {
	case tagLi:
		b.closeUpTo([]tag{tagLi}, tagUl, tagOl, tagTable, tagTd, tagTh)
	case tagDt, tagDd:
		b.closeUpTo([]tag{tagDt, tagDd}, tagDl, tagTable, tagTd, tagTh)
	case tagTr:
		b.closeUpTo([]tag{tagTr}, tagTable)
	case tagTd, tagTh:
		b.closeUpTo([]tag{tagTd, tagTh}, tagTr, tagTable)
	case tagThead, tagTbody, tagTfoot:
		b.closeUpTo([]tag{tagThead, tagTbody, tagTfoot}, tagTable)
		b.closeInside(tagTable)
	case tagOption:
		b.closeUpTo([]tag{tagOption}, tagSelect)
	case tagA:
		b.closeUpTo([]tag{tagA}, tagTable, tagTd, tagTh)
	case tagH1, tagH2, tagH3, tagH4, tagH5, tagH6:
		if isHeading(b.topTag()) {
			b.pop()
		}
	}
	if isVoid(tg) {
		b.appendChild(b.top(), b.element(tg, name, tok))
		return
	}
	b.push(tg, name, tok)
	switch tg {
	case tagScript:
		b.z.SetState(ScriptDataState)
	case tagStyle, tagXMP, tagIframe, tagNoembed, tagNoframes, tagNoscript:
		b.z.SetState(RAWTEXTState)
	case tagTextarea:
		b.z.SetState(RCDATAState)
	case tagPlaintext:
		b.z.SetState(PLAINTEXTState)
	case tagSvg, tagMath:
		b.foreign++
		b.z.SetForeign(true)
	}
}

// push opens an element; it returns -1 when the nesting is too deep and
// the element was only added.
func (b *builder) push(tg tag, name string, tok *Token) int32 {
	i := b.appendChild(b.top(), b.element(tg, name, tok))
	if len(b.stack) >= maxDepth {
		return -1
	}
	b.stack = append(b.stack, i)
	return i
}

func (b *builder) pop() {
	if len(b.stack) <= 1 {
		return
	}
	if tg := b.topTag(); tg == tagSvg || tg == tagMath {
		b.foreign--
		b.z.SetForeign(b.foreign > 0)
	}
	b.stack = b.stack[:len(b.stack)-1]
}

// element makes the node of a start tag, keeping the attributes that
// matter for text.
func (b *builder) element(tg tag, name string, tok *Token) node {
	t := b.t
	n := node{tag: tg, attr: int32(len(t.attrs))}
	if tg == tagOther {
		t.attrs = append(t.attrs, attr{key: aName, val: name})
	}
	for _, at := range tok.Attr {
		switch string(at.Name) {
		case "hidden":
			n.hidden = true
			continue
		case "aria-hidden":
			n.hidden = n.hidden || strings.EqualFold(strings.TrimSpace(string(at.Value)), "true")
			continue
		case "style":
			s := strings.ToLower(strings.ReplaceAll(string(at.Value), " ", ""))
			n.hidden = n.hidden || strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
			continue
		}
		k, ok := attrKeys()[string(at.Name)]
		if !ok || len(t.attrs)-int(n.attr) >= 255 {
			continue
		}
		v := b.intern(at.Value)
		if k == aRole {
			v = strings.ToLower(strings.TrimSpace(v))
		}
		t.attrs = append(t.attrs, attr{key: k, val: v})
	}
	n.nattr = uint8(len(t.attrs) - int(n.attr))
	return n
}

func (b *builder) end(tok *Token) {
	tg, name := lookupTag(tok.Data)
	switch tg {
	case tagTitle:
		b.inTitle = false
		return
	case tagBr:
		if b.foreign == 0 {
			b.appendChild(b.top(), node{tag: tagBr})
		}
		return
	case tagHTML, tagHead, tagBody:
		return
	}
	// Find the element, not looking past the elements that bound it.
	for i := len(b.stack) - 1; i > 0; i-- {
		n := &b.t.nodes[b.stack[i]]
		if n.tag == tg && (tg != tagOther || b.t.attr(n, aName) == name) {
			for len(b.stack) > i {
				b.pop()
			}
			return
		}
		if b.foreign == 0 && bounds(n.tag, tg) {
			return
		}
	}
}

// closeP closes an open p element, as block start tags do.
func (b *builder) closeP() {
	for i := len(b.stack) - 1; i > 0; i-- {
		switch b.t.nodes[b.stack[i]].tag {
		case tagP:
			for len(b.stack) > i {
				b.pop()
			}
			return
		case tagButton, tagTable, tagTd, tagTh, tagCaption, tagTemplate, tagObject:
			return
		}
	}
}

// closeInside closes the elements open inside the nearest open element
// of tag tg, when there is one.
func (b *builder) closeInside(tg tag) {
	for i := len(b.stack) - 1; i > 0; i-- {
		if b.t.nodes[b.stack[i]].tag == tg {
			for len(b.stack) > i+1 {
				b.pop()
			}
			return
		}
	}
}

// closeUpTo closes the nearest open element of one of the tags in which,
// and what is inside it, unless one of the stop tags comes first.
func (b *builder) closeUpTo(which []tag, stop ...tag) {
	for i := len(b.stack) - 1; i > 0; i-- {
		tg := b.t.nodes[b.stack[i]].tag
		for _, w := range which {
			if tg == w {
				for len(b.stack) > i {
					b.pop()
				}
				return
			}
		}
		for _, s := range stop {
			if tg == s {
				return
			}
		}
	}
}

// bounds reports whether an open element of tag open stops the search for
// the start of an end tag of tag closing: tables bound everything inside
// them, and block elements bound inline ones.
func bounds(open, closing tag) bool {
	switch open {
	case tagTable, tagTd, tagTh, tagCaption, tagTemplate, tagObject:
		return closing != tagTable && closing != tagTr && closing != tagTbody &&
			closing != tagThead && closing != tagTfoot || open == tagTemplate
	}
	return isInline(closing) && !isInline(open) && open != tagOther
}

// intern returns b as a string, shared with earlier equal values: class
// names and links repeat across a page.
func (b *builder) intern(v []byte) string {
	if s, ok := b.strs[string(v)]; ok {
		return s
	}
	s := string(v)
	if b.strs == nil {
		b.strs = make(map[string]string)
	}
	if len(b.strs) < 1<<14 && len(s) <= 256 {
		b.strs[s] = s
	}
	return s
}

// collapseSpace trims s and turns every run of white space (no-break
// spaces included) into one space.
func collapseSpace(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if w := spaceWidthString(s, i); w > 0 && (s[i] != ' ' || i == 0 || i+1 == len(s) || spaceWidthString(s, i+1) > 0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); {
		if w := spaceWidthString(s, i); w > 0 {
			space = len(b) > 0
			i += w
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, s[i])
		i++
	}
	return string(b)
}

// spaceWidthString is spaceWidth for strings.
func spaceWidthString(s string, i int) int {
	switch c := s[i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
		return 1
	case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
		return 2
	}
	return 0
}
