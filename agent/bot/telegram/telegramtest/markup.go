package telegramtest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Entity is a MessageEntity as the Bot API returns it: Offset and Length
// count UTF-16 code units.
type Entity struct {
	Type     string `json:"type"`
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
	URL      string `json:"url,omitempty"`
	Language string `json:"language,omitempty"`
}

// ParseError is a markup error, worded as Telegram words it after "Bad
// Request: can't parse entities: ".
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return "can't parse entities: " + e.Msg }

func parseErr(format string, v ...any) error { return &ParseError{Msg: fmt.Sprintf(format, v...)} }

// Parse parses text in mode ("", "HTML" or "MarkdownV2") the way the Bot
// API does before sending, strictly: everything the documentation says
// must be escaped must be.
func Parse(mode, text string) (string, []Entity, error) {
	switch mode {
	case "":
		return text, nil, nil
	case "HTML":
		return ParseHTML(text)
	case "MarkdownV2":
		return ParseMarkdownV2(text)
	}
	return "", nil, fmt.Errorf("unsupported parse_mode %q", mode)
}

// textBuilder collects parsed text and entities with UTF-16 offsets.
type textBuilder struct {
	b     strings.Builder
	units int
	ents  []Entity
	open  []openEntity
}

type openEntity struct {
	tag   string // the tag or marker that opened it
	index int    // in ents
	at    int    // byte offset in the source, for errors
}

func (t *textBuilder) write(s string) {
	t.b.WriteString(s)
	for _, r := range s {
		if r >= 0x10000 {
			t.units += 2
		} else {
			t.units++
		}
	}
}

func (t *textBuilder) start(tag string, e Entity, at int) {
	e.Offset = t.units
	t.ents = append(t.ents, e)
	t.open = append(t.open, openEntity{tag: tag, index: len(t.ents) - 1, at: at})
}

func (t *textBuilder) end() {
	o := t.open[len(t.open)-1]
	t.open = t.open[:len(t.open)-1]
	t.ents[o.index].Length = t.units - t.ents[o.index].Offset
}

func (t *textBuilder) inside(types ...string) bool {
	for _, o := range t.open {
		for _, ty := range types {
			if t.ents[o.index].Type == ty {
				return true
			}
		}
	}
	return false
}

func (t *textBuilder) result() (string, []Entity) {
	var ents []Entity
	for _, e := range t.ents {
		if e.Length > 0 && e.Type != "" {
			ents = append(ents, e)
		}
	}
	return t.b.String(), ents
}

var htmlTags = map[string]string{
	"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline", "ins": "underline",
	"s": "strikethrough", "strike": "strikethrough", "del": "strikethrough", "tg-spoiler": "spoiler",
	"span": "spoiler", "a": "text_link", "code": "code", "pre": "pre", "blockquote": "blockquote",
}

// ParseHTML parses Telegram's HTML style.
func ParseHTML(s string) (string, []Entity, error) {
	var t textBuilder
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "", nil, parseErr("unclosed start tag at byte offset %d", i)
			}
			if err := t.htmlTag(s[i+1:i+end], i); err != nil {
				return "", nil, err
			}
			i += end + 1
		case '>':
			return "", nil, parseErr("character '>' at byte offset %d must be written as &gt;", i)
		case '&':
			r, n, err := htmlEntity(s[i:], i)
			if err != nil {
				return "", nil, err
			}
			t.write(r)
			i += n
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			t.write(s[i : i+n])
			i += n
		}
	}
	if len(t.open) > 0 {
		o := t.open[len(t.open)-1]
		return "", nil, parseErr("can't find end tag corresponding to start tag \"%s\" at byte offset %d", o.tag, o.at)
	}
	text, ents := t.result()
	return text, ents, nil
}

func (t *textBuilder) htmlTag(tag string, at int) error {
	if strings.HasPrefix(tag, "/") {
		name := strings.ToLower(strings.TrimSpace(tag[1:]))
		if len(t.open) == 0 {
			return parseErr("unexpected end tag \"%s\" at byte offset %d", name, at)
		}
		o := t.open[len(t.open)-1]
		if o.tag != name {
			return parseErr("unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", at, o.tag, name)
		}
		t.end()
		// </code> of <pre><code class=...> closes into the pre entity.
		return nil
	}
	name, attrs, err := htmlAttrs(tag, at)
	if err != nil {
		return err
	}
	typ, ok := htmlTags[name]
	if !ok {
		return parseErr("unsupported start tag \"%s\" at byte offset %d", name, at)
	}
	if t.inside("code") || (t.inside("pre") && !(name == "code" && t.justOpenedPre())) {
		return parseErr("entities can't be nested in code or pre: tag \"%s\" at byte offset %d", name, at)
	}
	e := Entity{Type: typ}
	switch name {
	case "span":
		if attrs["class"] != "tg-spoiler" {
			return parseErr("tag \"span\" must have class \"tg-spoiler\" at byte offset %d", at)
		}
	case "a":
		href, ok := attrs["href"]
		if !ok || href == "" {
			return parseErr("tag \"a\" needs an href at byte offset %d", at)
		}
		e.URL = href
	case "blockquote":
		if t.inside("blockquote", "expandable_blockquote") {
			return parseErr("blockquote can't be nested at byte offset %d", at)
		}
		if _, ok := attrs["expandable"]; ok {
			e.Type = "expandable_blockquote"
		}
	case "code":
		if t.inside("pre") {
			// <pre><code class="language-x">: the pre gets the language
			// and the code adds no entity of its own.
			if lang, ok := strings.CutPrefix(attrs["class"], "language-"); ok {
				t.ents[t.open[len(t.open)-1].index].Language = lang
			}
			t.open = append(t.open, openEntity{tag: "code", index: t.open[len(t.open)-1].index, at: at})
			t.ents = append(t.ents, Entity{}) // placeholder keeps indexes stable
			t.open[len(t.open)-1].index = len(t.ents) - 1
			t.ents[len(t.ents)-1].Offset = t.units
			return nil
		}
	}
	t.start(name, e, at)
	return nil
}

