package telegram

import (
	"strings"
)

// segment is a run of text with the entity boundaries before it.
type segment struct {
	closes []int // entities ending here, innermost first
	opens  []int // entities starting here, outermost first
	text   string
	stack  []int // the entities open over text, outermost first
}

// segments cuts f at every entity boundary.
func (f Formatted) segments() []segment {
	var out []segment
	var stack []int
	next := 0
	pos := 0
	for {
		var seg segment
		for len(stack) > 0 && f.Entities[stack[len(stack)-1]].End <= pos {
			seg.closes = append(seg.closes, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		for next < len(f.Entities) && f.Entities[next].Start <= pos {
			seg.opens = append(seg.opens, next)
			stack = append(stack, next)
			next++
		}
		end := len(f.Text)
		if next < len(f.Entities) {
			end = min(end, f.Entities[next].Start)
		}
		if len(stack) > 0 {
			end = min(end, f.Entities[stack[len(stack)-1]].End)
		}
		seg.text = f.Text[pos:end]
		seg.stack = append([]int(nil), stack...)
		out = append(out, seg)
		if end >= len(f.Text) && len(stack) == 0 && next >= len(f.Entities) {
			break
		}
		if end == pos && len(seg.closes) == 0 && len(seg.opens) == 0 {
			break // malformed entities; never loop
		}
		pos = end
	}
	return out
}

// HTML renders f for parse_mode "HTML".
func (f Formatted) HTML() string {
	var b strings.Builder
	for _, seg := range f.segments() {
		for _, i := range seg.closes {
			b.WriteString(htmlClose(f.Entities[i]))
		}
		for _, i := range seg.opens {
			b.WriteString(htmlOpen(f.Entities[i]))
		}
		b.WriteString(escapeHTML(seg.text, false))
	}
	return b.String()
}

func htmlOpen(e Entity) string {
	switch e.Type {
	case EntityBold:
		return "<b>"
	case EntityItalic:
		return "<i>"
	case EntityUnderline:
		return "<u>"
	case EntityStrikethrough:
		return "<s>"
	case EntitySpoiler:
		return "<tg-spoiler>"
	case EntityCode:
		return "<code>"
	case EntityPre:
		if e.Language != "" {
			return `<pre><code class="language-` + escapeHTML(e.Language, true) + `">`
		}
		return "<pre>"
	case EntityTextLink:
		return `<a href="` + escapeHTML(e.URL, true) + `">`
	case EntityBlockquote:
		return "<blockquote>"
	}
	return ""
}

func htmlClose(e Entity) string {
	switch e.Type {
	case EntityBold:
		return "</b>"
	case EntityItalic:
		return "</i>"
	case EntityUnderline:
		return "</u>"
	case EntityStrikethrough:
		return "</s>"
	case EntitySpoiler:
		return "</tg-spoiler>"
	case EntityCode:
		return "</code>"
	case EntityPre:
		if e.Language != "" {
			return "</code></pre>"
		}
		return "</pre>"
	case EntityTextLink:
		return "</a>"
	case EntityBlockquote:
		return "</blockquote>"
	}
	return ""
}

// escapeHTML replaces the characters Telegram's HTML parser reserves.
func escapeHTML(s string, attr bool) string {
	if !strings.ContainsAny(s, `<>&"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '&':
			b.WriteString("&amp;")
		case c == '"' && attr:
			b.WriteString("&quot;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// MarkdownV2 renders f for parse_mode "MarkdownV2".
func (f Formatted) MarkdownV2() string {
	var b strings.Builder
	var last byte // the last character of a marker just written, 0 after text
	marker := func(m string) {
		if m == "" {
			return
		}
		// Two markers of the same character in a row are ambiguous
		// ("___" is underline then italic); Telegram ignores \r between.
		if last != 0 && m[0] == last {
			b.WriteByte('\r')
		}
		b.WriteString(m)
		last = m[len(m)-1]
	}
	// A blockquote always starts at the start of a line: Markdown and
	// Split never make one that does not.
	for _, seg := range f.segments() {
		for _, i := range seg.closes {
			marker(mdv2Close(f.Entities[i]))
		}
		for _, i := range seg.opens {
			marker(mdv2Open(f.Entities[i]))
		}
		var code, quote bool
		for _, i := range seg.stack {
			switch f.Entities[i].Type {
			case EntityCode, EntityPre:
				code = true
			case EntityBlockquote:
				quote = true
			}
		}
		if seg.text == "" {
			continue
		}
		text := escapeMarkdownV2(seg.text, code)
		if quote {
			// every line of a quote starts with ">"
			text = strings.ReplaceAll(text, "\n", "\n>")
		}
		b.WriteString(text)
		last = 0
	}
	return b.String()
}

func mdv2Open(e Entity) string {
	switch e.Type {
	case EntityBold:
		return "*"
	case EntityItalic:
		return "_"
	case EntityUnderline:
		return "__"
	case EntityStrikethrough:
		return "~"
	case EntitySpoiler:
		return "||"
	case EntityCode:
		return "`"
	case EntityPre:
		return "```" + e.Language + "\n"
	case EntityTextLink:
		return "["
	case EntityBlockquote:
		return ">"
	}
	return ""
}

func mdv2Close(e Entity) string {
	switch e.Type {
	case EntityBold:
		return "*"
	case EntityItalic:
		return "_"
	case EntityUnderline:
		return "__"
	case EntityStrikethrough:
		return "~"
	case EntitySpoiler:
		return "||"
	case EntityCode:
		return "`"
	case EntityPre:
		return "\n```"
	case EntityTextLink:
		return "](" + escapeMarkdownV2URL(e.URL) + ")"
	}
	return ""
}

// escapeMarkdownV2 escapes text for MarkdownV2: inside code and pre only
// ` and \, elsewhere every reserved character.
func escapeMarkdownV2(s string, code bool) string {
	reserved := "_*[]()~`>#+-=|{}.!\\"
	if code {
		reserved = "`\\"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' {
			continue // Telegram drops it; keep the text the same
		}
		if strings.IndexByte(reserved, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapeMarkdownV2URL escapes the inside of a link's (...).
func escapeMarkdownV2URL(u string) string {
	r := strings.NewReplacer(`\`, `\\`, `)`, `\)`)
	return r.Replace(u)
}
