package syntax

import (
	"strconv"
	"strings"
)

// This file reads Go from the tokens of gotoken.go: the declarations of
// the outline (a small parser of the top level: the package clause,
// imports, constants, variables, types with their struct fields and
// interface methods, functions and methods, bodies skipped by their
// braces), and, for calls and references, what each token is: a name a
// declaration introduces, a parameter list rather than a call.
// TestGoDifferential holds it to what go/parser and go/ast gave.

// gAnn is what the parser learnt about one token.
type gAnn struct {
	decl     bool  // an identifier that declares its name
	params   bool  // a "(" opening a parameter or result list, not a call
	top      bool  // a keyword that starts a top-level declaration
	hasOwner bool  // owner is set
	owner    int32 // the token naming the receiver type of a method's name or the type of a field's; -1 for none
}

// goDecl is a top-level declaration: tokens start to end, inclusive.
type goDecl struct {
	start, end int
	parent     string // the function's name as results show it ("" for others)
}

// parseGo scans and parses src. A file with syntax errors still yields
// what could be read, with err set.
func parseGo(_ string, src []byte) *goFile {
	g := scanGo(string(src))
	g.ann = make([]gAnn, len(g.toks))
	g.parseTop()
	if g.pkg >= 0 {
		g.annotate()
	}
	return g
}

// skipSemis is the first token from i that is not a semicolon.
func (g *goFile) skipSemis(i int) int {
	for i < len(g.toks) && g.toks[i].kind == gSemi {
		i++
	}
	return i
}

// off is the offset of token i (the end of the source past the last).
func (g *goFile) off(i int) int {
	if i >= len(g.toks) {
		return len(g.src)
	}
	return int(g.toks[i].off)
}

// resync is the first token from i that starts a line with a top-level
// keyword: where parsing resumes after a syntax error.
func (g *goFile) resync(i int) int {
	for ; i < len(g.toks); i++ {
		t := &g.toks[i]
		if t.first && t.kind == gKeyword {
			switch g.text(i) {
			case "func", "type", "var", "const", "import":
				return i
			}
		}
	}
	return len(g.toks)
}

// next is the index after token i, past the group it opens if it is a
// matched opening bracket.
func (g *goFile) next(i int) int {
	if m := int(g.toks[i].match); m > i {
		return m + 1
	}
	return i + 1
}

// parseTop reads the package clause and the top-level declarations into
// g.syms and g.top.
func (g *goFile) parseTop() {
	i := g.skipSemis(0)
	if !g.is(i, "package") {
		g.fail(g.off(i), "expected 'package', found %s", g.found(i))
		return
	}
	if g.kind(i+1) != gIdent || i+1 >= len(g.toks) {
		g.fail(g.off(i+1), "expected 'IDENT', found %s", g.found(i+1))
		return
	}
	g.pkg = i + 1
	name := g.text(i + 1)
	if i+2 < len(g.toks) && g.toks[i+2].kind != gSemi {
		g.fail(g.off(i+2), "expected ';', found %s", g.found(i+2))
		return
	}
	g.syms = []Symbol{{Kind: KindPackage, Name: name, Line: int(g.toks[i+1].line), Signature: "package " + name}}
	for i = i + 2; i < len(g.toks); {
		if g.toks[i].kind == gSemi {
			i++
			continue
		}
		start := i
		switch g.text(i) {
		case "import", "const", "var", "type":
			if g.toks[i].kind != gKeyword {
				break
			}
			g.ann[i].top = true
			i = g.genDecl(i, true)
			g.top = append(g.top, goDecl{start: start, end: i - 1})
		case "func":
			if g.toks[i].kind != gKeyword {
				break
			}
			var parent string
			i, parent = g.funcDecl(i)
			g.top = append(g.top, goDecl{start: start, end: i - 1, parent: parent})
		}
		if i == start {
			g.fail(g.off(i), "expected declaration, found %s", g.found(i))
			i = g.resync(i + 1)
			continue
		}
		if i < len(g.toks) && g.toks[i].kind != gSemi {
			g.fail(g.off(i), "expected ';', found %s", g.found(i))
			i = g.resync(i)
		}
	}
}

