package syntax

import "strings"

// This file is the engine shared by the outliners of the languages whose
// blocks are braces (JavaScript, TypeScript, Rust, C, C++, Java). It splits
// a block into items: the tokens since the previous item (the head) up to
// a ";", a "{", a "}" that closes the block, a "," in a list (enum
// variants, Rust struct fields), or, in JavaScript, a line break where
// automatic semicolon insertion would end a statement. Parentheses and
// brackets group: nothing inside them ends an item, and braces inside them
// (callbacks, object literals) are skipped whole. Each language's rules
// decide what an item is and what the braces after a head hold: a body to
// outline (class, namespace), a body to skip (function), or part of the
// item (an initializer).

// scopeKind is what a block holds.
type scopeKind uint8

const (
	scopeTop     scopeKind = iota // file, namespace or module level
	scopeMembers                  // class, struct, interface, trait or impl body
	scopeList                     // comma-separated members: enum variants, Rust fields
)

// scope is the block being outlined.
type scope struct {
	kind   scopeKind
	name   string // the enclosing symbol's name, "" at the top
	parent string // the enclosing symbol's kind
	depth  int
	// members is set on a Java enum list: after ";" the enum has members.
	membersAfterList bool
}

// braceMode says what the braces after a head hold.
type braceMode uint8

const (
	braceSkip    braceMode = iota // a body that is not outlined; the item ends after it
	braceDescend                  // a body outlined as scope body
	braceInit                     // part of the item (an initializer, a type literal)
)

// braceAction is a language's decision about a "{".
type braceAction struct {
	mode braceMode
	sym  *Symbol // the symbol the head declares, or nil
	body scope   // for braceDescend (depth and name are filled in)
	// tail is set when the declaration goes on after "}" up to ";" (C
	// typedefs name their struct there).
	tail bool
}

// braceRules are one language's decisions.
type braceRules struct {
	brace func(sc scope, head []token) braceAction
	// item handles a head ended by ";", ",", a line break, or "}".
	item func(o *outliner, sc scope, head []token)
	// tail handles the tokens after a body marked tail, up to ";".
	tail func(o *outliner, sym int, head []token)
	// directive handles a preprocessor line.
	directive func(o *outliner, sc scope, t token)
	// label reports whether head followed by ":" is a label to drop (C++
	// access specifiers).
	label  func(sc scope, head []token) bool
	asi    bool // JavaScript: line breaks can end items
	angles bool // in lists, "," inside <...> does not separate
}

// outliner runs the rules over a token stream.
type outliner struct {
	toks  []token
	i     int
	out   []Symbol
	rules *braceRules
	steps int // guards against a rule that would not advance
}

func outlineBraces(toks []token, rules *braceRules) []Symbol {
	o := &outliner{toks: toks, rules: rules}
	for o.i < len(o.toks) {
		o.block(scope{kind: scopeTop})
		// A stray "}" at the top level ended the block; go on after it.
	}
	return o.out
}

// add appends s in scope sc and returns its index.
func (o *outliner) add(sc scope, s Symbol) int {
	s.Depth = sc.depth
	if s.Parent == "" {
		s.Parent = sc.name
	}
	o.out = append(o.out, s)
	return len(o.out) - 1
}

// group stands for the braces toks[start:end] skipped inside an item:
// their text when short, else "{…}".
func (o *outliner) group(start, end int) token {
	t := o.toks[start]
	g := token{text: "{…}", off: t.off, line: t.line, kind: tGroup, space: t.space}
	if end-start <= 24 {
		g.text = joinTokens(o.toks[start:end])
	}
	return g
}

