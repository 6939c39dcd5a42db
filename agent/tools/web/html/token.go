// Package html owns zut's hand-written HTML reading: a tokenizer that
// follows the WHATWG tokenization algorithm (it passes the html5lib
// tokenizer conformance tests), the decoding of a page's bytes to UTF-8
// (charset from the HTTP header, a byte order mark or <meta>), and the
// extraction of a page's readable text with its title and numbered links.
//
// Nothing here does I/O; every function works on bytes already in memory
// and is safe for concurrent use on distinct values. A Tokenizer is used by
// one goroutine at a time.
package html

import "strconv"

// TokenType is the kind of a Token.
type TokenType uint8

// The kinds of tokens. EOF ends the stream; Next keeps returning it.
const (
	EOF TokenType = iota
	Text
	StartTag
	EndTag
	Comment
	Doctype
)

func (t TokenType) String() string {
	switch t {
	case EOF:
		return "EOF"
	case Text:
		return "Text"
	case StartTag:
		return "StartTag"
	case EndTag:
		return "EndTag"
	case Comment:
		return "Comment"
	case Doctype:
		return "Doctype"
	}
	return "TokenType(" + strconv.Itoa(int(t)) + ")"
}

// Attr is one attribute of a tag. Name is lower case. The bytes are valid
// until the next call of Tokenizer.Next.
type Attr struct {
	Name, Value []byte
}

// Token is one token. All its byte slices point into the tokenizer's
// buffers and are valid until the next call of Tokenizer.Next; copy what
// must be kept.
type Token struct {
	Type TokenType
	// Data is the text of a Text token (character references decoded,
	// newlines normalised to "\n"), the lower-case name of a tag, the text
	// of a comment, or the name of a doctype.
	Data []byte
	// Attr holds a tag's attributes in source order; when a name repeats,
	// the first one is kept (a duplicate-attribute parse error).
	Attr []Attr
	// SelfClosing is set for a tag written with a final "/>".
	SelfClosing bool

	// The fields of a Doctype token. The Has fields tell an absent name
	// or identifier from an empty one.
	PublicID, SystemID                []byte
	HasName, HasPublicID, HasSystemID bool
	ForceQuirks                       bool
}

// AttrValue returns the value of the attribute name (lower case) and
// whether the tag has it.
func (t *Token) AttrValue(name string) ([]byte, bool) {
	for _, a := range t.Attr {
		if string(a.Name) == name {
			return a.Value, true
		}
	}
	return nil, false
}

// State is a tokenizer state a consumer may switch to, as an HTML tree
// builder does after some start tags (RCDATA after <title>, RAWTEXT after
// <style>, ScriptData after <script>, PLAINTEXT after <plaintext>).
type State uint8

// The states a tokenizer can be started in or switched to.
const (
	DataState State = iota
	RCDATAState
	RAWTEXTState
	ScriptDataState
	PLAINTEXTState
	CDATAState
)

// ParseError is one parse error of the WHATWG tokenizer, for example
// "eof-in-tag", at a byte offset of the input given to NewTokenizer.
// Offsets of errors met at the end of the input equal its length.
type ParseError struct {
	Code   string
	Offset int
}

func (e ParseError) Error() string {
	return "html: " + e.Code + " at byte " + strconv.Itoa(e.Offset)
}
