package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// Limits of a page view.
const (
	viewMaxLines = 200
	viewMaxBytes = 24 << 10
	viewMaxLinks = 100
	// The cap of a whole result, a safety net over the limits above.
	outMaxLines = 500
	outMaxBytes = 40 << 10
)

// view shows a page from line from (1-based): a header naming it, its
// lines numbered, and the links that those lines mention.
func (w *Web) view(tool string, l *loaded, from int, clicked *ClickedLink) tools.Result {
	p := l.page
	total := len(p.lines)
	if from > max(total, 1) {
		return tools.ErrorResult("%s: line %d is past the end of %s, which has %s", tool, from, l.id, tools.Plural(total, "line"))
	}
	var b strings.Builder
	if clicked != nil {
		fmt.Fprintf(&b, "clicked link [%d] %q on %s\n", clicked.ID, clicked.Text, clicked.From)
	}
	if p.status >= 400 {
		fmt.Fprintf(&b, "HTTP %d %s: the server answered with an error; its page follows\n", p.status, p.statusMsg)
	}
	fmt.Fprintf(&b, "ref_id: %s\n", l.id)
	if p.title != "" {
		fmt.Fprintf(&b, "title: %s\n", p.title)
	}
	if refURL, _ := parseRef(l.id); refURL != p.url {
		fmt.Fprintf(&b, "url: %s\n", p.url)
	}
	if len(p.redirects) > 0 {
		fmt.Fprintf(&b, "redirected from: %s\n", strings.Join(p.redirects, " -> "))
	}
	var notes []string
	for _, n := range []string{l.note, p.note} {
		if n != "" {
			notes = append(notes, n)
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	det := PageDetails{RefID: l.id, URL: p.url, Title: p.title, ContentType: p.mediaType, Size: p.size,
		Status: p.status, Lines: total, Links: len(p.links), Redirects: p.redirects,
		Note: strings.Join(notes, "; "), Clicked: clicked, Head: []string{}}
	if total == 0 {
		fmt.Fprintf(&b, "%s, %s, no text\n\n(the page has no readable text; it may build its content with JavaScript, which web_open does not run)\n", p.mediaType, p.size)
		return w.result(tool, b.String(), p.status, det)
	}

	start, end, size := from-1, from-1, 0
	width := len(strconv.Itoa(min(total, start+viewMaxLines)))
	var window []string
	for end < total && end-start < viewMaxLines {
		line := strings.TrimRight(fmt.Sprintf("%*d  %s", width, end+1, p.lines[end]), " ")
		if size+len(line)+1 > viewMaxBytes && end > start {
			break
		}
		size += len(line) + 1
		window = append(window, line)
		end++
	}
	fmt.Fprintf(&b, "lines %d-%d of %d (%s, %s)\n\n", start+1, end, total, p.mediaType, p.size)
	for _, line := range window {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	det.Head = headLines(p.lines[start:end], 5)
	det.From, det.To = start+1, end
	if end < total {
		fmt.Fprintf(&b, "[showed lines %d-%d of %d; to read on, call %s with ref_id %q and line %d]\n", start+1, end, total, "web_open", l.id, end+1)
	}
	if ids := linkIDs(p.lines[start:end], len(p.links)); len(ids) > 0 {
		b.WriteString("\nlinks on these lines (follow one with web_click, this ref_id and its id):\n")
		for i, id := range ids {
			if i == viewMaxLinks {
				fmt.Fprintf(&b, "[%d more links not listed]\n", len(ids)-i)
				break
			}
			fmt.Fprintf(&b, "[%d]: %s\n", id, p.links[id-1].URL)
		}
	}
	return w.result(tool, b.String(), p.status, det)
}

// result caps a view and wraps it with its details; an HTTP error status
// makes it an error result.
func (w *Web) result(tool, text string, status int, det PageDetails) tools.Result {
	text, _ = tools.CapText(strings.TrimRight(text, "\n"), outMaxLines, outMaxBytes, "call "+tool+" with a later line for the rest")
	r := tools.TextResult(text)
	r.IsError = status >= 400
	return r.WithDetails(det)
}

// headLines returns the first n non-blank lines of lines, trimmed.
func headLines(lines []string, n int) []string {
	head := []string{}
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			head = append(head, t)
			if len(head) == n {
				break
			}
		}
	}
	return head
}

// linkIDs returns the link ids written "][n]" in lines, in order of first
// appearance, keeping those in 1..count.
func linkIDs(lines []string, count int) []int {
	var ids []int
	seen := map[int]bool{}
	for _, l := range lines {
		for {
			i := strings.Index(l, "][")
			if i < 0 {
				break
			}
			l = l[i+2:]
			j := 0
			for j < len(l) && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j == 0 || j >= len(l) || l[j] != ']' {
				continue
			}
			id, err := strconv.Atoi(l[:j])
			if err == nil && id >= 1 && id <= count && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
			l = l[j:]
		}
	}
	return ids
}