// block outlines items until the "}" closing the block (consumed) or the
// end of the tokens.
func (o *outliner) block(sc scope) {
	var head []token
	nest, angle := 0, 0
	tailSym := -1
	flush := func() {
		if len(head) > 0 {
			if tailSym >= 0 && o.rules.tail != nil {
				o.rules.tail(o, tailSym, head)
			} else {
				o.rules.item(o, sc, head)
			}
		}
		head, angle, tailSym = head[:0], 0, -1
	}
	for o.i < len(o.toks) {
		t := o.toks[o.i]
		if t.kind == tDirective {
			if o.rules.directive != nil {
				o.rules.directive(o, sc, t)
			}
			o.i++
			continue
		}
		if o.rules.asi && t.first && nest == 0 && len(head) > 0 && !continues(head[len(head)-1], t) {
			flush()
		}
		if t.kind == tPunct {
			switch t.text {
			case "(", "[":
				nest++
			case ")", "]":
				if nest > 0 {
					nest--
				}
			case "{":
				if nest > 0 {
					start := o.i
					o.skipBraces()
					if len(head) < maxHead {
						head = append(head, o.group(start, o.i))
					}
					continue
				}
				tailSym = o.openBrace(sc, &head, tailSym)
				continue
			case "}":
				// Always ends the block, even inside unbalanced parentheses.
				flush()
				o.i++
				return
			case ";":
				if nest == 0 {
					flush()
					if sc.membersAfterList {
						sc.kind, sc.membersAfterList = scopeMembers, false
					}
					o.i++
					continue
				}
			case ",":
				if nest == 0 && angle == 0 && sc.kind == scopeList {
					flush()
					o.i++
					continue
				}
			case "<":
				if o.rules.angles && sc.kind == scopeList && nest == 0 && len(head) > 0 && (head[len(head)-1].kind == tIdent || head[len(head)-1].text == "::") {
					angle++
				}
			case ">":
				if angle > 0 {
					angle--
				}
			case ":":
				if nest == 0 && o.rules.label != nil && o.rules.label(sc, head) {
					head = head[:0]
					o.i++
					continue
				}
			}
		}
		if len(head) < maxHead {
			head = append(head, t)
		} else {
			head[maxHead-1] = t // keep the last token right for the rules
		}
		o.i++
	}
	flush()
}

// maxHead bounds the tokens kept of one item: the rules look at its start
// and its end, and a longer head (a huge initializer) would make each of
// its braces cost its length.
const maxHead = 512

// openBrace handles a "{" at nesting 0 after head, as the rules decide,
// and returns the symbol waiting for a tail (or -1).
func (o *outliner) openBrace(sc scope, head *[]token, tailSym int) int {
	if tailSym >= 0 { // a tail never holds braces: what came is a new item
		tailSym = -1
	}
	a := o.rules.brace(sc, *head)
	switch a.mode {
	case braceInit:
		start := o.i
		o.skipBraces()
		if len(*head) < maxHead {
			*head = append(*head, o.group(start, o.i))
		} else {
			(*head)[maxHead-1] = o.group(start, o.i)
		}
		return tailSym
	case braceSkip:
		idx := -1
		if a.sym != nil {
			idx = o.add(sc, *a.sym)
		}
		end := o.skipBraces()
		if idx >= 0 {
			o.out[idx].EndLine = end
		}
		*head = (*head)[:0]
		if a.tail {
			return idx
		}
		return -1
	}
	idx := -1
	body := a.body
	body.depth = sc.depth
	if a.sym != nil {
		idx = o.add(sc, *a.sym)
		body.depth = sc.depth + 1
		body.name, body.parent = a.sym.Name, a.sym.Kind
	} else {
		body.name, body.parent = sc.name, sc.parent
	}
	o.i++
	o.block(body)
	if idx >= 0 {
		o.out[idx].EndLine = o.toks[max(o.i-1, 0)].line
	}
	*head = (*head)[:0]
	if a.tail {
		return idx
	}
	return -1
}

// skipBraces consumes balanced braces starting at a "{" and returns the
// line of the closing "}" (of the last token when it is missing).
func (o *outliner) skipBraces() int {
	depth := 0
	for o.i < len(o.toks) {
		t := o.toks[o.i]
		o.i++
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "{":
			depth++
		case "}":
			depth--
			if depth <= 0 {
				return t.line
			}
		}
	}
	return o.toks[len(o.toks)-1].line
}

