package mcp

import "strings"

// challenge is what zut reads from a Bearer WWW-Authenticate challenge
// (RFC 6750 section 3, RFC 9728 section 5.1).
type challenge struct {
	resourceMetadata string
	scope            string
	err              string
}

// parseChallenge reads the Bearer challenge among the WWW-Authenticate
// header values; other schemes are skipped.
func parseChallenge(values []string) challenge {
	var c challenge
	for _, v := range values {
		p := &authParser{s: v}
		scheme := ""
		for !p.done() {
			tok := p.token()
			if tok == "" {
				p.skip() // stray character
				continue
			}
			p.spaces()
			if p.peek() == '=' {
				p.pos++
				p.spaces()
				val := p.value()
				if strings.EqualFold(scheme, "bearer") {
					switch strings.ToLower(tok) {
					case "resource_metadata":
						c.resourceMetadata = val
					case "scope":
						c.scope = val
					case "error":
						c.err = val
					}
				}
				p.spaces()
				if p.peek() == ',' {
					p.pos++
				}
				continue
			}
			if p.peek() == ',' {
				p.pos++
			}
			scheme = tok // a new challenge begins
		}
	}
	return c
}

type authParser struct {
	s   string
	pos int
}

func (p *authParser) done() bool { p.spaces(); return p.pos >= len(p.s) }
func (p *authParser) skip()      { p.pos++ }

func (p *authParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *authParser) spaces() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func isTokenChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !strings.ContainsRune("()<>@,;:\\\"/[]?={} ", rune(c))
}

func (p *authParser) token() string {
	start := p.pos
	for p.pos < len(p.s) && (isTokenChar(p.s[p.pos]) || p.s[p.pos] == '/') {
		p.pos++
	}
	return p.s[start:p.pos]
}

// value reads a token or a quoted string.
func (p *authParser) value() string {
	if p.peek() != '"' {
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] != ',' && p.s[p.pos] != ' ' {
			p.pos++
		}
		return p.s[start:p.pos]
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch c {
		case '\\':
			if p.pos < len(p.s) {
				b.WriteByte(p.s[p.pos])
				p.pos++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