// specEnd is the end (exclusive) of the specification or statement that
// starts at i: the next semicolon outside brackets, or limit.
func (g *goFile) specEnd(i, limit int) int {
	for i < limit && g.toks[i].kind != gSemi {
		i = g.next(i)
	}
	return min(i, limit)
}

// genDecl reads an import, const, var or type declaration at i and
// returns the index after it. top adds its outline.
func (g *goFile) genDecl(i int, top bool) int {
	kw := g.text(i)
	j := i + 1
	if g.is(j, "(") {
		end := int(g.toks[j].match)
		if end < 0 {
			end = g.resync(j + 1)
			if !top {
				end = len(g.toks)
			}
		}
		for k := j + 1; k < end; {
			if g.toks[k].kind == gSemi {
				k++
				continue
			}
			e := g.specEnd(k, end)
			g.spec(kw, k, e, top)
			k = e
		}
		if end < len(g.toks) && g.is(end, ")") {
			return end + 1
		}
		return end
	}
	e := g.specEnd(j, len(g.toks))
	if e > j {
		g.spec(kw, j, e, top)
	} else if top {
		g.fail(g.off(j), "expected %s specification, found %s", kw, g.found(j))
	}
	return e
}

// spec reads one specification, tokens a to e (exclusive).
func (g *goFile) spec(kw string, a, e int, top bool) {
	switch kw {
	case "import":
		p := a
		if g.kind(p) != gLit && p+1 < e {
			p++
		}
		if top && g.kind(p) == gLit {
			path, _ := strconv.Unquote(g.text(p))
			end := int(g.toks[p].end)
			g.syms = append(g.syms, Symbol{Kind: KindImport, Name: path, Line: int(g.toks[p].line), EndLine: g.lineAt(end), Signature: "import " + g.cut(int(g.toks[a].off), end)})
		}
	case "const", "var":
		var names []int
		for k := a; k < e && g.kind(k) == gIdent; k += 2 {
			names = append(names, k)
			g.ann[k].decl = true
			if g.is(k+1, "(") {
				g.ann[k+1].params = true // var x (T): a parenthesized type
			}
			if !g.is(k+1, ",") {
				break
			}
		}
		if !top {
			return
		}
		end := int(g.toks[e-1].end)
		sig := kw + " " + g.cut(int(g.toks[a].off), end)
		kind := KindVar
		if kw == "const" {
			kind = KindConst
		}
		for _, n := range names {
			g.syms = append(g.syms, Symbol{Kind: kind, Name: g.text(n), Line: int(g.toks[n].line), EndLine: g.lineAt(end), Signature: sig})
		}
	case "type":
		g.typeSpec(a, e, top)
	}
}

// typeSpec reads "Name [params] [=] Type", tokens a to e.
func (g *goFile) typeSpec(a, e int, top bool) {
	if g.kind(a) != gIdent {
		return
	}
	name := g.text(a)
	g.ann[a].decl = true
	if g.is(a+1, "(") {
		g.ann[a+1].params = true // type T (U): a parenthesized type
	}
	k := a + 1
	if g.is(k, "[") && g.isTypeParams(k) {
		g.fieldList(k)
		k = g.next(k)
	}
	if g.is(k, "=") {
		k++
	}
	kind, sigEnd, list := KindType, int(g.toks[e-1].end), -1
	if g.is(k+1, "{") && k+1 < e {
		switch {
		case g.is(k, "struct"):
			kind, sigEnd, list = KindStruct, int(g.toks[k+1].off), k+1
		case g.is(k, "interface"):
			kind, sigEnd, list = KindInterface, int(g.toks[k+1].off), k+1
		}
	}
	var entries []gField
	if list >= 0 {
		entries = g.fields(list, kind == KindInterface)
		for _, f := range entries {
			for _, n := range f.names {
				g.ann[n].hasOwner, g.ann[n].owner = true, int32(a)
			}
		}
	}
	if !top {
		return
	}
	g.syms = append(g.syms, Symbol{Kind: kind, Name: name, Line: int(g.toks[a].line), EndLine: g.lineAt(int(g.toks[e-1].end)), Signature: strings.TrimSpace("type " + g.cut(int(g.toks[a].off), sigEnd))})
	for _, f := range entries {
		end := int(g.toks[f.end-1].end)
		sig := g.cut(int(g.toks[f.start].off), end)
		if f.names == nil {
			g.syms = append(g.syms, Symbol{Kind: KindField, Name: g.embeddedName(f.typ, f.end), Line: int(g.toks[f.typ].line), EndLine: g.lineAt(end), Parent: name, Depth: 1, Signature: sig})
			continue
		}
		fk := KindField
		if f.method {
			fk = KindMethod
		}
		for _, n := range f.names {
			g.syms = append(g.syms, Symbol{Kind: fk, Name: g.text(n), Line: int(g.toks[n].line), EndLine: g.lineAt(end), Parent: name, Depth: 1, Signature: sig})
		}
	}
}

