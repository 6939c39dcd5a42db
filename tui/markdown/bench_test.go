package markdown

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"testing"
)

// answer is a typical 2,000-token answer: prose, a list, code, a table.
var answer = strings.Repeat(`## Plan

The renderer keeps **committed** lines and re-renders only the *open* block,
so each delta costs little even when the answer is long. See [the docs](https://example.com/docs)
and `+"`Markdown.Write`"+` for details.

1. Parse the region from the first open block.
2. Commit blocks that became final.
   - nested point with `+"`code`"+`
3. Render the rest.

`+"```go"+`
func (m *Markdown) update() {
	s := m.src.String()
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			count++ // lines
		}
	}
	return fmt.Sprintf("%d lines", count)
}
`+"```"+`

| Step | Cost | Note |
|------|-----:|------|
| parse | 10µs | open block only |
| render | 5µs | cached code lines |

`, 12)

// deltas splits text into pieces of about four bytes, the size of a
// token.
func deltas(text string) []string {
	var out []string
	for i := 0; i < len(text); i += 4 {
		out = append(out, text[i:min(i+4, len(text))])
	}
	return out
}

// BenchmarkMarkdownStream renders a 2,000-token answer as it streams, one
// token at a time; ns/op is the cost of the whole answer, and the
// ns/delta metric the cost of one token.
func BenchmarkMarkdownStream(b *testing.B) {
	ds := deltas(answer)
	opts := Options{Width: 100, Profile: ansi.ProfileTrueColor}
	b.ReportAllocs()
	for b.Loop() {
		m := NewStream(opts)
		for _, d := range ds {
			m.WriteString(d)
		}
		m.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ds)), "ns/delta")
	b.ReportMetric(float64(len(ds)), "deltas")
}

// BenchmarkMarkdownOneShot renders the same answer at once.
func BenchmarkMarkdownOneShot(b *testing.B) {
	opts := Options{Width: 100, Profile: ansi.ProfileTrueColor}
	b.ReportAllocs()
	for b.Loop() {
		Render(answer, opts)
	}
}

// BenchmarkMarkdownStreamLongCode streams one code block of 400 lines, the
// case where re-parsing the open block costs most.
func BenchmarkMarkdownStreamLongCode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("```go\n")
	for i := range 400 {
		sb.WriteString("\tx := compute(" + strings.Repeat("a", i%20) + ", 42) // step\n")
	}
	sb.WriteString("```\n")
	ds := deltas(sb.String())
	opts := Options{Width: 100, Profile: ansi.ProfileTrueColor}
	b.ReportAllocs()
	for b.Loop() {
		m := NewStream(opts)
		for _, d := range ds {
			m.WriteString(d)
		}
		m.Finish()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ds)), "ns/delta")
	b.ReportMetric(float64(len(ds)), "deltas")
}
