package telegram

import (
	"strings"
	"unicode/utf8"
)

// Markdown converts the model's markdown (CommonMark with the GitHub
// additions models use) to Telegram formatting:
//
//   - **bold**, *italic*, ~~strike~~, `code`, [links](https://...) and
//     autolinks map to entities; links to anything but http(s), tg and
//     mailto keep their text only;
//   - fenced code blocks become pre entities with their language;
//   - headings become bold lines, block quotes blockquote entities, list
//     items "•" or their number, task items ☐/☑, rules a line;
//   - tables become a pre block with aligned columns;
//   - everything else (HTML, reference links) stays as written.
//
// Line breaks are kept; blocks separated by a blank line stay so.
func Markdown(src string) Formatted {
	src = strings.ToValidUTF8(src, "\uFFFD")
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	p := &blockParser{lines: strings.Split(src, "\n")}
	p.parse()
	return p.b.result()
}

type blockParser struct {
	lines []string
	b     builder
	any   bool // a block was written
	blank bool // a blank line came since the last block
}

// sep starts a new block: a blank line when the source had one.
func (p *blockParser) sep() {
	if p.any {
		if p.blank {
			p.b.write("\n\n")
		} else {
			p.b.write("\n")
		}
	}
	p.any, p.blank = true, false
}

func (p *blockParser) parse() {
	for i := 0; i < len(p.lines); {
		line := p.lines[i]
		switch {
		case isBlank(line):
			p.blank = true
			i++
		case fenceOf(line) != nil:
			i = p.fenced(i)
		case headingOf(line) >= 0:
			p.sep()
			p.b.open(Entity{Type: EntityBold})
			inlineInto(&p.b, headingText(line))
			p.b.close()
			i++
		case isRule(line):
			p.sep()
			p.b.write("──────────")
			i++
		case isQuote(line):
			i = p.quote(i)
		case p.isTable(i):
			i = p.table(i)
		case listItemOf(line) != nil:
			i = p.listItem(i)
		default:
			i = p.paragraph(i)
		}
	}
}

// startsBlock reports whether line i interrupts a paragraph.
func (p *blockParser) startsBlock(i int) bool {
	line := p.lines[i]
	return isBlank(line) || fenceOf(line) != nil || headingOf(line) >= 0 || isRule(line) ||
		isQuote(line) || p.isTable(i) || listItemOf(line) != nil
}

func (p *blockParser) paragraph(i int) int {
	var lines []string
	for ; i < len(p.lines); i++ {
		if len(lines) > 0 && p.startsBlock(i) {
			break
		}
		lines = append(lines, strings.TrimSpace(p.lines[i]))
		// A setext underline makes the paragraph a heading.
		if i+1 < len(p.lines) && isSetext(p.lines[i+1]) {
			p.sep()
			p.b.open(Entity{Type: EntityBold})
			inlineInto(&p.b, strings.Join(lines, "\n"))
			p.b.close()
			return i + 2
		}
	}
	p.sep()
	inlineInto(&p.b, strings.Join(lines, "\n"))
	return i
}

// fence is an opening code fence.
type fence struct {
	char   byte
	n      int
	indent int
	lang   string
}

func fenceOf(line string) *fence {
	indent := leadingSpaces(line)
	rest := line[indent:]
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return nil
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return nil
	}
	info := strings.TrimSpace(rest[n:])
	if c == '`' && strings.Contains(info, "`") {
		return nil
	}
	lang, _, _ := strings.Cut(info, " ")
	return &fence{char: c, n: n, indent: indent, lang: cleanLanguage(lang)}
}

// cleanLanguage keeps the characters a language name uses.
func cleanLanguage(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && (isAlnum(byte(r)) || strings.ContainsRune("+-#._", r)) {
			b.WriteRune(r)
		}
	}
	if b.Len() > 32 {
		return ""
	}
	return b.String()
}

func (f *fence) closes(line string) bool {
	rest := strings.TrimLeft(line, " ")
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && strings.TrimSpace(rest[n:]) == ""
}

func (p *blockParser) fenced(i int) int {
	f := fenceOf(p.lines[i])
	var body []string
	i++
	for ; i < len(p.lines); i++ {
		if f.closes(p.lines[i]) {
			i++
			break
		}
		line := p.lines[i]
		line = line[min(f.indent, leadingSpaces(line)):]
		body = append(body, line)
	}
	p.sep()
	p.b.open(Entity{Type: EntityPre, Language: f.lang})
	p.b.write(strings.Join(body, "\n"))
	p.b.close()
	return i
}

// headingOf returns the level of an ATX heading, or -1.
func headingOf(line string) int {
	indent := leadingSpaces(line)
	if indent > 3 {
		return -1
	}
	rest := line[indent:]
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(rest) && rest[n] != ' ' && rest[n] != '\t') {
		return -1
	}
	return n
}

