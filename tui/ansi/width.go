package ansi

import (
	"iter"
	"strings"

	"github.com/zut-go/zut/tui/internal/uniwidth"
)

// Widths are measured in terminal cells by grapheme cluster: a cluster is
// as wide as its widest character, emoji sequences (ZWJ sequences, flags,
// skin tones, U+FE0F presentation) are 2, and escape sequences are 0. The
// tables come from the Unicode data files (see tui/internal/widthgen).

// UnicodeVersion is the version of the Unicode data the width tables were
// generated from.
const UnicodeVersion = uniwidth.UnicodeVersion

// RuneWidth is the number of terminal cells r occupies: 0 for combining and
// zero-width characters, 2 for East Asian wide and fullwidth characters and
// emoji presentation, 1 otherwise. Control characters report 0; use
// Sanitize to make them visible before measuring.
func RuneWidth(r rune) int { return uniwidth.Rune(r) }

// FirstGrapheme returns the first grapheme cluster of s (UAX #29) and the
// cells it occupies. It returns "", 0 for an empty s. Escape sequences are
// not special here: ESC is a cluster of its own, of width 0.
func FirstGrapheme(s string) (cluster string, width int) {
	n, w := uniwidth.Cluster(s)
	return s[:n], w
}

// Graphemes iterates over the grapheme clusters of s with their widths.
func Graphemes(s string) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for len(s) > 0 {
			n, w := uniwidth.Cluster(s)
			if !yield(s[:n], w) {
				return
			}
			s = s[n:]
		}
	}
}

// StringWidth is the number of cells s occupies on one line. ANSI escape
// sequences (CSI, OSC, and two-byte ESC sequences) count as zero, and so do
// control characters, tabs included: measure text after Sanitize.
func StringWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			// Runs of printable ASCII are one cell per byte; the last byte
			// of a run may start a cluster with a following mark.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
				j++
			}
			if j < len(s) && s[j] >= 0x80 {
				j--
			}
			w += j - i
			if j > i {
				i = j
				continue
			}
		}
		if c == 0x1b {
			if n := EscapeLen(s[i:]); n > 0 {
				i += n
				continue
			}
		}
		n, cw := uniwidth.Cluster(s[i:])
		w += cw
		i += n
	}
	return w
}

// Truncate returns s cut to at most w cells, ending in tail (for example
// "…") when it had to cut; a tail wider than w is itself cut. Escape
// sequences before the cut are kept, and styles or a hyperlink still open
// at the cut are closed after the tail. Wide characters are never split.
func Truncate(s string, w int, tail string) string {
	if StringWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	tw := StringWidth(tail)
	if tw > w {
		tail = Truncate(tail, w, "")
		tw = StringWidth(tail)
	}
	var b strings.Builder
	var st EscapeState
	cur := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if n := EscapeLen(s[i:]); n > 0 {
				st.Apply(s[i : i+n])
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		n, cw := uniwidth.Cluster(s[i:])
		if cur+cw > w-tw {
			break
		}
		b.WriteString(s[i : i+n])
		cur += cw
		i += n
	}
	b.WriteString(tail)
	b.WriteString(st.Close())
	return b.String()
}

// PadRight returns s followed by spaces up to w cells; s wider than w is
// returned unchanged.
func PadRight(s string, w int) string {
	if n := w - StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
