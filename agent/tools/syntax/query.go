package syntax

import (
	"fmt"
	"strings"
)

// query is a parsed query of the ast tool's small language:
//
//	func:NAME        functions and methods named NAME
//	method:T.NAME    methods of T (method:NAME: of any type)
//	type:NAME        types: struct, interface, class, enum, trait, union, alias
//	field:T.NAME     fields and enum variants (T optional)
//	var:NAME         variables; const:NAME constants and #define macros
//	import:PATH      imports whose path, or its last element, is PATH
//	call:X.NAME      calls of NAME whose receiver or package ends in X;
//	                 call:NAME is any call of NAME, call:pkg.* all calls into pkg
//	NAME, T.NAME     any declaration with that name (of T)
//
// NAME, T and X may hold the wildcards * (any run of characters) and ?
// (one character). Names are case-sensitive. "::" may stand for ".".
type query struct {
	kind string // "" for any declaration
	qual string // pattern for the enclosing type or receiver; "" for any
	name string // pattern for the name (for import, the path)
	path []string
	raw  string
}

// queryKinds are the prefixes of the query language.
var queryKinds = []string{"func", "method", "type", "field", "var", "const", "import", "call"}

// parseQuery parses s; errors are worded for the model.
func parseQuery(s string) (query, error) {
	q := query{raw: strings.TrimSpace(s)}
	rest := q.raw
	if k, r, ok := strings.Cut(rest, ":"); ok && !strings.HasPrefix(r, ":") && isQueryWord(k) {
		if !contains(queryKinds, k) {
			return q, fmt.Errorf("unknown query kind %q; use one of %s followed by \":\" and a name, for example call:fmt.Errorf or method:Server.Close", k, strings.Join(queryKinds, ", "))
		}
		q.kind, rest = k, strings.TrimSpace(r)
	}
	if rest == "" {
		return q, fmt.Errorf("query %q has no name; write for example func:Parse, type:Config or call:os.Open", q.raw)
	}
	if strings.ContainsAny(rest, " \t\n\r") {
		return q, fmt.Errorf("query %q holds white space; a query is one name such as call:fmt.Errorf (use the grep tool for text)", q.raw)
	}
	if q.kind == "import" {
		q.name = rest
		return q, nil
	}
	q.path = strings.Split(strings.ReplaceAll(rest, "::", "."), ".") // Rust and C++ paths: a::b
	for _, p := range q.path {
		if p == "" {
			return q, fmt.Errorf("query %q has an empty part between dots", q.raw)
		}
	}
	q.name = q.path[len(q.path)-1]
	if len(q.path) > 1 {
		q.qual = q.path[len(q.path)-2]
		if q.kind != "call" && len(q.path) > 2 {
			return q, fmt.Errorf("query %q has too many parts: write TYPE.NAME (only call: takes a longer path such as call:a.b.Name)", q.raw)
		}
	}
	return q, nil
}

func isQueryWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matchSymbol reports whether the declaration s is what q asks for.
func (q query) matchSymbol(s Symbol) bool {
	switch q.kind {
	case "":
		if s.Kind == KindImport || s.Kind == KindPackage || s.Kind == KindImpl {
			return false
		}
	case "func":
		if s.Kind != KindFunc && s.Kind != KindMethod {
			return false
		}
	case "method":
		if s.Kind != KindMethod {
			return false
		}
	case "type":
		if !isTypeKind(s.Kind) {
			return false
		}
	case "field":
		if s.Kind != KindField && s.Kind != KindVariant {
			return false
		}
	case "var":
		if s.Kind != KindVar {
			return false
		}
	case "const":
		if s.Kind != KindConst && s.Kind != KindMacro {
			return false
		}
	case "import":
		if s.Kind != KindImport {
			return false
		}
		last := s.Name
		if i := strings.LastIndexAny(last, "/.:"); i >= 0 && i+1 < len(last) {
			last = last[i+1:]
		}
		return matchGlob(q.name, s.Name) || matchGlob(q.name, last)
	default:
		return false
	}
	return matchGlob(q.name, s.Name) && (q.qual == "" || matchGlob(q.qual, s.Parent))
}

// matchPath reports whether a callee path ends with q's path.
func (q query) matchPath(path []string) bool {
	if len(q.path) > len(path) {
		return false
	}
	off := len(path) - len(q.path)
	for i, p := range q.path {
		if !matchGlob(p, path[off+i]) {
			return false
		}
	}
	return true
}

// matchGlob matches s against pattern, where * is any run of characters
// and ? one character.
func matchGlob(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return pattern == s
	}
	p, n := []rune(pattern), []rune(s)
	// Iterative matching with one backtrack point for the last star.
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