// isTypeParams reports whether the "[" at lb after a type's name opens
// type parameters rather than an array length, as go/parser decides.
func (g *goFile) isTypeParams(lb int) bool {
	rb := int(g.toks[lb].match)
	if rb < 0 || rb == lb+1 || g.kind(lb+1) != gIdent || rb == lb+2 {
		return false
	}
	n := lb + 2
	if g.kind(n) != gOp {
		return true
	}
	comma := false
	for k := n; k < rb; k = g.next(k) {
		if g.is(k, ",") {
			comma = true
		}
	}
	switch g.text(n) {
	case ",", "[", "~", "<-":
		return true
	case "*":
		if comma {
			return true
		}
		switch g.text(n + 1) {
		case "[", "struct", "func", "interface", "map", "chan", "~":
			return true
		}
		return false
	case "(":
		return comma
	}
	return false
}

// gField is one entry of a struct or interface: names (nil when
// embedded), the type's first token, and the entry's tokens start to end
// (exclusive, without the tag).
type gField struct {
	names      []int
	typ        int
	start, end int
	method     bool
}

// fields reads the entries of the struct or interface whose "{" is at
// lb, marking the names they declare.
func (g *goFile) fields(lb int, iface bool) []gField {
	rb := int(g.toks[lb].match)
	if rb < 0 {
		return nil
	}
	var out []gField
	for a := lb + 1; a < rb; {
		if g.toks[a].kind == gSemi {
			a++
			continue
		}
		b := g.specEnd(a, rb)
		te := b
		if !iface && te-1 > a && g.kind(te-1) == gLit {
			te-- // the tag
		}
		f := gField{typ: a, start: a, end: te}
		switch {
		case iface:
			if g.kind(a) == gIdent && g.is(a+1, "(") {
				f.names, f.typ, f.method = []int{a}, a+1, true
				g.funcParams(a + 1)
			}
		case g.kind(a) != gIdent:
			// embedded *T, or a mistake
		case a+1 == te || g.is(a+1, "."):
			// embedded T, pkg.T
		case g.is(a+1, ","):
			k := a
			for ; k < te && g.kind(k) == gIdent; k += 2 {
				f.names = append(f.names, k)
				if !g.is(k+1, ",") {
					break
				}
			}
			f.typ = k + 2
		case g.is(a+1, "["):
			if g.arrayField(a+1, te) {
				f.names, f.typ = []int{a}, a+1
			}
		default:
			f.names, f.typ = []int{a}, a+1
		}
		for _, n := range f.names {
			g.ann[n].decl = true
		}
		if f.names != nil && !f.method && g.is(f.typ, "(") {
			g.ann[f.typ].params = true // a parenthesized type, not a call
		}
		if te > a {
			out = append(out, f)
		}
		a = b
	}
	return out
}

// arrayField reports whether "name [" with the "[" at lb opens an array
// or slice type (a field or parameter name, then its type) rather than
// type arguments (an embedded or unnamed T[P]). end bounds the entry.
func (g *goFile) arrayField(lb, end int) bool {
	rb := int(g.toks[lb].match)
	if rb < 0 {
		return false
	}
	if rb == lb+1 {
		return true
	}
	for k := lb + 1; k < rb; k = g.next(k) {
		if g.is(k, ",") {
			return false
		}
	}
	return rb+1 < end
}

