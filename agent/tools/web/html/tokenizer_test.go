package html

import (
	"fmt"
	"strings"
	"testing"
)

// tokens renders the token stream of src compactly.
func tokens(z *Tokenizer) string {
	var parts []string
	for z.Next() != EOF {
		tok := z.Token()
		s := fmt.Sprintf("%s(%q", tok.Type, tok.Data)
		for _, a := range tok.Attr {
			s += fmt.Sprintf(" %s=%q", a.Name, a.Value)
		}
		if tok.SelfClosing {
			s += " /"
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, " ")
}

func TestTokenizer(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"tags and text", `<P Class=x>Hi &amp; bye</P>`, `StartTag("p" class="x") Text("Hi & bye") EndTag("p")`},
		{"crlf", "a\r\nb\rc", `Text("a\nb\nc")`},
		{"attribute entity rule", `<a href="?a=1&copy=2&amp;b&copy">`, `StartTag("a" href="?a=1&copy=2&b©")`},
		{"self-closing", `<br/><img src=x />`, `StartTag("br" /) StartTag("img" src="x" /)`},
		{"comment and doctype", `<!DOCTYPE html><!-- c -->x`, `Doctype("html") Comment(" c ") Text("x")`},
		{"bogus comment", `<?xml version="1.0"?>x`, `Comment("?xml version=\"1.0\"?") Text("x")`},
		{"script is data without SetState", `<script>a<b</script>`, `StartTag("script") Text("a") StartTag("b<" script="")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tokens(NewTokenizer([]byte(tc.src))); got != tc.want {
				t.Errorf("tokens(%q) =\n %s\nwant\n %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestTokenizerSetState(t *testing.T) {
	z := NewTokenizer([]byte(`<script>if (a<b) x = "</p>";</script><p>after`))
	var got []string
	for z.Next() != EOF {
		tok := z.Token()
		got = append(got, tok.Type.String()+":"+string(tok.Data))
		if tok.Type == StartTag && string(tok.Data) == "script" {
			z.SetState(ScriptDataState)
		}
	}
	want := `StartTag:script Text:if (a<b) x = "</p>"; EndTag:script StartTag:p Text:after`
	if strings.Join(got, " ") != want {
		t.Errorf("tokens = %s, want %s", strings.Join(got, " "), want)
	}
}

// TestDuplicateAttributes covers the map the tokenizer switches to for
// tags with many attributes.
func TestDuplicateAttributes(t *testing.T) {
	for _, n := range []int{3, 15, 16, 17, 40} {
		var b strings.Builder
		b.WriteString("<x")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, " a%d=%d", i, i)
		}
		fmt.Fprintf(&b, " a%d=dup a%d=dup>", n-1, 0)
		z := NewTokenizer([]byte(b.String()))
		z.RecordErrors()
		z.Next()
		tok := z.Token()
		if len(tok.Attr) != n {
			t.Errorf("%d attributes and 2 duplicates: got %d attributes", n, len(tok.Attr))
		}
		if v, _ := tok.AttrValue("a0"); string(v) != "0" {
			t.Errorf("%d attributes: a0 = %q, want the first value 0", n, v)
		}
		if errs := z.Errors(); len(errs) != 2 || errs[0].Code != "duplicate-attribute" {
			t.Errorf("%d attributes: errors %v, want 2 duplicate-attribute", n, errs)
		}
	}
}

// TestTokenizerPrefixes tokenizes every prefix of the test pages: each
// must end, and the text tokens must hold no more bytes than the input
// (a guard against loops that re-emit).
func TestTokenizerPrefixes(t *testing.T) {
	src := []byte(`<!DOCTYPE html><p class="a&amp;b" id=x>t&eacute;xt &#x41;&#65<!-- c --><![CDATA[x]]>` +
		`<script><!--<script>x</script>--></script><title>a</title><textarea>&lt;</textarea>` +
		`<svg><![CDATA[y]]></svg></p><!DOCTYPE html PUBLIC "a" 'b'>`)
	for _, foreign := range []bool{false, true} {
		for n := 0; n <= len(src); n++ {
			z := NewTokenizer(src[:n])
			z.RecordErrors()
			z.SetForeign(foreign)
			total := 0
			for steps := 0; z.Next() != EOF; steps++ {
				if steps > n+1 {
					t.Fatalf("prefix %q: no EOF after %d tokens", src[:n], steps)
				}
				if tok := z.Token(); tok.Type == Text {
					total += len(tok.Data)
				}
			}
			if total > 3*n {
				t.Fatalf("prefix %q: %d bytes of text", src[:n], total)
			}
			for _, e := range z.Errors() {
				if e.Offset < 0 || e.Offset > n {
					t.Fatalf("prefix %q: error %v outside the input", src[:n], e)
				}
			}
		}
	}
}
