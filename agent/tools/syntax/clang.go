package syntax

import (
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// The rules for C and C++. Shown: #include and #define lines; functions
// (definitions and prototypes, with Class::method definitions marked as
// methods of Class); structs, classes, unions and enums (with members and
// enumerators), typedefs and using aliases; namespaces (with their contents); variables at file level. Templates, attributes,
// access specifiers and constructor initializer lists are understood;
// macros that hide syntax are not expanded, so code that relies on them is
// outlined as written.

var cRules = &braceRules{brace: cBrace, item: cItem, tail: cTail, directive: cDirective, label: cLabel}

func outlineC(toks []token, src string) []Symbol { return outlineBraces(toks, cRules) }

// cModifiers are the words skipped before a declaration.
func cModifiers() map[string]bool {
	return cModifiersLazy.get(func() map[string]bool {
		return map[string]bool{"static": true, "inline": true, "extern": true, "virtual": true,
			"explicit": true, "constexpr": true, "consteval": true, "constinit": true, "friend": true,
			"mutable": true, "thread_local": true, "register": true, "typename": true, "__inline": true,
			"__forceinline": true, "_Noreturn": true, "__extension__": true}
	})
}

var cModifiersLazy lazy[map[string]bool]

// cNotNames are keywords that can stand before "(" without naming a
// function: control statements, operators and casts.
func cNotNames() map[string]bool {
	return cNotNamesLazy.get(func() map[string]bool {
		return map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true,
			"sizeof": true, "alignof": true, "_Alignof": true, "catch": true, "do": true, "else": true,
			"decltype": true, "typeof": true, "__typeof__": true, "static_assert": true, "_Static_assert": true,
			"noexcept": true, "throw": true, "new": true, "delete": true, "case": true, "goto": true,
			"__attribute__": true, "__declspec": true, "alignas": true, "asm": true, "__asm__": true, "defined": true}
	})
}

var cNotNamesLazy lazy[map[string]bool]

// cCore strips template prefixes, attributes and modifiers from h.
func cCore(h []token) []token {
	for len(h) > 0 {
		t := h[0]
		switch {
		case isWord(t, "template"):
			if len(h) > 1 && h[1].text == "<" {
				h = h[skipBalanced(h, 1):]
			} else {
				h = h[1:]
			}
		case t.text == "[" && len(h) > 1 && h[1].text == "[":
			h = h[skipBalanced(h, 0):]
		case (isWord(t, "__attribute__") || isWord(t, "__declspec") || isWord(t, "alignas")) && len(h) > 1 && h[1].text == "(":
			h = h[skipBalanced(h, 1):]
		case isWord(t, "extern") && len(h) > 2 && h[1].kind == tString:
			h = h[2:]
		case t.kind == tIdent && cModifiers()[t.text]:
			h = h[1:]
		default:
			return h
		}
	}
	return h
}

// cClassKinds are the keywords that declare a type with a body.
func cClassKinds() map[string]string {
	return cClassKindsLazy.get(func() map[string]string {
		return map[string]string{"struct": KindStruct, "class": KindClass, "union": KindUnion, "enum": KindEnum}
	})
}

var cClassKindsLazy lazy[map[string]string]

// cClassHead recognises "struct Name : Base", "enum class E : int",
// "typedef struct { ...": it returns the kind, the index of the name in h
// (-1 when anonymous) and whether h is such a head.
func cClassHead(h []token) (kind string, name int, ok bool) {
	k := 0
	if k < len(h) && isWord(h[k], "typedef") {
		k++
	}
	if k >= len(h) || h[k].kind != tIdent || cClassKinds()[h[k].text] == "" {
		return "", -1, false
	}
	kind = cClassKinds()[h[k].text]
	k++
	if kind == KindEnum && k < len(h) && (isWord(h[k], "class") || isWord(h[k], "struct")) {
		k++
	}
	name = -1
	for ; k < len(h); k++ {
		t := h[k]
		switch {
		case t.text == "[" && k+1 < len(h) && h[k+1].text == "[":
			k = skipBalanced(h, k) - 1
		case (isWord(t, "alignas") || isWord(t, "__attribute__") || isWord(t, "__declspec")) && k+1 < len(h) && h[k+1].text == "(":
			k = skipBalanced(h, k+1) - 1
		case t.kind == tIdent && !isWord(t, "final"):
			name = k // the last of EXPORT_MACRO Name
		case isWord(t, "final") || t.text == "::":
		case t.text == "<":
			k = skipBalanced(h, k) - 1
		case t.text == ":": // the bases follow
			return kind, name, true
		default: // struct foo *make(void): a function, not a type
			return "", -1, false
		}
	}
	return kind, name, true
}