func (t *textBuilder) justOpenedPre() bool {
	if len(t.open) == 0 {
		return false
	}
	o := t.open[len(t.open)-1]
	return t.ents[o.index].Type == "pre" && t.ents[o.index].Offset == t.units
}

func htmlAttrs(tag string, at int) (string, map[string]string, error) {
	name, rest, _ := strings.Cut(tag, " ")
	name = strings.ToLower(name)
	attrs := map[string]string{}
	rest = strings.TrimSpace(rest)
	for rest != "" {
		key, value := rest, ""
		eq := strings.IndexAny(rest, "= ")
		if eq < 0 || rest[eq] == ' ' {
			if eq >= 0 {
				key, rest = rest[:eq], strings.TrimSpace(rest[eq:])
			} else {
				rest = ""
			}
			attrs[strings.ToLower(key)] = ""
			continue
		}
		key, rest = rest[:eq], rest[eq+1:]
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			q := rest[0]
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				return "", nil, parseErr("unclosed attribute value at byte offset %d", at)
			}
			value, rest = rest[1:1+end], rest[2+end:]
		} else {
			sp := strings.IndexByte(rest, ' ')
			if sp < 0 {
				sp = len(rest)
			}
			value, rest = rest[:sp], rest[sp:]
		}
		v, err := unescapeHTML(value, at)
		if err != nil {
			return "", nil, err
		}
		attrs[strings.ToLower(key)] = v
		rest = strings.TrimSpace(rest)
	}
	return name, attrs, nil
}

func unescapeHTML(s string, at int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '&' {
			r, n, err := htmlEntity(s[i:], at+i)
			if err != nil {
				return "", err
			}
			b.WriteString(r)
			i += n
			continue
		}
		if s[i] == '<' || s[i] == '>' {
			return "", parseErr("character %q in an attribute at byte offset %d", s[i], at)
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), nil
}

