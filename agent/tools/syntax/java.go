package syntax

import "strings"

// The rules for Java. Shown: the package and imports; classes,
// interfaces, enums (with their constants), records and annotation types
// at any depth; methods, constructors and fields. Annotations are left out
// of signatures; method bodies, initializer blocks and anonymous classes
// are not outlined.

var javaRules = &braceRules{brace: javaBrace, item: javaItem}

func outlineJava(toks []token, src string) []Symbol { return outlineBraces(toks, javaRules) }

func javaModifiers() map[string]bool {
	return javaModifiersLazy.get(func() map[string]bool {
		return map[string]bool{"public": true, "private": true, "protected": true, "static": true,
			"final": true, "abstract": true, "synchronized": true, "native": true, "default": true,
			"sealed": true, "strictfp": true, "transient": true, "volatile": true}
	})
}

var javaModifiersLazy lazy[map[string]bool]

// javaCore strips annotations and modifiers from h; sig is h without its
// annotations.
func javaCore(h []token) (core, sig []token) {
	var kept []token
	for k := 0; k < len(h); {
		t := h[k]
		switch {
		case t.text == "@" && k+1 < len(h) && isWord(h[k+1], "interface"):
			kept = append(kept, h[k:]...)
			k = len(h)
		case t.text == "@" && t.kind == tPunct:
			k = skipDecorator(h, k)
		case isWord(t, "non") && k+2 < len(h) && h[k+1].text == "-" && isWord(h[k+2], "sealed"):
			kept = append(kept, h[k:k+3]...)
			k += 3
		default:
			kept = append(kept, t)
			k++
		}
	}
	sig = kept
	core = kept
	for len(core) > 0 && (core[0].kind == tIdent && javaModifiers()[core[0].text] || isWord(core[0], "non") && len(core) > 2 && isWord(core[2], "sealed")) {
		if isWord(core[0], "non") {
			core = core[3:]
		} else {
			core = core[1:]
		}
	}
	return core, sig
}

func javaTypeKinds() map[string]string {
	return javaTypeKindsLazy.get(func() map[string]string {
		return map[string]string{"class": KindClass, "interface": KindInterface, "enum": KindEnum, "record": KindRecord}
	})
}

var javaTypeKindsLazy lazy[map[string]string]

func javaBrace(sc scope, head []token) braceAction {
	h, sig := javaCore(head)
	if len(h) == 0 || sc.kind == scopeList {
		if sc.kind == scopeList {
			return braceAction{mode: braceInit} // an enum constant with a body
		}
		return braceAction{mode: braceSkip} // an initializer block
	}
	kw := h[0]
	if kw.text == "@" && len(h) > 2 && isWord(h[1], "interface") {
		return braceAction{mode: braceDescend, sym: sym(KindInterface, sig, indexOf(sig, h[2])), body: scope{kind: scopeMembers}}
	}
	if kind := javaTypeKinds()[kw.text]; kind != "" && kw.kind == tIdent && len(h) > 1 && h[1].kind == tIdent {
		body := scope{kind: scopeMembers}
		if kind == KindEnum {
			body = scope{kind: scopeList, membersAfterList: true}
		}
		return braceAction{mode: braceDescend, sym: sym(kind, sig, indexOf(sig, h[1])), body: body}
	}
	if sc.kind != scopeMembers {
		return braceAction{mode: braceSkip}
	}
	eq, p := find(h, "="), find(h, "(")
	if p > 0 && (eq < 0 || p < eq) && h[p-1].kind == tIdent {
		return braceAction{mode: braceSkip, sym: sym(KindMethod, sig, indexOf(sig, h[p-1]))}
	}
	if len(h) == 1 && h[0].text == sc.name { // a record's compact constructor
		return braceAction{mode: braceSkip, sym: sym(KindMethod, sig, indexOf(sig, h[0]))}
	}
	return braceAction{mode: braceInit} // int[] a = {1, 2}; Runnable r = new Runnable() {...};
}

func javaItem(o *outliner, sc scope, head []token) {
	h, sig := javaCore(head)
	if len(h) == 0 {
		return
	}
	switch sc.kind {
	case scopeList:
		if h[0].kind == tIdent {
			o.add(sc, *sym(KindVariant, sig, indexOf(sig, h[0])))
		}
		return
	case scopeTop:
		if isWord(h[0], "package") || isWord(h[0], "import") {
			var b strings.Builder
			for _, t := range h[1:] {
				if !isWord(t, "static") {
					b.WriteString(t.text)
				}
			}
			kind := KindImport
			if h[0].text == "package" {
				kind = KindPackage
			}
			s := sym(kind, sig, indexOf(sig, h[0]))
			s.Name = b.String()
			o.add(sc, *s)
		}
		return
	}
	eq, p := find(h, "="), find(h, "(")
	if p > 0 && (eq < 0 || p < eq) {
		if h[p-1].kind == tIdent {
			o.add(sc, *sym(KindMethod, sig, indexOf(sig, h[p-1]))) // abstract or interface method
		}
		return
	}
	end := len(h)
	if eq >= 0 {
		end = eq
	}
	if c := findOutsideAngles(h[:end], ","); c >= 0 {
		end = c
	}
	if end >= 2 && h[end-1].kind == tIdent {
		o.add(sc, *sym(KindField, sig, indexOf(sig, h[end-1])))
	}
}

// findOutsideAngles is find that also skips type arguments (<...> after an
// identifier).
func findOutsideAngles(h []token, s string) int {
	angle := 0
	for k := 0; k < len(h); k++ {
		switch t := h[k]; {
		case t.text == "(" || t.text == "[":
			k = skipBalanced(h, k) - 1
		case t.text == "<" && k > 0 && h[k-1].kind == tIdent:
			angle++
		case t.text == ">" && angle > 0:
			angle--
		case t.text == s && angle == 0:
			return k
		}
	}
	return -1
}