// continues reports whether t, the first token of a line, continues the
// statement that prev ended the line before (JavaScript's automatic
// semicolon insertion, approximately).
func continues(prev, t token) bool {
	if (prev.kind == tGroup || prev.text == "}") && (t.text == "[" || t.text == "(") {
		return false // a new member: [key: string]: T, or (call)() after a block
	}
	switch prev.kind {
	case tPunct:
		switch prev.text {
		case ")", "]", "}", "++", "--":
		default:
			return true
		}
	case tIdent:
		if jsContinuers()[prev.text] {
			return true
		}
	}
	switch t.kind {
	case tPunct:
		switch t.text {
		case "}", ";", "++", "--", "@", "#", "!", "~":
			return false
		}
		return true // operators, "(", "[", "{", "."
	case tIdent:
		switch t.text {
		case "extends", "implements", "as", "in", "instanceof", "satisfies", "of":
			return true
		}
	}
	return false
}

// jsContinuers are the words after which a statement cannot end.
func jsContinuers() map[string]bool {
	return jsContinuersLazy.get(func() map[string]bool {
		return map[string]bool{"export": true, "default": true, "declare": true, "abstract": true,
			"async": true, "static": true, "public": true, "private": true, "protected": true, "readonly": true,
			"const": true, "let": true, "var": true, "function": true, "class": true, "interface": true,
			"enum": true, "extends": true, "implements": true, "new": true, "return": true, "typeof": true,
			"keyof": true, "in": true, "of": true, "instanceof": true, "as": true, "is": true, "satisfies": true,
			"namespace": true, "module": true, "import": true, "override": true, "accessor": true, "yield": true,
			"await": true, "throw": true, "delete": true, "case": true}
	})
}

var jsContinuersLazy lazy[map[string]bool]

// Helpers for the rules.

// find is the index of the first token at nesting 0 of h with text s, or
// -1. Tokens inside (), [] and <> are not at nesting 0 when angles is set.
func find(h []token, s string) int {
	nest := 0
	for k, t := range h {
		if t.kind == tString || t.kind == tNumber {
			continue
		}
		if nest == 0 && t.text == s {
			return k
		}
		nest = bracketDepth(t, nest)
	}
	return -1
}

// findIdent is find for an identifier (not the same text in a string).
func findIdent(h []token, s string) int {
	nest := 0
	for k, t := range h {
		if nest == 0 && t.kind == tIdent && t.text == s {
			return k
		}
		nest = bracketDepth(t, nest)
	}
	return -1
}

// skipBalanced returns the index after the group opened at h[k] (one of
// "(", "[", "<"); when it does not close, len(h).
func skipBalanced(h []token, k int) int {
	open := h[k].text
	closer := map[string]string{"(": ")", "[": "]", "<": ">"}[open]
	depth := 0
	for ; k < len(h); k++ {
		switch h[k].text {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return k + 1
			}
		case ">>":
			if open == "<" {
				depth -= 2
				if depth <= 0 {
					return k + 1
				}
			}
		}
	}
	return len(h)
}

// isWord reports whether t is the identifier s.
func isWord(t token, s string) bool { return t.kind == tIdent && t.text == s }

// sym makes a symbol named by the token at name in h, with h as its
// signature.
func sym(kind string, h []token, name int) *Symbol {
	return &Symbol{Kind: kind, Name: strings.TrimPrefix(h[name].text, "r#"), Line: h[name].line, nameOff: h[name].off, Signature: joinTokens(h)}
}

// unquote strips the quotes of a string token's text.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// skipDecorator returns the index after the decorator or annotation at
// h[k] ("@"): a dotted name and its arguments.
func skipDecorator(h []token, k int) int {
	k++
	for k < len(h) && h[k].kind == tIdent {
		k++
		if k+1 < len(h) && h[k].text == "." && h[k+1].kind == tIdent {
			k++
			continue
		}
		break
	}
	if k < len(h) && h[k].text == "(" {
		k = skipBalanced(h, k)
	}
	return k
}