// embeddedName is the field name of the embedded type starting at token
// i: its last identifier.
func (g *goFile) embeddedName(i, end int) string {
	for i < end && g.is(i, "*") {
		i++
	}
	if g.kind(i) != gIdent || i >= end {
		return "?"
	}
	if g.is(i+1, ".") && g.kind(i+2) == gIdent && i+2 < end {
		i += 2
	}
	n := i + 1
	if g.is(n, "[") {
		n = g.next(n)
	}
	if n < end {
		return "?" // a union or another expression
	}
	return g.text(i)
}

// fieldList marks the names a parameter, result or type parameter list
// opened at i declares.
func (g *goFile) fieldList(i int) {
	g.ann[i].params = true
	end := int(g.toks[i].match)
	if end < 0 {
		return
	}
	type entry struct{ a, b int }
	var entries []entry
	named := false
	for a := i + 1; a < end; {
		b := a
		for b < end && !g.is(b, ",") {
			b = g.next(b)
		}
		b = min(b, end)
		if b > a {
			entries = append(entries, entry{a, b})
			if !named && b-a >= 2 && g.kind(a) == gIdent {
				switch {
				case g.is(a+1, "."):
				case g.is(a+1, "["):
					named = g.arrayField(a+1, b)
				default:
					named = true
				}
			}
		}
		a = b + 1
	}
	if !named {
		return
	}
	for _, e := range entries {
		if g.kind(e.a) == gIdent {
			g.ann[e.a].decl = true
			if g.is(e.a+1, "(") {
				g.ann[e.a+1].params = true // a parenthesized type, not a call
			}
		}
	}
}

// funcParams marks the parameter list opened at i and the result list
// after it, and returns the index after the parameters.
func (g *goFile) funcParams(i int) int {
	g.fieldList(i)
	c := int(g.toks[i].match)
	if c < 0 {
		return len(g.toks)
	}
	if g.is(c+1, "(") {
		g.fieldList(c + 1)
	}
	return c + 1
}

// funcDecl reads the function or method declaration at i. It returns the
// index after it and its name as results show it.
func (g *goFile) funcDecl(i int) (int, string) {
	g.ann[i].top = true
	k := i + 1
	recv, recvTok, star := "", -1, false
	method := false
	if g.is(k, "(") {
		method = true
		g.fieldList(k)
		recvTok, star = g.recvType(k)
		if recvTok >= 0 {
			recv = g.text(recvTok)
		}
		if int(g.toks[k].match) < 0 {
			return g.resync(k + 1), ""
		}
		k = int(g.toks[k].match) + 1
	}
	if g.kind(k) != gIdent || k >= len(g.toks) {
		g.fail(g.off(k), "expected 'IDENT', found %s", g.found(k))
		return g.resync(k), ""
	}
	name := k
	g.ann[name].decl = true
	g.ann[name].hasOwner, g.ann[name].owner = true, int32(recvTok)
	parent := g.text(name)
	switch {
	case recv != "" && star:
		parent = "(*" + recv + ")." + parent
	case recv != "":
		parent = recv + "." + parent
	}
	k++
	if g.is(k, "[") {
		g.fieldList(k)
		k = g.next(k)
	}
	if !g.is(k, "(") {
		g.fail(g.off(k), "expected '(', found %s", g.found(k))
		return g.resync(k), parent
	}
	if bad := g.badParam(k); bad >= 0 {
		g.fail(g.off(bad), "expected ')', found %s", g.found(bad))
		g.addFunc(method, name, recv, g.cut(int(g.toks[i].off), g.off(bad)), int(g.toks[max(bad-1, i)].end))
		return g.resync(bad), parent
	}
	k = g.funcParams(k)
	// The result, then the body.
	if g.is(k, "(") {
		k = g.next(k)
	} else {
		for k < len(g.toks) && g.toks[k].kind != gSemi {
			if g.is(k, "{") && !g.is(k-1, "struct") && !g.is(k-1, "interface") {
				break
			}
			k = g.next(k)
		}
	}
	if !g.is(k, "{") {
		end := int(g.toks[k-1].end)
		g.addFunc(method, name, recv, g.cut(int(g.toks[i].off), end), end)
		return k, parent
	}
	rb := int(g.toks[k].match)
	if rb < 0 {
		rb = g.resync(k+1) - 1
	}
	g.addFunc(method, name, recv, g.cut(int(g.toks[i].off), int(g.toks[k].off)), int(g.toks[rb].end))
	return rb + 1, parent
}

