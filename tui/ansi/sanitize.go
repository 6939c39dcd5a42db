package ansi

import (
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// DefaultTabWidth is the tab stop distance Sanitize uses.
const DefaultTabWidth = 4

// Sanitize makes text from outside (model output, tool output, file
// contents) safe to print: nothing in the result can move the cursor,
// switch character sets or change terminal modes. It is
// SanitizeTabs(s, DefaultTabWidth).
func Sanitize(s string) string { return SanitizeTabs(s, DefaultTabWidth) }

// SanitizeTabs is Sanitize with tab stops every tabWidth cells (at least
// 1). In the result:
//   - newlines are kept and CR LF becomes a newline;
//   - tabs become spaces up to the next tab stop of their line;
//   - other C0 controls are shown in caret notation (^A, ^[), DEL as ^?,
//     and C1 controls as M-^@ to M-^_;
//   - SGR sequences and OSC 8 hyperlinks are kept, every other escape
//     sequence is removed;
//   - invalid UTF-8 becomes U+FFFD.
//
// Text that needs none of this is returned unchanged without copying.
func SanitizeTabs(s string, tabWidth int) string {
	if tabWidth < 1 {
		tabWidth = 1
	}
	if IsSanitized(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			b.WriteByte('\n')
			col = 0
			i++
			continue
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			i++
			continue
		case c == '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			i++
			continue
		case c == 0x1b:
			n := max(EscapeLen(s[i:]), 1)
			seq := s[i : i+n]
			if keepEscape(seq) {
				b.WriteString(seq)
			} else if n == 1 {
				b.WriteString("^[")
				col += 2
			}
			i += n
			continue
		case c < 0x20 || c == 0x7f:
			b.WriteByte('^')
			b.WriteByte(c ^ 0x40)
			col += 2
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			col++
			i++
			continue
		case r >= 0x80 && r < 0xa0:
			b.WriteString("M-^")
			b.WriteByte(byte(r-0x80) ^ 0x40)
			col += 4
			i += size
			continue
		}
		n, w := uniwidth.Cluster(s[i:])
		// Clusters never contain controls or invalid bytes (UAX #29 breaks
		// around them), so the whole cluster can be copied.
		b.WriteString(s[i : i+n])
		col += w
		i += n
	}
	return b.String()
}

// IsSanitized reports whether s contains nothing SanitizeTabs would change.
func IsSanitized(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' {
			i++
			continue
		}
		if c < 0x80 {
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) {
			return false
		}
		i += size
	}
	return true
}

// keepEscape reports whether an escape sequence is harmless styling: a
// complete SGR sequence, or an OSC 8 hyperlink whose parameters and URI
// hold no control characters.
func keepEscape(seq string) bool {
	if _, ok := isSGR(seq); ok {
		return true
	}
	if _, ok := hyperlinkURI(seq); !ok {
		return false
	}
	body := seq[2:]
	if strings.HasSuffix(body, "\x1b\\") {
		body = body[:len(body)-2]
	} else {
		body = body[:len(body)-1]
	}
	for _, r := range body {
		if uniwidth.IsControl(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}