// cColon is the index of the first ":" (not "::") at nesting 0, or len(h).
func cColon(h []token) int {
	if k := find(h, ":"); k >= 0 {
		return k
	}
	return len(h)
}

// cFuncName finds the declarator name of a function head: the name before
// the first "(" at nesting 0, with its qualifiers ("Class::"), "~" and
// operator names. It returns the index of the name (for the line), the
// name, the qualifying class (or ""), and false when h is not a function.
func cFuncName(h []token) (at int, name, class string, ok bool) {
	p := find(h, "(")
	if p <= 0 {
		return 0, "", "", false
	}
	for k := max(0, p-4); k < p; k++ { // operator names: operator==, operator(), operator bool
		if !isWord(h[k], "operator") {
			continue
		}
		q := p
		if q == k+1 { // operator()(...): the first parentheses are the name
			if q+2 >= len(h) || h[q+1].text != ")" || h[q+2].text != "(" {
				return 0, "", "", false
			}
			q += 2
		}
		var b strings.Builder
		b.WriteString("operator")
		for _, t := range h[k+1 : q] {
			if t.kind == tIdent {
				b.WriteByte(' ')
			}
			b.WriteString(t.text)
		}
		return k, b.String(), cQualifier(h, k), true
	}
	t := h[p-1]
	if t.kind != tIdent || cNotNames()[t.text] {
		return 0, "", "", false
	}
	name = t.text
	at = p - 1
	if p >= 2 && h[p-2].text == "~" {
		name = "~" + name
		at = p - 2
	}
	if p+1 < len(h) && (h[p+1].text == "*" || h[p+1].text == "^" || h[p+1].text == "&") && p == at+1 && cIsTypeWord(t) {
		return 0, "", "", false // a function pointer: void (*f)(int)
	}
	return at, name, cQualifier(h, at), true
}

// cQualifier is the class qualifying the name at h[at] ("B" in A::B::f),
// skipping template arguments.
func cQualifier(h []token, at int) string {
	k := at - 1
	if k < 1 || h[k].text != "::" {
		return ""
	}
	k--
	if h[k].text == ">" { // Foo<T>::bar
		depth := 0
		for ; k >= 0; k-- {
			if h[k].text == ">" {
				depth++
			} else if h[k].text == "<" {
				depth--
				if depth == 0 {
					k--
					break
				}
			}
		}
	}
	if k >= 0 && h[k].kind == tIdent {
		return h[k].text
	}
	return ""
}

// cIsTypeWord reports whether t is a built-in type or qualifier word.
func cIsTypeWord(t token) bool {
	switch t.text {
	case "void", "int", "char", "short", "long", "float", "double", "bool", "unsigned", "signed", "auto", "const", "volatile":
		return true
	}
	return false
}

// cCtorInit reports whether the head is a function with a constructor
// initializer list (") : a(x), b") so that a "{" after an identifier is
// an initializer, not the body.
func cCtorInit(h []token) bool {
	p := find(h, "(")
	if p < 0 {
		return false
	}
	end := skipBalanced(h, p)
	return end < len(h) && find(h[end:], ":") >= 0
}

