package syntax

import (
	"sort"
	"strings"
)

// This file finds, in the tokens of a Go file, the calls (a "(" after a
// primary expression that is no parameter list, the called name read
// backwards through selectors, indexes and parentheses) and the
// references (every identifier, with what annotate learnt of it), in the
// order go/ast's Inspect visited them.

// parentOf is the name of the function whose declaration holds token i.
func (g *goFile) parentOf(i int, d *int) string {
	for *d < len(g.top) && g.top[*d].end < i {
		*d++
	}
	if *d < len(g.top) && g.top[*d].start <= i {
		return g.top[*d].parent
	}
	return ""
}

// exprEnd reports whether token i can end an operand, so that a "(" or
// "[" after it is a call or an index.
func (g *goFile) exprEnd(i int) bool {
	switch g.kind(i) {
	case gIdent, gLit:
		return i >= 0 && i < len(g.toks)
	case gOp:
		switch g.text(i) {
		case ")", "]", "}":
			return true
		}
	}
	return false
}

// exprStart is the first token of the primary expression (operand,
// selectors, indexes, calls) that ends at token j.
func (g *goFile) exprStart(j int) int {
	if j < 0 || j >= len(g.toks) {
		return j
	}
	switch t := &g.toks[j]; t.kind {
	case gIdent:
		if g.is(j-1, ".") && j-2 > g.pkg {
			return g.exprStart(j - 2)
		}
		return j
	case gOp:
		k := int(t.match)
		if k < 0 || k > j {
			return j
		}
		switch g.text(j) {
		case ")":
			switch p := k - 1; {
			case g.exprEnd(p):
				return g.exprStart(p)
			case g.is(p, "."):
				return g.exprStart(p - 1)
			case g.is(p, "func"):
				return p
			}
			return k
		case "]":
			if g.exprEnd(k - 1) {
				return g.exprStart(k - 1)
			}
			return k
		case "}":
			p := k - 1
			if g.is(p, "struct") || g.is(p, "interface") {
				return p
			}
			if !g.exprEnd(p) {
				return k
			}
			s := g.exprStart(p)
			for g.is(s-1, "]") {
				m := int(g.toks[s-1].match)
				switch {
				case m < 0:
					return s
				case g.is(m-1, "map"):
					s = m - 1
				case !g.exprEnd(m - 1):
					s = m
				default:
					return s
				}
			}
			return s
		}
	}
	return j
}

// callee is the dotted name of the expression ending at token j, as a
// call's function: ["fmt", "Errorf"] for fmt.Errorf, ["…", "Close"] for
// f().Close; nil when it is no name.
func (g *goFile) callee(j int) []string {
	if j < 0 || j >= len(g.toks) {
		return nil
	}
	switch t := &g.toks[j]; t.kind {
	case gIdent:
		if g.is(j-1, ".") && j-2 > g.pkg {
			p := g.callee(j - 2)
			if p == nil {
				p = []string{"…"}
			}
			return append(p, g.text(j))
		}
		return []string{g.text(j)}
	case gOp:
		k := int(t.match)
		if k < 0 || k > j {
			return nil
		}
		switch g.text(j) {
		case ")":
			p := k - 1
			if g.exprEnd(p) || g.is(p, ".") || g.is(p, "func") || j-1 == k {
				return nil
			}
			if g.exprStart(j-1) == k+1 {
				return g.callee(j - 1)
			}
		case "]":
			if g.exprEnd(k-1) && k+1 < j && !g.hasTop(k, ":") {
				return g.callee(k - 1) // an index, not a slice expression
			}
		}
	}
	return nil
}

// hasTop reports whether the group opened at token i holds op outside
// inner brackets.
func (g *goFile) hasTop(i int, op string) bool {
	end := int(g.toks[i].match)
	for k := i + 1; k < end; k = g.next(k) {
		if g.is(k, op) {
			return true
		}
	}
	return false
}

// goCalls lists the calls in g that q matches.
func goCalls(g *goFile, q query) []Symbol {
	if g.pkg < 0 {
		return nil
	}
	type call struct {
		sym        Symbol
		start, end int
	}
	var found []call
	d := 0
	for i := g.pkg + 1; i < len(g.toks); i++ {
		if !g.is(i, "(") || g.ann[i].params || g.kind(i-1) == gKeyword || g.is(i-1, ".") {
			continue
		}
		rp := int(g.toks[i].match)
		if rp < 0 {
			continue
		}
		path := g.callee(i - 1)
		if path == nil || !q.matchPath(path) {
			continue
		}
		s := g.exprStart(i - 1)
		if g.isTypeBefore(s) {
			continue // a conversion to []T, map[K]V, chan T
		}
		found = append(found, call{Symbol{Kind: KindCall, Name: strings.Join(path, "."), Line: int(g.toks[s].line), Parent: g.parentOf(i, &d), Signature: g.cut(int(g.toks[s].off), int(g.toks[rp].end))}, s, rp})
	}
	// In the order of the syntax tree: a call before the calls inside it.
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	var out []Symbol
	for _, c := range found {
		out = append(out, c.sym)
	}
	return out
}

// isTypeBefore reports whether the name starting at token s is the
// element of a type: []T, [N]*T, map[K]V, chan T.
func (g *goFile) isTypeBefore(s int) bool {
	p := s - 1
	for g.is(p, "*") {
		p--
	}
	switch {
	case g.is(p, "chan"):
		return true
	case g.is(p, "]"):
		if p == s-1 {
			return true
		}
		m := int(g.toks[p].match)
		return m >= 0 && (g.is(m-1, "map") || !g.exprEnd(m-1))
	}
	return false
}

// goRefs lists the identifiers named like q (with q's qualifier, the
// selector's operand or the declaring type must match it too), marking
// those that declare the name.
func goRefs(g *goFile, q query) []Symbol {
	if g.pkg < 0 {
		return nil
	}
	var out []Symbol
	d := 0
	for i := g.pkg + 1; i < len(g.toks); i++ {
		t := &g.toks[i]
		if t.kind != gIdent && !(g.is(i, ".") && g.kind(i+1) == gLit && g.inImport(i)) {
			continue
		}
		name := g.text(i)
		if !matchGlob(q.name, name) {
			continue
		}
		if q.qual != "" {
			a := &g.ann[i]
			ok := a.hasOwner && matchGlob(q.qual, g.ownerName(a.owner))
			if !ok && t.kind == gIdent && g.is(i-1, ".") && i-2 > g.pkg {
				if p := g.callee(i - 2); p != nil && matchGlob(q.qual, p[len(p)-1]) {
					ok = true
				}
			}
			if !ok {
				continue
			}
		}
		kind := KindRef
		if g.ann[i].decl {
			kind = KindDecl
		}
		out = append(out, Symbol{Kind: kind, Name: name, Line: int(t.line), Parent: g.parentOf(i, &d), Signature: lineText(g.src, int(t.off))})
	}
	return out
}

// ownerName is the text of an owner token, "" for none.
func (g *goFile) ownerName(i int32) string {
	if i < 0 {
		return ""
	}
	return g.text(int(i))
}

// inImport reports whether token i is in an import declaration.
func (g *goFile) inImport(i int) bool {
	for _, d := range g.top {
		if d.start <= i && i <= d.end {
			return g.is(d.start, "import")
		}
	}
	return false
}
