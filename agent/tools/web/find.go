package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Limits of web_find.
const (
	findMaxMatches = 30
	findLineRunes  = 300
)

// findTool is web_find: find text in a page opened before.
type findTool struct{ w *Web }

var findArgs = []string{"ref_id", "pattern"}

func (t *findTool) Definition() provider.Tool {
	return provider.Tool{Name: FindName, Description: FindDescription, Schema: json.RawMessage(FindSchema)}
}

// What the model is told of the web_find tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	FindName        = "web_find"
	FindDescription = "Find text in a page opened with web_open (or a search result, which is opened first). Matching ignores case and treats any run of white space as one space, so a phrase is found across wrapped lines. Shows each match's line number with a line of context before and after (match lines marked \"N:\", context \"N-\"), at most 30 matches; read around one with web_open and line."
	FindSchema      = `{"additionalProperties":false,"properties":{"pattern":{"description":"The text to find, e.g. \"rate limit\" (plain text, not a regular expression).","type":"string"},"ref_id":{"description":"The ref_id of the page, as web_open or web_search printed it.","type":"string"}},"required":["ref_id","pattern"],"type":"object"}`
)

func (t *findTool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("web_find", raw, findArgs...)
	if err != nil {
		return "web_find (bad arguments)"
	}
	ref, _ := a.String("ref_id", false)
	pat, _ := a.String("pattern", false)
	return fmt.Sprintf("web_find %q in %s", tools.Clip(pat, 60), tools.Clip(refTarget(ref), 80))
}

func (t *findTool) Mutates(json.RawMessage) bool { return false }

func (t *findTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("web_find", raw, findArgs...)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	ref, err := a.String("ref_id", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	pattern, err := a.String("pattern", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	needle := strings.Join(strings.Fields(strings.ToLower(pattern)), " ")
	if needle == "" {
		return tools.ErrorResult("web_find: pattern is empty; give the text to find")
	}
	l, err := t.w.load(ctx, "web_find", ref, "", progress)
	if err != nil {
		return asResult(err)
	}
	p := l.page
	matches := findText(p.lines, needle)
	det := FindDetails{RefID: l.id, URL: p.url, Title: p.title, Pattern: pattern, Total: len(matches), Matches: []FindMatch{}}
	var b strings.Builder
	if l.note != "" {
		fmt.Fprintf(&b, "note: %s\n", l.note)
	}
	if len(matches) == 0 {
		fmt.Fprintf(&b, "no match for %q in %s (%s); try other words, or read it with web_open", pattern, l.id, tools.Plural(len(p.lines), "line"))
		return tools.TextResult(b.String()).WithDetails(det)
	}
	shown := matches[:min(len(matches), findMaxMatches)]
	fmt.Fprintf(&b, "%s for %q in %s (%s)", tools.Plural(len(matches), "match"), pattern, l.id, tools.Plural(len(p.lines), "line"))
	if len(shown) < len(matches) {
		fmt.Fprintf(&b, "; showing the first %d", len(shown))
	}
	b.WriteString(":\n\n")
	width := len(strconv.Itoa(min(len(p.lines), shown[len(shown)-1].last+2)))
	// A line is marked as a match when any match shown covers it, also
	// when it was printed as the context of the match before.
	matched := map[int]bool{}
	for _, m := range shown {
		for i := m.first; i <= m.last; i++ {
			matched[i] = true
		}
	}
	printed := -1 // the last line printed, 0-based
	for _, m := range shown {
		lo, hi := max(m.first-1, 0), min(m.last+1, len(p.lines)-1)
		if printed >= 0 && lo > printed+1 {
			b.WriteString("--\n")
		}
		for i := max(lo, printed+1); i <= hi; i++ {
			mark := "-"
			if matched[i] {
				mark = ":"
			}
			b.WriteString(strings.TrimRight(fmt.Sprintf("%*d%s %s", width, i+1, mark, tools.Clip(p.lines[i], findLineRunes)), " "))
			b.WriteByte('\n')
		}
		printed = max(printed, hi)
		det.Matches = append(det.Matches, FindMatch{Line: m.first + 1, Text: tools.Clip(strings.TrimSpace(p.lines[m.first]), findLineRunes)})
	}
	if len(shown) < len(matches) {
		fmt.Fprintf(&b, "[%d more matches not shown; use a longer pattern to narrow them]\n", len(matches)-len(shown))
	}
	text, _ := tools.CapText(strings.TrimRight(b.String(), "\n"), outMaxLines, outMaxBytes, "use a longer pattern to narrow the matches")
	return tools.TextResult(text).WithDetails(det)
}

// lineMatch is a match spanning lines first to last (0-based).
type lineMatch struct{ first, last int }

// findText finds needle (lower case, single spaces) in lines, read as one
// text where line breaks and runs of white space are single spaces.
func findText(lines []string, needle string) []lineMatch {
	var flat strings.Builder
	starts := make([]int, 0, len(lines)) // offset of each line in flat
	for _, l := range lines {
		starts = append(starts, flat.Len())
		flat.WriteString(strings.Join(strings.Fields(strings.ToLower(l)), " "))
		flat.WriteByte(' ')
	}
	text := flat.String()
	lineAt := func(off int) int {
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	var out []lineMatch
	for off := 0; off < len(text); {
		i := strings.Index(text[off:], needle)
		if i < 0 {
			break
		}
		start := off + i
		m := lineMatch{first: lineAt(start), last: lineAt(start + len(needle) - 1)}
		if n := len(out); n > 0 && out[n-1].last >= m.first {
			out[n-1].last = max(out[n-1].last, m.last) // a second match on the same line
		} else {
			out = append(out, m)
		}
		off = start + max(len(needle), 1)
	}
	return out
}
