package syntax

// The rules for JavaScript and TypeScript. Shown: imports; functions,
// classes, interfaces, enums, namespaces and type aliases, exported or
// not; const/let/var at the top (func when the value is an arrow function
// or a function expression); class and interface members (methods,
// accessors, fields); enum members. Function bodies are not outlined.

var jsRules = &braceRules{brace: jsBrace, item: jsItem, asi: true}

func outlineJS(toks []token, src string) []Symbol { return outlineBraces(toks, jsRules) }

// jsModifiers are the words stripped before a declaration keyword or a
// member name (when a name follows them).
func jsModifiers() map[string]bool {
	return jsModifiersLazy.get(func() map[string]bool {
		return map[string]bool{"export": true, "default": true, "declare": true, "abstract": true,
			"public": true, "private": true, "protected": true, "static": true, "readonly": true,
			"override": true, "accessor": true, "async": true, "get": true, "set": true}
	})
}

var jsModifiersLazy lazy[map[string]bool]

// jsCore strips decorators and modifiers from the start of h.
func jsCore(h []token) []token {
	for len(h) > 0 {
		t := h[0]
		switch {
		case t.text == "@" && t.kind == tPunct:
			h = h[skipDecorator(h, 0):]
		case t.kind == tIdent && jsModifiers()[t.text] && len(h) > 1 && jsNameLike(h[1]):
			h = h[1:]
		default:
			return h
		}
	}
	return h
}

// jsNameLike reports whether t can start a name or declaration after a
// modifier (so that "get" in "get()" is the name, not a modifier).
func jsNameLike(t token) bool {
	switch t.kind {
	case tIdent, tString, tNumber:
		return true
	}
	return t.text == "[" || t.text == "*" || t.text == "@"
}

// jsDeclName returns the index of the declared name after a keyword at
// h[k], or -1 (anonymous).
func jsDeclName(h []token, k int) int {
	k++
	if k < len(h) && h[k].text == "*" {
		k++
	}
	if k < len(h) && h[k].kind == tIdent {
		switch h[k].text {
		case "extends", "implements":
			return -1
		}
		return k
	}
	return -1
}

func jsBrace(sc scope, head []token) braceAction {
	h := jsCore(head)
	if len(h) == 0 || len(h) == 1 && isWord(h[0], "static") && sc.kind == scopeMembers {
		return braceAction{mode: braceSkip} // a static block, a bare block
	}
	switch sc.kind {
	case scopeList:
		return braceAction{mode: braceInit}
	case scopeMembers:
		if k, ok := jsMethod(h); ok {
			s := sym(KindMethod, head, k)
			s.Name = jsMemberName(h, k)
			return braceAction{mode: braceSkip, sym: s}
		}
		if last := h[len(h)-1]; last.text == "=>" {
			return braceAction{mode: braceSkip, sym: sym(KindMethod, head, indexOf(head, h[0]))}
		}
		return braceAction{mode: braceInit}
	}
	kw := h[0]
	if kw.kind == tIdent && kw.text == "const" && len(h) > 1 && isWord(h[1], "enum") {
		h, kw = h[1:], h[1]
	}
	switch {
	case isWord(kw, "class"):
		return jsTypeBody(KindClass, scopeMembers, head, h)
	case isWord(kw, "interface"):
		return jsTypeBody(KindInterface, scopeMembers, head, h)
	case isWord(kw, "enum"):
		return jsTypeBody(KindEnum, scopeList, head, h)
	case (isWord(kw, "namespace") || isWord(kw, "module")) && len(h) > 1 && (h[1].kind == tIdent || h[1].kind == tString) && find(h, "=") < 0,
		isWord(kw, "global") && len(h) == 1:
		s := &Symbol{Kind: KindNamespace, Line: kw.line, nameOff: kw.off, Signature: joinTokens(head), Name: "global"}
		if len(h) > 1 {
			s.Name, s.Line, s.nameOff = unquote(joinTokens(h[1:])), h[1].line, h[1].off
		}
		return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeTop}}
	case isWord(kw, "function"):
		s := &Symbol{Kind: KindFunc, Name: "default", Line: kw.line, nameOff: kw.off, Signature: joinTokens(head)}
		if k := jsDeclName(h, 0); k >= 0 {
			s.Name, s.Line, s.nameOff = h[k].text, h[k].line, h[k].off
		}
		return braceAction{mode: braceSkip, sym: s}
	case (isWord(kw, "const") || isWord(kw, "let") || isWord(kw, "var")) && len(h) > 1 && h[1].kind == tIdent:
		eq := find(h, "=")
		switch {
		case eq < 0:
		case h[len(h)-1].text == "=>" || findIdent(h[eq:], "function") >= 0:
			return braceAction{mode: braceSkip, sym: sym(KindFunc, head, indexOf(head, h[1]))}
		case eq+1 < len(h) && isWord(h[eq+1], "class"):
			s := sym(KindClass, head, indexOf(head, h[1]))
			return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeMembers}}
		}
	}
	if find(h, "=") >= 0 || isWord(kw, "import") || isWord(kw, "export") || isWord(kw, "type") || isWord(kw, "return") {
		return braceAction{mode: braceInit}
	}
	return braceAction{mode: braceSkip}
}

