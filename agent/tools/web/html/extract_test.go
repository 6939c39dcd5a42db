package html

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// pageURL is where the test pages pretend to live.
var pageURL, _ = url.Parse("https://blog.example.com/posts/contexts/")

// showPage is the golden form of a decoded and extracted page.
func showPage(d Decoded, p *Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "charset: %s (%s)\n", d.Charset, d.Source)
	if d.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", d.Note)
	}
	fmt.Fprintf(&b, "title: %s\n\n%s\n\nlinks:\n", p.Title, p.Text)
	for i, l := range p.Links {
		fmt.Fprintf(&b, "[%d] %s <%s>\n", i+1, l.Text, l.URL)
	}
	return b.String()
}

func TestExtractGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no test pages: %v", err)
	}
	for _, path := range pages {
		name := strings.TrimSuffix(filepath.Base(path), ".html")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d := Decode(src, "", true)
			got := showPage(d, Extract(d.Text, pageURL))
			golden := strings.TrimSuffix(path, ".html") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Extract(%s) = \n%s\nwant (%s)\n%s", path, got, golden, want)
			}
		})
	}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name, src, want string
		links           []string // "text <url>"
	}{
		{"white space", "<p>  one\n\ttwo   three </p>", "one two three", nil},
		{"inline without spaces", "<p>foo<b>bar</b>baz <i>qux</i></p>", "foobarbaz qux", nil},
		{"line breaks", "<p>a<br>b<br><br>c</p>", "a\nb\n\nc", nil},
		{"paragraphs", "<p>a</p><p>b</p><div>c</div><div>d</div>", "a\n\nb\n\nc\nd", nil},
		{"hidden", `<p>shown</p><p hidden>no</p><div style="display:none">no</div><span aria-hidden="true">no</span>`, "shown", nil},
		{"scripts and styles", "<p>a<script>var x = '<p>no</p>';</script>b<style>p{}</style>c</p><noscript>enable js</noscript>", "abc", nil},
		{"form around the whole page", "<form id=aspnetForm><h1>Title</h1><p>" + strings.Repeat("word ", 20) + "</p></form><form><input>Search</form>",
			"# Title\n\n" + strings.TrimSpace(strings.Repeat("word ", 20)), nil},
		{"site header with the h1", "<header><h1>Post</h1></header><p>body text</p>", "# Post\n\nbody text", nil},
		{"site header without h1", "<header><a href=/>Home</a> menu</header><p>body text</p>", "body text", nil},
		{"main wins", "<div>side " + strings.Repeat("x ", 10) + "</div><main><p>" + strings.Repeat("main ", 10) + "</p></main>",
			strings.TrimSpace(strings.Repeat("main ", 10)), nil},
		{"tiny main loses", "<main>hi</main><div>" + strings.Repeat("body ", 40) + "</div>",
			"hi\n" + wrapWords(strings.Repeat("body ", 40)), nil},
		{"role main", `<div>menu</div><div role="main"><p>content here</p></div>`, "content here", nil},
		{"cookie banner", `<div class="cookie-banner">We use cookies</div><p>` + strings.Repeat("text ", 5) + `</p>`, strings.TrimSpace(strings.Repeat("text ", 5)), nil},
		{"links", `<p><a href="/a">A</a>, <a href="https://x.test/b#frag">B</a> and <a href="/a">A again</a></p>`,
			"[A][1], [B][2] and [A again][1]", []string{"A <https://blog.example.com/a>", "B <https://x.test/b#frag>"}},
		{"links that cannot be followed", `<a href="#top">top</a> <a href="javascript:void(0)">js</a> <a href="mailto:a@b.c">mail</a> <a href="/posts/contexts/#x">self</a> <a>none</a>`,
			"top js mail self none", nil},
		{"icon link", `<a href="/rss" aria-label="RSS feed"><svg></svg></a> <a href="/x"><img src=x.png></a>`, "[RSS feed][1]", []string{"RSS feed <https://blog.example.com/rss>"}},
		{"image link", `<a href="/big.png"><img alt="A chart" src=small.png></a> <img alt="Logo">`, "[A chart][1] (image: Logo)", []string{"A chart <https://blog.example.com/big.png>"}},
		{"base href", `<base href="https://cdn.test/docs/"><a href="page">p</a>`, "[p][1]", []string{"p <https://cdn.test/docs/page>"}},
		{"ordered list start", `<ol start="4"><li>d<li>e</ol>`, "4. d\n5. e", nil},
		{"nested lists", `<ul><li>a<ul><li>b<ol><li>c</ol></ul><li>d</ul>`, "- a\n  - b\n    1. c\n- d", nil},
		{"code fence", "<pre class=\"language-sh\">\n$ echo `x`\n\n  indented\n</pre>", "```sh\n$ echo `x`\n\n  indented\n```", nil},
		{"inline code", "<p>call <code>f(x)</code>, not <code>`g`</code></p>", "call `f(x)`, not `` `g` ``", nil},
		{"headings", "<h2>Two <small>small</small></h2><h6>Six</h6>text", "## Two small\n\n###### Six\n\ntext", nil},
		{"quote", "<p>before</p><blockquote><p>one</p><p>two</p></blockquote><p>after</p>", "before\n\n> one\n>\n> two\n\nafter", nil},
		{"table without header", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d|e</td></tr></table>", "| a | b |\n| c | d\\|e |", nil},
		{"one column table", "<table><tr><td>alone</td></tr><tr><td>again</td></tr></table>", "alone\nagain", nil},
		{"definition list", "<dl><dt>term</dt><dd>meaning</dd></dl>", "term\n  meaning", nil},
		{"unclosed title", "<title>" + strings.Repeat("t", 400), "", nil},
		{"wrapping", "<p>" + strings.Repeat("abcdefghi ", 25) + "</p>", wrapWords(strings.Repeat("abcdefghi ", 25)), nil},
		{"empty", "", "", nil},
		{"text only", "just text &amp; more", "just text & more", nil},
		{"nul bytes", "a\x00b<p\x00>c</p>", "abc", nil}, // <p\x00> is an element named "p\uFFFD"
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Extract([]byte(tc.src), pageURL)
			if p.Text != tc.want {
				t.Errorf("Extract(%q).Text =\n%s\nwant\n%s", tc.src, p.Text, tc.want)
			}
			var links []string
			for _, l := range p.Links {
				links = append(links, l.Text+" <"+l.URL+">")
			}
			if strings.Join(links, "\n") != strings.Join(tc.links, "\n") {
				t.Errorf("Extract(%q).Links = %q, want %q", tc.src, links, tc.links)
			}
		})
	}
}

