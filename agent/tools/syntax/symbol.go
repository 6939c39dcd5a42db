package syntax

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools"
)

// Symbol is one declaration, call or reference found in a file.
type Symbol struct {
	// File is the path as shown to the model (relative to the working
	// directory when inside it).
	File string `json:"file"`
	// Line is the 1-based line of the symbol's name; EndLine the last line
	// of its declaration (0 when unknown).
	Line    int `json:"line"`
	EndLine int `json:"end_line,omitempty"`
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Parent is the enclosing type (for methods and fields) or, for calls
	// and references, the enclosing function.
	Parent string `json:"parent,omitempty"`
	// Signature is the declaration on one line (for calls and references,
	// the source text), clipped.
	Signature string `json:"signature"`
	// Depth is the nesting level in an outline: 0 at the top of the file.
	Depth int `json:"depth"`

	nameOff int // byte offset of the name token (tokenizer languages)
}

// The kinds of Symbol.
const (
	KindPackage   = "package"
	KindImport    = "import"
	KindFunc      = "func"
	KindMethod    = "method"
	KindType      = "type" // an alias or other named type
	KindStruct    = "struct"
	KindInterface = "interface"
	KindClass     = "class"
	KindEnum      = "enum"
	KindTrait     = "trait"
	KindUnion     = "union"
	KindRecord    = "record"
	KindImpl      = "impl"
	KindNamespace = "namespace" // also Rust modules
	KindField     = "field"
	KindVariant   = "variant" // an enum member
	KindVar       = "var"
	KindConst     = "const"
	KindMacro     = "macro"
	KindCall      = "call"
	KindRef       = "ref"  // a use of a name
	KindDecl      = "decl" // a reference that declares the name
)

// isTypeKind reports whether kind is matched by a type: query.
func isTypeKind(kind string) bool {
	switch kind {
	case KindType, KindStruct, KindInterface, KindClass, KindEnum, KindTrait, KindUnion, KindRecord:
		return true
	}
	return false
}

// language is one language the tool understands.
type language struct {
	name string
	// exact is set for languages parsed by a real parser (Go).
	exact bool
	lex   *lexSpec
	// outline builds the outline from the tokens of a tokenizer language.
	outline func(toks []token, src string) []Symbol
}

var (
	langGo     = &language{name: "Go", exact: true}
	langPython = &language{name: "Python", lex: &lexSpec{hashComment: true, python: true}, outline: outlinePython}
	jsSpec     = &jsLex
	langJS     = &language{name: "JavaScript", lex: &jsLex, outline: outlineJS}
	langTS     = &language{name: "TypeScript", lex: &jsLex, outline: outlineJS}
	langRust   = &language{name: "Rust", lex: &lexSpec{lineComments: []string{"//"}, blockComment: true, nestComments: true, rust: true, multiline: true}, outline: outlineRust}
	cSpec      = &cLex
	langC      = &language{name: "C", lex: &cLex, outline: outlineC}
	langCPP    = &language{name: "C++", lex: &cLex, outline: outlineC}
	langJava   = &language{name: "Java", lex: &lexSpec{lineComments: []string{"//"}, blockComment: true, java: true, dollar: true}, outline: outlineJava}
)

// The lexers two languages share. The languages point at them by address,
// not through jsSpec and cSpec, so that the compiler lays all of this out
// as data instead of running an initialiser at every start.
var (
	jsLex = lexSpec{lineComments: []string{"//"}, blockComment: true, js: true, dollar: true}
	cLex  = lexSpec{lineComments: []string{"//"}, blockComment: true, directives: true, cpp: true, dollar: true}
)

// extensions maps file name extensions to languages.
func extensions() map[string]*language {
	return extensionsLazy.get(func() map[string]*language {
		return map[string]*language{
			".go": langGo,
			".py": langPython, ".pyi": langPython, ".pyw": langPython,
			".js": langJS, ".mjs": langJS, ".cjs": langJS, ".jsx": langJS,
			".ts": langTS, ".mts": langTS, ".cts": langTS, ".tsx": langTS,
			".rs": langRust,
			".c":  langC, ".h": langC,
			".cc": langCPP, ".cpp": langCPP, ".cxx": langCPP, ".c++": langCPP, ".hh": langCPP, ".hpp": langCPP, ".hxx": langCPP, ".h++": langCPP, ".ipp": langCPP, ".tpp": langCPP,
			".java": langJava,
		}
	})
}

var extensionsLazy lazy[map[string]*language]

// languageOf is the language of a file, by its extension, or nil.
func languageOf(path string) *language {
	return extensions()[strings.ToLower(filepath.Ext(path))]
}

// maxSignature is the longest signature kept, in runes.
const maxSignature = 160

// joinTokens writes tokens as one line, with a space where the source had
// white space (or a comment) between them, clipped to maxSignature.
func joinTokens(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if b.Len() > maxSignature*4 {
			break
		}
		if i > 0 && t.space {
			b.WriteByte(' ')
		}
		text := t.text
		if t.kind == tString || t.kind == tDirective {
			text = oneLine(text)
		}
		b.WriteString(text)
	}
	return tidy(b.String())
}

// oneLine collapses every run of white space in s to one space.
func oneLine(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\n' || c == '\r' || c == '\t' || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			space = len(b) > 0
		default:
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// lineText is the line of src holding offset off, trimmed and clipped. A
// long line (minified code) is shown as a window around off, so that the
// cost does not grow with the line.
func lineText(src string, off int) string {
	const window = 200
	off = max(0, min(off, len(src)))
	lo := max(0, off-window)
	start := lo
	if i := strings.LastIndexByte(src[lo:off], '\n'); i >= 0 {
		start = lo + i + 1
	}
	hi := min(len(src), off+window)
	end := hi
	if i := strings.IndexByte(src[off:hi], '\n'); i >= 0 {
		end = off + i
	}
	if start == lo && lo > 0 { // cut inside the line: start on a whole character
		for start < off && !utf8.RuneStart(src[start]) {
			start++
		}
	}
	if end == hi && hi < len(src) {
		for end > off && !utf8.RuneStart(src[end]) {
			end--
		}
	}
	return tools.Clip(strings.TrimSpace(strings.TrimSuffix(src[start:end], "\r")), maxSignature)
}