func cBrace(sc scope, head []token) braceAction {
	if len(head) == 2 && isWord(head[0], "extern") && head[1].kind == tString { // extern "C" {
		return braceAction{mode: braceDescend, body: scope{kind: scopeTop}}
	}
	h := cCore(head)
	if len(h) == 0 {
		return braceAction{mode: braceSkip}
	}
	if sc.kind == scopeList {
		return braceAction{mode: braceInit}
	}
	switch {
	case isWord(h[0], "namespace") || len(h) > 1 && isWord(h[0], "inline") && isWord(h[1], "namespace"):
		k := findIdent(h, "namespace") + 1
		name := "(anonymous)"
		at := h[k-1]
		if k < len(h) {
			var b strings.Builder
			for _, t := range h[k:] {
				b.WriteString(t.text)
			}
			name, at = b.String(), h[k]
		}
		s := &Symbol{Kind: KindNamespace, Name: name, Line: at.line, nameOff: at.off, Signature: joinTokens(head)}
		return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeTop}}
	}
	if kind, name, ok := cClassHead(h); ok {
		s := &Symbol{Kind: kind, Name: "(anonymous)", Line: h[0].line, nameOff: h[0].off, Signature: joinTokens(head)}
		if name >= 0 {
			s.Name, s.Line, s.nameOff = h[name].text, h[name].line, h[name].off
		}
		body := scopeMembers
		if kind == KindEnum {
			body = scopeList
		}
		return braceAction{mode: braceDescend, sym: s, body: scope{kind: body}, tail: true}
	}
	if eq := find(h, "="); eq >= 0 && (find(h, "(") < 0 || eq < find(h, "(")) && !cIsOperator(h) {
		return braceAction{mode: braceInit} // int a[] = {...}, auto f = [](){...}
	}
	if at, name, class, ok := cFuncName(h); ok {
		if cCtorInit(h) {
			last := h[len(h)-1]
			if last.kind == tIdent && !cAfterParams()[last.text] || last.text == ">" {
				return braceAction{mode: braceInit} // member{value} in an initializer list
			}
		}
		s := cFuncSym(sc, head, h, at, name, class)
		return braceAction{mode: braceSkip, sym: s}
	}
	if last := h[len(h)-1]; last.kind == tIdent || last.text == "]" {
		return braceAction{mode: braceInit} // int x{0};  S s{1, 2};
	}
	return braceAction{mode: braceSkip}
}

// cAfterParams are the words that can stand between a function's
// parameters and its body.
func cAfterParams() map[string]bool {
	return cAfterParamsLazy.get(func() map[string]bool {
		return map[string]bool{"const": true, "override": true, "final": true, "noexcept": true,
			"volatile": true, "mutable": true, "try": true}
	})
}

var cAfterParamsLazy lazy[map[string]bool]

func cIsOperator(h []token) bool { return findIdent(h, "operator") >= 0 }

// cFuncSym makes the symbol of a function declared by h (a suffix of head).
func cFuncSym(sc scope, head, h []token, at int, name, class string) *Symbol {
	kind := KindFunc
	if sc.kind == scopeMembers || class != "" {
		kind = KindMethod
	}
	return &Symbol{Kind: kind, Name: name, Parent: class, Line: h[at].line, nameOff: h[at].off, Signature: joinTokens(head)}
}

func cItem(o *outliner, sc scope, head []token) {
	h := cCore(head)
	if len(h) == 0 {
		return
	}
	if sc.kind == scopeList {
		if h[0].kind == tIdent {
			o.add(sc, *sym(KindVariant, head, indexOf(head, h[0])))
		}
		return
	}
	switch {
	case isWord(h[0], "typedef"):
		if at, ok := cDeclaratorName(h[1:]); ok {
			o.add(sc, *sym(KindType, head, indexOf(head, h[1+at])))
		}
		return
	case isWord(h[0], "using"):
		if len(h) > 2 && h[1].kind == tIdent && h[2].text == "=" {
			o.add(sc, *sym(KindType, head, indexOf(head, h[1])))
		}
		return
	case isWord(h[0], "namespace"), isWord(h[0], "friend"), isWord(h[0], "static_assert"), isWord(h[0], "_Static_assert"):
		return
	}
	if len(h) == 2 && cClassKinds()[h[0].text] != "" || len(h) == 3 && isWord(h[0], "enum") && cClassKinds()[h[1].text] != "" {
		return // a forward declaration: struct S; enum class E;
	}
	eq := find(h, "=")
	if p := find(h, "("); p >= 0 && (eq < 0 || p < eq || cIsOperator(h)) {
		if at, name, class, ok := cFuncName(h); ok && (at > 0 || sc.kind == scopeMembers || class != "") {
			o.add(sc, *cFuncSym(sc, head, h, at, name, class))
			return
		}
	}
	if sc.kind != scopeMembers && sc.kind != scopeTop || len(h) < 2 {
		return
	}
	at, ok := cDeclaratorName(h)
	if !ok || at == 0 {
		return
	}
	kind := KindVar
	if sc.kind == scopeMembers {
		kind = KindField
	} else if findIdent(h[:at], "const") >= 0 || findIdent(h[:at], "constexpr") >= 0 || findIdent(head, "constexpr") >= 0 {
		kind = KindConst
	}
	o.add(sc, *sym(kind, head, indexOf(head, h[at])))
}

