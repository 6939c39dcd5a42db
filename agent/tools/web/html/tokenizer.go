package html

// Tokenizer splits HTML into tokens following the tokenization section of
// the WHATWG HTML standard, state for state. It reads a whole document
// held in memory; adjacent characters come out as one Text token.
//
// The tokenizer does not build a tree, so it does not switch to the RCDATA,
// RAWTEXT or script data states after <title>, <style> or <script> by
// itself: a consumer that wants browser behaviour calls SetState after
// such start tags (the text extraction of this package does).
//
// Input is UTF-8. Bytes that are not valid UTF-8 pass through unchanged;
// a surrogate code point written in UTF-8 form (as WTF-8 does) counts as a
// surrogate-in-input-stream error and passes through too.
type Tokenizer struct {
	src         []byte
	pos         int
	state       state
	returnState state // where a character reference returns to
	done        bool
	foreign     bool // CDATA sections are allowed (inside svg or math)

	text    []byte    // the Text token being gathered
	pending TokenType // a finished token waiting behind text; EOF when none
	out     Token

	// The tag, comment or doctype being built.
	kind        TokenType
	name        []byte // tag name, comment data or doctype name
	selfClosing bool
	arena       []byte     // attribute names and values, one after another
	attrs       []attrSpan // name of attribute i is arena[ns:ne]; its value runs to the next ns
	attrSeen    map[string]bool
	pub, sys    []byte
	hasName     bool
	hasPub      bool
	hasSys      bool
	quirks      bool
	lastStart   []byte // the name of the last start tag emitted
	temp        []byte // the standard's temporary buffer
	attrOut     []Attr

	record bool
	errs   []ParseError
}

// attrSpan locates one attribute in the arena.
type attrSpan struct {
	ns, ne int
	dup    bool
}

// NewTokenizer returns a tokenizer reading src, starting in the data state.
// Carriage returns are normalised as the standard's input preprocessing
// says ("\r\n" and "\r" become "\n"); src itself is never modified.
func NewTokenizer(src []byte) *Tokenizer {
	return &Tokenizer{src: normalizeNewlines(src), state: sData, pending: EOF}
}

// RecordErrors makes the tokenizer collect parse errors, which Errors
// returns. Call it before the first Next. Recording costs a pass over the
// input for the input-stream errors (controls, noncharacters,
// surrogates).
func (z *Tokenizer) RecordErrors() {
	z.record = true
	z.errs = append(z.errs, inputErrors(z.src)...)
}

// Errors returns the parse errors met so far, ordered by offset, when
// RecordErrors was called. Offsets index the newline-normalised input;
// Position turns one into a line and column.
func (z *Tokenizer) Errors() []ParseError {
	sortErrors(z.errs)
	return z.errs
}

// Position returns the 1-based line and column of a byte offset of the
// newline-normalised input, counting columns in UTF-16 code units as the
// html5lib tests do.
func (z *Tokenizer) Position(offset int) (line, col int) { return position(z.src, offset) }

// SetState switches the tokenizer to s before the next token, as a tree
// builder does after <title> (RCDATAState), <style> (RAWTEXTState),
// <script> (ScriptDataState) or <plaintext> (PLAINTEXTState).
func (z *Tokenizer) SetState(s State) {
	switch s {
	case RCDATAState:
		z.state = sRCDATA
	case RAWTEXTState:
		z.state = sRAWTEXT
	case ScriptDataState:
		z.state = sScript
	case PLAINTEXTState:
		z.state = sPlaintext
	case CDATAState:
		z.state = sCDATA
	default:
		z.state = sData
	}
}

// SetLastStartTag sets the name of "the last start tag emitted", which an
// end tag must match to close RCDATA, RAWTEXT or script data.
func (z *Tokenizer) SetLastStartTag(name string) { z.lastStart = append(z.lastStart[:0], name...) }

// SetForeign tells the tokenizer whether the adjusted current node is in
// foreign content (svg or math), where "<![CDATA[" opens a CDATA section
// instead of a bogus comment.
func (z *Tokenizer) SetForeign(on bool) { z.foreign = on }

