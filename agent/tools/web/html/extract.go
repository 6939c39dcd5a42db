package html

import (
	"bytes"
	"net/url"
	"strings"
)

// Page is the readable text of an HTML document.
type Page struct {
	// Title is the document's <title>, else its first <h1>; white space
	// collapsed.
	Title string
	// Text is the readable text in a light Markdown: "#" headings, "-"
	// and "1." list items, "|" table rows, ``` fenced code blocks, "> "
	// quotes, and links written [text][n] where n numbers Links from 1.
	// Lines are separated by "\n" and prose is wrapped at Width runes.
	Text string
	// Links are the targets of the numbered links, in order of first
	// appearance; a URL that appears twice keeps its first number.
	Links []Link
}

// Link is one numbered link of a page.
type Link struct {
	Text string // the link's text as shown
	URL  string // absolute when Extract had the page's URL
}

// Width is the column at which Extract wraps prose lines.
const Width = 100

// Extract returns the readable text of the HTML document src, which must
// be UTF-8 (see Decode). Scripts, styles, forms, navigation, asides,
// footers, site headers, hidden elements and blocks whose class or id say
// they are boilerplate (cookie banners, sidebars, share buttons ...) are
// left out; when the page marks its main content (<main>, role="main", or
// a single <article>) holding a fair share of the text, only that is
// shown.
//
// pageURL, when not nil, resolves relative links (after any <base href>);
// links that are not http or https, and links into the page itself, are
// shown as plain text. Extract never fails: malformed HTML is read the way
// the tokenizer reads it.
func Extract(src []byte, pageURL *url.URL) *Page {
	t := buildTree(src)
	base := pageURL
	if t.base != "" {
		if u, err := url.Parse(t.base); err == nil {
			if base != nil {
				u = base.ResolveReference(u)
			}
			if u.Scheme == "http" || u.Scheme == "https" {
				base = u
			}
		}
	}
	t.measure()
	root := t.mainContent()
	r := newRenderer(t, base, pageURL)
	r.rootLen = t.nodes[root].textLen
	if root == 0 {
		r.children(0)
	} else {
		r.node(root)
	}
	title := t.title
	if title == "" {
		title = t.firstHeading()
	}
	title = clipRunes(title, maxTitle)
	return &Page{Title: title, Text: tidy(r.out), Links: r.links.list}
}

// maxTitle is the most runes of a title kept; an unclosed <title> makes
// the rest of the document its text, as in browsers.
const maxTitle = 300

func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// measure computes every node's textLen, the count of non-space bytes of
// text it shows, leaving out the elements that are always dropped.
func (t *tree) measure() {
	for i := len(t.nodes) - 1; i >= 1; i-- {
		n := &t.nodes[i]
		if n.tag == tagText {
			n.textLen = nonSpace(t.text[n.ts:n.te])
		}
		if alwaysDropped(n) {
			continue
		}
		t.nodes[n.parent].textLen += n.textLen
	}
}

func nonSpace(b []byte) int32 {
	var n int32
	for _, c := range b {
		if c > ' ' {
			n++
		}
	}
	return n
}

// mainContent returns the node to render: the page's marked main content
// when it holds a fair share of the text, else the root.
func (t *tree) mainContent() int32 {
	cand := int32(-1)
	articles := 0
	article := int32(-1)
	for i := 1; i < len(t.nodes); i++ {
		n := &t.nodes[i]
		if n.hidden {
			continue
		}
		if n.tag == tagMain || t.attr(n, aRole) == "main" {
			cand = int32(i)
			break
		}
		if n.tag == tagArticle && !t.inside(int32(i), tagArticle) {
			articles++
			article = int32(i)
		}
	}
	if cand < 0 && articles == 1 {
		cand = article
	}
	if cand < 0 {
		return 0
	}
	all := t.nodes[0].textLen
	if got := t.nodes[cand].textLen; got > 0 && (got >= all/4 || got >= 2000) {
		return cand
	}
	return 0
}

// inside reports whether node i has an ancestor with tag tg.
func (t *tree) inside(i int32, tg tag) bool {
	for p := t.nodes[i].parent; p > 0; p = t.nodes[p].parent {
		if t.nodes[p].tag == tg {
			return true
		}
	}
	return false
}

// firstHeading returns the text of the first h1, "" when there is none.
func (t *tree) firstHeading() string {
	for i := range t.nodes {
		if t.nodes[i].tag == tagH1 {
			var b strings.Builder
			t.gather(int32(i), &b)
			return collapseSpace(b.String())
		}
	}
	return ""
}

// gather appends the text below node i, with <br> as a newline.
func (t *tree) gather(i int32, b *strings.Builder) {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		n := &t.nodes[c]
		switch n.tag {
		case tagText:
			b.Write(t.text[n.ts:n.te])
		case tagBr:
			b.WriteByte('\n')
		case tagScript, tagStyle, tagTemplate:
		default:
			t.gather(c, b)
		}
	}
}

