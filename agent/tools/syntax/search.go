package syntax

import (
	"strings"
)

// fileResult is what one file yields for one call.
type fileResult struct {
	symbols []Symbol
	lines   int
	// broken is the first syntax error of a Go file that parsed only in
	// part ("" when it parsed).
	broken string
}

// analyze runs action (with q) over one file's source. display is the
// path shown to the model.
func analyze(action string, q query, lang *language, display string, src []byte) fileResult {
	res := fileResult{lines: countLines(src)}
	if lang.exact {
		g := parseGo(display, src)
		if g.err != nil {
			res.broken = g.err.String()
		}
		switch action {
		case "outline":
			res.symbols = goOutline(g)
		case "find", "definition":
			if q.kind == "call" {
				res.symbols = goCalls(g, q)
			} else {
				res.symbols = filter(goOutline(g), q)
			}
		case "references":
			res.symbols = goRefs(g, q)
		}
	} else {
		s := string(src)
		toks := lex(lang.lex, s)
		outline := lang.outline(toks, s)
		switch action {
		case "outline":
			res.symbols = outline
		case "find", "definition":
			if q.kind == "call" {
				res.symbols = tokenCalls(toks, outline, s, q)
			} else {
				res.symbols = filter(outline, q)
			}
		case "references":
			res.symbols = tokenRefs(toks, outline, s, q)
		}
	}
	if action == "references" { // one line per line: self.x = x
		kept := res.symbols[:0]
		for i, s := range res.symbols {
			if i == 0 || s.Line != res.symbols[i-1].Line {
				kept = append(kept, s)
			}
		}
		res.symbols = kept
	}
	for i := range res.symbols {
		res.symbols[i].File = display
	}
	return res
}

func countLines(src []byte) int {
	n := 0
	for _, c := range src {
		if c == '\n' {
			n++
		}
	}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// filter keeps the declarations q matches.
func filter(syms []Symbol, q query) []Symbol {
	var out []Symbol
	for _, s := range syms {
		if q.matchSymbol(s) {
			s.Depth = 0
			out = append(out, s)
		}
	}
	return out
}

// callKeywords stand before "(" without being calls.
func callKeywords() map[string]bool {
	return callKeywordsLazy.get(func() map[string]bool {
		return map[string]bool{"if": true, "elif": true, "for": true, "while": true, "switch": true,
			"return": true, "sizeof": true, "catch": true, "function": true, "def": true, "fn": true,
			"class": true, "typeof": true, "and": true, "or": true, "not": true, "in": true, "is": true,
			"with": true, "assert": true, "del": true, "yield": true, "await": true,
			"match": true, "case": true, "except": true, "defined": true, "alignof": true, "decltype": true,
			"throw": true, "else": true, "do": true, "import": true,
			"synchronized": true, "instanceof": true, "void": true, "struct": true, "union": true, "enum": true,
			"__attribute__": true, "__declspec": true, "alignas": true, "static_assert": true, "noexcept": true}
	})
}

var callKeywordsLazy lazy[map[string]bool]

// declOffsets are the offsets of the outline's name tokens.
func declOffsets(outline []Symbol) map[int]bool {
	m := make(map[int]bool, len(outline))
	for _, s := range outline {
		m[s.nameOff] = true
	}
	return m
}

// funcRanges are the functions and methods of an outline, for enclosing.
type funcRanges []Symbol

func functions(outline []Symbol) funcRanges {
	var fs funcRanges
	for _, s := range outline {
		if (s.Kind == KindFunc || s.Kind == KindMethod) && s.EndLine >= s.Line {
			fs = append(fs, s)
		}
	}
	return fs
}

// enclosing names the innermost function or method whose lines hold line.
func (fs funcRanges) enclosing(line int) string {
	best, bestLine := "", -1
	for _, s := range fs {
		if s.Line <= line && line <= s.EndLine && s.Line > bestLine {
			best, bestLine = s.Name, s.Line
			if s.Parent != "" && s.Kind == KindMethod {
				best = s.Parent + "." + s.Name
			}
		}
	}
	return best
}

// isAccess reports whether t joins a name to its qualifier: . :: -> ?.
func isAccess(t token) bool {
	if t.kind != tPunct {
		return false
	}
	switch t.text {
	case ".", "::", "->", "?.":
		return true
	}
	return false
}

// tokenCalls lists the calls q matches in a tokenizer language: an
// identifier followed by "(" (a Rust macro: by "!" and a bracket) that is
// not a keyword or a declared name, with the names before it joined by
// ".", "::", "->" or "?." as its path.
func tokenCalls(toks []token, outline []Symbol, src string, q query) []Symbol {
	decls := declOffsets(outline)
	fns := functions(outline)
	var out []Symbol
	for k := 0; k+1 < len(toks); k++ {
		t := toks[k]
		if t.kind != tIdent || callKeywords()[t.text] || decls[t.off] {
			continue
		}
		open := k + 1
		isCall := toks[open].kind == tPunct && toks[open].text == "("
		if !isCall && toks[open].text == "!" && open+1 < len(toks) {
			switch toks[open+1].text {
			case "(", "[", "{":
				open, isCall = open+1, true
			}
		}
		if !isCall {
			continue
		}
		if k > 0 && (isWord(toks[k-1], "def") || isWord(toks[k-1], "fn") || isWord(toks[k-1], "function")) {
			continue
		}
		start := k
		path := []string{strings.TrimPrefix(t.text, "r#")}
		for start >= 2 && isAccess(toks[start-1]) && toks[start-2].kind == tIdent {
			start -= 2
			path = append([]string{toks[start].text}, path...)
		}
		if start >= 1 && isAccess(toks[start-1]) { // f().g(): the receiver is an expression
			path = append([]string{"…"}, path...)
		}
		if !q.matchPath(path) {
			continue
		}
		end := open + 1
		for depth := 1; end < len(toks) && depth > 0 && end-open < 200; end++ {
			switch toks[end].text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
		out = append(out, Symbol{Kind: KindCall, Name: strings.Join(path, "."), Line: t.line,
			Parent: fns.enclosing(t.line), Signature: joinTokens(toks[start:end])})
	}
	return out
}

// tokenRefs lists the identifiers q names in a tokenizer language; with a
// qualifier, only those written after it (x.name, T::name) or declared
// inside it.
func tokenRefs(toks []token, outline []Symbol, src string, q query) []Symbol {
	decls := map[int]bool{}
	for _, s := range outline {
		if s.Kind != KindImpl && (q.qual == "" || matchGlob(q.qual, s.Parent)) {
			decls[s.nameOff] = true
		}
	}
	fns := functions(outline)
	var out []Symbol
	for k, t := range toks {
		if t.kind != tIdent {
			continue
		}
		name := strings.TrimPrefix(t.text, "r#")
		if !matchGlob(q.name, name) {
			continue
		}
		qualified := k >= 2 && isAccess(toks[k-1]) && toks[k-2].kind == tIdent && matchGlob(q.qual, toks[k-2].text)
		if q.qual != "" && !qualified && !decls[t.off] {
			continue
		}
		kind := KindRef
		if decls[t.off] {
			kind = KindDecl
		}
		out = append(out, Symbol{Kind: kind, Name: name, Line: t.line, Parent: fns.enclosing(t.line), Signature: lineText(src, t.off)})
	}
	return out
}