// htmlEntity decodes the entity at the start of s: the four named ones
// Telegram supports and numeric ones.
func htmlEntity(s string, at int) (string, int, error) {
	end := strings.IndexByte(s, ';')
	if end < 0 || end > 12 {
		return "", 0, parseErr("character '&' at byte offset %d must be written as &amp;", at)
	}
	name := s[1:end]
	switch name {
	case "lt":
		return "<", end + 1, nil
	case "gt":
		return ">", end + 1, nil
	case "amp":
		return "&", end + 1, nil
	case "quot":
		return `"`, end + 1, nil
	}
	if strings.HasPrefix(name, "#") {
		base, digits := 10, name[1:]
		if strings.HasPrefix(digits, "x") || strings.HasPrefix(digits, "X") {
			base, digits = 16, digits[1:]
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err == nil && n > 0 && n <= utf8.MaxRune {
			return string(rune(n)), end + 1, nil
		}
	}
	return "", 0, parseErr("unsupported HTML entity \"&%s;\" at byte offset %d", name, at)
}

// ParseMarkdownV2 parses Telegram's MarkdownV2 style.
func ParseMarkdownV2(s string) (string, []Entity, error) {
	var t textBuilder
	lineStart := true
	for i := 0; i < len(s); {
		c := s[i]
		if t.inside("code") {
			switch {
			case c == '\\' && i+1 < len(s) && (s[i+1] == '`' || s[i+1] == '\\'):
				t.write(s[i+1 : i+2])
				i += 2
			case c == '\\':
				t.write(`\`)
				i++
			case c == '`':
				t.end()
				i++
			default:
				_, n := utf8.DecodeRuneInString(s[i:])
				t.write(s[i : i+n])
				i += n
			}
			continue
		}
		if t.inside("pre") {
			switch {
			case strings.HasPrefix(s[i:], "```"):
				t.trimPreNewline()
				t.end()
				i += 3
			case c == '\\' && i+1 < len(s) && (s[i+1] == '`' || s[i+1] == '\\'):
				t.write(s[i+1 : i+2])
				i += 2
			case c == '`':
				return "", nil, parseErr("character '`' is reserved and must be escaped with the preceding '\\' at byte offset %d", i)
			default:
				_, n := utf8.DecodeRuneInString(s[i:])
				t.write(s[i : i+n])
				i += n
			}
			continue
		}
		wasLineStart := lineStart
		lineStart = false
		switch {
		case c == '\r':
			i++
			lineStart = wasLineStart
		case c == '\\':
			if i+1 >= len(s) || s[i+1] < 1 || s[i+1] > 126 {
				return "", nil, parseErr("character '\\' at byte offset %d escapes nothing Telegram can escape", i)
			}
			t.write(s[i+1 : i+2])
			i += 2
		case c == '\n':
			if t.top("blockquote") && !(i+1 < len(s) && s[i+1] == '>') {
				t.end()
			}
			t.write("\n")
			i++
			lineStart = true
		case c == '>' && wasLineStart:
			if !t.top("blockquote") {
				if len(t.open) > 0 {
					return "", nil, parseErr("blockquote can't start inside another entity at byte offset %d", i)
				}
				t.start(">", Entity{Type: "blockquote"}, i)
			}
			i++
		case strings.HasPrefix(s[i:], "```"):
			nl := strings.IndexByte(s[i+3:], '\n')
			if nl < 0 {
				return "", nil, parseErr("can't find end of pre entity at byte offset %d", i)
			}
			t.start("```", Entity{Type: "pre", Language: s[i+3 : i+3+nl]}, i)
			i += 3 + nl + 1
		case c == '`':
			t.start("`", Entity{Type: "code"}, i)
			i++
		case strings.HasPrefix(s[i:], "__"):
			if err := t.toggle("__", "underline", i); err != nil {
				return "", nil, err
			}
			i += 2
		case c == '_':
			if err := t.toggle("_", "italic", i); err != nil {
				return "", nil, err
			}
			i++
		case c == '*':
			if err := t.toggle("*", "bold", i); err != nil {
				return "", nil, err
			}
			i++
		case c == '~':
			if err := t.toggle("~", "strikethrough", i); err != nil {
				return "", nil, err
			}
			i++
		case strings.HasPrefix(s[i:], "||"):
			if err := t.toggle("||", "spoiler", i); err != nil {
				return "", nil, err
			}
			i += 2
		case c == '[':
			t.start("[", Entity{Type: "text_link"}, i)
			i++
		case c == ']':
			if !t.top("text_link") {
				return "", nil, parseErr("character ']' is reserved and must be escaped with the preceding '\\' at byte offset %d", i)
			}
			url, n, err := mdv2URL(s[i+1:], i)
			if err != nil {
				return "", nil, err
			}
			t.ents[t.open[len(t.open)-1].index].URL = url
			t.end()
			i += 1 + n
		case strings.IndexByte("_*[]()~`>#+-=|{}.!", c) >= 0:
			return "", nil, parseErr("character '%c' is reserved and must be escaped with the preceding '\\' at byte offset %d", c, i)
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			t.write(s[i : i+n])
			i += n
		}
	}
	if t.top("blockquote") {
		t.end()
	}
	if len(t.open) > 0 {
		o := t.open[len(t.open)-1]
		return "", nil, parseErr("can't find end of %s entity at byte offset %d", t.ents[o.index].Type, o.at)
	}
	text, ents := t.result()
	return text, ents, nil
}

func (t *textBuilder) top(typ string) bool {
	return len(t.open) > 0 && t.ents[t.open[len(t.open)-1].index].Type == typ
}

func (t *textBuilder) toggle(marker, typ string, at int) error {
	if t.top(typ) {
		t.end()
		return nil
	}
	if t.inside(typ) {
		return parseErr("can't find end of %s entity before byte offset %d", typ, at)
	}
	t.start(marker, Entity{Type: typ}, at)
	return nil
}

// trimPreNewline drops the line break before a closing ```.
func (t *textBuilder) trimPreNewline() {
	s := t.b.String()
	o := t.ents[t.open[len(t.open)-1].index]
	if strings.HasSuffix(s, "\n") && t.units > o.Offset {
		t.b.Reset()
		t.b.WriteString(s[:len(s)-1])
		t.units--
	}
}

// mdv2URL parses "(url)" after a link's "]".
func mdv2URL(s string, at int) (string, int, error) {
	if !strings.HasPrefix(s, "(") {
		return "", 0, parseErr("a link's ']' at byte offset %d must be followed by '('", at)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == ')' || s[i+1] == '\\') {
				b.WriteByte(s[i+1])
				i++
				continue
			}
			b.WriteByte('\\')
		case ')':
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, parseErr("can't find end of a link's URL at byte offset %d", at)
}
