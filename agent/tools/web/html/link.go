package html

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
)

// linkSet numbers the links of a page.
type linkSet struct {
	list []Link
	ids  map[string]int
}

func (s *linkSet) add(u, text string) int {
	if id, ok := s.ids[u]; ok {
		return id
	}
	s.list = append(s.list, Link{Text: collapseSpace(text), URL: u})
	s.ids[u] = len(s.list)
	return len(s.list)
}

// link writes [text][n] for a link the model can follow, else its text.
func (r *renderer) link(i int32) {
	n := &r.t.nodes[i]
	u, ok := r.resolve(n)
	if !ok {
		r.children(i)
		return
	}
	mark := len(r.out)
	r.glue += "["
	r.flat++
	r.inLink++
	r.children(i)
	r.inLink--
	r.flat--
	if strings.HasSuffix(r.glue, "[") { // no text was written
		r.glue = strings.TrimSuffix(r.glue, "[")
		label := ""
		label = collapseSpace(r.t.attr(n, aLabel))
		if label == "" {
			label = collapseSpace(r.t.attr(n, aTitle))
		}
		if label != "" {
			r.word("[" + label + "][" + strconv.Itoa(r.links.add(u, label)) + "]")
		}
		return
	}
	written := r.out[mark:]
	if k := bytes.IndexByte(written, '['); k >= 0 {
		written = written[k+1:]
	}
	id := r.links.add(u, string(written))
	suffix := "][" + strconv.Itoa(id) + "]"
	r.out = append(r.out, suffix...)
	r.col += len(suffix)
}

// resolve returns the absolute URL of a link, and whether it is one the
// model can open: http or https, and not into the page itself.
func (r *renderer) resolve(n *node) (string, bool) {
	href := r.t.attr(n, aHref)
	if u, ok := r.resolved[href]; ok {
		return u, u != ""
	}
	u, ok := r.resolveHref(strings.TrimSpace(href))
	if len(r.resolved) < 1<<14 {
		r.resolved[href] = u
	}
	return u, ok
}

func (r *renderer) resolveHref(href string) (string, bool) {
	if href == "" || href[0] == '#' {
		return "", false
	}
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	if r.base != nil {
		u = r.base.ResolveReference(u)
	} else if u.Scheme == "" {
		return u.String(), true
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", false
	}
	s := u.String()
	if r.page != "" {
		v := *u
		v.Fragment, v.RawFragment = "", ""
		if v.String() == r.page && u.Fragment != "" {
			return "", false
		}
	}
	return s, true
}
