package shell

import "strings"

// word is one word of a command after quote removal.
type word struct {
	// lit is the value after quote removal; an expansion keeps its
	// source text.
	lit string
	src string
	// static reports that the word holds no expansion: lit is exactly
	// its value.
	static bool
	// split reports an expansion that may become several words or none
	// (unquoted, or "$@").
	split bool
	// glob reports an unquoted *, ? or [, or a brace expansion.
	glob bool
}

// word reads the word at pos, parsing the substitutions in it.
func (p *parser) word() word {
	start := p.pos
	// Most words are plain: no quoting, expansion or pattern.
	end := p.pos
	for end < len(p.src) && !isMeta(p.src[end]) && !wordSpecial(p.src[end]) {
		end++
	}
	if end == len(p.src) || isMeta(p.src[end]) {
		p.pos = end
		return word{lit: p.src[start:end], src: p.src[start:end], static: true}
	}
	var b strings.Builder
	w := word{static: true}
	brace, bracket := false, false
	for p.ok() && !p.eof() {
		c := p.src[p.pos]
		if isMeta(c) {
			break
		}
		switch c {
		case '\\':
			switch {
			case p.pos+1 >= len(p.src):
				b.WriteByte('\\')
				p.pos++
			case p.src[p.pos+1] == '\n':
				p.pos += 2
			default:
				b.WriteByte(p.src[p.pos+1])
				p.pos += 2
			}
		case '\'':
			p.squote(&b)
		case '"':
			p.dquote(&b, &w)
		case '$':
			p.dollar(&b, &w, false)
		case '`':
			p.backquote(&b, &w, false)
		case '*', '?':
			w.glob = true
			b.WriteByte(c)
			p.pos++
		case '[':
			// A pattern only when a ] follows in the word: [ alone is
			// the test command.
			bracket = true
			b.WriteByte(c)
			p.pos++
		case '{':
			brace = true
			b.WriteByte(c)
			p.pos++
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	w.lit, w.src = b.String(), p.src[start:p.pos]
	if bracket && strings.Contains(w.src[strings.IndexByte(w.src, '[')+1:], "]") {
		w.glob = true
	}
	if brace && strings.Contains(w.src, "}") && (strings.Contains(w.src, ",") || strings.Contains(w.src, "..")) {
		w.glob = true
	}
	return w
}

// wordSpecial reports whether c is quoting, an expansion or a pattern
// character in a word.
func wordSpecial(c byte) bool {
	switch c {
	case '\\', '\'', '"', '$', '`', '*', '?', '[', '{':
		return true
	}
	return false
}

// squote reads '...' at pos into b.
func (p *parser) squote(b *strings.Builder) bool {
	end := strings.IndexByte(p.src[p.pos+1:], '\'')
	if end < 0 {
		p.failf("unterminated '")
		p.pos = len(p.src)
		return false
	}
	b.WriteString(p.src[p.pos+1 : p.pos+1+end])
	p.pos += end + 2
	return true
}

// dquote reads "..." at pos into b.
func (p *parser) dquote(b *strings.Builder, w *word) {
	at := p.pos
	p.pos++
	for p.ok() {
		if p.eof() {
			p.pos = at
			p.failf("unterminated \"")
			p.pos = len(p.src)
			return
		}
		switch c := p.src[p.pos]; c {
		case '"':
			p.pos++
			return
		case '\\':
			if p.pos+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.pos+1]) >= 0 {
				if p.src[p.pos+1] != '\n' {
					b.WriteByte(p.src[p.pos+1])
				}
				p.pos += 2
				continue
			}
			b.WriteByte(c)
			p.pos++
		case '$':
			p.dollar(b, w, true)
		case '`':
			p.backquote(b, w, true)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

// dollar reads what starts with $ at pos: a parameter, ${...}, $(...),
// $((...)), $'...' or $"...". quoted says it is inside double quotes.
func (p *parser) dollar(b *strings.Builder, w *word, quoted bool) {
	start := p.pos
	var next byte
	if p.pos+1 < len(p.src) {
		next = p.src[p.pos+1]
	}
	dynamic := true
	switch {
	case next == '\'' && !quoted:
		p.pos += 2
		p.ansiC(b)
		return
	case next == '"' && !quoted:
		p.pos++
		p.dquote(b, w)
		return
	case next == '(':
		if p.peek("$((") {
			p.pos += 3
			save, n := p.pos, len(p.raws)
			if p.arith(false) {
				break
			}
			p.pos, p.raws = save-1, p.raws[:n]
		} else {
			p.pos += 2
		}
		p.depth++
		if p.depth > maxDepth {
			p.failf("nested too deeply")
		}
		p.list()
		p.depth--
		p.expect(")")
	case next == '{':
		p.pos += 2
		p.param(quoted)
	case next == '_' || next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z':
		p.pos++
		for !p.eof() && (p.src[p.pos] == '_' || p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || p.src[p.pos] >= 'A' && p.src[p.pos] <= 'Z' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
			p.pos++
		}
	case next >= '0' && next <= '9' || next != 0 && strings.IndexByte("#?*@$!-", next) >= 0:
		p.pos += 2
	default:
		dynamic = false
		b.WriteByte('$')
		p.pos++
	}
	if dynamic {
		text := p.src[start:p.pos]
		b.WriteString(text)
		w.static = false
		if !quoted || strings.Contains(text, "@") {
			w.split = true
		}
	}
}

// param skips the body of ${...} after "${", parsing the expansions in
// it.
func (p *parser) param(quoted bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.failf("nested too deeply")
		return
	}
	at := p.pos
	var sink strings.Builder
	w := word{}
	for p.ok() {
		if p.eof() {
			p.pos = at
			p.failf("unterminated ${")
			p.pos = len(p.src)
			return
		}
		switch p.src[p.pos] {
		case '}':
			p.pos++
			return
		case '\\':
			p.pos += min(2, len(p.src)-p.pos)
		case '\'':
			if quoted {
				p.pos++
			} else {
				p.squote(&sink)
			}
		case '"':
			p.dquote(&sink, &w)
		case '$':
			p.dollar(&sink, &w, true)
		case '`':
			p.backquote(&sink, &w, true)
		default:
			p.pos++
		}
	}
}

// backquote reads `...` at pos, parsing its content as commands.
func (p *parser) backquote(b *strings.Builder, w *word, quoted bool) {
	start := p.pos
	var body strings.Builder
	i := p.pos + 1
	for {
		if i >= len(p.src) {
			p.failf("unterminated `")
			p.pos = len(p.src)
			return
		}
		c := p.src[i]
		if c == '`' {
			break
		}
		if c == '\\' && i+1 < len(p.src) && (strings.IndexByte("$`\\", p.src[i+1]) >= 0 || quoted && p.src[i+1] == '"') {
			body.WriteByte(p.src[i+1])
			i += 2
			continue
		}
		body.WriteByte(c)
		i++
	}
	p.pos = i + 1
	p.sub(body.String(), start)
	b.WriteString(p.src[start:p.pos])
	w.static = false
	if !quoted {
		w.split = true
	}
}

// ansiC decodes the body of $'...' after "$'" into b.
func (p *parser) ansiC(b *strings.Builder) {
	for !p.eof() {
		c := p.src[p.pos]
		if c == '\'' {
			p.pos++
			return
		}
		if c != '\\' || p.pos+1 >= len(p.src) {
			b.WriteByte(c)
			p.pos++
			continue
		}
		e := p.src[p.pos+1]
		p.pos += 2
		switch e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if !p.eof() {
				b.WriteByte(p.src[p.pos] & 0x1f)
				p.pos++
			}
		case 'x', 'u', 'U':
			limit := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, n := 0, 0
			for n < limit && !p.eof() && hexDigit(p.src[p.pos]) >= 0 {
				v = v*16 + hexDigit(p.src[p.pos])
				p.pos++
				n++
			}
			switch {
			case n == 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == 'x':
				b.WriteByte(byte(v))
			default:
				b.WriteRune(rune(v))
			}
		default:
			if e >= '0' && e <= '7' {
				v, n := int(e-'0'), 1
				for n < 3 && !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '7' {
					v = v*8 + int(p.src[p.pos]-'0')
					p.pos++
					n++
				}
				b.WriteByte(byte(v))
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	p.failf("unterminated $'")
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// expandDoc parses the expansions of an unquoted here-document's body,
// returning the text with them in place and whether it had none.
func (p *parser) expandDoc(body string) (string, bool) {
	if !strings.ContainsAny(body, "$`\\") {
		return body, true
	}
	q := &parser{st: p.st, src: body, depth: p.depth + 1, level: p.level}
	p.st.work += len(body)
	var b strings.Builder
	w := word{static: true}
	for q.ok() && !q.eof() {
		switch c := q.src[q.pos]; c {
		case '\\':
			if q.pos+1 < len(q.src) && strings.IndexByte("$`\\\n", q.src[q.pos+1]) >= 0 {
				if q.src[q.pos+1] != '\n' {
					b.WriteByte(q.src[q.pos+1])
				}
				q.pos += 2
				continue
			}
			b.WriteByte(c)
			q.pos++
		case '$':
			q.dollar(&b, &w, true)
		case '`':
			q.backquote(&b, &w, true)
		default:
			b.WriteByte(c)
			q.pos++
		}
	}
	p.raws = append(p.raws, q.raws...)
	if q.err != nil && p.err == nil {
		p.err = &Error{Pos: p.pos, Msg: "in a here-document: " + q.err.Msg}
	}
	return b.String(), w.static && q.err == nil
}
