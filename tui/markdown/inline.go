package markdown

import (
	"github.com/zut-go/zut/tui/ansi"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the inline parser of the markdown renderer: code spans,
// emphasis (*, _, ** and __), strikethrough (~~), links and images,
// autolinks (<...> and bare http(s):// and www. URLs), backslash escapes,
// entities and line breaks. Emphasis follows CommonMark's delimiter-run
// rules.

type itokKind uint8

const (
	itText itokKind = iota
	itCode
	itDelim
	itBracket   // "[" or "![" that did not become a link
	itLinkStart // the "[" of a link
	itLinkEnd   // the "](...)" of a link
	itHardBreak
	itSoftBreak
)

// emphasis kinds, indexes into itok.opens and itok.closes.
const (
	emItalic = iota
	emBold
	emStrike
)

// itok is an inline token.
type itok struct {
	kind itokKind
	text string
	// delimiter runs
	ch                       byte
	n, orig                  int
	canOpen, canClose, alive bool
	opens, closes            [3]int
	// brackets and links
	image     bool
	url       string
	auto      bool // an autolink: its text is its URL
	delimBase int  // len(delims) when the bracket was pushed
}

// inlineParser turns one paragraph's text into tokens.
type inlineParser struct {
	src        string
	toks       []itok
	delims     []int // indexes of delimiter tokens still on the stack
	brackets   []int // indexes of open bracket tokens
	optimistic bool
}

// inlineOptions control how inline text becomes spans.
type inlineOptions struct {
	theme      *ansi.Theme
	base       ansi.Style
	hyperlinks bool
	// optimistic is for the last block of a stream that has not ended:
	// unclosed emphasis, code spans and link destinations are shown as if
	// they were closed at the end of the text, so that finishing them does
	// not make markers appear and vanish.
	optimistic bool
}

// renderInline parses markdown inline text into styled spans. Newlines in
// the result are hard line breaks.
func renderInline(text string, o inlineOptions) []ansi.Span {
	p := &inlineParser{src: text, optimistic: o.optimistic}
	p.parse()
	return p.spans(o)
}

func (p *inlineParser) push(t itok) { p.toks = append(p.toks, t) }

func (p *inlineParser) parse() {
	s := p.src
	textStart := 0
	flush := func(end int) {
		if end > textStart {
			p.push(itok{kind: itText, text: s[textStart:end]})
		}
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				flush(i)
				p.push(itok{kind: itHardBreak})
				i += 2
				textStart = i
				continue
			}
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				flush(i)
				p.push(itok{kind: itText, text: s[i+1 : i+2]})
				i += 2
				textStart = i
				continue
			}
			i++
		case '`':
			n := runLen(s, i, '`')
			if end := closingBackticks(s, i+n, n); end >= 0 {
				flush(i)
				p.push(itok{kind: itCode, text: codeSpanText(s[i+n : end])})
				i = end + n
				textStart = i
				continue
			}
			if p.optimistic {
				flush(i)
				p.push(itok{kind: itCode, text: codeSpanText(s[i+n:])})
				i = len(s)
				textStart = i
				continue
			}
			i += n
		case '*', '_', '~':
			n := runLen(s, i, c)
			if c == '~' && n != 2 {
				i += n
				continue
			}
			flush(i)
			before, after := ' ', ' '
			if i > 0 {
				before, _ = utf8.DecodeLastRuneInString(s[:i])
			}
			if i+n < len(s) {
				after, _ = utf8.DecodeRuneInString(s[i+n:])
			}
			left := !isSpaceRune(after) && (!isPunctRune(after) || isSpaceRune(before) || isPunctRune(before))
			right := !isSpaceRune(before) && (!isPunctRune(before) || isSpaceRune(after) || isPunctRune(after))
			t := itok{kind: itDelim, ch: c, n: n, orig: n, alive: true, canOpen: left, canClose: right}
			if c == '_' {
				t.canOpen = left && (!right || isPunctRune(before))
				t.canClose = right && (!left || isPunctRune(after))
			}
			p.delims = append(p.delims, len(p.toks))
			p.push(t)
			i += n
			textStart = i
		case '[':
			flush(i)
			p.brackets = append(p.brackets, len(p.toks))
			p.push(itok{kind: itBracket, text: "[", delimBase: len(p.delims)})
			i++
			textStart = i
		case '!':
			if i+1 < len(s) && s[i+1] == '[' {
				flush(i)
				p.brackets = append(p.brackets, len(p.toks))
				p.push(itok{kind: itBracket, text: "![", image: true, delimBase: len(p.delims)})
				i += 2
				textStart = i
				continue
			}
			i++
		case ']':
			if len(p.brackets) == 0 {
				i++
				continue
			}
			url, end, ok, incomplete := linkDestination(s, i+1)
			if !ok && !(incomplete && p.optimistic) {
				// Not a link: the bracket stays literal text.
				p.brackets = p.brackets[:len(p.brackets)-1]
				i++
				continue
			}
			flush(i)
			bi := p.brackets[len(p.brackets)-1]
			p.brackets = p.brackets[:len(p.brackets)-1]
			open := &p.toks[bi]
			p.processEmphasis(open.delimBase)
			open.kind, open.url = itLinkStart, url
			p.push(itok{kind: itLinkEnd, url: url, image: open.image})
			if !open.image {
				// No links inside links.
				for _, b := range p.brackets {
					p.toks[b].alive = false
				}
				p.brackets = p.brackets[:0]
			}
			i = end
			textStart = i
		case '<':
			if url, text, end, ok := angleAutolink(s, i); ok {
				flush(i)
				p.push(itok{kind: itLinkStart, url: url})
				p.push(itok{kind: itText, text: text})
				p.push(itok{kind: itLinkEnd, url: url, auto: true})
				i = end
				textStart = i
				continue
			}
			i++
		case '\n':
			flush(i)
			hard := false
			if n := len(p.toks); n > 0 && p.toks[n-1].kind == itText {
				t := p.toks[n-1].text
				trimmed := strings.TrimRight(t, " ")
				hard = len(t)-len(trimmed) >= 2
				p.toks[n-1].text = trimmed
			}
			if hard {
				p.push(itok{kind: itHardBreak})
			} else {
				p.push(itok{kind: itSoftBreak})
			}
			i++
			textStart = i
		case '&':
			if end := strings.IndexByte(s[i:min(len(s), i+32)], ';'); end > 1 {
				ent := s[i : i+end+1]
				if dec := html.UnescapeString(ent); dec != ent {
					flush(i)
					p.push(itok{kind: itText, text: dec})
					i += end + 1
					textStart = i
					continue
				}
			}
			i++
		case 'h', 'w', 'H', 'W':
			if i == 0 || strings.IndexByte(" \n(*_~\"'", s[i-1]) >= 0 {
				if url, end, ok := bareURL(s, i); ok {
					flush(i)
					p.push(itok{kind: itLinkStart, url: url})
					p.push(itok{kind: itText, text: s[i:end]})
					p.push(itok{kind: itLinkEnd, url: url, auto: true})
					i = end
					textStart = i
					continue
				}
			}
			i++
		default:
			i++
		}
	}
	flush(len(s))
	p.processEmphasis(0)
	if p.optimistic {
		for _, di := range p.delims {
			t := &p.toks[di]
			if !t.alive || t.n == 0 || !t.canOpen || t.canClose {
				continue
			}
			switch {
			case t.ch == '~':
				t.opens[emStrike]++
			case t.n >= 3:
				t.opens[emBold]++
				t.opens[emItalic]++
			case t.n == 2:
				t.opens[emBold]++
			default:
				t.opens[emItalic]++
			}
			t.n = 0
		}
	}
	p.delims = p.delims[:0]
}