func (g *goFile) addFunc(method bool, name int, recv, sig string, end int) {
	kind := KindFunc
	if method {
		kind = KindMethod
	}
	g.syms = append(g.syms, Symbol{Kind: kind, Name: g.text(name), Line: int(g.toks[name].line), EndLine: g.lineAt(end), Parent: recv, Signature: sig})
}

// badParam is the first token of the parameter list at i that cannot be
// in one (a line end without a comma, a "{" that opens no type), or -1.
func (g *goFile) badParam(i int) int {
	end := int(g.toks[i].match)
	if end < 0 {
		end = len(g.toks)
	}
	for k := i + 1; k < end; k = g.next(k) {
		switch {
		case g.toks[k].kind == gSemi:
			return k
		case g.is(k, "{") && !g.is(k-1, "struct") && !g.is(k-1, "interface"):
			return k
		}
	}
	return -1
}

// recvType is the token of the receiver's type name ("T" in (t *T[K]))
// of the receiver list at i (-1 when it has none), and whether it is a
// pointer.
func (g *goFile) recvType(i int) (int, bool) {
	end := int(g.toks[i].match)
	if end < 0 {
		return -1, false
	}
	// The first parameter's type: its first entry's, or in a named list
	// (a, b T) the first entry's with a type.
	type entry struct{ a, b int }
	var entries []entry
	named := -1
	for a := i + 1; a < end; {
		b := a
		for b < end && !g.is(b, ",") {
			b = g.next(b)
		}
		entries = append(entries, entry{a, b})
		if named < 0 && b-a >= 2 && g.kind(a) == gIdent && !g.is(a+1, ".") && !(g.is(a+1, "[") && !g.arrayField(a+1, b)) {
			named = len(entries) - 1
		}
		a = b + 1
	}
	if len(entries) == 0 {
		return -1, false
	}
	a, b := entries[0].a, entries[0].b
	if named >= 0 {
		a, b = entries[named].a+1, entries[named].b
	}
	star := g.is(a, "*")
	for a < b && (g.is(a, "*") || g.is(a, "(")) {
		a++
	}
	if a >= b || g.kind(a) != gIdent || g.is(a+1, ".") {
		return -1, star
	}
	return a, star
}

// annotate marks, over all tokens, the names declared by parameters,
// fields, interface methods, var, const and type specifications and :=,
// and the parameter lists of function types and literals.
func (g *goFile) annotate() {
	for i := g.pkg + 1; i < len(g.toks); i++ {
		t := &g.toks[i]
		switch t.kind {
		case gKeyword:
			switch g.text(i) {
			case "func":
				if !g.ann[i].top && g.is(i+1, "(") {
					g.funcParams(i + 1)
				}
			case "struct":
				if g.is(i+1, "{") {
					g.fields(i+1, false)
				}
			case "interface":
				if g.is(i+1, "{") {
					g.fields(i+1, true)
				}
			case "var", "const", "type":
				if g.ann[i].top {
					break
				}
				if g.text(i) == "type" && g.is(i-1, "(") && g.is(i-2, ".") {
					break // x.(type)
				}
				g.genDecl(i, false)
			}
		case gOp:
			if g.text(i) == ":=" {
				for j := i - 1; g.kind(j) == gIdent && j > g.pkg; j -= 2 {
					g.ann[j].decl = true
					if !g.is(j-1, ",") {
						break
					}
				}
			}
		}
	}
}

// goOutline lists the package clause, imports, constants, variables, types
// (with struct fields and interface methods) and functions of g.
func goOutline(g *goFile) []Symbol {
	return g.syms
}