// Token returns the token Next returned last. Its slices are valid until
// the next call of Next.
func (z *Tokenizer) Token() *Token { return &z.out }

// Next reads the next token and returns its type; EOF at the end, and for
// every call after.
func (z *Tokenizer) Next() TokenType {
	if z.pending != EOF {
		return z.deliver()
	}
	z.text = z.text[:0]
	z.run()
	if len(z.text) > 0 {
		z.out = Token{Type: Text, Data: z.text}
		return Text
	}
	if z.pending != EOF {
		return z.deliver()
	}
	z.out = Token{Type: EOF}
	return EOF
}

// deliver hands out the finished non-text token.
func (z *Tokenizer) deliver() TokenType {
	t := z.pending
	z.pending = EOF
	z.out = Token{Type: t, Data: z.name}
	switch t {
	case StartTag, EndTag:
		z.out.SelfClosing = z.selfClosing
		z.attrOut = z.attrOut[:0]
		for i, a := range z.attrs {
			if a.dup {
				continue
			}
			end := len(z.arena)
			if i+1 < len(z.attrs) {
				end = z.attrs[i+1].ns
			}
			z.attrOut = append(z.attrOut, Attr{Name: z.arena[a.ns:a.ne:a.ne], Value: z.arena[a.ne:end:end]})
		}
		if t == StartTag {
			z.out.Attr = z.attrOut
		}
	case Doctype:
		z.out.HasName, z.out.HasPublicID, z.out.HasSystemID = z.hasName, z.hasPub, z.hasSys
		z.out.PublicID, z.out.SystemID, z.out.ForceQuirks = z.pub, z.sys, z.quirks
	}
	return t
}

func (z *Tokenizer) err(code string, offset int) {
	if z.record {
		z.errs = append(z.errs, ParseError{Code: code, Offset: offset})
	}
}

// startTag begins a new start or end tag token.
func (z *Tokenizer) startTag(kind TokenType) {
	z.kind = kind
	z.name = z.name[:0]
	z.selfClosing = false
	z.arena = z.arena[:0]
	z.attrs = z.attrs[:0]
	if z.attrSeen != nil {
		clear(z.attrSeen)
	}
}

// emitTag finishes the current tag token.
func (z *Tokenizer) emitTag(at int) {
	if z.kind == StartTag {
		z.lastStart = append(z.lastStart[:0], z.name...)
	} else {
		if len(z.attrs) > 0 {
			z.err("end-tag-with-attributes", at)
		}
		if z.selfClosing {
			z.err("end-tag-with-trailing-solidus", at)
		}
	}
	z.pending = z.kind
}

// newAttr begins an attribute whose name starts at the end of the arena.
func (z *Tokenizer) newAttr() {
	z.attrs = append(z.attrs, attrSpan{ns: len(z.arena), ne: -1})
}

// endAttrName closes the current attribute's name and checks it against
// the earlier ones; a repeated name is a parse error and the attribute is
// dropped from the token.
func (z *Tokenizer) endAttrName(at int) {
	i := len(z.attrs) - 1
	a := &z.attrs[i]
	if a.ne >= 0 {
		return
	}
	a.ne = len(z.arena)
	name := z.arena[a.ns:a.ne]
	dup := false
	if i < 16 {
		for _, b := range z.attrs[:i] {
			if !b.dup && string(z.arena[b.ns:b.ne]) == string(name) {
				dup = true
				break
			}
		}
	} else {
		if z.attrSeen == nil {
			z.attrSeen = make(map[string]bool)
		}
		if len(z.attrSeen) == 0 {
			for _, b := range z.attrs[:i] {
				if !b.dup {
					z.attrSeen[string(z.arena[b.ns:b.ne])] = true
				}
			}
		}
		dup = z.attrSeen[string(name)]
		if !dup {
			z.attrSeen[string(name)] = true
		}
	}
	if dup {
		a.dup = true
		z.err("duplicate-attribute", at)
	}
}

