package html

// This file holds the states after "<!" and "<?": comments, bogus
// comments, doctypes and CDATA sections.

func (z *Tokenizer) startComment() {
	z.kind = Comment
	z.name = z.name[:0]
}

func (z *Tokenizer) startDoctype() {
	z.kind = Doctype
	z.name = z.name[:0]
	z.pub, z.sys = z.pub[:0], z.sys[:0]
	z.hasName, z.hasPub, z.hasSys, z.quirks = false, false, false, false
}

// emit finishes the current comment or doctype and returns to data.
func (z *Tokenizer) emit() {
	z.state = sData
	z.pending = z.kind
}

// hasPrefixFold reports whether src at pos starts with word, ignoring
// ASCII case; word is upper case.
func hasPrefixFold(src []byte, pos int, word string) bool {
	if len(src)-pos < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := src[pos+i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// markup runs the comment, doctype and CDATA states on the current
// character c.
func (z *Tokenizer) markup(c byte) {
	src := z.src
	switch z.state {
	case sMarkupDecl:
		switch {
		case len(src)-z.pos >= 2 && src[z.pos] == '-' && src[z.pos+1] == '-':
			z.pos += 2
			z.startComment()
			z.state = sCommentStart
		case hasPrefixFold(src, z.pos, "DOCTYPE"):
			z.pos += 7
			z.startDoctype()
			z.state = sDoctype
		case len(src)-z.pos >= 7 && string(src[z.pos:z.pos+7]) == "[CDATA[":
			z.pos += 7
			if z.foreign {
				z.state = sCDATA
				return
			}
			z.err("cdata-in-html-content", z.pos-1)
			z.startComment()
			z.name = append(z.name, "[CDATA["...)
			z.state = sBogusComment
		default:
			z.err("incorrectly-opened-comment", z.pos)
			z.startComment()
			z.state = sBogusComment
		}
	case sBogusComment:
		i := z.pos
		for i < len(src) && src[i] != '>' && src[i] != 0 {
			i++
		}
		z.name = append(z.name, src[z.pos:i]...)
		z.pos = i
		if i == len(src) {
			return
		}
		if src[i] == '>' {
			z.pos++
			z.emit()
			return
		}
		z.err("unexpected-null-character", i)
		z.name = append(z.name, replacement...)
		z.pos++

	case sCommentStart:
		switch c {
		case '-':
			z.pos++
			z.state = sCommentStartDash
		case '>':
			z.err("abrupt-closing-of-empty-comment", z.pos)
			z.pos++
			z.emit()
		default:
			z.state = sComment
		}
	case sCommentStartDash:
		switch c {
		case '-':
			z.pos++
			z.state = sCommentEnd
		case '>':
			z.err("abrupt-closing-of-empty-comment", z.pos)
			z.pos++
			z.emit()
		default:
			z.name = append(z.name, '-')
			z.state = sComment
		}
	case sComment:
		i := z.pos
		for i < len(src) && src[i] != '<' && src[i] != '-' && src[i] != 0 {
			i++
		}
		z.name = append(z.name, src[z.pos:i]...)
		z.pos = i
		if i == len(src) {
			return
		}
		z.pos++
		switch src[i] {
		case '<':
			z.name = append(z.name, '<')
			z.state = sCommentLt
		case '-':
			z.state = sCommentEndDash
		default:
			z.err("unexpected-null-character", i)
			z.name = append(z.name, replacement...)
		}
	case sCommentLt:
		switch c {
		case '!':
			z.pos++
			z.name = append(z.name, '!')
			z.state = sCommentLtBang
		case '<':
			z.pos++
			z.name = append(z.name, '<')
		default:
			z.state = sComment
		}
	case sCommentLtBang:
		if c == '-' {
			z.pos++
			z.state = sCommentLtBangDash
		} else {
			z.state = sComment
		}
	case sCommentLtBangDash:
		if c == '-' {
			z.pos++
			z.state = sCommentLtBangDashDash
		} else {
			z.state = sCommentEndDash
		}
	case sCommentLtBangDashDash:
		if c != '>' {
			z.err("nested-comment", z.pos)
		}
		z.state = sCommentEnd
	case sCommentEndDash:
		if c == '-' {
			z.pos++
			z.state = sCommentEnd
		} else {
			z.name = append(z.name, '-')
			z.state = sComment
		}
	case sCommentEnd:
		switch c {
		case '>':
			z.pos++
			z.emit()
		case '!':
			z.pos++
			z.state = sCommentEndBang
		case '-':
			z.pos++
			z.name = append(z.name, '-')
		default:
			z.name = append(z.name, '-', '-')
			z.state = sComment
		}
	case sCommentEndBang:
		switch c {
		case '-':
			z.pos++
			z.name = append(z.name, '-', '-', '!')
			z.state = sCommentEndDash
		case '>':
			z.err("incorrectly-closed-comment", z.pos)
			z.pos++
			z.emit()
		default:
			z.name = append(z.name, '-', '-', '!')
			z.state = sComment
		}

	case sCDATA:
		i := z.pos
		for i < len(src) && src[i] != ']' {
			i++
		}
		z.text = append(z.text, src[z.pos:i]...)
		z.pos = i
		if i < len(src) {
			z.pos++
			z.state = sCDATABracket
		}
	case sCDATABracket:
		if c == ']' {
			z.pos++
			z.state = sCDATAEnd
		} else {
			z.text = append(z.text, ']')
			z.state = sCDATA
		}
	case sCDATAEnd:
		switch c {
		case ']':
			z.pos++
			z.text = append(z.text, ']')
		case '>':
			z.pos++
			z.state = sData
		default:
			z.text = append(z.text, ']', ']')
			z.state = sCDATA
		}

	default:
		z.doctype(c)
	}
}

// markupEOF handles the end of the input in a comment, doctype or CDATA
// state.
func (z *Tokenizer) markupEOF(at int) {
	switch z.state {
	case sMarkupDecl:
		z.err("incorrectly-opened-comment", at)
		z.startComment()
		z.state = sBogusComment
		return
	case sBogusComment:
		z.emit()
	case sCommentStart, sCommentStartDash, sComment, sCommentLt, sCommentLtBang,
		sCommentLtBangDash, sCommentLtBangDashDash, sCommentEndDash, sCommentEnd, sCommentEndBang:
		z.err("eof-in-comment", at)
		z.emit()
	case sCDATA:
		z.err("eof-in-cdata", at)
	case sCDATABracket:
		z.text = append(z.text, ']')
		z.state = sCDATA
		return
	case sCDATAEnd:
		z.text = append(z.text, ']', ']')
		z.state = sCDATA
		return
	case sBogusDoctype:
		z.emit()
	default: // the other doctype states
		z.err("eof-in-doctype", at)
		z.quirks = true
		z.emit()
	}
	z.done = true
}