// jsTypeBody is the action for class, interface and enum heads.
func jsTypeBody(kind string, body scopeKind, head, h []token) braceAction {
	s := &Symbol{Kind: kind, Name: "default", Line: h[0].line, nameOff: h[0].off, Signature: joinTokens(head)}
	if k := jsDeclName(h, 0); k >= 0 {
		s.Name, s.Line, s.nameOff = h[k].text, h[k].line, h[k].off
	}
	return braceAction{mode: braceDescend, sym: s, body: scope{kind: body}}
}

// indexOf is the index of t in h (by offset).
func indexOf(h []token, t token) int {
	for k := range h {
		if h[k].off == t.off {
			return k
		}
	}
	return 0
}

// jsMethod reports whether a member head is a method: a name (identifier,
// string, number, #private or [computed]), maybe "*" before it and "?"
// after it, then "(" or "<". It returns the index in head of the name.
func jsMethod(h []token) (int, bool) {
	k := 0
	if k < len(h) && h[k].text == "*" {
		k++
	}
	if k >= len(h) {
		return 0, false
	}
	name := k
	if h[k].text == "[" {
		k = skipBalanced(h, k)
	} else if h[k].kind == tIdent || h[k].kind == tString || h[k].kind == tNumber {
		k++
	} else {
		return 0, false
	}
	if k < len(h) && (h[k].text == "?" || h[k].text == "!") {
		k++
	}
	if k < len(h) && (h[k].text == "(" || h[k].text == "<") {
		return name, true
	}
	return 0, false
}

// jsMemberName is the name of the member whose name starts at h[k].
func jsMemberName(h []token, k int) string {
	switch {
	case h[k].text == "[":
		return joinTokens(h[k:skipBalanced(h, k)])
	case h[k].kind == tString:
		return unquote(h[k].text)
	}
	return h[k].text
}

func jsItem(o *outliner, sc scope, head []token) {
	h := jsCore(head)
	if len(h) == 0 {
		return
	}
	switch sc.kind {
	case scopeList:
		if h[0].kind == tIdent || h[0].kind == tString {
			s := sym(KindVariant, head, indexOf(head, h[0]))
			s.Name = unquote(h[0].text)
			o.add(sc, *s)
		}
		return
	case scopeMembers:
		k := 0
		if h[0].text == "*" {
			k = 1
		}
		if k >= len(h) || !jsNameLike(h[k]) || h[k].text == "@" {
			return
		}
		kind := KindField
		if _, ok := jsMethod(h); ok || find(h, "=>") >= 0 && find(h, "=") >= 0 {
			kind = KindMethod
		}
		s := sym(kind, head, indexOf(head, h[k]))
		s.Name = jsMemberName(h, k)
		o.add(sc, *s)
		return
	}
	kw := h[0]
	switch {
	case isWord(kw, "import") && len(h) > 1 && h[1].text != "(" && h[1].text != ".":
		for k := len(h) - 1; k > 0; k-- {
			if h[k].kind == tString {
				s := sym(KindImport, head, indexOf(head, h[k]))
				s.Name, s.Line = unquote(h[k].text), kw.line
				o.add(sc, *s)
				return
			}
		}
	case isWord(kw, "function"):
		if k := jsDeclName(h, 0); k >= 0 {
			o.add(sc, *sym(KindFunc, head, indexOf(head, h[k])))
		}
	case (isWord(kw, "const") || isWord(kw, "let") || isWord(kw, "var")) && len(h) > 1 && h[1].kind == tIdent:
		kind := KindVar
		if kw.text == "const" {
			kind = KindConst
		}
		if eq := find(h, "="); eq >= 0 && (find(h[eq:], "=>") >= 0 || findIdent(h[eq:], "function") >= 0) {
			kind = KindFunc
		}
		o.add(sc, *sym(kind, head, indexOf(head, h[1])))
	case isWord(kw, "type") && len(h) > 2 && h[1].kind == tIdent && (h[2].text == "=" || h[2].text == "<"):
		o.add(sc, *sym(KindType, head, indexOf(head, h[1])))
	case (isWord(kw, "class") || isWord(kw, "interface") || isWord(kw, "enum")) && len(h) > 1 && h[1].kind == tIdent:
		kind := map[string]string{"class": KindClass, "interface": KindInterface, "enum": KindEnum}[kw.text]
		o.add(sc, *sym(kind, head, indexOf(head, h[1])))
	}
}
