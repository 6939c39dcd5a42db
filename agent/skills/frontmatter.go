package skills

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxFrontMatter bounds how much of a SKILL.md discovery reads looking for
// the end of the front matter.
const maxFrontMatter = 64 << 10

// splitFrontMatter separates a SKILL.md into its front matter (the lines
// between an opening "---" line and the next "---" or "..." line) and the
// body after it. A leading UTF-8 byte order mark is ignored. ok is false
// when the text does not start with front matter; err reports an opening
// "---" that is never closed.
func splitFrontMatter(text string) (front, body string, ok bool, err error) {
	text = strings.TrimPrefix(text, "\uFEFF")
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" {
		return "", text, false, nil
	}
	off := 0
	for off <= len(rest) {
		line, _, found := strings.Cut(rest[off:], "\n")
		trimmed := strings.TrimRight(line, " \t\r")
		if trimmed == "---" || trimmed == "..." {
			front = rest[:off]
			body = ""
			if found {
				body = rest[off+len(line)+1:]
			}
			return front, body, true, nil
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return "", text, true, errors.New("front matter opened with --- is never closed (add a --- line after it)")
}

// parseFrontMatter reads the small subset of YAML that skill front matter
// uses: top-level "key: value" pairs whose values are plain (optionally
// continued on indented lines), single- or double-quoted, or ">" / "|"
// block scalars (with an optional "-" or "+" chomping indicator). Nested
// values of other keys (lists, maps) are skipped; comments and blank lines
// are ignored. Keys are returned as written.
func parseFrontMatter(front string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(front, "\r\n", "\n"), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(line, "- ") || line == "-" {
			// Nested content of a key we do not read.
			continue
		}
		key, value, found := strings.Cut(line, ":")
		if !found || !validKey(key) {
			return nil, fmt.Errorf("line %d: want \"key: value\", got %q", i+1, clipLine(line))
		}
		if value != "" && value[0] != ' ' && value[0] != '\t' {
			return nil, fmt.Errorf("line %d: want a space after %q", i+1, key+":")
		}
		value = strings.TrimSpace(value)
		// cont collects the indented lines after this one.
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || lines[j][0] == ' ' || lines[j][0] == '\t') {
			j++
		}
		cont := lines[i+1 : j]
		var v string
		var err error
		switch {
		case strings.HasPrefix(value, "\"") || strings.HasPrefix(value, "'"):
			v, err = quoted(strings.Join(append([]string{value}, trimAll(cont)...), "\n"))
		case isBlockHeader(value):
			v = block(value, cont)
		default:
			v = plain(value, cont)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", i+1, key, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("line %d: %s is set twice", i+1, key)
		}
		out[key] = v
		i = j - 1
	}
	return out, nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func clipLine(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

func trimAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// plain folds a plain scalar and its continuation lines: lines join with a
// space, a blank line becomes a newline, and " #" starts a comment.
func plain(first string, cont []string) string {
	parts := []string{stripComment(first)}
	for _, l := range cont {
		parts = append(parts, stripComment(strings.TrimSpace(l)))
	}
	return fold(parts)
}

func stripComment(s string) string {
	if strings.HasPrefix(s, "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "\t#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// fold joins lines YAML-style: a space between non-empty lines, a newline
// for each empty line.
func fold(lines []string) string {
	var b strings.Builder
	pendingSpace := false
	for _, l := range lines {
		if l == "" {
			b.WriteByte('\n')
			pendingSpace = false
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
		}
		b.WriteString(l)
		pendingSpace = true
	}
	return strings.TrimSpace(b.String())
}

func isBlockHeader(v string) bool {
	v = stripComment(v)
	switch v {
	case ">", "|", ">-", "|-", ">+", "|+":
		return true
	}
	return false
}

// block reads a ">" (folded) or "|" (literal) block scalar from the
// indented lines after its header.
func block(header string, cont []string) string {
	header = stripComment(header)
	indent := -1
	for _, l := range cont {
		if strings.TrimSpace(l) != "" {
			indent = len(l) - len(strings.TrimLeft(l, " \t"))
			break
		}
	}
	var lines []string
	for _, l := range cont {
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			continue
		}
		if len(l) >= indent {
			l = l[indent:]
		}
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	var s string
	if header[0] == '|' {
		s = strings.Join(lines, "\n")
	} else {
		s = foldBlock(lines)
	}
	switch {
	case strings.HasSuffix(header, "-"):
		return strings.TrimRight(s, "\n")
	case strings.HasSuffix(header, "+"):
		return s + "\n"
	}
	return strings.TrimRight(s, "\n") + "\n"
}

// foldBlock folds the lines of a ">" block: lines join with a space, an
// empty line is a newline, and more-indented lines keep their breaks.
func foldBlock(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			switch {
			case l == "":
				b.WriteByte('\n')
			case prev == "":
				// the empty line already wrote the break
			case strings.HasPrefix(l, " ") || strings.HasPrefix(prev, " "):
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// quoted decodes a single- or double-quoted scalar, which may span lines
// (line breaks fold to spaces). Text after the closing quote must be empty
// or a comment.
func quoted(s string) (string, error) {
	q := s[0]
	var b strings.Builder
	i := 1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == q:
			rest := strings.TrimSpace(s[i+1:])
			if rest != "" && !strings.HasPrefix(rest, "#") {
				return "", fmt.Errorf("unexpected %q after the closing quote", clipLine(rest))
			}
			return foldQuoted(b.String()), nil
		case c == '\\' && q == '"':
			if i+1 >= len(s) {
				return "", errors.New("backslash at the end of a quoted value")
			}
			n, adv, err := unescape(s[i+1:])
			if err != nil {
				return "", err
			}
			b.WriteString(n)
			i += adv
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("quoted value is not closed with %c", q)
}

// foldQuoted turns the line breaks kept inside a quoted scalar into
// spaces, and runs of blank lines into newlines.
func foldQuoted(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return fold(trimAll(strings.Split(s, "\n")))
}

// unescape decodes one escape sequence of a double-quoted scalar; s starts
// after the backslash. It returns the text and how many bytes it used.
func unescape(s string) (string, int, error) {
	switch s[0] {
	case 'n':
		return "\n", 1, nil
	case 't':
		return "\t", 1, nil
	case 'r':
		return "\r", 1, nil
	case '0':
		return "\x00", 1, nil
	case '"', '\\', '/', ' ':
		return s[:1], 1, nil
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
		if len(s) < 1+n {
			return "", 0, fmt.Errorf("short \\%c escape", s[0])
		}
		r, err := strconv.ParseUint(s[1:1+n], 16, 32)
		if err != nil {
			return "", 0, fmt.Errorf("bad \\%c escape %q", s[0], s[1:1+n])
		}
		return string(rune(r)), 1 + n, nil
	}
	return "", 0, fmt.Errorf("unknown escape \\%c", s[0])
}
