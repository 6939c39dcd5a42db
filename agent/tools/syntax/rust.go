package syntax

// The rules for Rust. Shown: use declarations; functions; structs (with
// their fields), enums (with their variants), unions, traits and impl
// blocks (with their methods, associated types and constants); modules;
// type aliases, consts, statics and macro_rules! macros. Attributes are
// left out of signatures; function bodies are not outlined.

var rustRules = &braceRules{brace: rustBrace, item: rustItem, angles: true}

func outlineRust(toks []token, src string) []Symbol { return outlineBraces(toks, rustRules) }

// rustCore strips attributes, visibility and qualifiers from the start of
// h, returning what is left and the head without its attributes (for the
// signature).
func rustCore(h []token) (core, sig []token) {
	for len(h) > 1 && h[0].text == "#" && h[0].kind == tPunct {
		k := 1
		if h[k].text == "!" {
			k++
		}
		if k < len(h) && h[k].text == "[" {
			h = h[skipBalanced(h, k):]
			continue
		}
		break
	}
	sig = h
	for len(h) > 0 {
		t := h[0]
		switch {
		case isWord(t, "pub"):
			h = h[1:]
			if len(h) > 0 && h[0].text == "(" {
				h = h[skipBalanced(h, 0):]
			}
		case isWord(t, "async"), isWord(t, "unsafe"), isWord(t, "default"), isWord(t, "safe"):
			h = h[1:]
		case isWord(t, "const") && len(h) > 1 && (isWord(h[1], "fn") || isWord(h[1], "unsafe") || isWord(h[1], "async") || isWord(h[1], "extern")):
			h = h[1:]
		case isWord(t, "extern") && len(h) > 1 && (h[1].kind == tString || isWord(h[1], "fn")):
			if h[1].kind == tString && len(h) > 2 {
				h = h[2:]
			} else if isWord(h[1], "fn") {
				h = h[1:]
			} else {
				return h, sig
			}
		default:
			return h, sig
		}
	}
	return h, sig
}

// rustTypeName is the name of the type an impl block is for: the last path
// segment before its generic arguments ("Point" in "impl<T> fmt::Display
// for geo::Point<T>").
func rustTypeName(h []token) (string, token) {
	k := 0
	if k < len(h) && h[k].text == "<" {
		k = skipBalanced(h, k)
	}
	ty := h[k:]
	if f := findIdent(ty, "for"); f >= 0 {
		ty = ty[f+1:]
	}
	if w := findIdent(ty, "where"); w >= 0 {
		ty = ty[:w]
	}
	name, at := "", token{}
	for j := 0; j < len(ty); j++ {
		switch t := ty[j]; {
		case t.text == "<":
			j = skipBalanced(ty, j) - 1
		case t.kind == tIdent && t.text != "dyn" && t.text != "mut" && t.text != "const":
			name, at = t.text, t
		}
	}
	if name == "" && len(h) > 0 {
		at = h[0]
	}
	return name, at
}

func rustBrace(sc scope, head []token) braceAction {
	h, sig := rustCore(head)
	if len(h) == 0 {
		return braceAction{mode: braceSkip}
	}
	if sc.kind == scopeList {
		return braceAction{mode: braceInit} // a variant with named fields
	}
	kw := h[0]
	named := func(kind string) *Symbol {
		if len(h) > 1 && h[1].kind == tIdent {
			return sym(kind, sig, indexOf(sig, h[1]))
		}
		return nil
	}
	switch {
	case isWord(kw, "fn"):
		kind := KindFunc
		if sc.parent == KindImpl || sc.parent == KindTrait {
			kind = KindMethod
		}
		if s := named(kind); s != nil {
			return braceAction{mode: braceSkip, sym: s}
		}
	case isWord(kw, "struct") || isWord(kw, "union"):
		kind := KindStruct
		if kw.text == "union" {
			kind = KindUnion
		}
		if s := named(kind); s != nil {
			return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeList}}
		}
	case isWord(kw, "enum"):
		if s := named(KindEnum); s != nil {
			return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeList}}
		}
	case isWord(kw, "trait"):
		if s := named(KindTrait); s != nil {
			return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeMembers}}
		}
	case isWord(kw, "impl"):
		name, at := rustTypeName(h[1:])
		if name == "" { // impl { ...: nothing to name it by
			at = kw
		}
		s := &Symbol{Kind: KindImpl, Name: name, Line: at.line, nameOff: at.off, Signature: joinTokens(sig)}
		return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeMembers}}
	case isWord(kw, "mod"):
		if s := named(KindNamespace); s != nil {
			return braceAction{mode: braceDescend, sym: s, body: scope{kind: scopeTop}}
		}
	case isWord(kw, "extern"): // extern "C" { ... }
		return braceAction{mode: braceDescend, body: scope{kind: scopeTop}}
	case isWord(kw, "macro_rules") && len(h) > 2 && h[1].text == "!" && h[2].kind == tIdent:
		return braceAction{mode: braceSkip, sym: sym(KindMacro, sig, indexOf(sig, h[2]))}
	}
	if find(h, "=") >= 0 || isWord(kw, "use") {
		return braceAction{mode: braceInit}
	}
	return braceAction{mode: braceSkip} // a macro call such as lazy_static! { ... }
}

func rustItem(o *outliner, sc scope, head []token) {
	h, sig := rustCore(head)
	if len(h) == 0 {
		return
	}
	if sc.kind == scopeList {
		if h[0].kind != tIdent {
			return
		}
		kind := KindVariant
		if sc.parent == KindStruct || sc.parent == KindUnion {
			if len(h) < 2 || h[1].text != ":" {
				return
			}
			kind = KindField
		}
		o.add(sc, *sym(kind, sig, indexOf(sig, h[0])))
		return
	}
	kw := h[0]
	named := func(kind string, k int) {
		if k < len(h) && h[k].kind == tIdent {
			o.add(sc, *sym(kind, sig, indexOf(sig, h[k])))
		}
	}
	switch {
	case isWord(kw, "fn"):
		kind := KindFunc
		if sc.parent == KindImpl || sc.parent == KindTrait {
			kind = KindMethod
		}
		named(kind, 1)
	case isWord(kw, "struct"):
		named(KindStruct, 1)
	case isWord(kw, "enum"):
		named(KindEnum, 1)
	case isWord(kw, "type"):
		named(KindType, 1)
	case isWord(kw, "const"):
		named(KindConst, 1)
	case isWord(kw, "static"):
		k := 1
		if k < len(h) && isWord(h[k], "mut") {
			k++
		}
		named(KindVar, k)
	case isWord(kw, "mod"):
		named(KindNamespace, 1)
	case isWord(kw, "use"):
		s := sym(KindImport, sig, indexOf(sig, kw))
		s.Name = joinTokens(h[1:])
		if len(h) > 1 {
			s.nameOff = h[1].off
		}
		o.add(sc, *s)
	case isWord(kw, "macro_rules") && len(h) > 2 && h[1].text == "!":
		named(KindMacro, 2)
	}
}
