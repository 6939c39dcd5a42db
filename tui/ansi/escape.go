package ansi

import (
	"strings"
)

// This file knows the shape of escape sequences and tracks the SGR and
// hyperlink state a line leaves behind, so that a line cut in two can close
// its styles and the next piece can reopen them.

// EscapeLen returns the length of the escape sequence at the start of s,
// or 0 when s does not start with one. It recognises CSI (ESC [), the
// string sequences OSC, DCS, SOS, PM and APC (ended by ST or, for OSC, BEL)
// and the ESC-intermediate-final forms. A sequence cut short by the end of
// s extends to the end; a CSI broken by a control character ends before
// it, as terminals abort it there.
func EscapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b {
		return 0
	}
	switch c := s[1]; {
	case c == '[':
		for i := 2; i < len(s); i++ {
			switch b := s[i]; {
			case b >= 0x40 && b <= 0x7e:
				return i + 1
			case b < 0x20 || b > 0x7e:
				return i
			}
		}
		return len(s)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 && c == ']' {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	case c >= 0x20 && c <= 0x2f:
		for i := 2; i < len(s); i++ {
			switch b := s[i]; {
			case b >= 0x30 && b <= 0x7e:
				return i + 1
			case b < 0x20 || b > 0x7e:
				return i
			}
		}
		return len(s)
	case c >= 0x30 && c <= 0x7e:
		return 2
	}
	// ESC followed by a control or a non-ASCII byte: ESC alone.
	return 1
}

// isSGR reports whether seq is a complete SGR sequence (CSI params m with
// only digits, ';' and ':' as parameters) and returns its parameters.
func isSGR(seq string) (params string, ok bool) {
	if len(seq) < 3 || seq[0] != 0x1b || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return "", false
	}
	params = seq[2 : len(seq)-1]
	for i := 0; i < len(params); i++ {
		if c := params[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return "", false
		}
	}
	return params, true
}

// hyperlinkURI reports whether seq is an OSC 8 hyperlink sequence and
// returns its URI ("" closes the link).
func hyperlinkURI(seq string) (uri string, ok bool) {
	if !strings.HasPrefix(seq, "\x1b]8;") {
		return "", false
	}
	body := strings.TrimPrefix(seq, "\x1b]8;")
	switch {
	case strings.HasSuffix(body, "\x1b\\"):
		body = body[:len(body)-2]
	case strings.HasSuffix(body, "\a"):
		body = body[:len(body)-1]
	default:
		return "", false
	}
	_, uri, ok = strings.Cut(body, ";")
	return uri, ok
}

// SGR attribute bits of ansiState.
const (
	attrBold = 1 << iota
	attrDim
	attrItalic
	attrUnderline
	attrBlink
	attrReverse
	attrHidden
	attrStrike
	attrOverline
)

// attrCodes maps the attribute bits to their SGR codes, in emission order.
var attrCodes = [...]struct {
	bit  uint16
	code string
}{
	{attrBold, "1"}, {attrDim, "2"}, {attrItalic, "3"}, {attrUnderline, "4"},
	{attrBlink, "5"}, {attrReverse, "7"}, {attrHidden, "8"}, {attrStrike, "9"},
	{attrOverline, "53"},
}

// EscapeState is the graphic rendition and hyperlink in effect at a point of
// a string. The zero value is the terminal default.
type EscapeState struct {
	attrs     uint16
	underline string // underline style parameter such as "4:3", or "21"
	fg, bg    string // colour parameters such as "31" or "38;5;12"
	ulColor   string // underline colour parameters ("58;...")
	link      string // the OSC 8 sequence that opened the current link
}

// Apply updates the state for one escape sequence; sequences other than SGR
// and OSC 8 leave it unchanged.
func (st *EscapeState) Apply(seq string) {
	if params, ok := isSGR(seq); ok {
		st.applySGR(params)
		return
	}
	if uri, ok := hyperlinkURI(seq); ok {
		if uri == "" {
			st.link = ""
		} else {
			st.link = seq
		}
	}
}

