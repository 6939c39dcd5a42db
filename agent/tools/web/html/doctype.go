package html

// doctype runs the DOCTYPE states on the current character c.
func (z *Tokenizer) doctype(c byte) {
	switch z.state {
	case sDoctype:
		switch {
		case isSpace(c):
			z.pos++
		case c == '>':
		default:
			z.err("missing-whitespace-before-doctype-name", z.pos)
		}
		z.state = sBeforeDoctypeName
	case sBeforeDoctypeName:
		switch {
		case isSpace(c):
			z.pos++
		case c == '>':
			z.err("missing-doctype-name", z.pos)
			z.quirks = true
			z.pos++
			z.emit()
		default:
			z.hasName = true
			z.state = sDoctypeName
		}
	case sDoctypeName:
		switch {
		case isSpace(c):
			z.state = sAfterDoctypeName
		case c == '>':
			z.emit()
		case c == 0:
			z.err("unexpected-null-character", z.pos)
			z.name = append(z.name, replacement...)
		default:
			z.name = append(z.name, lower(c))
		}
		z.pos++
	case sAfterDoctypeName:
		switch {
		case isSpace(c):
			z.pos++
		case c == '>':
			z.pos++
			z.emit()
		case hasPrefixFold(z.src, z.pos, "PUBLIC"):
			z.pos += 6
			z.state = sAfterPublicKeyword
		case hasPrefixFold(z.src, z.pos, "SYSTEM"):
			z.pos += 6
			z.state = sAfterSystemKeyword
		default:
			z.err("invalid-character-sequence-after-doctype-name", z.pos)
			z.quirks = true
			z.state = sBogusDoctype
		}
	case sAfterPublicKeyword, sBeforePublicID:
		z.beforeID(c, true)
	case sAfterSystemKeyword, sBeforeSystemID:
		z.beforeID(c, false)
	case sPublicIDDQ, sPublicIDSQ, sSystemIDDQ, sSystemIDSQ:
		z.identifier(c)
	case sAfterPublicID, sBetweenIDs:
		switch {
		case isSpace(c):
			z.pos++
			z.state = sBetweenIDs
		case c == '>':
			z.pos++
			z.emit()
		case c == '"' || c == '\'':
			if z.state == sAfterPublicID {
				z.err("missing-whitespace-between-doctype-public-and-system-identifiers", z.pos)
			}
			z.openID(c, false)
		default:
			z.err("missing-quote-before-doctype-system-identifier", z.pos)
			z.quirks = true
			z.state = sBogusDoctype
		}
	case sAfterSystemID:
		switch {
		case isSpace(c):
			z.pos++
		case c == '>':
			z.pos++
			z.emit()
		default:
			z.err("unexpected-character-after-doctype-system-identifier", z.pos)
			z.state = sBogusDoctype
		}
	case sBogusDoctype:
		src := z.src
		i := z.pos
		for i < len(src) && src[i] != '>' && src[i] != 0 {
			i++
		}
		z.pos = i
		if i == len(src) {
			return
		}
		z.pos++
		if src[i] == '>' {
			z.emit()
			return
		}
		z.err("unexpected-null-character", i)
	}
}

// beforeID runs the "after DOCTYPE public/system keyword" and "before
// DOCTYPE public/system identifier" states.
func (z *Tokenizer) beforeID(c byte, public bool) {
	afterKeyword := z.state == sAfterPublicKeyword || z.state == sAfterSystemKeyword
	kind := "system"
	if public {
		kind = "public"
	}
	switch {
	case isSpace(c):
		z.pos++
		if public {
			z.state = sBeforePublicID
		} else {
			z.state = sBeforeSystemID
		}
	case c == '"' || c == '\'':
		if afterKeyword {
			z.err("missing-whitespace-after-doctype-"+kind+"-keyword", z.pos)
		}
		z.openID(c, public)
	case c == '>':
		z.err("missing-doctype-"+kind+"-identifier", z.pos)
		z.quirks = true
		z.pos++
		z.emit()
	default:
		z.err("missing-quote-before-doctype-"+kind+"-identifier", z.pos)
		z.quirks = true
		z.state = sBogusDoctype
	}
}

// openID consumes the quote q that opens a public or system identifier.
func (z *Tokenizer) openID(q byte, public bool) {
	z.pos++
	switch {
	case public && q == '"':
		z.hasPub, z.pub, z.state = true, z.pub[:0], sPublicIDDQ
	case public:
		z.hasPub, z.pub, z.state = true, z.pub[:0], sPublicIDSQ
	case q == '"':
		z.hasSys, z.sys, z.state = true, z.sys[:0], sSystemIDDQ
	default:
		z.hasSys, z.sys, z.state = true, z.sys[:0], sSystemIDSQ
	}
}

// identifier reads a quoted public or system identifier.
func (z *Tokenizer) identifier(c byte) {
	public := z.state == sPublicIDDQ || z.state == sPublicIDSQ
	q := byte('"')
	if z.state == sPublicIDSQ || z.state == sSystemIDSQ {
		q = '\''
	}
	switch c {
	case q:
		z.pos++
		if public {
			z.state = sAfterPublicID
		} else {
			z.state = sAfterSystemID
		}
		return
	case '>':
		if public {
			z.err("abrupt-doctype-public-identifier", z.pos)
		} else {
			z.err("abrupt-doctype-system-identifier", z.pos)
		}
		z.quirks = true
		z.pos++
		z.emit()
		return
	}
	var add []byte
	if c == 0 {
		z.err("unexpected-null-character", z.pos)
		add = []byte(replacement)
	} else {
		add = []byte{c}
	}
	if public {
		z.pub = append(z.pub, add...)
	} else {
		z.sys = append(z.sys, add...)
	}
	z.pos++
}