// processEmphasis matches the delimiter runs above stack position bottom
// (CommonMark's "process emphasis") and pops them.
func (p *inlineParser) processEmphasis(bottom int) {
	ds := p.delims
	for ci := bottom; ci < len(ds); ci++ {
		c := &p.toks[ds[ci]]
		if !c.alive || !c.canClose {
			continue
		}
		for c.n > 0 {
			oi := -1
			for j := ci - 1; j >= bottom; j-- {
				o := &p.toks[ds[j]]
				if !o.alive || o.n == 0 || !o.canOpen || o.ch != c.ch {
					continue
				}
				if c.ch == '~' {
					if o.n != c.n {
						continue
					}
				} else if (o.canClose || c.canOpen) && (o.orig+c.orig)%3 == 0 && !(o.orig%3 == 0 && c.orig%3 == 0) {
					continue
				}
				oi = j
				break
			}
			if oi < 0 {
				break
			}
			o := &p.toks[ds[oi]]
			use, kind := 1, emItalic
			switch {
			case c.ch == '~':
				use, kind = c.n, emStrike
			case o.n >= 2 && c.n >= 2:
				use, kind = 2, emBold
			}
			o.n -= use
			c.n -= use
			o.opens[kind]++
			c.closes[kind]++
			for j := oi + 1; j < ci; j++ {
				p.toks[ds[j]].alive = false
			}
		}
	}
	if bottom > 0 {
		p.delims = ds[:bottom]
	}
}