// alwaysDropped reports the elements whose text is never shown.
func alwaysDropped(n *node) bool {
	if n.hidden {
		return true
	}
	switch n.tag {
	case tagScript, tagStyle, tagNoscript, tagTemplate, tagNav, tagAside, tagButton, tagSelect,
		tagOption, tagInput, tagTextarea, tagSvg, tagMath, tagCanvas, tagIframe, tagObject,
		tagEmbed, tagVideo, tagAudio, tagMap, tagDialog, tagDatalist, tagMeta, tagLink,
		tagTitle, tagHead, tagNoembed, tagNoframes:
		return true
	}
	return false
}

// boilerplateRoles are ARIA roles of page furniture.
func boilerplateRoles() map[string]bool {
	return boilerplateRolesLazy.get(func() map[string]bool {
		return map[string]bool{
			"navigation": true, "banner": true, "contentinfo": true, "search": true, "complementary": true,
			"dialog": true, "alertdialog": true, "menubar": true, "menu": true, "toolbar": true,
		}
	})
}

var boilerplateRolesLazy lazy[map[string]bool]

// boilerplateWords are words of class names and ids that mark page
// furniture.
func boilerplateWords() map[string]bool {
	return boilerplateWordsLazy.get(func() map[string]bool {
		return map[string]bool{
			"cookie": true, "cookies": true, "consent": true, "gdpr": true, "sidebar": true,
			"breadcrumb": true, "breadcrumbs": true, "navbar": true, "navigation": true, "nav": true,
			"menu": true, "footer": true, "masthead": true, "advert": true, "advertisement": true,
			"ads": true, "ad": true, "sponsor": true, "sponsored": true, "promo": true, "social": true,
			"share": true, "sharing": true, "newsletter": true, "subscribe": true, "popup": true,
			"modal": true, "skip": true, "skiplink": true, "related": true, "comments": true,
		}
	})
}

var boilerplateWordsLazy lazy[map[string]bool]

// looksBoilerplate reports an element that is page furniture by its tag,
// role, class or id: a form, a footer, a site header, a cookie banner.
// The caller keeps it anyway when it holds two thirds of the text.
func (t *tree) looksBoilerplate(i int32) bool {
	n := &t.nodes[i]
	switch n.tag {
	case tagForm, tagFooter:
		return true
	case tagHeader:
		return !t.inside(i, tagArticle) && !t.inside(i, tagMain) && !t.hasHeading1(i)
	}
	return boilerplateRoles()[t.attr(n, aRole)] || hasBoilerplateWord(t.attr(n, aClass)) || hasBoilerplateWord(t.attr(n, aID))
}

// hasBoilerplateWord reports whether one of the words of a class or id
// (split at every character that is not a letter or digit, any case) is a
// boilerplate word.
func hasBoilerplateWord(s string) bool {
	var buf [24]byte
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if j > i && j-i <= len(buf) {
			w := buf[:0]
			for k := i; k < j; k++ {
				w = append(w, lower(s[k]))
			}
			if boilerplateWords()[string(w)] {
				return true
			}
		}
		i = j + 1
	}
	return false
}

// hasHeading1 reports whether an h1 is below node i.
func (t *tree) hasHeading1(i int32) bool {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].tag == tagH1 || t.hasHeading1(c) {
			return true
		}
	}
	return false
}

// tidy trims the spaces at line ends, keeps at most one blank line in a
// row and drops blank lines at both ends; lines of fenced code blocks are
// kept as they are.
func tidy(out []byte) string {
	b := make([]byte, 0, len(out))
	blank, fence := true, ""
	for len(out) > 0 {
		l := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			l, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		if f := fenceOf(l); f != "" && (fence == "" || strings.HasPrefix(f, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
		} else if fence != "" {
			b = append(append(b, l...), '\n')
			continue
		}
		l = bytes.TrimRight(l, " \t")
		if len(bytes.TrimSpace(l)) == 0 {
			if !blank {
				b = append(b, '\n')
			}
			blank = true
			continue
		}
		blank = false
		b = append(append(b, l...), '\n')
	}
	return string(bytes.TrimRight(b, "\n"))
}

// fenceOf returns the run of backticks that opens or closes a code block
// on line l (after indentation and quote marks), "" when there is none.
func fenceOf(l []byte) string {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '>') {
		i++
	}
	l = l[i:]
	n := 0
	for n < len(l) && l[n] == '`' {
		n++
	}
	if n < 3 {
		return ""
	}
	return fences[min(n, len(fences)-1)]
}

// fences are runs of backticks by length, shared to spare allocations; a
// longer run than any here is treated as the longest.
var fences = [...]string{"", "`", "``", "```", "````", "`````", "``````", "```````", "````````",
	"`````````", "``````````", "```````````", "````````````", "`````````````", "``````````````",
	"```````````````", "````````````````"}