// wrapWords wraps a line of words at Width the way the renderer does.
func wrapWords(s string) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(s) {
		switch {
		case col == 0:
		case col+1+len(w) > Width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

func TestExtractTitle(t *testing.T) {
	tests := []struct{ src, want string }{
		{"<title> A \n title </title><h1>H</h1>", "A title"},
		{"<h1>Heading <b>one</b></h1><h1>two</h1>", "Heading one"},
		{"<svg><title>icon</title></svg><p>x</p>", ""},
		{"<title>" + strings.Repeat("t", 400), strings.Repeat("t", maxTitle) + "…"},
	}
	for _, tc := range tests {
		if got := Extract([]byte(tc.src), nil).Title; got != tc.want {
			t.Errorf("Extract(%q).Title = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestExtractHostile checks that pathological pages are read in bounded
// time and depth.
func TestExtractHostile(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"deep nesting", strings.Repeat("<div><span>", 100000) + "deep" + strings.Repeat("</span></div>", 100000), "deep"},
		{"unclosed inline", strings.Repeat("<b>", 100000) + "bold", "bold"},
		{"stray end tags", strings.Repeat("</div></p></li>", 50000) + "x", "x"},
		{"many attributes", "<p " + manyAttrs(5000) + ">attrs</p>", "attrs"},
		{"endless table", "<table>" + strings.Repeat("<tr><td>c", 20000) + "</table>", strings.TrimSuffix(strings.Repeat("c\n", 20000), "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Extract([]byte(tc.src), nil).Text; got != tc.want {
				t.Errorf("Extract(%s) = %.80q, want %.80q", tc.name, got, tc.want)
			}
		})
	}
}

func manyAttrs(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "a%d=%d ", i%(n-10), i)
	}
	return b.String()
}