func headingText(line string) string {
	s := strings.TrimSpace(line)
	s = strings.TrimLeft(s, "#")
	s = strings.TrimSpace(s)
	// A closing sequence of #s after a space is not part of the text.
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || t[len(t)-1] == ' ') {
		s = strings.TrimSpace(t)
	}
	return s
}

func isRule(line string) bool {
	s := strings.TrimSpace(line)
	if len(s) < 3 || leadingSpaces(line) > 3 {
		return false
	}
	c := s[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

func isSetext(line string) bool {
	s := strings.TrimSpace(line)
	if s == "" || leadingSpaces(line) > 3 {
		return false
	}
	return strings.Trim(s, "=") == "" || (strings.Trim(s, "-") == "" && len(s) >= 2)
}

func isQuote(line string) bool {
	indent := leadingSpaces(line)
	return indent <= 3 && indent < len(line) && line[indent] == '>'
}

// quote writes consecutive quoted lines as one blockquote; nested quote
// markers are flattened, the content is inline markdown.
func (p *blockParser) quote(i int) int {
	var lines []string
	for ; i < len(p.lines) && isQuote(p.lines[i]); i++ {
		s := strings.TrimLeft(p.lines[i], " ")
		for strings.HasPrefix(s, ">") {
			s = strings.TrimPrefix(s[1:], " ")
		}
		lines = append(lines, strings.TrimRight(s, " \t"))
	}
	p.sep()
	p.b.open(Entity{Type: EntityBlockquote})
	inlineInto(&p.b, strings.Join(lines, "\n"))
	p.b.close()
	return i
}

// listItem is a list item's marker.
type listItem struct {
	indent int
	marker string // "•" or the number with its "." or ")"
	rest   string
}

func listItemOf(line string) *listItem {
	indent := leadingSpaces(line)
	rest := line[indent:]
	if rest == "" {
		return nil
	}
	var marker string
	n := 0
	switch rest[0] {
	case '-', '+', '*':
		marker, n = "•", 1
	default:
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(rest) || (rest[n] != '.' && rest[n] != ')') {
			return nil
		}
		n++
		marker = rest[:n]
	}
	if n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
		return nil
	}
	return &listItem{indent: indent, marker: marker, rest: strings.TrimSpace(rest[n:])}
}

func (p *blockParser) listItem(i int) int {
	it := listItemOf(p.lines[i])
	pad := strings.Repeat(" ", min(it.indent, 8))
	text := it.rest
	switch {
	case strings.HasPrefix(text, "[ ] "):
		text = "☐ " + text[4:]
	case strings.HasPrefix(text, "[x] "), strings.HasPrefix(text, "[X] "):
		text = "☑ " + text[4:]
	}
	lines := []string{text}
	for i++; i < len(p.lines) && !p.startsBlock(i); i++ {
		lines = append(lines, pad+"  "+strings.TrimSpace(p.lines[i]))
	}
	p.sep()
	p.b.write(pad + it.marker + " ")
	inlineInto(&p.b, strings.Join(lines, "\n"))
	return i
}

// isTable reports whether a table starts at line i: a row with a pipe
// followed by a delimiter row.
func (p *blockParser) isTable(i int) bool {
	if i+1 >= len(p.lines) || !strings.Contains(p.lines[i], "|") {
		return false
	}
	d := strings.TrimSpace(p.lines[i+1])
	if !strings.Contains(d, "-") {
		return false
	}
	cells := tableCells(d)
	if len(cells) == 0 || (len(cells) == 1 && !strings.Contains(d, "|")) {
		return false
	}
	for _, c := range cells {
		c = strings.TrimSpace(c)
		c = strings.TrimPrefix(c, ":")
		c = strings.TrimSuffix(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, cur.String())
}

// table writes a table as a pre block with aligned columns; inline
// markup in the cells is reduced to its text.
func (p *blockParser) table(i int) int {
	var rows [][]string
	head := true
	for ; i < len(p.lines) && strings.Contains(p.lines[i], "|") && !isBlank(p.lines[i]); i++ {
		if len(rows) == 1 && head {
			head = false // the delimiter row
			continue
		}
		var row []string
		for _, c := range tableCells(p.lines[i]) {
			row = append(row, Markdown(strings.TrimSpace(c)).Text)
		}
		rows = append(rows, row)
	}
	var widths []int
	for _, r := range rows {
		for j, c := range r {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	var out []string
	for k, r := range rows {
		var cells []string
		for j := range widths {
			c := ""
			if j < len(r) {
				c = r[j]
			}
			cells = append(cells, c+strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)))
		}
		out = append(out, strings.TrimRight(strings.Join(cells, " │ "), " "))
		if k == 0 {
			var dashes []string
			for _, w := range widths {
				dashes = append(dashes, strings.Repeat("─", w))
			}
			out = append(out, strings.Join(dashes, "─┼─"))
		}
	}
	p.sep()
	p.b.open(Entity{Type: EntityPre})
	p.b.write(strings.Join(out, "\n"))
	p.b.close()
	return i
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// leadingSpaces counts the leading spaces and tabs of s, in bytes.
func leadingSpaces(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
