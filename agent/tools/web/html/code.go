package html

import "strings"

// inlineCode writes `code`.
func (r *renderer) inlineCode(i int32) {
	var b strings.Builder
	r.t.gather(i, &b)
	s := collapseSpace(b.String())
	if s == "" {
		return
	}
	tick := "`"
	for strings.Contains(s, tick) {
		tick += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	r.word(tick + s + tick)
}

// code writes a <pre> as a fenced code block, its text kept verbatim.
func (r *renderer) code(i int32) {
	var b strings.Builder
	r.t.gather(i, &b)
	s := strings.TrimPrefix(b.String(), "\n")
	s = strings.TrimRight(s, " \t\n")
	if strings.TrimSpace(s) == "" {
		return
	}
	if r.flat > 0 {
		r.inline([]byte(s))
		return
	}
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	r.block(2)
	r.word(fence + r.t.codeLanguage(i))
	for _, line := range strings.Split(s, "\n") {
		r.out = append(r.out, '\n')
		r.out = append(r.out, r.indent...)
		r.out = append(r.out, line...)
	}
	r.out = append(r.out, '\n')
	r.out = append(r.out, r.indent...)
	r.out = append(r.out, fence...)
	r.lineStart = false
	r.block(2)
}

// codeLanguage finds a "language-x" or "lang-x" class on a pre or on the
// code element inside it.
func (t *tree) codeLanguage(i int32) string {
	try := func(n *node) string {
		for _, c := range strings.Fields(t.attr(n, aClass)) {
			for _, p := range [...]string{"language-", "lang-", "highlight-source-"} {
				if l, ok := strings.CutPrefix(c, p); ok && l != "" {
					return l
				}
			}
		}
		return ""
	}
	if l := try(&t.nodes[i]); l != "" {
		return l
	}
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].tag == tagCode {
			return try(&t.nodes[c])
		}
	}
	return ""
}