// spans renders the tokens.
func (p *inlineParser) spans(o inlineOptions) []ansi.Span {
	var out []ansi.Span
	var em [3]int
	code := false
	inLink := false
	link := ""
	var linkText strings.Builder
	style := func() ansi.Style {
		s := o.base
		if em[emBold] > 0 {
			s.Bold = true
		}
		if em[emItalic] > 0 {
			s.Italic = true
		}
		if em[emStrike] > 0 {
			s.Strike = true
		}
		if inLink {
			s = s.With(o.theme.Style(ansi.RoleMDLink))
		}
		if code {
			s.FG = o.theme.Color(ansi.RoleMDCode)
			s.BG = o.theme.Color(ansi.RoleMDCodeBG)
		}
		return s
	}
	emit := func(text string) {
		if text == "" {
			return
		}
		text = ansi.Printable(text)
		if inLink {
			linkText.WriteString(text)
		}
		sp := ansi.Span{Text: text, Style: style()}
		if o.hyperlinks {
			sp.Link = link
		}
		if n := len(out); n > 0 && out[n-1].Style == sp.Style && out[n-1].Link == sp.Link {
			out[n-1].Text += text
			return
		}
		out = append(out, sp)
	}
	for _, t := range p.toks {
		switch t.kind {
		case itText:
			emit(t.text)
		case itCode:
			code = true
			emit(t.text)
			code = false
		case itDelim:
			for k, n := range t.closes {
				em[k] -= n
			}
			if t.n > 0 {
				emit(strings.Repeat(string(t.ch), t.n))
			}
			for k, n := range t.opens {
				em[k] += n
			}
		case itBracket:
			emit(t.text)
		case itLinkStart:
			inLink, link = true, t.url
			linkText.Reset()
			if t.image {
				emit("image: ")
			}
		case itLinkEnd:
			text := linkText.String()
			inLink, link = false, ""
			if !o.hyperlinks && !t.auto && t.url != "" && text != t.url && "mailto:"+text != t.url {
				sp := ansi.Span{Text: " (" + ansi.Printable(t.url) + ")", Style: o.base.With(o.theme.Style(ansi.RoleMuted))}
				out = append(out, sp)
			}
		case itHardBreak:
			emit("\n")
		case itSoftBreak:
			emit(" ")
		}
	}
	return out
}

// runLen counts the bytes equal to c from s[i].
func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingBackticks finds a run of exactly n backticks at or after from.
func closingBackticks(s string, from, n int) int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		m := runLen(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// codeSpanText normalises a code span: newlines become spaces and one
// space is stripped from each side when both are present.
func codeSpanText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = s[1 : len(s)-1]
	}
	return s
}