func (st *EscapeState) applySGR(params string) {
	if params == "" {
		st.resetSGR()
		return
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		code, sub, hasSub := strings.Cut(p, ":")
		switch code {
		case "", "0", "00":
			st.resetSGR()
		case "1":
			st.attrs |= attrBold
		case "2":
			st.attrs |= attrDim
		case "3":
			st.attrs |= attrItalic
		case "4":
			if hasSub && sub == "0" {
				st.attrs &^= attrUnderline
				st.underline = ""
			} else {
				st.attrs |= attrUnderline
				st.underline = ""
				if hasSub {
					st.underline = p
				}
			}
		case "21":
			st.attrs |= attrUnderline
			st.underline = "21"
		case "5", "6":
			st.attrs |= attrBlink
		case "7":
			st.attrs |= attrReverse
		case "8":
			st.attrs |= attrHidden
		case "9":
			st.attrs |= attrStrike
		case "22":
			st.attrs &^= attrBold | attrDim
		case "23":
			st.attrs &^= attrItalic
		case "24":
			st.attrs &^= attrUnderline
			st.underline = ""
		case "25":
			st.attrs &^= attrBlink
		case "27":
			st.attrs &^= attrReverse
		case "28":
			st.attrs &^= attrHidden
		case "29":
			st.attrs &^= attrStrike
		case "53":
			st.attrs |= attrOverline
		case "55":
			st.attrs &^= attrOverline
		case "39":
			st.fg = ""
		case "49":
			st.bg = ""
		case "59":
			st.ulColor = ""
		case "38", "48", "58":
			var v string
			if hasSub {
				v = p
			} else {
				v, i = extendedColor(ps, i)
			}
			switch code {
			case "38":
				st.fg = v
			case "48":
				st.bg = v
			default:
				st.ulColor = v
			}
		default:
			n := atoiSmall(code)
			switch {
			case n >= 30 && n <= 37, n >= 90 && n <= 97:
				st.fg = code
			case n >= 40 && n <= 47, n >= 100 && n <= 107:
				st.bg = code
			}
		}
	}
}

// extendedColor reads the semicolon form of an extended colour starting at
// ps[i] ("38;5;n" or "38;2;r;g;b") and returns it and the index of its last
// parameter.
func extendedColor(ps []string, i int) (string, int) {
	n := 0
	if i+1 < len(ps) {
		switch ps[i+1] {
		case "5":
			n = 2
		case "2":
			n = 4
		}
	}
	if n == 0 || i+n >= len(ps) {
		return "", len(ps) - 1
	}
	return strings.Join(ps[i:i+n+1], ";"), i + n
}

// atoiSmall parses a short decimal number, returning -1 when s is not one.
func atoiSmall(s string) int {
	if s == "" || len(s) > 4 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func (st *EscapeState) resetSGR() {
	link := st.link
	*st = EscapeState{link: link}
}

// styled reports whether any SGR attribute or colour is on.
func (st *EscapeState) styled() bool {
	return st.attrs != 0 || st.fg != "" || st.bg != "" || st.ulColor != ""
}

// Open returns the sequences that establish st from the default state.
func (st *EscapeState) Open() string {
	if !st.styled() && st.link == "" {
		return ""
	}
	var b strings.Builder
	if st.styled() {
		b.WriteString("\x1b[")
		sep := false
		put := func(s string) {
			if s == "" {
				return
			}
			if sep {
				b.WriteByte(';')
			}
			b.WriteString(s)
			sep = true
		}
		for _, a := range attrCodes {
			if st.attrs&a.bit == 0 {
				continue
			}
			if a.bit == attrUnderline && st.underline != "" {
				put(st.underline)
				continue
			}
			put(a.code)
		}
		put(st.fg)
		put(st.bg)
		put(st.ulColor)
		b.WriteByte('m')
	}
	b.WriteString(st.link)
	return b.String()
}

// Close returns the sequences that return from st to the default state.
func (st *EscapeState) Close() string {
	switch {
	case st.styled() && st.link != "":
		return "\x1b[0m" + linkClose
	case st.styled():
		return "\x1b[0m"
	case st.link != "":
		return linkClose
	}
	return ""
}

// linkClose ends an OSC 8 hyperlink.
const linkClose = "\x1b]8;;\x1b\\"