// cDeclaratorName finds the name a declaration declares: the identifier
// before "=", "[", ":" (a bit field), "{" or the end, or the one after "(*"
// in a function pointer.
func cDeclaratorName(h []token) (int, bool) {
	if p := find(h, "("); p >= 0 && p+2 < len(h) && (h[p+1].text == "*" || h[p+1].text == "^" || h[p+1].text == "&") && h[p+2].kind == tIdent {
		return p + 2, true
	}
	end := len(h)
	for _, s := range []string{"=", "[", ":", ","} {
		if k := find(h, s); k >= 0 && k < end {
			end = k
		}
	}
	for k, t := range h[:end] {
		if t.kind == tGroup {
			end = k
			break
		}
	}
	for k := end - 1; k >= 0; k-- {
		if h[k].kind == tIdent {
			return k, !cIsTypeWord(h[k])
		}
		if h[k].text != "*" && h[k].text != "&" && h[k].text != "&&" {
			return 0, false
		}
	}
	return 0, false
}

// cTail names an anonymous struct from its typedef: typedef struct {...} T;
func cTail(o *outliner, idx int, head []token) {
	s := &o.out[idx]
	if s.Name != "(anonymous)" || !strings.HasPrefix(s.Signature, "typedef") {
		return
	}
	for k := len(head) - 1; k >= 0; k-- {
		if head[k].kind == tIdent {
			s.Name, s.Line, s.nameOff = head[k].text, head[k].line, head[k].off
			for j := idx + 1; j < len(o.out) && o.out[j].Depth > s.Depth; j++ {
				if o.out[j].Parent == "(anonymous)" && o.out[j].Depth == s.Depth+1 {
					o.out[j].Parent = s.Name
				}
			}
			return
		}
	}
}

// cDirective records #include and #define lines.
func cDirective(o *outliner, sc scope, t token) {
	text := strings.TrimSpace(t.text[1:])
	word, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(word, "<\"\t("); i > 0 {
		word, rest = word[:i], word[i:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	sig := "#" + word + " " + oneLine(strings.ReplaceAll(rest, "\\\n", " "))
	switch word {
	case "include", "import", "include_next":
		name := strings.Trim(strings.Fields(rest + " x")[0], `<>"`)
		o.add(sc, Symbol{Kind: KindImport, Name: name, Line: t.line, nameOff: t.off, Signature: tools.Clip(sig, maxSignature)})
	case "define":
		end := 0
		for end < len(rest) && isIdentChar(rest[end], cSpec) {
			end++
		}
		if end > 0 {
			o.add(sc, Symbol{Kind: KindMacro, Name: rest[:end], Line: t.line, nameOff: t.off, Signature: tools.Clip(sig, maxSignature)})
		}
	}
}

// cLabel drops C++ access specifiers and Qt's "signals:" and "slots:".
// A head ending in one is dropped whole, which also drops a macro such as
// Q_OBJECT written without a semicolon before it.
func cLabel(sc scope, head []token) bool {
	if sc.kind != scopeMembers || len(head) == 0 {
		return false
	}
	last := head[len(head)-1]
	if last.text == "slots" || last.text == "Q_SLOTS" {
		return true
	}
	switch last.text {
	case "public", "private", "protected", "signals", "Q_SIGNALS":
		return last.kind == tIdent
	}
	return false
}