// linkDestination parses "(dest "title")" at s[i]. incomplete reports that
// the text ended inside it, which is a link still being typed.
func linkDestination(s string, i int) (url string, end int, ok, incomplete bool) {
	if i >= len(s) {
		return "", 0, false, false
	}
	if s[i] != '(' {
		return "", 0, false, false
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
		i++
	}
	if i >= len(s) {
		return "", len(s), false, true
	}
	start := i
	if s[i] == '<' {
		j := strings.IndexAny(s[i+1:], ">\n")
		if j < 0 {
			return s[i+1:], len(s), false, true
		}
		if s[i+1+j] == '\n' {
			return "", 0, false, false
		}
		url = s[i+1 : i+1+j]
		i += j + 2
	} else {
		depth := 0
	dest:
		for i < len(s) {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i += 2
				continue
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break dest
				}
				depth--
			case c == ' ' || c == '\n' || c < 0x20:
				break dest
			}
			i++
		}
		url = s[start:i]
		if i >= len(s) {
			return url, len(s), false, true
		}
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		closer := s[i]
		if closer == '(' {
			closer = ')'
		}
		j := strings.IndexByte(s[i+1:], closer)
		if j < 0 {
			return url, len(s), false, true
		}
		i += j + 2
		for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
			i++
		}
	}
	if i >= len(s) {
		return url, len(s), false, true
	}
	if s[i] != ')' {
		return "", 0, false, false
	}
	return unescapeURL(url), i + 1, true, false
}

// unescapeURL removes backslash escapes and decodes entities in a link
// destination.
func unescapeURL(u string) string {
	if strings.IndexByte(u, '\\') >= 0 {
		var b strings.Builder
		for i := 0; i < len(u); i++ {
			if u[i] == '\\' && i+1 < len(u) && isASCIIPunct(u[i+1]) {
				i++
			}
			b.WriteByte(u[i])
		}
		u = b.String()
	}
	if strings.IndexByte(u, '&') >= 0 {
		u = html.UnescapeString(u)
	}
	return u
}

// angleAutolink recognises <scheme:...> and <user@host>.
func angleAutolink(s string, i int) (url, text string, end int, ok bool) {
	j := strings.IndexAny(s[i+1:], "<> \n")
	if j < 0 || s[i+1+j] != '>' {
		return "", "", 0, false
	}
	inner := s[i+1 : i+1+j]
	end = i + j + 2
	if k := strings.IndexByte(inner, ':'); k >= 2 && k <= 32 && isScheme(inner[:k]) {
		return inner, inner, end, true
	}
	if at := strings.IndexByte(inner, '@'); at > 0 && at < len(inner)-1 && strings.IndexByte(inner[at:], '.') > 0 {
		return "mailto:" + inner, inner, end, true
	}
	return "", "", 0, false
}

// isScheme reports whether s is a URI scheme.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// bareURL recognises a GFM extended autolink (http://, https://, www.) at
// s[i].
func bareURL(s string, i int) (url string, end int, ok bool) {
	rest := s[i:]
	lower := strings.ToLower(rest[:min(len(rest), 8)])
	var prefix string
	switch {
	case strings.HasPrefix(lower, "https://"):
		prefix = rest[:8]
	case strings.HasPrefix(lower, "http://"):
		prefix = rest[:7]
	case strings.HasPrefix(lower, "www."):
		prefix = rest[:4]
	default:
		return "", 0, false
	}
	j := len(prefix)
	for j < len(rest) && rest[j] != ' ' && rest[j] != '\n' && rest[j] != '<' && rest[j] >= 0x20 {
		j++
	}
	// Trailing punctuation is not part of the URL, nor is an unbalanced
	// closing parenthesis.
	for j > len(prefix) {
		c := rest[j-1]
		if strings.IndexByte("?!.,:*_~'\";", c) >= 0 {
			j--
			continue
		}
		if c == ')' && strings.Count(rest[:j], "(") < strings.Count(rest[:j], ")") {
			j--
			continue
		}
		break
	}
	if j == len(prefix) {
		return "", 0, false
	}
	url = rest[:j]
	if strings.EqualFold(prefix, "www.") {
		if strings.IndexByte(url, '.') == len(url)-1 {
			return "", 0, false
		}
		url = "http://" + url
	}
	return url, i + j, true
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isSpaceRune(r rune) bool { return unicode.IsSpace(r) }

func isPunctRune(r rune) bool {
	if r < 0x80 {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}
