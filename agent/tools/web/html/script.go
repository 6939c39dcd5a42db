package html

// script runs the script data states that follow "<!--" inside a script:
// the escaped and double-escaped states, where "</script>" still closes
// the script except inside a nested "<script>".
func (z *Tokenizer) script(c byte) {
	switch z.state {
	case sScriptEscStart:
		if c == '-' {
			z.pos++
			z.text = append(z.text, '-')
			z.state = sScriptEscStartDash
		} else {
			z.state = sScript
		}
	case sScriptEscStartDash:
		if c == '-' {
			z.pos++
			z.text = append(z.text, '-')
			z.state = sScriptEscDashDash
		} else {
			z.state = sScript
		}
	case sScriptEsc:
		src := z.src
		i := z.pos
		for i < len(src) && src[i] != '-' && src[i] != '<' && src[i] != 0 {
			i++
		}
		z.text = append(z.text, src[z.pos:i]...)
		z.pos = i
		if i < len(src) {
			z.escaped(src[i], sScriptEscDash, sScriptEsc)
		}
	case sScriptEscDash:
		z.escaped(c, sScriptEscDashDash, sScriptEsc)
	case sScriptEscDashDash:
		if c == '>' {
			z.pos++
			z.text = append(z.text, '>')
			z.state = sScript
			return
		}
		z.escaped(c, sScriptEscDashDash, sScriptEsc)
	case sScriptEscLt:
		switch {
		case c == '/':
			z.pos++
			z.temp = z.temp[:0]
			z.state = sScriptEscEndOpen
		case isAlpha(c):
			z.temp = z.temp[:0]
			z.text = append(z.text, '<')
			z.state = sScriptDblEscStart
		default:
			z.text = append(z.text, '<')
			z.state = sScriptEsc
		}
	case sScriptDblEscStart:
		z.doubleEscapeEdge(c, sScriptDblEsc, sScriptEsc, sScriptEsc)
	case sScriptDblEsc:
		src := z.src
		i := z.pos
		for i < len(src) && src[i] != '-' && src[i] != '<' && src[i] != 0 {
			i++
		}
		z.text = append(z.text, src[z.pos:i]...)
		z.pos = i
		if i < len(src) {
			z.doubleEscaped(src[i], sScriptDblEscDash)
		}
	case sScriptDblEscDash:
		z.doubleEscaped(c, sScriptDblEscDashDash)
	case sScriptDblEscDashDash:
		if c == '>' {
			z.pos++
			z.text = append(z.text, '>')
			z.state = sScript
			return
		}
		z.doubleEscaped(c, sScriptDblEscDashDash)
	case sScriptDblEscLt:
		if c == '/' {
			z.pos++
			z.temp = z.temp[:0]
			z.text = append(z.text, '/')
			z.state = sScriptDblEscEnd
		} else {
			z.state = sScriptDblEsc
		}
	case sScriptDblEscEnd:
		z.doubleEscapeEdge(c, sScriptEsc, sScriptDblEsc, sScriptDblEsc)
	}
}

// escaped handles one character of the script data escaped states: a dash
// moves to onDash, "<" may start an end tag or a nested script, anything
// else goes back to plain escaped text.
func (z *Tokenizer) escaped(c byte, onDash, other state) {
	switch c {
	case '-':
		z.pos++
		z.text = append(z.text, '-')
		z.state = onDash
	case '<':
		z.pos++
		z.state = sScriptEscLt
	case 0:
		z.err("unexpected-null-character", z.pos)
		z.pos++
		z.text = append(z.text, replacement...)
		z.state = other
	default:
		z.pos++
		z.text = append(z.text, c)
		z.state = other
	}
}

// doubleEscaped handles one character of the script data double escaped
// states.
func (z *Tokenizer) doubleEscaped(c byte, onDash state) {
	switch c {
	case '-':
		z.pos++
		z.text = append(z.text, '-')
		z.state = onDash
	case '<':
		z.pos++
		z.text = append(z.text, '<')
		z.state = sScriptDblEscLt
	case 0:
		z.err("unexpected-null-character", z.pos)
		z.pos++
		z.text = append(z.text, replacement...)
		z.state = sScriptDblEsc
	default:
		z.pos++
		z.text = append(z.text, c)
		z.state = sScriptDblEsc
	}
}

// doubleEscapeEdge runs the double escape start and end states: a tag name
// is gathered in temp, and when it ends the state becomes ifScript when the
// name was "script", else otherwise; any other character reconsumes in
// fallback.
func (z *Tokenizer) doubleEscapeEdge(c byte, ifScript, otherwise, fallback state) {
	switch {
	case isSpace(c) || c == '/' || c == '>':
		z.pos++
		z.text = append(z.text, c)
		if string(z.temp) == "script" {
			z.state = ifScript
		} else {
			z.state = otherwise
		}
	case isAlpha(c):
		z.pos++
		z.temp = append(z.temp, lower(c))
		z.text = append(z.text, c)
	default:
		z.state = fallback
	}
}
