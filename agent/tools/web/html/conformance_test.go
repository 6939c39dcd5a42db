package html

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The conformance test runs the html5lib tokenizer tests of the shared
// fixtures corpus: every input in every initial state, comparing the
// tokens and the parse errors (code, line and column). It runs when
// ZUT_CONFORMANCE_DIR names the corpus (.ci/run sets it).

type h5Test struct {
	Description   string            `json:"description"`
	Input         string            `json:"input"`
	Output        []json.RawMessage `json:"output"`
	InitialStates []string          `json:"initialStates"`
	LastStartTag  *string           `json:"lastStartTag"`
	Errors        []h5Error         `json:"errors"`
	DoubleEscaped bool              `json:"doubleEscaped"`
}

type h5Error struct {
	Code string `json:"code"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// h5Token is a token in the comparable shape of the html5lib tests.
type h5Token struct {
	Kind        string
	Name        string // tag or doctype name; comment or character data
	NoName      bool   // a doctype without a name
	Attrs       map[string]string
	SelfClosing bool
	Public      *string
	System      *string
	Correct     bool
}

var h5States = map[string]State{
	"Data state":          DataState,
	"PLAINTEXT state":     PLAINTEXTState,
	"RCDATA state":        RCDATAState,
	"RAWTEXT state":       RAWTEXTState,
	"Script data state":   ScriptDataState,
	"CDATA section state": CDATAState,
}

func TestHTML5LibTokenizer(t *testing.T) {
	root := os.Getenv("ZUT_CONFORMANCE_DIR")
	if root == "" {
		t.Skip("ZUT_CONFORMANCE_DIR is not set; .ci/run points it at the shared fixtures")
	}
	files, err := filepath.Glob(filepath.Join(root, "html5lib-tests", "tokenizer", "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no html5lib tokenizer tests under %s (err %v)", root, err)
	}
	runs, tokenPass, errorPass := 0, 0, 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string][]h5Test
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for group, tests := range doc {
			xml := group == "xmlViolationTests"
			for i, tc := range tests {
				states := tc.InitialStates
				if len(states) == 0 {
					states = []string{"Data state"}
				}
				for _, st := range states {
					runs++
					name := fmt.Sprintf("%s/%d/%s", filepath.Base(file), i, st)
					tp, ep := runH5(t, name, tc, st, xml)
					if tp {
						tokenPass++
					}
					if ep {
						errorPass++
					}
				}
			}
		}
	}
	t.Logf("html5lib tokenizer: %d runs; tokens match in %d, errors match in %d", runs, tokenPass, errorPass)
}

// runH5 runs one test in one initial state and reports whether the tokens
// and the errors matched.
func runH5(t *testing.T, name string, tc h5Test, st string, xml bool) (tokensOK, errorsOK bool) {
	input := tc.Input
	if tc.DoubleEscaped {
		input = unescapeH5(input)
	}
	want, err := h5Expected(tc.Output, tc.DoubleEscaped)
	if err != nil {
		t.Errorf("%s: bad expected output: %v", name, err)
		return false, false
	}
	state, ok := h5States[st]
	if !ok {
		t.Errorf("%s: unknown initial state %q", name, st)
		return false, false
	}
	z := NewTokenizer([]byte(input))
	z.RecordErrors()
	z.SetState(state)
	if tc.LastStartTag != nil {
		z.SetLastStartTag(*tc.LastStartTag)
	}
	var got []h5Token
	for steps := 0; ; steps++ {
		if steps > 10*len(input)+10 {
			t.Errorf("%s: tokenizer does not reach EOF", name)
			return false, false
		}
		tt := z.Next()
		if tt == EOF {
			break
		}
		got = appendH5(got, z.Token())
	}
	if xml {
		got = coerceXML(got)
	}
	tokensOK = reflect.DeepEqual(got, want)
	if !tokensOK {
		t.Errorf("%s %q: input %q\n got  %s\n want %s", name, tc.Description, input, showH5(got), showH5(want))
	}
	var gotErrs []h5Error
	for _, e := range z.Errors() {
		line, col := z.Position(e.Offset)
		gotErrs = append(gotErrs, h5Error{Code: e.Code, Line: line, Col: col})
	}
	wantErrs := tc.Errors
	errorsOK = len(gotErrs) == 0 && len(wantErrs) == 0 || reflect.DeepEqual(gotErrs, wantErrs)
	if xml {
		// The xmlViolation tests list no errors: they check the infoset
		// coercion of the tokens only.
		errorsOK = true
	}
	if !errorsOK {
		t.Errorf("%s %q: input %q\n got errors  %v\n want errors %v", name, tc.Description, input, gotErrs, wantErrs)
	}
	return tokensOK, errorsOK
}

// appendH5 adds a token, merging adjacent characters.
func appendH5(list []h5Token, tok *Token) []h5Token {
	switch tok.Type {
	case Text:
		if n := len(list); n > 0 && list[n-1].Kind == "Character" {
			list[n-1].Name += string(tok.Data)
			return list
		}
		return append(list, h5Token{Kind: "Character", Name: string(tok.Data)})
	case StartTag:
		h := h5Token{Kind: "StartTag", Name: string(tok.Data), Attrs: map[string]string{}, SelfClosing: tok.SelfClosing}
		for _, a := range tok.Attr {
			h.Attrs[string(a.Name)] = string(a.Value)
		}
		return append(list, h)
	case EndTag:
		return append(list, h5Token{Kind: "EndTag", Name: string(tok.Data)})
	case Comment:
		return append(list, h5Token{Kind: "Comment", Name: string(tok.Data)})
	case Doctype:
		h := h5Token{Kind: "DOCTYPE", Name: string(tok.Data), NoName: !tok.HasName, Correct: !tok.ForceQuirks}
		if tok.HasPublicID {
			s := string(tok.PublicID)
			h.Public = &s
		}
		if tok.HasSystemID {
			s := string(tok.SystemID)
			h.System = &s
		}
		return append(list, h)
	}
	return list
}

// h5Expected decodes the expected tokens of a test.
func h5Expected(out []json.RawMessage, double bool) ([]h5Token, error) {
	un := func(s string) string {
		if double {
			return unescapeH5(s)
		}
		return s
	}
	var list []h5Token
	for _, raw := range out {
		var a []any
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		if len(a) < 2 {
			return nil, fmt.Errorf("token %s is too short", raw)
		}
		kind, _ := a[0].(string)
		h := h5Token{Kind: kind}
		switch kind {
		case "Character":
			h.Name = un(a[1].(string))
			if n := len(list); n > 0 && list[n-1].Kind == "Character" {
				list[n-1].Name += h.Name
				continue
			}
		case "Comment", "EndTag":
			h.Name = un(a[1].(string))
		case "StartTag":
			h.Name = un(a[1].(string))
			h.Attrs = map[string]string{}
			if len(a) > 2 {
				for k, v := range a[2].(map[string]any) {
					h.Attrs[un(k)] = un(v.(string))
				}
			}
			if len(a) > 3 {
				h.SelfClosing, _ = a[3].(bool)
			}
		case "DOCTYPE":
			if a[1] == nil {
				h.NoName = true
			} else {
				h.Name = un(a[1].(string))
			}
			if s, ok := a[2].(string); ok {
				s = un(s)
				h.Public = &s
			}
			if s, ok := a[3].(string); ok {
				s = un(s)
				h.System = &s
			}
			h.Correct, _ = a[4].(bool)
		default:
			return nil, fmt.Errorf("unknown token kind %q", kind)
		}
		list = append(list, h)
	}
	return list, nil
}

// unescapeH5 decodes the \uHHHH escapes of a doubleEscaped test. A lone
// surrogate becomes its three-byte UTF-8 form, as the tokenizer reads
// surrogates.
func unescapeH5(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u' {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				r := rune(v)
				i += 6
				if r >= 0xD800 && r <= 0xDBFF && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if lo, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
						b.WriteRune((r-0xD800)<<10 + rune(lo) - 0xDC00 + 0x10000)
						i += 6
						continue
					}
				}
				if r >= 0xD800 && r <= 0xDFFF {
					b.Write([]byte{0xED, byte(0xA0 | (r>>6)&0x1F), byte(0x80 | r&0x3F)})
					continue
				}
				b.WriteRune(r)
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// coerceXML applies the tweaks of "coercing an HTML DOM into an infoset"
// that the xmlViolation tests expect.
func coerceXML(list []h5Token) []h5Token {
	for i := range list {
		switch list[i].Kind {
		case "Character":
			list[i].Name = strings.Map(func(r rune) rune {
				switch {
				case r == '\f':
					return ' '
				case r == 0xFFFE || r == 0xFFFF:
					return utf8.RuneError
				}
				return r
			}, list[i].Name)
		case "Comment":
			for strings.Contains(list[i].Name, "--") {
				list[i].Name = strings.ReplaceAll(list[i].Name, "--", "- -")
			}
		}
	}
	return list
}

func showH5(list []h5Token) string {
	var parts []string
	for _, h := range list {
		s := fmt.Sprintf("[%s %q", h.Kind, h.Name)
		if h.Kind == "StartTag" {
			s += fmt.Sprintf(" %q", h.Attrs)
			if h.SelfClosing {
				s += " selfclosing"
			}
		}
		if h.Kind == "DOCTYPE" {
			show := func(p *string) string {
				if p == nil {
					return "null"
				}
				return strconv.Quote(*p)
			}
			s += fmt.Sprintf(" noname=%v %s %s correct=%v", h.NoName, show(h.Public), show(h.System), h.Correct)
		}
		parts = append(parts, s+"]")
	}
	return strings.Join(parts, " ")
}
