package syntax

import (
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// outlinePython outlines Python from its tokens. Statements are logical
// lines (a line break inside brackets, or after a backslash, does not end
// one) and nesting follows indentation: a def or class owns the lines
// indented deeper than its own. Shown: classes, functions and methods at
// any depth (with their decorators), imports outside functions, and
// assignments at module level (var, or const when the name is upper case)
// and in class bodies (field).
func outlinePython(toks []token, src string) []Symbol {
	type open struct {
		indent int
		idx    int // in out
	}
	var (
		out        []Symbol
		stack      []open
		decorators []string
		lastLine   int
	)
	closeTo := func(indent int) {
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			out[stack[len(stack)-1].idx].EndLine = lastLine
			stack = stack[:len(stack)-1]
		}
	}
	for i := 0; i < len(toks); {
		j, nest := i, 0
		for j < len(toks) && (j == i || !toks[j].first || nest > 0) {
			nest = bracketDepth(toks[j], nest)
			j++
		}
		line := toks[i:j]
		closeTo(toks[i].col)
		var parent *Symbol
		if len(stack) > 0 {
			parent = &out[stack[len(stack)-1].idx]
		}
		inClass := parent != nil && parent.Kind == KindClass
		inFunc := parent != nil && !inClass
		depth := 0
		if parent != nil {
			depth = parent.Depth + 1
		}
		head := line
		if len(head) > 1 && head[0].text == "async" && head[0].kind == tIdent {
			head = head[1:]
		}
		kw := ""
		if head[0].kind == tIdent || head[0].text == "@" {
			kw = head[0].text
		}
		switch {
		case kw == "@":
			end := len(line)
			for k, t := range line {
				if t.text == "(" {
					end = k
					break
				}
			}
			decorators = append(decorators, joinTokens(line[:end]))
		case (kw == "def" || kw == "class") && len(head) > 1 && head[1].kind == tIdent:
			s := Symbol{Kind: KindFunc, Name: head[1].text, Line: head[1].line, Depth: depth, nameOff: head[1].off}
			if kw == "class" {
				s.Kind = KindClass
			} else if inClass {
				s.Kind = KindMethod
			}
			if parent != nil {
				s.Parent = parent.Name
			}
			sig := joinTokens(line[:pyHeaderEnd(line)])
			if len(decorators) > 0 {
				sig = tools.Clip(strings.Join(decorators, " ")+" "+sig, maxSignature)
			}
			s.Signature = sig
			out = append(out, s)
			stack = append(stack, open{indent: toks[i].col, idx: len(out) - 1})
		case (kw == "import" || kw == "from") && !inFunc && !inClass && len(line) > 1:
			out = append(out, pyImports(line, depth)...)
		case kw != "" && !inFunc && len(line) > 1 && isPyAssign(line):
			s := Symbol{Kind: KindVar, Name: line[0].text, Line: line[0].line, Depth: depth, nameOff: line[0].off, Signature: joinTokens(line)}
			switch {
			case kw == "type" && line[1].kind == tIdent:
				s.Kind, s.Name, s.nameOff = KindType, line[1].text, line[1].off
			case inClass:
				s.Kind, s.Parent = KindField, parent.Name
			case isUpperName(s.Name):
				s.Kind = KindConst
			}
			out = append(out, s)
		}
		if kw != "@" {
			decorators = decorators[:0]
		}
		lastLine = endLine(line[len(line)-1])
		i = j
	}
	closeTo(-1)
	return out
}

// bracketDepth is the bracket nesting after t.
func bracketDepth(t token, nest int) int {
	if t.kind != tPunct {
		return nest
	}
	switch t.text {
	case "(", "[", "{":
		return nest + 1
	case ")", "]", "}":
		if nest > 0 {
			return nest - 1
		}
	}
	return nest
}

// endLine is the line of the last byte of t.
func endLine(t token) int { return t.line + strings.Count(t.text, "\n") }

// pyHeaderEnd is the index of the ":" that ends a def or class header.
func pyHeaderEnd(line []token) int {
	nest := 0
	for k, t := range line {
		if nest == 0 && t.text == ":" && t.kind == tPunct {
			return k
		}
		nest = bracketDepth(t, nest)
	}
	return len(line)
}

// isPyAssign reports whether a logical line assigns a plain name (x = 1,
// x: int = 1, x: int) or defines a type alias (type X = int).
func isPyAssign(line []token) bool {
	if line[0].kind != tIdent || pyKeywords()[line[0].text] && line[0].text != "type" {
		return false
	}
	switch line[1].text {
	case "=", ":":
		return line[1].kind == tPunct
	}
	return line[0].text == "type" && line[1].kind == tIdent && len(line) > 2 && line[2].text == "="
}

// pyKeywords are the statement keywords that never start an assignment.
func pyKeywords() map[string]bool {
	return pyKeywordsLazy.get(func() map[string]bool {
		return map[string]bool{"if": true, "elif": true, "else": true, "for": true, "while": true, "try": true,
			"except": true, "finally": true, "with": true, "return": true, "pass": true, "raise": true, "del": true,
			"global": true, "nonlocal": true, "assert": true, "break": true, "continue": true, "lambda": true,
			"yield": true, "await": true, "match": true, "case": true, "print": true, "type": true}
	})
}

var pyKeywordsLazy lazy[map[string]bool]

// pyImports makes one import symbol per module of an import statement.
func pyImports(line []token, depth int) []Symbol {
	sig := joinTokens(line)
	var out []Symbol
	add := func(name string, t token) {
		out = append(out, Symbol{Kind: KindImport, Name: name, Line: t.line, Depth: depth, Signature: sig, nameOff: t.off})
	}
	if line[0].text == "from" {
		var b strings.Builder
		k := 1
		for ; k < len(line) && line[k].text != "import"; k++ {
			b.WriteString(line[k].text)
		}
		add(b.String(), line[1])
		return out
	}
	var b strings.Builder
	var at token
	skip := false
	for _, t := range line[1:] {
		switch {
		case t.text == ",":
			if b.Len() > 0 {
				add(b.String(), at)
			}
			b.Reset()
			skip = false
		case t.text == "as":
			skip = true
		case !skip && (t.kind == tIdent || t.text == "."):
			if b.Len() == 0 {
				at = t
			}
			b.WriteString(t.text)
		}
	}
	if b.Len() > 0 {
		add(b.String(), at)
	}
	return out
}

// isUpperName reports whether name is written like a constant: MAX_SIZE.
func isUpperName(name string) bool {
	letter := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}