// appropriate reports whether the end tag being read matches the last
// start tag emitted.
func (z *Tokenizer) appropriate() bool {
	return len(z.lastStart) > 0 && string(z.name) == string(z.lastStart)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' }

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

const replacement = "\uFFFD"

// run advances through the states until a token other than text is
// finished or the input ends.
func (z *Tokenizer) run() {
	src := z.src
	for z.pending == EOF && !z.done {
		if z.pos >= len(src) {
			z.eof()
			continue
		}
		c := src[z.pos]
		switch z.state {
		case sData:
			z.textRun(sData)
		case sRCDATA:
			z.textRun(sRCDATA)
		case sRAWTEXT:
			z.textRun(sRAWTEXT)
		case sScript:
			z.textRun(sScript)
		case sPlaintext:
			z.textRun(sPlaintext)

		case sTagOpen:
			switch {
			case c == '!':
				z.pos++
				z.state = sMarkupDecl
			case c == '/':
				z.pos++
				z.state = sEndTagOpen
			case isAlpha(c):
				z.startTag(StartTag)
				z.state = sTagName
			case c == '?':
				z.err("unexpected-question-mark-instead-of-tag-name", z.pos)
				z.startComment()
				z.state = sBogusComment
			default:
				z.err("invalid-first-character-of-tag-name", z.pos)
				z.text = append(z.text, '<')
				z.state = sData
			}
		case sEndTagOpen:
			switch {
			case isAlpha(c):
				z.startTag(EndTag)
				z.state = sTagName
			case c == '>':
				z.err("missing-end-tag-name", z.pos)
				z.pos++
				z.state = sData
			default:
				z.err("invalid-first-character-of-tag-name", z.pos)
				z.startComment()
				z.state = sBogusComment
			}
		case sTagName:
			z.tagName()

		case sRCDATALt, sRAWTEXTLt:
			if c == '/' {
				z.pos++
				z.temp = z.temp[:0]
				z.state++ // the matching end tag open state
			} else {
				z.text = append(z.text, '<')
				z.state = textStateOf(z.state)
			}
		case sScriptLt:
			switch c {
			case '/':
				z.pos++
				z.temp = z.temp[:0]
				z.state = sScriptEndOpen
			case '!':
				z.pos++
				z.text = append(z.text, '<', '!')
				z.state = sScriptEscStart
			default:
				z.text = append(z.text, '<')
				z.state = sScript
			}
		case sRCDATAEndOpen, sRAWTEXTEndOpen, sScriptEndOpen, sScriptEscEndOpen:
			if isAlpha(c) {
				z.startTag(EndTag)
				z.state++ // the matching end tag name state
			} else {
				z.text = append(z.text, '<', '/')
				z.state = textStateOf(z.state)
			}
		case sRCDATAEndName, sRAWTEXTEndName, sScriptEndName, sScriptEscEndName:
			z.endTagName(c)

		case sBeforeAttrName:
			switch {
			case isSpace(c):
				z.pos++
			case c == '/' || c == '>':
				z.state = sAfterAttrName
			case c == '=':
				z.err("unexpected-equals-sign-before-attribute-name", z.pos)
				z.newAttr()
				z.arena = append(z.arena, '=')
				z.pos++
				z.state = sAttrName
			default:
				z.newAttr()
				z.state = sAttrName
			}
		case sAttrName:
			z.attrName()
		case sAfterAttrName:
			switch {
			case isSpace(c):
				z.pos++
			case c == '/':
				z.pos++
				z.state = sSelfClosing
			case c == '=':
				z.pos++
				z.state = sBeforeAttrValue
			case c == '>':
				z.pos++
				z.state = sData
				z.emitTag(z.pos - 1)
			default:
				z.newAttr()
				z.state = sAttrName
			}
		case sBeforeAttrValue:
			switch {
			case isSpace(c):
				z.pos++
			case c == '"':
				z.pos++
				z.state = sAttrValueDQ
			case c == '\'':
				z.pos++
				z.state = sAttrValueSQ
			case c == '>':
				z.err("missing-attribute-value", z.pos)
				z.pos++
				z.state = sData
				z.emitTag(z.pos - 1)
			default:
				z.state = sAttrValueUQ
			}
		case sAttrValueDQ:
			z.quotedValue('"')
		case sAttrValueSQ:
			z.quotedValue('\'')
		case sAttrValueUQ:
			z.unquotedValue(c)
		case sAfterAttrValueQ:
			switch {
			case isSpace(c):
				z.pos++
				z.state = sBeforeAttrName
			case c == '/':
				z.pos++
				z.state = sSelfClosing
			case c == '>':
				z.pos++
				z.state = sData
				z.emitTag(z.pos - 1)
			default:
				z.err("missing-whitespace-between-attributes", z.pos)
				z.state = sBeforeAttrName
			}
		case sSelfClosing:
			if c == '>' {
				z.selfClosing = true
				z.pos++
				z.state = sData
				z.emitTag(z.pos - 1)
			} else {
				z.err("unexpected-solidus-in-tag", z.pos)
				z.state = sBeforeAttrName
			}

		default:
			if z.state >= sScriptEscStart && z.state <= sScriptDblEscEnd {
				z.script(c)
			} else {
				z.markup(c)
			}
		}
	}
}

// textRun reads characters in one of the text states (data, RCDATA,
// RAWTEXT, script data, PLAINTEXT) up to the next byte that matters.
func (z *Tokenizer) textRun(s state) {
	src := z.src
	i := z.pos
	for i < len(src) {
		c := src[i]
		if c == '<' && s != sPlaintext || c == 0 || c == '&' && (s == sData || s == sRCDATA) {
			break
		}
		i++
	}
	z.text = append(z.text, src[z.pos:i]...)
	z.pos = i
	if i == len(src) {
		return
	}
	switch src[i] {
	case 0:
		z.err("unexpected-null-character", i)
		if s == sData {
			z.text = append(z.text, 0)
		} else {
			z.text = append(z.text, replacement...)
		}
		z.pos++
	case '&':
		z.pos++
		z.returnState = s
		z.charRef(false)
	case '<':
		z.pos++
		switch s {
		case sData:
			z.state = sTagOpen
		case sRCDATA:
			z.state = sRCDATALt
		case sRAWTEXT:
			z.state = sRAWTEXTLt
		case sScript:
			z.state = sScriptLt
		}
	}
}

// tagName reads a tag name.
func (z *Tokenizer) tagName() {
	src := z.src
	for z.pos < len(src) {
		c := src[z.pos]
		switch {
		case isSpace(c):
			z.pos++
			z.state = sBeforeAttrName
			return
		case c == '/':
			z.pos++
			z.state = sSelfClosing
			return
		case c == '>':
			z.pos++
			z.state = sData
			z.emitTag(z.pos - 1)
			return
		case c == 0:
			z.err("unexpected-null-character", z.pos)
			z.name = append(z.name, replacement...)
		default:
			z.name = append(z.name, lower(c))
		}
		z.pos++
	}
}

// endTagName reads the name of a possible end tag inside RCDATA, RAWTEXT
// or script data; it is a tag only when it matches the last start tag.
func (z *Tokenizer) endTagName(c byte) {
	switch {
	case isSpace(c) && z.appropriate():
		z.pos++
		z.state = sBeforeAttrName
	case c == '/' && z.appropriate():
		z.pos++
		z.state = sSelfClosing
	case c == '>' && z.appropriate():
		z.pos++
		z.state = sData
		z.emitTag(z.pos - 1)
	case isAlpha(c):
		z.name = append(z.name, lower(c))
		z.temp = append(z.temp, c)
		z.pos++
	default:
		z.text = append(z.text, '<', '/')
		z.text = append(z.text, z.temp...)
		z.state = textStateOf(z.state)
	}
}

// attrName reads an attribute name.
func (z *Tokenizer) attrName() {
	src := z.src
	for z.pos < len(src) {
		c := src[z.pos]
		switch {
		case isSpace(c) || c == '/' || c == '>':
			z.endAttrName(z.pos)
			z.state = sAfterAttrName
			return
		case c == '=':
			z.endAttrName(z.pos)
			z.pos++
			z.state = sBeforeAttrValue
			return
		case c == 0:
			z.err("unexpected-null-character", z.pos)
			z.arena = append(z.arena, replacement...)
		case c == '"' || c == '\'' || c == '<':
			z.err("unexpected-character-in-attribute-name", z.pos)
			z.arena = append(z.arena, c)
		default:
			z.arena = append(z.arena, lower(c))
		}
		z.pos++
	}
}

// quotedValue reads an attribute value up to its closing quote.
func (z *Tokenizer) quotedValue(q byte) {
	src := z.src
	i := z.pos
	for i < len(src) && src[i] != q && src[i] != '&' && src[i] != 0 {
		i++
	}
	z.arena = append(z.arena, src[z.pos:i]...)
	z.pos = i
	if i == len(src) {
		return
	}
	switch src[i] {
	case q:
		z.pos++
		z.state = sAfterAttrValueQ
	case '&':
		z.pos++
		z.returnState = z.state
		z.charRef(true)
	case 0:
		z.err("unexpected-null-character", i)
		z.arena = append(z.arena, replacement...)
		z.pos++
	}
}

// unquotedValue reads one character of an unquoted attribute value.
func (z *Tokenizer) unquotedValue(c byte) {
	switch c {
	case ' ', '\t', '\n', '\f':
		z.pos++
		z.state = sBeforeAttrName
	case '&':
		z.pos++
		z.returnState = sAttrValueUQ
		z.charRef(true)
	case '>':
		z.pos++
		z.state = sData
		z.emitTag(z.pos - 1)
	case 0:
		z.err("unexpected-null-character", z.pos)
		z.arena = append(z.arena, replacement...)
		z.pos++
	case '"', '\'', '<', '=', '`':
		z.err("unexpected-character-in-unquoted-attribute-value", z.pos)
		z.arena = append(z.arena, c)
		z.pos++
	default:
		z.arena = append(z.arena, c)
		z.pos++
	}
}

// eof handles the end of the input in the current state. A state that
// reconsumes the end in another state switches to it and returns; the run
// loop calls eof again.
func (z *Tokenizer) eof() {
	at := len(z.src)
	switch z.state {
	case sData, sRCDATA, sRAWTEXT, sScript, sPlaintext:
		z.done = true
	case sTagOpen:
		z.err("eof-before-tag-name", at)
		z.text = append(z.text, '<')
		z.done = true
	case sEndTagOpen:
		z.err("eof-before-tag-name", at)
		z.text = append(z.text, '<', '/')
		z.done = true
	case sTagName, sBeforeAttrName, sAttrName, sAfterAttrName, sBeforeAttrValue,
		sAttrValueDQ, sAttrValueSQ, sAttrValueUQ, sAfterAttrValueQ, sSelfClosing:
		z.err("eof-in-tag", at)
		z.done = true
	case sRCDATALt, sRAWTEXTLt, sScriptLt, sScriptEscLt:
		z.text = append(z.text, '<')
		z.state = textStateOf(z.state)
	case sRCDATAEndOpen, sRAWTEXTEndOpen, sScriptEndOpen, sScriptEscEndOpen:
		z.text = append(z.text, '<', '/')
		z.state = textStateOf(z.state)
	case sRCDATAEndName, sRAWTEXTEndName, sScriptEndName, sScriptEscEndName:
		z.text = append(z.text, '<', '/')
		z.text = append(z.text, z.temp...)
		z.state = textStateOf(z.state)
	case sScriptEscStart, sScriptEscStartDash:
		z.state = sScript
	case sScriptDblEscStart:
		z.state = sScriptEsc
	case sScriptDblEscLt, sScriptDblEscEnd:
		z.state = sScriptDblEsc
	case sScriptEsc, sScriptEscDash, sScriptEscDashDash,
		sScriptDblEsc, sScriptDblEscDash, sScriptDblEscDashDash:
		z.err("eof-in-script-html-comment-like-text", at)
		z.done = true
	default:
		z.markupEOF(at)
	}
}
