package telegram

import (
	"strings"
	"unicode/utf8"
)

// Formatted is the text of one Telegram message with its entities: what the
// chat shows after Telegram parsed the markup. Markdown builds it from the
// model's markdown; HTML and MarkdownV2 render it for sendMessage; Split cuts
// it into messages that fit.
type Formatted struct {
	Text string
	// Entities are properly nested and in pre-order (a parent before its
	// children; Start ascending). No entity is empty, none is inside code
	// or pre, and none is inside another of its own type.
	Entities []Entity
}

// Entity is a formatted range of Formatted.Text. Start and End are byte
// offsets (Telegram counts UTF-16 code units; see UTF16Len).
type Entity struct {
	Type       string // one of the Entity* constants
	Start, End int
	URL        string // text_link
	Language   string // pre
}

// The entity types zut produces, named as in the Bot API's MessageEntity.
const (
	EntityBold          = "bold"
	EntityItalic        = "italic"
	EntityUnderline     = "underline"
	EntityStrikethrough = "strikethrough"
	EntitySpoiler       = "spoiler"
	EntityCode          = "code"
	EntityPre           = "pre"
	EntityTextLink      = "text_link"
	EntityBlockquote    = "blockquote"
)

// Plain is text shown as it is, without entities.
func Plain(text string) Formatted { return Formatted{Text: strings.ToValidUTF8(text, "\uFFFD")} }

// UTF16Len is the length of s as Telegram counts it: UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// builder assembles a Formatted: text is appended, entities are opened and
// closed like tags.
type builder struct {
	text  strings.Builder
	ents  []Entity
	stack []int
}

func (b *builder) write(s string)    { b.text.WriteString(s) }
func (b *builder) depth() int        { return len(b.stack) }
func (b *builder) open(e Entity) int { return b.openAt(e, b.text.Len()) }
func (b *builder) openAt(e Entity, at int) int {
	e.Start, e.End = at, -1
	b.ents = append(b.ents, e)
	b.stack = append(b.stack, len(b.ents)-1)
	return len(b.ents) - 1
}

// close ends the innermost open entity.
func (b *builder) close() {
	if len(b.stack) == 0 {
		return
	}
	i := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	b.ents[i].End = b.text.Len()
}

// closeTo ends open entities until only depth remain open.
func (b *builder) closeTo(depth int) {
	for len(b.stack) > depth {
		b.close()
	}
}

func (b *builder) result() Formatted {
	b.closeTo(0)
	return normalize(Formatted{Text: b.text.String(), Entities: b.ents})
}

// normalize drops the entities Telegram would reject or that render
// ambiguously: empty ones, ones inside code or pre, and ones inside an
// entity of the same type. Input entities must be properly nested and in
// pre-order.
func normalize(f Formatted) Formatted {
	out := make([]Entity, 0, len(f.Entities))
	var stack []Entity // kept ancestors of the current entity
	for _, e := range f.Entities {
		for len(stack) > 0 && stack[len(stack)-1].End <= e.Start {
			stack = stack[:len(stack)-1]
		}
		if e.Start >= e.End || e.Start < 0 || e.End > len(f.Text) {
			continue
		}
		keep := true
		for _, a := range stack {
			if a.Type == e.Type || a.Type == EntityCode || a.Type == EntityPre || e.End > a.End {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		out = append(out, e)
		stack = append(stack, e)
	}
	f.Entities = out
	return f
}

// slice returns the part [from, to) of f, with the entities that overlap it
// clipped to it: an entity cut by the boundary is closed at the end of one
// part and reopened at the start of the next.
func (f Formatted) slice(from, to int) Formatted {
	out := Formatted{Text: f.Text[from:to]}
	for _, e := range f.Entities {
		if e.End <= from || e.Start >= to {
			continue
		}
		e.Start = max(e.Start, from) - from
		e.End = min(e.End, to) - from
		if e.Start < e.End {
			out.Entities = append(out.Entities, e)
		}
	}
	return out
}

// trim removes leading and trailing white space from f.
func (f Formatted) trim() Formatted {
	start := len(f.Text) - len(strings.TrimLeft(f.Text, " \t\n"))
	end := len(strings.TrimRight(f.Text, " \t\n"))
	if end < start {
		end = start
	}
	if start == 0 && end == len(f.Text) {
		return f
	}
	return f.slice(start, end)
}

// runeStart moves n back to the start of the character it points into.
func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
